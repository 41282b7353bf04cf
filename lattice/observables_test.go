package lattice

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/samplers"

	"github.com/pgibbs/pgibbs/chain"
)

// exactObservables returns the Observables' exact values on the tiny
// lattice p by enumeration: every state measured by a Measurer (E, M, M2,
// SK), weighted by exactPi (π from pair sums over minimal-image distances,
// not from the lattice's offsets), and the formulas of Observables
// written out again here.
func exactObservables(t *testing.T, p Params) map[string]float64 {
	t.Helper()
	l := mustNew(t, p)
	pi := exactPi(p)
	m, err := NewMeasurer(l, nil, ExactEnergy)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, l.Sites())
	for s := range pi {
		decodeState(s, p.Spin.States, x)
		m.Measure(x)
	}
	ser := m.Series()
	var absM, abs, m2, m4, e, e2, sk float64
	for s, w := range pi {
		absM += w * ser.M[s]
		abs += w * math.Sqrt(ser.M2[s])
		m2 += w * ser.M2[s]
		m4 += w * ser.M2[s] * ser.M2[s]
		e += w * ser.E[s]
		e2 += w * ser.E[s] * ser.E[s]
		sk += w * ser.SK[s]
	}
	n, b := float64(l.Sites()), p.Beta
	return map[string]float64{
		"|m|": absM, "m²": m2, "m⁴": m4, "e": e,
		"χ":  b * n * (m2 - abs*abs),
		"χ'": b * n * m2,
		"C":  b * b * n * (e2 - e*e),
		"U":  1 - m4/(3*m2*m2),
		"ξ":  math.Sqrt(n*m2/sk-1) / (2 * math.Sin(math.Pi/float64(p.Size))),
	}
}

// named returns the Observables' estimates by the names of
// exactObservables.
func named(o Observables) map[string]diag.Estimate {
	return map[string]diag.Estimate{"|m|": o.AbsM, "m²": o.M2, "m⁴": o.M4, "e": o.Energy, "χ": o.Chi,
		"χ'": o.ChiDisconnected, "C": o.SpecificHeat, "U": o.Binder, "ξ": o.Xi}
}

// swSeries runs a Swendsen–Wang chain on l through chain.Chain, burn
// sweeps then sweeps measured ones, and returns its Series.
func swSeries(t *testing.T, l *Lattice, sweeps, burn int64, seed uint64) Series {
	t.Helper()
	sw, err := cluster.NewSwendsenWang(l, rand.New(rand.NewPCG(seed, 0xf55)), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeasurer(l, nil, ExactEnergy)
	if err != nil {
		t.Fatal(err)
	}
	c := &chain.Chain{Kernel: sw, Burn: burn, Observers: []chain.Observer{m}}
	if err := c.Advance(context.Background(), burn+sweeps); err != nil {
		t.Fatal(err)
	}
	if err := sw.Err(); err != nil {
		t.Fatal(err)
	}
	return m.Series()
}

// worstZ returns the largest |estimate − exact|/Err over the observables,
// with its name; it fails the test on an error that is not finite and
// positive.
func worstZ(t *testing.T, est map[string]diag.Estimate, exact map[string]float64) (float64, string) {
	t.Helper()
	worst, where := 0.0, ""
	for name, want := range exact {
		e := est[name]
		if !(e.Err > 0) || math.IsInf(e.Err, 0) || !(e.Tau > 0) {
			t.Errorf("%s: %+v: error and τ must be finite and positive", name, e)
			continue
		}
		if z := math.Abs(e.Mean-want) / e.Err; z > worst || math.IsNaN(z) {
			worst, where = z, fmt.Sprintf("%s = %.5g ± %.2g (τ %.2g), exact %.5g", name, e.Mean, e.Err, e.Tau, want)
		}
	}
	return worst, where
}

// TestObservablesExact: on 3×3 tori, a 2-D Ising model at β = 0.35 and a
// 3-state Potts model at β = 0.9 (512 and 19 683 states, every observable
// enumerated exactly), Swendsen–Wang chains of unequal lengths pooled by
// ComputeObservables give every observable within 4 jackknife errors of
// its exact value.
func TestObservablesExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
	}{
		{"ising", Params{Dim: 2, Size: 3, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.35}},
		{"potts3", Params{Dim: 2, Size: 3, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := mustNew(t, tc.p)
			exact := exactObservables(t, tc.p)
			a := swSeries(t, l, 12000, 100, 1)
			b := swSeries(t, l, 7000, 100, 2)
			o, err := l.Observables(a, b)
			if err != nil {
				t.Fatal(err)
			}
			if o.Measurements != 19000 || o.Chains != 2 || o.Blocks < 32 || o.Block < 1 || o.Beta != tc.p.Beta || o.Sites != 9 || o.Side != 3 {
				t.Errorf("%+v", o)
			}
			z, where := worstZ(t, named(o), exact)
			t.Logf("%s: worst %.2fσ: %s (%d blocks of %d)", tc.name, z, where, o.Blocks, o.Block)
			if z > 4 {
				t.Errorf("%s: %s is %.1f errors off", tc.name, where, z)
			}
		})
	}
}

// TestObservablesCatchBroken: the comparison of TestObservablesExact
// rejects the two classic mistakes. (a) The connected susceptibility from
// the signed magnetisation, βn(⟨m²⟩ − ⟨m⟩²): on a finite torus ⟨m⟩ = 0 by
// symmetry, so it is χ' and not χ, and it must sit many errors from the
// exact χ (the same jackknife, the same chains). (b) Errors that ignore
// autocorrelation: a heat-bath chain on the 3×3 Ising torus measured after
// every single-site update (τ of tens of measurements): over 16 chains
// and the 9 observables, the deviations from the exact values over the
// blocked jackknife errors have a root mean square near 1, and over the
// errors from blocks of one measurement (naive errors, the same series)
// several times more.
func TestObservablesCatchBroken(t *testing.T) {
	p := Params{Dim: 2, Size: 3, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.35}
	l := mustNew(t, p)
	exact := exactObservables(t, p)

	t.Run("signed-m", func(t *testing.T) {
		sw, err := cluster.NewSwendsenWang(l, rand.New(rand.NewPCG(3, 4)), nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMeasurer(l, nil, ExactEnergy)
		if err != nil {
			t.Fatal(err)
		}
		var signed []float64
		for k := range 10100 {
			sw.Sweep()
			if k >= 100 {
				x := sw.State()
				m.Measure(x)
				s := 0.0
				for _, v := range x {
					s += 2*v - 1
				}
				signed = append(signed, s/float64(len(x)))
			}
		}
		ser := m.Series()
		s, err := newSample(p.Beta, 9, 3, []Series{{E: ser.E, M: signed, M2: ser.M2, SK: ser.SK}})
		if err != nil {
			t.Fatal(err)
		}
		n := float64(l.Sites())
		ests, _ := s.estimates(p.Beta, []func(*moments) float64{
			func(mu *moments) float64 { return p.Beta * n * (mu[qM2] - mu[qAbs]*mu[qAbs]) }, // χ
			func(mu *moments) float64 { return p.Beta * n * (mu[qM2] - mu[qM]*mu[qM]) },     // broken: signed ⟨m⟩
		}, true)
		good, broken := ests[0], ests[1]
		zGood, zBroken := math.Abs(good.Mean-exact["χ"])/good.Err, math.Abs(broken.Mean-exact["χ"])/broken.Err
		t.Logf("χ exact %.5g; with ⟨|m|⟩ %.5g ± %.2g (%.1fσ); with signed ⟨m⟩ %.5g ± %.2g (%.1fσ)",
			exact["χ"], good.Mean, good.Err, zGood, broken.Mean, broken.Err, zBroken)
		if zGood > 4 {
			t.Errorf("χ with ⟨|m|⟩ is %.1fσ off", zGood)
		}
		if zBroken < 10 {
			t.Errorf("χ with the signed ⟨m⟩ is only %.1fσ off: the check cannot tell it from χ", zBroken)
		}
	})

	t.Run("naive-errors", func(t *testing.T) {
		const chains = 16
		var ssBlocked, ssNaive float64
		var tau float64
		cells := 0
		for c := range chains {
			s, err := samplers.New("gibbs", l, rand.New(rand.NewPCG(5, uint64(c))), nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMeasurer(l, nil, ExactEnergy)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 16_000 {
				s.Step()
				if k >= 1000 {
					m.Measure(s.State())
				}
			}
			o, err := l.Observables(m.Series())
			if err != nil {
				t.Fatal(err)
			}
			sm, err := newSample(p.Beta, 9, 3, []Series{m.Series()})
			if err != nil {
				t.Fatal(err)
			}
			sm.naive = true
			naive := sm.observe(p.Beta, true)
			if naive.Block != 1 || naive.M2.Tau != 1 && math.Abs(naive.M2.Tau-1) > 1e-6 {
				t.Errorf("naive: block %d, τ(m²) %v", naive.Block, naive.M2.Tau)
			}
			blocked, nv := named(o), named(naive)
			for name, want := range exact {
				zb := (blocked[name].Mean - want) / blocked[name].Err
				zn := (nv[name].Mean - want) / nv[name].Err
				ssBlocked += zb * zb
				ssNaive += zn * zn
				cells++
			}
			tau += o.M2.Tau / chains
		}
		rmsBlocked, rmsNaive := math.Sqrt(ssBlocked/float64(cells)), math.Sqrt(ssNaive/float64(cells))
		t.Logf("%d heat-bath chains of 15 000 single-site updates, τ(m²) ≈ %.0f updates: rms deviation over error %.2f blocked, %.2f naive",
			chains, tau, rmsBlocked, rmsNaive)
		if rmsBlocked > 1.4 {
			t.Errorf("blocked errors: rms z %.2f, want about 1", rmsBlocked)
		}
		if rmsNaive < 2.5 {
			t.Errorf("naive errors: rms z only %.2f: the check does not catch errors that ignore τ ≈ %.0f", rmsNaive, tau)
		}
	})
}

// gaussianSeries returns a chain of k iid measurements: m ~ N(0, σm²) (M =
// |m|, M2 = m²), E ~ N(e0, σe²), SK ~ exponential with mean sk.
func gaussianSeries(r *rand.Rand, k int, sm, e0, se, sk float64) Series {
	var s Series
	for range k {
		m := sm * r.NormFloat64()
		s.M = append(s.M, math.Abs(m))
		s.M2 = append(s.M2, m*m)
		s.E = append(s.E, e0+se*r.NormFloat64())
		s.SK = append(s.SK, sk*r.ExpFloat64())
	}
	return s
}

// TestObservablesJackknifeIID checks the errors on synthetic iid series
// (three chains of unequal lengths) against the textbook ones computed
// directly on the same data — the standard error of a mean, of a sample
// variance √((μ₄ − σ⁴)/N), and the delta method for χ and U (the standard
// deviation of the linearised series over √N) — within 15% (the jackknife
// over at most 256 blocks estimates an error to about 5%), with τ near 1;
// and calibrates them: over 300 replicas of 2000 measurements, the root
// mean square of the errors is within 15% of the estimates' standard
// deviation, and their mean within 4 standard errors of the exact value.
// (Not the rms of deviation/error: U's fourth moments are heavy-tailed,
// which makes that 1.08 even for an exact error, over 2000 replicas.)
func TestObservablesJackknifeIID(t *testing.T) {
	const (
		beta, sites, side = 0.5, 64, 8
		sm, e0, se, sk    = 0.3, -1.2, 0.05, 0.5
	)
	r := rand.New(rand.NewPCG(7, 8))
	chains := []Series{gaussianSeries(r, 3000, sm, e0, se, sk), gaussianSeries(r, 5000, sm, e0, se, sk), gaussianSeries(r, 1700, sm, e0, se, sk)}
	o, err := ComputeObservables(beta, sites, side, chains...)
	if err != nil {
		t.Fatal(err)
	}
	var m, m2, m4, e []float64
	for _, c := range chains {
		m, m2, e = append(m, c.M...), append(m2, c.M2...), append(e, c.E...)
	}
	for _, v := range m2 {
		m4 = append(m4, v*v)
	}
	n := float64(len(m))
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	seOf := func(x []float64) float64 { // sd/√N
		mu, s := mean(x), 0.0
		for _, v := range x {
			s += (v - mu) * (v - mu)
		}
		return math.Sqrt(s / float64(len(x)-1) / float64(len(x)))
	}
	lin := func(f func(i int) float64) float64 { // se of a linearised series
		x := make([]float64, len(m))
		for i := range x {
			x[i] = f(i)
		}
		return seOf(x)
	}
	am, a2, a4, ae := mean(m), mean(m2), mean(m4), mean(e)
	want := map[string]float64{
		"|m|": seOf(m), "m²": seOf(m2), "m⁴": seOf(m4), "e": seOf(e),
		"χ'": beta * sites * seOf(m2),
		"χ":  beta * sites * lin(func(i int) float64 { return m2[i] - 2*am*m[i] }),
		"C":  beta * beta * sites * lin(func(i int) float64 { return (e[i] - ae) * (e[i] - ae) }),
		"U":  lin(func(i int) float64 { return -m4[i]/(3*a2*a2) + 2*a4*m2[i]/(3*a2*a2*a2) }),
	}
	got := named(o)
	for name, w := range want {
		g := got[name]
		if math.Abs(g.Err/w-1) > 0.15 || g.Tau < 0.7 || g.Tau > 1.4 {
			t.Errorf("%s: jackknife error %.4g (τ %.3g), textbook %.4g", name, g.Err, g.Tau, w)
		}
	}
	t.Logf("N = %g in %d blocks of %d; χ error %.4g (textbook %.4g), U %.4g (%.4g)", n, o.Blocks, o.Block, o.Chi.Err, want["χ"], o.Binder.Err, want["U"])

	// Calibration against the exact values of the distributions.
	exact := map[string]float64{
		"|m|": sm * math.Sqrt(2/math.Pi), "m²": sm * sm, "m⁴": 3 * math.Pow(sm, 4), "e": e0,
		"χ":  beta * sites * sm * sm * (1 - 2/math.Pi),
		"χ'": beta * sites * sm * sm,
		"C":  beta * beta * sites * se * se,
		"U":  0,
		"ξ":  math.Sqrt(sites*sm*sm/sk-1) / (2 * math.Sin(math.Pi/side)),
	}
	const reps = 300
	sum, ss, se2 := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for range reps {
		o, err := ComputeObservables(beta, sites, side, gaussianSeries(r, 1200, sm, e0, se, sk), gaussianSeries(r, 800, sm, e0, se, sk))
		if err != nil {
			t.Fatal(err)
		}
		for name, e := range named(o) {
			sum[name] += e.Mean
			ss[name] += e.Mean * e.Mean
			se2[name] += e.Err * e.Err
		}
	}
	for name := range sum {
		mu := sum[name] / reps
		sd := math.Sqrt(ss[name]/reps - mu*mu)
		rms := math.Sqrt(se2[name] / reps)
		if ratio := rms / sd; ratio < 0.85 || ratio > 1.15 || math.Abs(mu-exact[name]) > 4*sd/math.Sqrt(reps) {
			t.Errorf("%s: over %d replicas, mean %.5g (exact %.5g), sd %.4g, rms error %.4g (ratio %.3f)", name, reps, mu, exact[name], sd, rms, ratio)
		}
	}
}

// TestObservablesInputs: bad calls are errors naming the problem.
func TestObservablesInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	good := gaussianSeries(r, 40, 0.3, -1, 0.1, 0.5)
	short := gaussianSeries(r, 10, 0.3, -1, 0.1, 0.5)
	bad := gaussianSeries(r, 40, 0.3, -1, 0.1, 0.5)
	bad.E[7] = math.NaN()
	ragged := gaussianSeries(r, 40, 0.3, -1, 0.1, 0.5)
	ragged.SK = ragged.SK[:39]
	for _, tc := range []struct {
		name   string
		beta   float64
		sites  int
		chains []Series
	}{
		{"no chains", 0.5, 64, nil},
		{"β = 0", 0, 64, []Series{good}},
		{"β = NaN", math.NaN(), 64, []Series{good}},
		{"no sites", 0.5, 0, []Series{good}},
		{"short chain", 0.5, 64, []Series{good, short}},
		{"NaN energy", 0.5, 64, []Series{bad}},
		{"ragged", 0.5, 64, []Series{ragged}},
	} {
		if _, err := ComputeObservables(tc.beta, tc.sites, 8, tc.chains...); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if _, err := NewReweighter(tc.beta, tc.sites, 8, tc.chains...); err == nil {
			t.Errorf("%s: NewReweighter: no error", tc.name)
		}
	}
	// A constant magnetisation of 0: U is undefined, the rest is not.
	zero := gaussianSeries(r, 40, 0, -1, 0.1, 0.5)
	o, err := ComputeObservables(0.5, 64, 8, zero)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(o.Binder.Mean) || o.M2.Mean != 0 || o.M2.Err != 0 || o.M2.Tau != 1 || math.IsNaN(o.Energy.Err) {
		t.Errorf("m = 0: U %+v, m² %+v, e %+v", o.Binder, o.M2, o.Energy)
	}
	// The input is copied.
	rw, err := NewReweighter(0.5, 64, 8, good)
	if err != nil {
		t.Fatal(err)
	}
	o1, _ := rw.At(0.5)
	good.E[0] += 100
	o2, _ := rw.At(0.5)
	if o1.Energy != o2.Energy {
		t.Errorf("changing the series changed the Reweighter's energy: %+v, then %+v", o1.Energy, o2.Energy)
	}
}
