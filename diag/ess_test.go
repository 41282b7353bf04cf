package diag

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

type chainStat func([][]float64) (float64, error)

// Broken ESS variants; each must fail the check that the real one passes.

// essIgnoringAutocorrelation treats the draws as independent.
func essIgnoringAutocorrelation(chains [][]float64) (float64, error) {
	return float64(len(chains) * len(chains[0])), nil
}

// essUntruncated sums the autocorrelation estimates over all lags instead of
// stopping Geyer's sequence at its first negative pair.
func essUntruncated(chains [][]float64) (float64, error) {
	tau := 0.0
	for _, x := range chains {
		rho, err := Autocorrelation(nil, x)
		if err != nil {
			return 0, err
		}
		s := -1.0
		for _, r := range rho {
			s += 2 * r
		}
		tau += s / float64(len(chains))
	}
	return float64(len(chains)*len(chains[0])) / tau, nil
}

// essWithinOnly adds up the ESS of each chain on its own, so that chains
// stuck in different places look like independent evidence.
func essWithinOnly(chains [][]float64) (float64, error) {
	sum := 0.0
	for _, x := range chains {
		e, err := ESS([][]float64{x})
		if err != nil {
			return 0, err
		}
		sum += e
	}
	return sum, nil
}

// checkMeanRatio runs stat on reps independent sets of AR(1) chains and
// checks that the mean of stat/want is 1 within 4 standard errors of that
// mean plus slack (a few percent of estimator bias at these lengths, τ/N
// and Geyer's truncation). It also requires the spread of the ratio over
// runs to stay below 0.25: at these sizes Stan's estimators scatter by less
// than 0.1, and an erratic estimator must not pass on the width of its own
// scatter.
func checkMeanRatio(stat chainStat, want func(chains [][]float64) float64, reps, m, n int, rho, slack float64, seed uint64) error {
	ratios := make([]float64, reps)
	for r := range ratios {
		chains := ar1(newRand(seed+uint64(r)), m, n, rho)
		v, err := stat(chains)
		if err != nil {
			return err
		}
		ratios[r] = v / want(chains)
	}
	mean, sd := meanStdDev(ratios)
	if !(sd < 0.25) {
		return fmt.Errorf("ρ = %v: ratios to the known answer scatter with sd %.4g over %d runs", rho, sd, reps)
	}
	// Written so that a NaN mean fails.
	if tol := 4*sd/math.Sqrt(float64(reps)) + slack; !(math.Abs(mean-1) <= tol) {
		return fmt.Errorf("ρ = %v: mean ratio to the known answer %.4f (sd %.4f over %d runs), tolerance %.4f", rho, mean, sd, reps, tol)
	}
	return nil
}

func meanStdDev(x []float64) (float64, float64) {
	m, s := stat.MeanStdDev(x, nil)
	return m, s
}

// checkAR1ESS compares an ESS estimator with the analytic
// M·N·(1−ρ)/(1+ρ) of AR(1) chains.
func checkAR1ESS(ess chainStat, rho float64) error {
	const reps, m, n = 8, 4, 5000
	want := func([][]float64) float64 { return ar1ESS(m, n, rho) }
	return checkMeanRatio(ess, want, reps, m, n, rho, 0.02, 100)
}

func TestESSAR1(t *testing.T) {
	for _, rho := range []float64{0, -0.5, 0.5, 0.9} {
		for _, e := range []struct {
			name string
			f    chainStat
		}{{"ESS", ESS}, {"BulkESS", BulkESS}} {
			if err := checkAR1ESS(e.f, rho); err != nil {
				t.Errorf("%s: %v", e.name, err)
			}
		}
		if rho == 0 {
			// Independent draws: ESS ≈ N, and the untruncated sum of
			// autocorrelations, which the check rejects, is far off.
			if err := checkAR1ESS(essUntruncated, rho); err == nil {
				t.Errorf("ρ = 0: the untruncated ESS passes the check")
			}
			continue
		}
		if err := checkAR1ESS(essIgnoringAutocorrelation, rho); err == nil {
			t.Errorf("ρ = %v: the ESS that ignores autocorrelation passes the check", rho)
		}
	}
}

// indicatorESSFraction returns 1/τ for the indicator I(x ≤ Φ⁻¹(p)) of the
// stationary Gaussian AR(1) chain with coefficient ρ. Its autocorrelation
// at lag t is (Φ₂(q, q; ρᵗ) − p²)/(p(1−p)), and by Plackett's identity
// ∂Φ₂(q, q; r)/∂r = φ₂(q, q; r) = exp(−q²/(1+r))/(2π√(1−r²)), so
// Φ₂(q, q; r) − p² = ∫₀^r φ₂(q, q; s) ds, integrated by Gauss–Legendre.
func indicatorESSFraction(p, rho float64) float64 {
	q := distuv.UnitNormal.Quantile(p)
	f := func(s float64) float64 { return math.Exp(-q*q/(1+s)) / (2 * math.Pi * math.Sqrt(1-s*s)) }
	tau := 1.0
	for r := rho; math.Abs(r) > 1e-15; r *= rho {
		lo, hi, sign := 0.0, r, 1.0
		if r < 0 {
			lo, hi, sign = r, 0, -1
		}
		tau += 2 * sign * quad.Fixed(f, lo, hi, 64, nil, 0) / (p * (1 - p))
	}
	return 1 / tau
}

// checkQuantileESS compares an estimator of the ESS of the p-quantile
// indicator with its analytic value for AR(1) chains.
func checkQuantileESS(ess chainStat, p, rho float64) error {
	const reps, m, n = 8, 4, 5000
	want := func([][]float64) float64 { return float64(m*n) * indicatorESSFraction(p, rho) }
	return checkMeanRatio(ess, want, reps, m, n, rho, 0.03, 200)
}

func TestTailESSAR1(t *testing.T) {
	for _, rho := range []float64{0.5, 0.9} {
		for _, p := range []float64{0.05, 0.95} {
			qess := func(chains [][]float64) (float64, error) {
				var sc scratch
				return sc.quantileESS(chains, sc.sortedDraws(chains), p), nil
			}
			if err := checkQuantileESS(qess, p, rho); err != nil {
				t.Errorf("p = %v: %v", p, err)
			}
			// The ESS of the draws themselves (the mean's ESS) is not the
			// ESS of a tail quantile, and the check tells them apart.
			if err := checkQuantileESS(ESS, p, rho); err == nil {
				t.Errorf("p = %v, ρ = %v: the mean's ESS passes the tail check", p, rho)
			}
		}
	}
	// TailESS is the smaller of the two.
	chains := ar1(newRand(5), 4, 1000, 0.7)
	var sc scratch
	s := sc.sortedDraws(chains)
	got, _ := TailESS(chains)
	if want := math.Min(sc.quantileESS(chains, s, 0.05), sc.quantileESS(chains, s, 0.95)); got != want {
		t.Errorf("TailESS = %v, min of the quantile ESS = %v", got, want)
	}
}

func TestMCSEAR1(t *testing.T) {
	const reps, m, n, rho = 8, 4, 5000, 0.9
	// The M chains are independent: SE of the pooled mean = SE_N/√M.
	want := func([][]float64) float64 { return ar1MeanSE(n, rho) / math.Sqrt(m) }
	if err := checkMeanRatio(MCSE, want, reps, m, n, rho, 0.02, 300); err != nil {
		t.Error(err)
	}
	naive := func(chains [][]float64) (float64, error) {
		flat := flatten(nil, chains)
		return stat.StdDev(flat, nil) / math.Sqrt(float64(len(flat))), nil
	}
	if err := checkMeanRatio(naive, want, reps, m, n, rho, 0.02, 300); err == nil {
		t.Error("the naive standard error sd/√S passes the MCSE check")
	}
}

// TestESSBetweenChains: chains stuck around different values carry little
// information about the mean, and Stan's ESS (through var⁺) says so.
func TestESSBetweenChains(t *testing.T) {
	check := func(ess chainStat) error {
		chains := ar1(newRand(6), 4, 5000, 0)
		for i := range chains[3] {
			chains[3][i] += 3
		}
		e, err := ess(chains)
		if err != nil {
			return err
		}
		if !(e <= 0.1*20000) {
			return fmt.Errorf("ESS %v of 20000 draws from chains that disagree", e)
		}
		return nil
	}
	if err := check(ESS); err != nil {
		t.Error(err)
	}
	if err := check(BulkESS); err != nil {
		t.Error(err)
	}
	if err := check(essWithinOnly); err == nil {
		t.Error("the within-chain-only ESS passes the check")
	}
}

// TestRankInvariance: bulk-ESS and R̂ depend on the draws only through
// their ranks, so a monotone transformation leaves them unchanged, while the
// ESS of the raw draws changes.
func TestRankInvariance(t *testing.T) {
	chains := ar1(newRand(8), 4, 2000, 0.6)
	chains[2][7] = chains[1][9] // a tie across chains
	exp := make([][]float64, len(chains))
	for c, x := range chains {
		for _, v := range x {
			exp[c] = append(exp[c], math.Exp(v))
		}
	}
	for _, f := range []struct {
		name string
		f    chainStat
	}{{"BulkESS", BulkESS}, {"RHat", RHat}, {"TailESS", TailESS}} {
		a, _ := f.f(chains)
		b, _ := f.f(exp)
		if a != b {
			t.Errorf("%s changes under exp: %v vs %v", f.name, a, b)
		}
	}
	a, _ := ESS(chains)
	b, _ := ESS(exp)
	if a == b {
		t.Errorf("ESS unchanged under exp (%v): the invariance check is vacuous", a)
	}
}

// Broken R̂ variants.

// rhatWithinOnly drops the between-chain term: √((N−1)/N).
func rhatWithinOnly(chains [][]float64) (float64, error) {
	n := float64(len(chains[0]) / 2)
	return math.Sqrt((n - 1) / n), nil
}

// rhatUnsplit is the classic R̂ on whole chains.
func rhatUnsplit(chains [][]float64) (float64, error) {
	var sc scratch
	return sc.rhatSplit(chains), nil
}

// rhatBulkOnly leaves out the folded (tail) R̂.
func rhatBulkOnly(chains [][]float64) (float64, error) {
	var sc scratch
	return sc.rhatSplit(sc.rankNormalize(sc.split(chains))), nil
}

// rhatNoOverN forgets to divide B by N.
func rhatNoOverN(chains [][]float64) (float64, error) {
	var sc scratch
	h := sc.split(chains)
	n := float64(len(h[0]))
	means := make([]float64, len(h))
	w := 0.0
	for c, x := range h {
		var v float64
		means[c], v = stat.MeanVariance(x, nil)
		w += v / float64(len(h))
	}
	b := n * stat.Variance(means, nil)
	return math.Sqrt(((n-1)/n*w + b) / w), nil
}

func TestRHatIID(t *testing.T) {
	check := func(rhat chainStat) error {
		for seed := range uint64(4) {
			r, err := rhat(ar1(newRand(400+seed), 4, 5000, 0))
			if err != nil {
				return err
			}
			// For converged chains R̂ − 1 = O(1/N).
			if !(math.Abs(r-1) <= 0.005) {
				return fmt.Errorf("R̂ = %v for independent draws", r)
			}
		}
		return nil
	}
	for _, f := range []chainStat{RHat, SplitRHat} {
		if err := check(f); err != nil {
			t.Error(err)
		}
	}
	if err := check(rhatNoOverN); err == nil {
		t.Error("R̂ with B not divided by N passes the check")
	}
}

func TestRHatShiftedMeans(t *testing.T) {
	chains := ar1(newRand(9), 4, 5000, 0)
	for i := range chains[3] {
		chains[3][i] += 3
	}
	// Known answer: 8 half-chains, 6 with mean 0 and 2 with mean 3, so
	// var_m(x̄_m) = (6·0.75² + 2·2.25²)/7 = 13.5/7; W = 1;
	// R̂ = √((N−1)/N + 13.5/7) with N = 2500.
	want := math.Sqrt(2499.0/2500 + 13.5/7)
	check := func(rhat chainStat) error {
		r, err := rhat(chains)
		if err != nil {
			return err
		}
		if !(math.Abs(r-want) <= 0.03) {
			return fmt.Errorf("split-R̂ = %v, want %v", r, want)
		}
		return nil
	}
	if err := check(SplitRHat); err != nil {
		t.Error(err)
	}
	if err := check(rhatWithinOnly); err == nil {
		t.Error("R̂ without the between-chain term passes the check")
	}
	if r, _ := RHat(chains); !(r > 1.1) {
		t.Errorf("rank-normalised R̂ = %v for chains 3 sd apart", r)
	}
}

func TestRHatDrift(t *testing.T) {
	// Every chain drifts linearly by 3 over its N = 5000 draws: the chains
	// agree with each other but not with themselves. Known answer: halves
	// differ in mean by 1.5, so var_m(x̄_m) = 8·0.75²/7 = 4.5/7; within a
	// half the trend adds (3/N)²((N/2)²−1)/12 ≈ 0.1875 to the unit noise.
	const n = 5000
	chains := ar1(newRand(10), 4, n, 0)
	for _, x := range chains {
		for i := range x {
			x[i] += 3 * float64(i) / n
		}
	}
	w := 1 + (3.0/n)*(3.0/n)*(n*n/4-1)/12
	want := math.Sqrt((2499.0/2500*w + 4.5/7) / w)
	check := func(rhat chainStat) error {
		r, err := rhat(chains)
		if err != nil {
			return err
		}
		if !(math.Abs(r-want) <= 0.02) {
			return fmt.Errorf("R̂ = %v, want %v", r, want)
		}
		return nil
	}
	if err := check(SplitRHat); err != nil {
		t.Error(err)
	}
	if err := check(rhatUnsplit); err == nil {
		t.Error("R̂ on unsplit chains passes the drift check")
	}
	if r, _ := RHat(chains); !(r > 1.1) {
		t.Errorf("rank-normalised R̂ = %v for drifting chains", r)
	}
}

func TestRHatScale(t *testing.T) {
	// Same location, one chain three times wider: only the folded R̂ sees it.
	chains := ar1(newRand(12), 4, 5000, 0)
	for i := range chains[3] {
		chains[3][i] *= 3
	}
	check := func(rhat chainStat) error {
		r, err := rhat(chains)
		if err != nil {
			return err
		}
		if !(r > 1.05) {
			return fmt.Errorf("R̂ = %v for chains of different scales", r)
		}
		return nil
	}
	if err := check(RHat); err != nil {
		t.Error(err)
	}
	if err := check(rhatBulkOnly); err == nil {
		t.Error("the bulk R̂ alone passes the scale check")
	}
	if err := check(SplitRHat); err == nil {
		t.Error("the classic split-R̂ passes the scale check")
	}
}

func TestConstantChains(t *testing.T) {
	same := [][]float64{{2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2}}
	for _, f := range []struct {
		name string
		f    chainStat
	}{{"ESS", ESS}, {"BulkESS", BulkESS}, {"TailESS", TailESS}, {"RHat", RHat}, {"SplitRHat", SplitRHat}, {"MCSE", MCSE}} {
		v, err := f.f(same)
		if err != nil || !math.IsNaN(v) {
			t.Errorf("%s of identical draws = %v, %v; want NaN", f.name, v, err)
		}
	}
	stuck := [][]float64{{1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}}
	for _, f := range []struct {
		name string
		f    chainStat
	}{{"RHat", RHat}, {"SplitRHat", SplitRHat}} {
		if v, err := f.f(stuck); err != nil || !math.IsInf(v, 1) {
			t.Errorf("%s of chains stuck at different values = %v, %v; want +Inf", f.name, v, err)
		}
	}
	if v, _ := ESS(stuck); !(v < 12) {
		t.Errorf("ESS of chains stuck at different values = %v", v)
	}
}

func TestChainErrors(t *testing.T) {
	all := []struct {
		name string
		f    chainStat
		min  int
	}{
		{"ESS", ESS, 6}, {"BulkESS", BulkESS, 6}, {"TailESS", TailESS, 6}, {"MCSE", MCSE, 6},
		{"RHat", RHat, 4}, {"SplitRHat", SplitRHat, 4},
		{"Summarize", func(c [][]float64) (float64, error) { s, err := Summarize(c); return s.ESS, err }, 6},
	}
	for _, f := range all {
		short := [][]float64{make([]float64, f.min-1), make([]float64, f.min-1)}
		for _, tc := range []struct {
			chains [][]float64
			want   string
		}{
			{nil, "no chains"},
			{[][]float64{{1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5, 6}}, "chain 1 has 6 draws, chain 0 has 7"},
			{short, fmt.Sprintf("needs at least %d draws", f.min)},
			{[][]float64{{1, 2, 3, 4, 5, 6}, {1, 2, math.NaN(), 4, 5, 6}}, "chain 1, draw 2 is NaN"},
			{[][]float64{{1, 2, 3, math.Inf(1), 5, 6}, {1, 2, 3, 4, 5, 6}}, "chain 0, draw 3 is +Inf"},
		} {
			if _, err := f.f(tc.chains); err == nil || !strings.HasPrefix(err.Error(), "diag: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want %q", f.name, err, tc.want)
			}
		}
		ok := [][]float64{make([]float64, f.min), make([]float64, f.min)}
		ok[0][0] = 1
		if _, err := f.f(ok); err != nil {
			t.Errorf("%s with %d draws: %v", f.name, f.min, err)
		}
	}
}
