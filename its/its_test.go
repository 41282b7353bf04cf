package its

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chebyshev"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// ksTest returns the one-sample Kolmogorov–Smirnov statistic of x against
// the continuous CDF F and its asymptotic p-value (Kolmogorov distribution,
// with Stephens' small-sample correction of the argument).
func ksTest(x []float64, F func(float64) float64) (d, p float64) {
	y := slices.Clone(x)
	slices.Sort(y)
	n := float64(len(y))
	for i, v := range y {
		f := F(v)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	sn := math.Sqrt(n)
	return d, kolmogorovQ((sn + 0.12 + 0.11/sn) * d)
}

// kolmogorovQ is P(K > λ) for the Kolmogorov distribution,
// 2 Σ_{k≥1} (−1)^(k−1) exp(−2k²λ²).
func kolmogorovQ(lambda float64) float64 {
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	for k := 1; k <= 100; k++ {
		term := math.Exp(-2 * float64(k*k) * lambda * lambda)
		if k%2 == 0 {
			sum -= term
		} else {
			sum += term
		}
		if term < 1e-18 {
			break
		}
	}
	return math.Max(0, math.Min(1, 2*sum))
}

func TestKolmogorovQ(t *testing.T) {
	// Classical critical values: P(K > 1.3581) = 0.05, P(K > 1.6276) = 0.01.
	for _, tc := range []struct{ lambda, want float64 }{{1.3581, 0.05}, {1.6276, 0.01}, {1.2238, 0.10}} {
		if got := kolmogorovQ(tc.lambda); math.Abs(got-tc.want) > 2e-4 {
			t.Errorf("Q(%g) = %g, want %g", tc.lambda, got, tc.want)
		}
	}
	// The statistic behaves on exact uniforms and catches a shifted sample.
	r := rand.New(rand.NewPCG(7, 8))
	u := make([]float64, 5000)
	for i := range u {
		u[i] = r.Float64()
	}
	uniform := func(x float64) float64 { return math.Max(0, math.Min(1, x)) }
	if _, p := ksTest(u, uniform); p < 0.01 {
		t.Errorf("uniform sample rejected, p = %g", p)
	}
	for i := range u {
		u[i] = math.Sqrt(u[i])
	}
	if _, p := ksTest(u, uniform); p > 1e-6 {
		t.Errorf("sqrt-uniform sample accepted as uniform, p = %g", p)
	}
}

// target is a density on [a,b] with its exact CDF.
type target struct {
	name string
	a, b float64
	logf func(x float64) float64 // unnormalised
	cdf  func(x float64) float64 // exact, normalised
	m    int                     // interpolation degree used for the sampler
	acc  float64                 // required sup |Q − F| of the fitted sampler
}

func normalCDF(mu, sigma float64) func(float64) float64 {
	return distuv.Normal{Mu: mu, Sigma: sigma}.CDF
}

func targets() []target {
	const mu, sigma = 0.3, 0.5
	nrm := normalCDF(mu, sigma)
	beta := distuv.Beta{Alpha: 2, Beta: 5}
	n1, n2 := normalCDF(-1, 0.3), normalCDF(1.2, 0.5)
	mix := func(x float64) float64 { return 0.4*(n1(x)-n1(-3)) + 0.6*(n2(x)-n2(-3)) }
	mixZ := mix(3)
	return []target{
		{
			name: "truncnormal", a: -1, b: 2, m: 24, acc: 1e-13,
			logf: func(x float64) float64 { return -(x - mu) * (x - mu) / (2 * sigma * sigma) },
			cdf:  func(x float64) float64 { return (nrm(x) - nrm(-1)) / (nrm(2) - nrm(-1)) },
		},
		{
			// sqrt of the density has a square-root singularity at 0, so
			// convergence is algebraic: m = 50 gives about 5e-5.
			name: "beta(2,5)", a: 0, b: 1, m: 50, acc: 1e-4,
			logf: beta.LogProb, cdf: beta.CDF,
		},
		{
			// Unnormalised on a large scale (log f ≈ 1000), as an energy sum is.
			// √f has branch points near the real axis between the modes (f is a
			// sum), so g converges more slowly than an interpolant of f would.
			name: "bimodal", a: -3, b: 3, m: 60, acc: 1e-5,
			logf: func(x float64) float64 {
				l1 := math.Log(0.4) + distuv.Normal{Mu: -1, Sigma: 0.3}.LogProb(x)
				l2 := math.Log(0.6) + distuv.Normal{Mu: 1.2, Sigma: 0.5}.LogProb(x)
				hi := math.Max(l1, l2)
				return 1000 + hi + math.Log1p(math.Exp(math.Min(l1, l2)-hi))
			},
			cdf: func(x float64) float64 { return mix(x) / mixZ },
		},
		{
			// Steep: at m = 10 the plain interpolant of exp(40x) dips below zero.
			name: "exp(40x)", a: 0, b: 1, m: 10, acc: 2e-3,
			logf: func(x float64) float64 { return 40 * x },
			cdf:  func(x float64) float64 { return math.Expm1(40*x) / math.Expm1(40) },
		},
	}
}

// logValues returns logf at the m+1 Chebyshev points of [a,b].
func logValues(tg target, m int) []float64 {
	x, err := chebyshev.Points(nil, m, tg.a, tg.b)
	if err != nil {
		panic(err)
	}
	for j, xj := range x {
		x[j] = tg.logf(xj)
	}
	return x
}

// Deliberately broken samplers, built on the same bisection as the real one.

// fitUnsquared forgets to square: it samples from g ∝ √f instead of g².
func fitUnsquared(s *Sampler, a, b float64, logf []float64) error {
	if err := s.FitLogDensity(a, b, logf); err != nil {
		return err
	}
	s.f.Copy(&s.g)
	return s.finishCDF(s.shift)
}

// fitPlain interpolates f itself (no square): where the interpolant dips
// below zero its "CDF" is not monotone and the draws are wrong.
func fitPlain(s *Sampler, a, b float64, logf []float64) error {
	if err := s.FitLogDensity(a, b, logf); err != nil {
		return err
	}
	v := make([]float64, len(logf))
	for j, l := range logf {
		v[j] = math.Exp(l - s.shift)
	}
	if err := s.f.Fit(a, b, v); err != nil {
		return err
	}
	return s.finishCDF(s.shift)
}

func draws(s *Sampler, n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	x := make([]float64, n)
	for i := range x {
		x[i] = s.Draw(r)
	}
	return x
}

const nDraws = 20000

func TestDrawKS(t *testing.T) {
	for i, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			var s Sampler
			if err := s.FitLogDensity(tg.a, tg.b, logValues(tg, tg.m)); err != nil {
				t.Fatal(err)
			}
			if s.Degree() != 2*tg.m {
				t.Errorf("density degree %d, want %d", s.Degree(), 2*tg.m)
			}
			// Deterministic accuracy of the fitted CDF.
			var sup float64
			for k := 0; k <= 2000; k++ {
				x := tg.a + (tg.b-tg.a)*float64(k)/2000
				sup = math.Max(sup, math.Abs(s.CDF(x)-tg.cdf(x)))
			}
			if sup > tg.acc {
				t.Errorf("sup |Q − F| = %g > %g", sup, tg.acc)
			}
			x := draws(&s, nDraws, uint64(100+i))
			for _, v := range x {
				if !(v >= tg.a && v <= tg.b) {
					t.Fatalf("draw %v outside [%g,%g]", v, tg.a, tg.b)
				}
			}
			d, p := ksTest(x, tg.cdf)
			t.Logf("m=%d: sup|Q−F| = %.2g, KS D = %.4f, p = %.3g", tg.m, sup, d, p)
			if p < 0.01 {
				t.Errorf("KS rejects the sampler: D = %g, p = %g", d, p)
			}

			// The same check rejects the broken variants.
			broken := []struct {
				name string
				fit  func(*Sampler, float64, float64, []float64) error
			}{{"unsquared", fitUnsquared}}
			if tg.name == "exp(40x)" {
				broken = append(broken, struct {
					name string
					fit  func(*Sampler, float64, float64, []float64) error
				}{"plain interpolant", fitPlain})
			}
			for _, bv := range broken {
				var bs Sampler
				if err := bv.fit(&bs, tg.a, tg.b, logValues(tg, tg.m)); err != nil {
					t.Fatal(err)
				}
				d, p := ksTest(draws(&bs, nDraws, uint64(100+i)), tg.cdf)
				t.Logf("broken %s: KS D = %.4f, p = %.3g", bv.name, d, p)
				if p > 1e-6 {
					t.Errorf("broken variant %q not rejected: D = %g, p = %g", bv.name, d, p)
				}
			}
		})
	}
}

// The steep density: the plain interpolant of exp(40x) at degree 10 goes
// negative, while the squared construction is non-negative everywhere.
func TestSteepNonNegative(t *testing.T) {
	const m = 10
	tg := targets()[3]
	logf := logValues(tg, m)
	v := make([]float64, m+1)
	for j, l := range logf {
		v[j] = math.Exp(l - 40)
	}
	plain, err := chebyshev.NewFromValues(0, 1, v)
	if err != nil {
		t.Fatal(err)
	}
	var s Sampler
	if err := s.FitLogDensity(0, 1, logf); err != nil {
		t.Fatal(err)
	}
	fq := s.f // the product series g², which the CDF integrates
	minPlain, minQ, minF := math.Inf(1), math.Inf(1), math.Inf(1)
	for k := 0; k <= 100000; k++ {
		x := float64(k) / 100000
		minPlain = math.Min(minPlain, plain.Eval(x))
		minQ = math.Min(minQ, s.Density(x))
		minF = math.Min(minF, fq.Eval(x))
	}
	t.Logf("min of plain interpolant %.3g (max 1); min density %.3g; min of g² series %.3g", minPlain, minQ, minF)
	if !(minPlain < -1e-3) {
		t.Errorf("plain interpolant does not dip below zero: min %g", minPlain)
	}
	if minQ < 0 {
		t.Errorf("sampler density negative: min %g", minQ)
	}
	// The series g² equals the square up to rounding (relative to max 1).
	if minF < -1e-15 {
		t.Errorf("g² series below zero beyond rounding: min %g", minF)
	}
}

// Double approximation (PGDA): an exact quadratic energy interpolated at
// m+1 = 3 nodes, then exp(Ũ) fitted at k+1 nodes.
func TestFitEnergySeriesKS(t *testing.T) {
	tg := targets()[0]
	u, err := chebyshev.NewFromFunc(tg.a, tg.b, 2, tg.logf)
	if err != nil {
		t.Fatal(err)
	}
	var s Sampler
	if err := s.FitEnergySeries(u, 24); err != nil {
		t.Fatal(err)
	}
	d, p := ksTest(draws(&s, nDraws, 11), tg.cdf)
	t.Logf("KS D = %.4f, p = %.3g", d, p)
	if p < 0.01 {
		t.Errorf("KS rejects: D = %g, p = %g", d, p)
	}
	// It is exactly FitLogDensity on Ũ at the k+1 points.
	x, _ := chebyshev.Points(nil, 24, tg.a, tg.b)
	for j := range x {
		x[j] = u.Eval(x[j])
	}
	var want Sampler
	_ = want.FitLogDensity(tg.a, tg.b, x)
	r1, r2 := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
	for range 100 {
		if a, b := s.Draw(r1), want.Draw(r2); a != b {
			t.Fatalf("FitEnergySeries and FitLogDensity on the same values differ: %v vs %v", a, b)
		}
	}
	// Broken: unsquared.
	var bs Sampler
	if err := fitUnsquared(&bs, tg.a, tg.b, x); err != nil {
		t.Fatal(err)
	}
	if _, p := ksTest(draws(&bs, nDraws, 11), tg.cdf); p > 1e-6 {
		t.Errorf("broken unsquared variant not rejected, p = %g", p)
	}
}

// An independence Metropolis–Hastings chain with a deliberately crude
// proposal (degree 4 for exp(40x)) and the LogAcceptRatio correction samples
// the exact target; without the correction, or with the ratio inverted, it
// does not.
func TestMHCorrection(t *testing.T) {
	tg := targets()[3]
	var s Sampler
	if err := s.FitLogDensity(tg.a, tg.b, logValues(tg, 4)); err != nil {
		t.Fatal(err)
	}
	const thin = 5
	chain := func(ratio func(xOld, lOld, xNew, lNew float64) float64, seed uint64) ([]float64, float64) {
		r := rand.New(rand.NewPCG(seed, 3))
		x, lx := 0.5, tg.logf(0.5)
		out := make([]float64, 0, nDraws)
		acc := 0
		for i := 0; len(out) < nDraws; i++ {
			v := s.Draw(r)
			lv := tg.logf(v)
			if math.Log(r.Float64()) < ratio(x, lx, v, lv) {
				x, lx = v, lv
				acc++
			}
			if i%thin == thin-1 {
				out = append(out, x)
			}
		}
		return out, float64(acc) / float64(thin*nDraws)
	}
	raw, _ := ksTest(draws(&s, nDraws, 5), tg.cdf)
	x, rate := chain(s.LogAcceptRatio, 5)
	d, p := ksTest(x, tg.cdf)
	t.Logf("proposal alone: KS D = %.4f; corrected chain: acceptance %.3f, KS D = %.4f, p = %.3g", raw, rate, d, p)
	if p < 0.01 {
		t.Errorf("corrected chain rejected: D = %g, p = %g", d, p)
	}
	for _, bv := range []struct {
		name  string
		ratio func(xOld, lOld, xNew, lNew float64) float64
	}{
		{"no correction", func(_, _, _, _ float64) float64 { return math.Inf(1) }},
		{"inverted q ratio", func(xOld, lOld, xNew, lNew float64) float64 {
			return (lNew - lOld) + (s.LogDensity(xNew) - s.LogDensity(xOld))
		}},
	} {
		x, _ := chain(bv.ratio, 5)
		if d, p := ksTest(x, tg.cdf); p > 1e-6 {
			t.Errorf("broken %s not rejected: D = %g, p = %g", bv.name, d, p)
		} else {
			t.Logf("broken %s: KS D = %.4f, p = %.3g", bv.name, d, p)
		}
	}
}

func TestSameSeedSameDraws(t *testing.T) {
	tg := targets()[2]
	var s1, s2 Sampler
	_ = s1.FitLogDensity(tg.a, tg.b, logValues(tg, tg.m))
	_ = s2.FitLogDensity(tg.a, tg.b, logValues(tg, tg.m))
	x1, x2, x3 := draws(&s1, 1000, 42), draws(&s2, 1000, 42), draws(&s1, 1000, 43)
	if !slices.Equal(x1, x2) {
		t.Error("same seed, different draws")
	}
	if slices.Equal(x1, x3) {
		t.Error("different seeds, same draws")
	}
}

// Quantile is the inverse of the polynomial CDF to full double precision.
func TestQuantileFullPrecision(t *testing.T) {
	// g(x) = x on [0,1] (log f = 2 log x at the nodes 1 and 0): q = 3x²,
	// Q(x) = x³, so Quantile(u) = ∛u.
	var s Sampler
	if err := s.FitLogDensity(0, 1, []float64{0, math.Inf(-1)}); err != nil {
		t.Fatal(err)
	}
	// Backward error |Q(v) − u| at rounding level everywhere; forward error
	// |v − ∛u| too, except at u = 0 where Q is flat (q(0) = 0) and the
	// rounding of Q, ~1e-17, moves the root by ~(3e-17)^(1/3).
	var worst, back float64
	for k := 0; k <= 1000; k++ {
		u := float64(k) / 1000
		v := s.Quantile(u)
		back = math.Max(back, math.Abs(v*v*v-u))
		if k > 0 {
			worst = math.Max(worst, math.Abs(v-math.Cbrt(u)))
		}
	}
	t.Logf("q = 3x²: max |Quantile(u) − ∛u| = %.3g, max |Q(Quantile(u)) − u| = %.3g", worst, back)
	if worst > 4e-16 || back > 8e-16 {
		t.Errorf("q = 3x²: max |Quantile(u) − ∛u| = %g, max |Q(Quantile(u)) − u| = %g", worst, back)
	}
	// Uniform on [2,7].
	if err := s.FitLogDensity(2, 7, []float64{1.5, 1.5, 1.5, 1.5}); err != nil {
		t.Fatal(err)
	}
	worst = 0
	for k := 0; k <= 1000; k++ {
		u := float64(k) / 1000
		worst = math.Max(worst, math.Abs(s.Quantile(u)-(2+5*u)))
	}
	if worst > 8*0x1p-52*7 {
		t.Errorf("uniform: max |Quantile(u) − (a + u(b−a))| = %g", worst)
	}
	for _, u := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(s.Quantile(u)) {
			t.Errorf("Quantile(%v) = %v, want NaN", u, s.Quantile(u))
		}
	}
}

// Density, LogDensity, CDF and LogIntegral agree with each other and with
// an independent Gauss–Legendre quadrature of the density.
func TestDensityConsistency(t *testing.T) {
	for _, tg := range targets() {
		var s Sampler
		if err := s.FitLogDensity(tg.a, tg.b, logValues(tg, tg.m)); err != nil {
			t.Fatal(err)
		}
		// Gauss–Legendre with n nodes is exact for degree ≤ 2n−1. n ≥ 101 uses
		// gonum's computed (not tabulated) rule: v0.17.0's 26-point table has
		// zero end weights.
		n := max(101, s.Degree()/2+2)
		for _, x := range []float64{tg.a, tg.a + 0.1*(tg.b-tg.a), (tg.a + tg.b) / 2, tg.a + 0.77*(tg.b-tg.a), tg.b} {
			want := 0.0
			if x > tg.a {
				want = quad.Fixed(s.Density, tg.a, x, n, quad.Legendre{}, 0)
			}
			if d := math.Abs(s.CDF(x) - want); d > 1e-13 {
				t.Errorf("%s: CDF(%g) = %.16g, quadrature %.16g", tg.name, x, s.CDF(x), want)
			}
			q := s.Density(x)
			if lq := s.LogDensity(x); q > 0 && math.Abs(lq-math.Log(q)) > 1e-12 {
				t.Errorf("%s: LogDensity(%g) = %g, log Density = %g", tg.name, x, lq, math.Log(q))
			}
		}
		if s.Density(tg.a-1) != 0 || !math.IsInf(s.LogDensity(tg.b+1), -1) || s.CDF(tg.a-1) != 0 || s.CDF(tg.b+1) != 1 {
			t.Errorf("%s: outside [a,b] wrong", tg.name)
		}
	}
	// log f̃ = LogDensity + LogIntegral reproduces log f at the nodes, and
	// LogIntegral approximates log ∫f (here, for the bimodal target on scale 1000).
	tg := targets()[2]
	var s Sampler
	lv := logValues(tg, tg.m)
	_ = s.FitLogDensity(tg.a, tg.b, lv)
	x, _ := chebyshev.Points(nil, tg.m, tg.a, tg.b)
	for j, xj := range x {
		if got := s.LogDensity(xj) + s.LogIntegral(); math.Abs(got-lv[j]) > 1e-9 && lv[j]-1000 > -30 {
			t.Errorf("log f̃(x_%d) = %.12g, log f = %.12g", j, got, lv[j])
		}
	}
	// LogIntegral approximates log ∫_a^b f: the truncated normal on scale 1000.
	tn := targets()[0]
	lv = logValues(tn, tn.m)
	for j := range lv {
		lv[j] += 1000
	}
	_ = s.FitLogDensity(tn.a, tn.b, lv)
	nrm := normalCDF(0.3, 0.5)
	wantLog := 1000 + math.Log(0.5*math.Sqrt(2*math.Pi)*(nrm(tn.b)-nrm(tn.a)))
	if d := math.Abs(s.LogIntegral() - wantLog); d > 1e-12 {
		t.Errorf("LogIntegral = %.15g, want %.15g", s.LogIntegral(), wantLog)
	}
}

func TestLogAcceptRatio(t *testing.T) {
	var s Sampler
	// q = 3x² on [0,1]: q(0) = 0.
	_ = s.FitLogDensity(0, 1, []float64{0, math.Inf(-1)})
	inf := math.Inf(1)
	for _, tc := range []struct {
		name                         string
		xOld, lOld, xNew, lNew, want float64
	}{
		{"ordinary", 0.5, 1, 0.25, 2, 1 + math.Log(0.25/0.0625)},
		{"target zero at new", 0.5, 1, 0.25, -inf, -inf},
		{"target zero at old", 0.5, -inf, 0.25, 2, inf},
		{"q zero at new", 0.5, 1, 0, 2, inf},
		{"q zero at old", 0, 1, 0.5, 2, -inf},
		{"q zero at both", 0, 1, 0, 3, 2},
	} {
		got := s.LogAcceptRatio(tc.xOld, tc.lOld, tc.xNew, tc.lNew)
		if !(got == tc.want || math.Abs(got-tc.want) < 1e-12) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if !math.IsNaN(s.LogAcceptRatio(0.5, math.NaN(), 0.3, 1)) {
		t.Error("NaN input did not give NaN")
	}
}

func TestErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	var s Sampler
	empty := &chebyshev.Series{}
	u, _ := chebyshev.New(0, 1, []float64{1, 2})
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"m=0", s.FitLogDensity(0, 1, []float64{1}), "at least 2"},
		{"no values", s.FitLogDensity(0, 1, nil), "at least 2"},
		{"a=b", s.FitLogDensity(1, 1, []float64{1, 2}), "a < b"},
		{"a>b", s.FitLogDensity(2, 1, []float64{1, 2}), "a < b"},
		{"NaN a", s.FitLogDensity(nan, 1, []float64{1, 2}), "not finite"},
		{"Inf b", s.FitLogDensity(0, inf, []float64{1, 2}), "not finite"},
		{"NaN value", s.FitLogDensity(0, 1, []float64{1, nan, 2}), "value 1 of 3 (at x=0.5) is NaN"},
		{"+Inf value", s.FitLogDensity(0, 1, []float64{1, 2, inf}), "value 2 of 3 (at x=0) is +Inf"},
		{"all -Inf", s.FitLogDensity(0, 1, []float64{-inf, -inf}), "all 2 log-density values are −Inf"},
		{"nil series", s.FitEnergySeries(nil, 5), "nil or empty"},
		{"empty series", s.FitEnergySeries(empty, 5), "nil or empty"},
		{"k=0", s.FitEnergySeries(u, 0), "k ≥ 1"},
		{"zero density", func() error {
			var z Sampler
			_ = z.g.SetCoeffs(0, 1, []float64{0, 0, 0})
			return z.finish(0)
		}(), "integrates to 0"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if msg := tc.err.Error(); !strings.HasPrefix(msg, "its: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want prefix %q and %q", tc.name, msg, "its: ", tc.want)
		}
	}
	// A failed refit leaves no stale fit behind.
	_ = s.FitLogDensity(0, 1, []float64{0, 0})
	r := rand.New(rand.NewPCG(1, 2))
	if math.IsNaN(s.Draw(r)) || !s.Fitted() {
		t.Fatal("good fit not usable")
	}
	_ = s.FitLogDensity(0, 1, []float64{0, nan})
	if !math.IsNaN(s.Draw(r)) || !math.IsNaN(s.Density(0.5)) || s.Fitted() || s.Degree() != -1 {
		t.Error("failed fit left a usable sampler")
	}
}

func TestNoAllocs(t *testing.T) {
	tg := targets()[2]
	lv := logValues(tg, 20)
	u, _ := chebyshev.NewFromFunc(tg.a, tg.b, 20, tg.logf)
	var s Sampler
	_ = s.FitLogDensity(tg.a, tg.b, lv)
	var s2 Sampler
	_ = s2.FitEnergySeries(u, 25)
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"FitLogDensity", func() { _ = s.FitLogDensity(tg.a, tg.b, lv) }},
		{"FitEnergySeries", func() { _ = s2.FitEnergySeries(u, 25) }},
		{"Draw", func() { _ = s.Draw(r) }},
		{"Density", func() { _ = s.Density(0.3) }},
		{"LogAcceptRatio", func() { _ = s.LogAcceptRatio(0.1, 2, 0.3, 1) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per run", tc.name, n)
		}
	}
}
