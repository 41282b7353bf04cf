package chebyshev

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// directCoeffs is the O(m²) definition the DCT path must reproduce:
// c_k = (2/m) Σ”_j f_j cos(jkπ/m), with c_0 and c_m halved.
func directCoeffs(f []float64) []float64 {
	m := len(f) - 1
	c := make([]float64, m+1)
	for k := 0; k <= m; k++ {
		var sum float64
		for j, fj := range f {
			w := 1.0
			if j == 0 || j == m {
				w = 0.5
			}
			sum += w * fj * math.Cos(float64(j*k)*math.Pi/float64(m))
		}
		c[k] = 2 * sum / float64(m)
	}
	c[0] /= 2
	c[m] /= 2
	return c
}

func grid(a, b float64, n int) []float64 {
	x := make([]float64, n+1)
	for i := range x {
		x[i] = a + (b-a)*float64(i)/float64(n)
	}
	x[n] = b
	return x
}

func maxErr(s *Series, f func(float64) float64, a, b float64) float64 {
	var e float64
	for _, x := range grid(a, b, 2000) {
		e = math.Max(e, math.Abs(s.Eval(x)-f(x)))
	}
	return e
}

func TestPoints(t *testing.T) {
	for _, tc := range []struct {
		m    int
		a, b float64
	}{
		{1, -1, 1}, {2, -1, 1}, {3, 0, 1}, {10, -1, 1}, {11, -1, 1}, {20, -6, 6}, {64, 1e6, 1e6 + 1}, {7, -3.5, -1.25},
	} {
		x, err := Points(nil, tc.m, tc.a, tc.b)
		if err != nil {
			t.Fatalf("m=%d [%g,%g]: %v", tc.m, tc.a, tc.b, err)
		}
		if len(x) != tc.m+1 || x[0] != tc.b || x[tc.m] != tc.a {
			t.Fatalf("m=%d [%g,%g]: len %d, x0=%g xm=%g", tc.m, tc.a, tc.b, len(x), x[0], x[tc.m])
		}
		scale := math.Max(math.Abs(tc.a), math.Abs(tc.b))
		for j, xj := range x {
			want := (tc.a+tc.b)/2 + (tc.b-tc.a)/2*math.Cos(float64(j)*math.Pi/float64(tc.m))
			if math.Abs(xj-want) > 4e-16*scale {
				t.Errorf("m=%d [%g,%g]: x_%d = %v, want %v", tc.m, tc.a, tc.b, j, xj, want)
			}
			if j > 0 && !(xj < x[j-1]) {
				t.Errorf("m=%d: points not decreasing at %d", tc.m, j)
			}
		}
		if tc.a == -1 && tc.b == 1 {
			for j := range x {
				if x[j] != -x[tc.m-j] {
					t.Errorf("m=%d: x_%d = %v not the mirror of x_%d = %v", tc.m, j, x[j], tc.m-j, x[tc.m-j])
				}
			}
		}
	}
	// dst is reused when it has room.
	buf := make([]float64, 0, 10)
	x, _ := Points(buf, 9, 0, 1)
	if &x[0] != &buf[:1][0] {
		t.Error("Points did not reuse dst")
	}
}

func TestFitMatchesDirectFormula(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 64, 100, 127, 257, 1000} {
		f := make([]float64, m+1)
		for j := range f {
			f[j] = 2*rnd.Float64() - 1
		}
		s, err := NewFromValues(-2, 3, f)
		if err != nil {
			t.Fatal(err)
		}
		want := directCoeffs(f)
		var worst float64
		for k, c := range s.Coeffs() {
			worst = math.Max(worst, math.Abs(c-want[k]))
		}
		t.Logf("m=%d: max |c_DCT − c_direct| = %.3g", m, worst)
		if worst > 1e-13 {
			t.Errorf("m=%d: DCT coefficients differ from the direct formula by %g", m, worst)
		}
		// The interpolant reproduces the data at the nodes, up to the rounding
		// of Clenshaw's recurrence, which grows like m²·eps near the ends for
		// data as rough as these.
		x, _ := Points(nil, m, -2, 3)
		tol := math.Max(1e-14, 0x1p-52*float64(m*m))
		for j, xj := range x {
			if d := math.Abs(s.Eval(xj) - f[j]); d > tol {
				t.Errorf("m=%d: p(x_%d) off the data by %g", m, j, d)
			}
		}
	}
}

func TestSpectralAccuracy(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(float64) float64
		a, b float64
		m    int
		tol  float64
	}{
		{"exp/m=15", math.Exp, -1, 1, 15, 1e-14},
		{"sin/m=20", math.Sin, 0, math.Pi, 20, 1e-14},
		{"exp(3x)/[0,1]/m=25", func(x float64) float64 { return math.Exp(3 * x) }, 0, 1, 25, 1e-13},
		{"cubic/m=3", func(x float64) float64 { return 2*x*x*x - x + 0.5 }, -2, 1, 3, 1e-13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewFromFunc(tc.a, tc.b, tc.m, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			e := maxErr(s, tc.f, tc.a, tc.b)
			t.Logf("max error %.3g", e)
			if e > tc.tol {
				t.Errorf("max error %g > %g", e, tc.tol)
			}
		})
	}
}

// Runge's function 1/(1+25x²) has poles at ±i/5; its interpolants converge
// like ρ^(−m) with ρ = (1+√26)/5, the parameter of the Bernstein ellipse
// through the poles (Trefethen, ATAP, ch. 8).
func TestRungeGeometric(t *testing.T) {
	runge := func(x float64) float64 { return 1 / (1 + 25*x*x) }
	rho := (1 + math.Sqrt(26)) / 5
	var ms, logs []float64
	prev := math.Inf(1)
	for m := 10; m <= 140; m += 10 {
		s, err := NewFromFunc(-1, 1, m, runge)
		if err != nil {
			t.Fatal(err)
		}
		e := maxErr(s, runge, -1, 1)
		if !(e < prev) {
			t.Errorf("m=%d: error %g did not decrease (previous %g)", m, e, prev)
		}
		prev = e
		t.Logf("m=%d: error %.3g, error·ρ^m = %.3g", m, e, e*math.Pow(rho, float64(m)))
		// The bound's shape: e·ρ^m stays within a constant band.
		if c := e * math.Pow(rho, float64(m)); c < 0.5 || c > 2 {
			t.Errorf("m=%d: error %g, error·ρ^m = %g outside [0.5,2]", m, e, c)
		}
		ms = append(ms, float64(m))
		logs = append(logs, math.Log(e))
	}
	// Least-squares slope of log error against m is −log ρ.
	var mx, my float64
	for i := range ms {
		mx += ms[i]
		my += logs[i]
	}
	mx /= float64(len(ms))
	my /= float64(len(ms))
	var sxy, sxx float64
	for i := range ms {
		sxy += (ms[i] - mx) * (logs[i] - my)
		sxx += (ms[i] - mx) * (ms[i] - mx)
	}
	slope := sxy / sxx
	t.Logf("slope of log error: %.4f per degree; −log ρ = %.4f", slope, -math.Log(rho))
	if want := -math.Log(rho); math.Abs(slope-want) > 0.05*math.Abs(want) {
		t.Errorf("convergence rate %.4f per degree, want %.4f (−log ρ)", slope, want)
	}
}

func TestIntegral(t *testing.T) {
	for _, tc := range []struct {
		name string
		f, F func(float64) float64 // F is an antiderivative of f
		a, b float64
	}{
		{"sin[0,π]", math.Sin, func(x float64) float64 { return -math.Cos(x) }, 0, math.Pi},
		{"exp[-1,1]", math.Exp, math.Exp, -1, 1},
		{"1/(1+x²)[0,1]", func(x float64) float64 { return 1 / (1 + x*x) }, math.Atan, 0, 1},
		{"poly[-2,3]", func(x float64) float64 { return x*x*x*x*x - 3*x*x + 1 },
			func(x float64) float64 { return x*x*x*x*x*x/6 - x*x*x + x }, -2, 3},
		{"cos(10x)[-1,2]", func(x float64) float64 { return math.Cos(10 * x) },
			func(x float64) float64 { return math.Sin(10*x) / 10 }, -1, 2},
		{"gauss[-3,3]", func(x float64) float64 { return math.Exp(-x * x) },
			func(x float64) float64 { return math.Sqrt(math.Pi) / 2 * math.Erf(x) }, -3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Series
			if err := s.FitAdaptive(tc.a, tc.b, tc.f, 0x1p-52, 1024); err != nil {
				t.Fatal(err)
			}
			want := tc.F(tc.b) - tc.F(tc.a)
			scale := math.Max(1, math.Abs(want))
			t.Logf("degree %d, integral error %.3g", s.Degree(), math.Abs(s.Integral()-want))
			if d := math.Abs(s.Integral() - want); d > 1e-13*scale {
				t.Errorf("Integral = %.17g, want %.17g (error %g, degree %d)", s.Integral(), want, d, s.Degree())
			}
			var P Series
			if err := P.Antiderivative(&s); err != nil {
				t.Fatal(err)
			}
			if P.Degree() != s.Degree()+1 {
				t.Errorf("antiderivative degree %d, want %d", P.Degree(), s.Degree()+1)
			}
			if v := P.Eval(tc.a); math.Abs(v) > 1e-15*scale {
				t.Errorf("P(a) = %g, want 0", v)
			}
			for _, x := range grid(tc.a, tc.b, 200) {
				want := tc.F(x) - tc.F(tc.a)
				if d := math.Abs(P.Eval(x) - want); d > 1e-13*scale {
					t.Errorf("P(%g) = %.17g, want %.17g", x, P.Eval(x), want)
					break
				}
			}
			if d := math.Abs(P.Eval(tc.b) - s.Integral()); d > 1e-14*scale {
				t.Errorf("P(b) = %.17g differs from Integral %.17g", P.Eval(tc.b), s.Integral())
			}
		})
	}
}

func TestAntiderivativeAliased(t *testing.T) {
	s, _ := NewFromFunc(0, 2, 30, math.Cos)
	var want Series
	if err := want.Antiderivative(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Antiderivative(s); err != nil {
		t.Fatal(err)
	}
	for k, c := range want.Coeffs() {
		if s.Coeffs()[k] != c {
			t.Fatalf("aliased antiderivative differs at coefficient %d", k)
		}
	}
}

func TestMul(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	random := func(n int) *Series {
		c := make([]float64, n+1)
		for k := range c {
			c[k] = rnd.NormFloat64()
		}
		s, err := New(-2, 5, c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct{ nx, ny int }{{0, 0}, {0, 5}, {1, 1}, {7, 12}, {12, 7}, {25, 25}, {40, 3}} {
		x, y := random(tc.nx), random(tc.ny)
		var p Series
		if err := p.Mul(x, y); err != nil {
			t.Fatal(err)
		}
		if p.Degree() != tc.nx+tc.ny {
			t.Errorf("deg %d·deg %d: product degree %d", tc.nx, tc.ny, p.Degree())
		}
		for _, v := range grid(-2, 5, 300) {
			want := x.Eval(v) * y.Eval(v)
			if d := math.Abs(p.Eval(v) - want); d > 1e-13*math.Max(1, math.Abs(want))*float64(tc.nx+tc.ny+1) {
				t.Errorf("deg %d·deg %d at %g: %g, want %g", tc.nx, tc.ny, v, p.Eval(v), want)
				break
			}
		}
		// Aliased forms give the same coefficients.
		var sq, sqa Series
		_ = sq.Mul(x, x)
		sqa.Copy(x)
		_ = sqa.Mul(&sqa, &sqa)
		xa := &Series{}
		xa.Copy(x)
		_ = xa.Mul(xa, y)
		for k := range sq.Coeffs() {
			if sq.Coeffs()[k] != sqa.Coeffs()[k] {
				t.Fatalf("aliased square differs at %d", k)
			}
		}
		for k := range p.Coeffs() {
			if p.Coeffs()[k] != xa.Coeffs()[k] {
				t.Fatalf("aliased product differs at %d", k)
			}
		}
	}
}

func TestStandardChop(t *testing.T) {
	// exp on [−1,1] is resolved to machine precision near degree 15.
	s, _ := NewFromFunc(-1, 1, 64, math.Exp)
	ok, err := s.Chop(0x1p-52)
	if err != nil || !ok {
		t.Fatalf("exp at degree 64 not resolved: %v %v", ok, err)
	}
	if d := s.Degree(); d < 13 || d > 20 {
		t.Errorf("exp chopped to degree %d, want 13..20", d)
	}
	if e := maxErr(s, math.Exp, -1, 1); e > 1e-14 {
		t.Errorf("chopped exp has error %g", e)
	}

	// A degree-5 polynomial plus noise at 1e-10 chopped at tol 1e-8 keeps 6 coefficients.
	rnd := rand.New(rand.NewPCG(5, 6))
	c := []float64{1, -0.5, 0.25, 0.3, -0.2, 0.1}
	for range 40 {
		c = append(c, 1e-10*(2*rnd.Float64()-1))
	}
	n, ok, err := StandardChop(c, 1e-8)
	if err != nil || !ok || n != 6 {
		t.Errorf("noisy quintic: cutoff %d resolved %v err %v, want 6 true", n, ok, err)
	}

	// Geometric decay 2^-k: the envelope passes tol = 2^-52 and the cut falls
	// between there and tol^(7/6) ≈ 2^-60.7, where step 3 of the rule clamps it.
	c = c[:0]
	for k := range 80 {
		c = append(c, math.Ldexp(1, -k))
	}
	n, ok, _ = StandardChop(c, 0x1p-52)
	if !ok || n < 53 || n > 62 {
		t.Errorf("2^-k: cutoff %d resolved %v, want 53..62 and resolved", n, ok)
	}

	// Fewer than 17 coefficients, or no plateau: not resolved, nothing cut.
	for _, tc := range []struct {
		name string
		c    []float64
	}{
		{"short", []float64{1, 1e-20, 0, 0, 0}},
		{"slow decay", func() []float64 {
			var c []float64
			for k := range 50 {
				c = append(c, 1/float64(k+1))
			}
			return c
		}()},
	} {
		n, ok, err := StandardChop(tc.c, 0x1p-52)
		if err != nil || ok || n != len(tc.c) {
			t.Errorf("%s: cutoff %d resolved %v err %v, want %d false", tc.name, n, ok, err, len(tc.c))
		}
	}
	// All zero: one coefficient.
	if n, ok, _ := StandardChop(make([]float64, 20), 1e-10); n != 1 || !ok {
		t.Errorf("zeros: cutoff %d resolved %v, want 1 true", n, ok)
	}
}

func TestFitAdaptive(t *testing.T) {
	var s Series
	if err := s.FitAdaptive(-1, 1, math.Exp, 0x1p-52, 256); err != nil {
		t.Fatal(err)
	}
	if s.Degree() > 20 || maxErr(&s, math.Exp, -1, 1) > 1e-14 {
		t.Errorf("exp: degree %d, error %g", s.Degree(), maxErr(&s, math.Exp, -1, 1))
	}
	// Runge needs degree ≈ 180 for machine precision: not resolved by 128.
	runge := func(x float64) float64 { return 1 / (1 + 25*x*x) }
	if err := s.FitAdaptive(-1, 1, runge, 0x1p-52, 128); err == nil {
		t.Error("Runge resolved by degree 128")
	} else if s.Degree() != 128 {
		t.Errorf("unresolved fit left degree %d, want 128", s.Degree())
	}
	if err := s.FitAdaptive(-1, 1, runge, 0x1p-52, 400); err != nil {
		t.Error(err)
	} else if e := maxErr(&s, runge, -1, 1); e > 1e-14 {
		t.Errorf("Runge resolved at degree %d with error %g", s.Degree(), e)
	}
}

func TestErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	var s Series
	good, _ := New(0, 1, []float64{1, 2})
	other, _ := New(0, 2, []float64{1, 2})
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"Fit m=0", s.Fit(0, 1, []float64{1}), "at least 2 values"},
		{"Fit empty", s.Fit(0, 1, nil), "at least 2 values"},
		{"Fit a=b", s.Fit(1, 1, []float64{1, 2}), "a < b"},
		{"Fit a>b", s.Fit(2, 1, []float64{1, 2}), "a < b"},
		{"Fit NaN a", s.Fit(nan, 1, []float64{1, 2}), "not finite"},
		{"Fit Inf b", s.Fit(0, inf, []float64{1, 2}), "not finite"},
		{"Fit wide", s.Fit(-1e308, 1e308, []float64{1, 2}), "too wide"},
		{"Fit NaN value", s.Fit(0, 1, []float64{1, nan, 3}), "value 1 (at x=0.5) is NaN"},
		{"Fit Inf value", s.Fit(0, 1, []float64{1, 2, -inf}), "value 2 (at x=0) is -Inf"},
		{"FitFunc m=0", s.FitFunc(0, 1, 0, math.Exp), "m ≥ 1"},
		{"FitFunc nil", s.FitFunc(0, 1, 3, nil), "nil function"},
		{"FitFunc a>b", s.FitFunc(1, 0, 3, math.Exp), "a < b"},
		{"FitFunc NaN", s.FitFunc(-1, 1, 4, math.Sqrt), "value 3 (at x=-0.70710678"},
		{"FitAdaptive tol", s.FitAdaptive(0, 1, math.Exp, 0, 64), "tolerance"},
		{"FitAdaptive maxDegree", s.FitAdaptive(0, 1, math.Exp, 1e-10, 8), "maxDegree"},
		{"SetCoeffs empty", s.SetCoeffs(0, 1, nil), "no coefficients"},
		{"SetCoeffs NaN", s.SetCoeffs(0, 1, []float64{1, nan}), "coefficient 1 is NaN"},
		{"Mul intervals", s.Mul(good, other), "different intervals"},
		{"Mul empty", s.Mul(good, &Series{}), "empty"},
		{"Antiderivative empty", s.Antiderivative(&Series{}), "empty"},
		{"Points m=0", func() error { _, err := Points(nil, 0, 0, 1); return err }(), "m ≥ 1"},
		{"Points a=b", func() error { _, err := Points(nil, 3, 1, 1); return err }(), "a < b"},
		{"Chop tol", func() error { _, err := good.Chop(1); return err }(), "tolerance"},
		{"StandardChop NaN", func() error { _, _, err := StandardChop([]float64{1, nan}, 1e-3); return err }(), "coefficient 1 is NaN"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if msg := tc.err.Error(); !strings.HasPrefix(msg, "chebyshev: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want prefix %q and %q", tc.name, msg, "chebyshev: ", tc.want)
		}
	}
	// A failed fit leaves the series empty, not stale.
	_ = s.Fit(0, 1, []float64{1, 2, 3})
	if err := s.Fit(0, 1, []float64{1, nan}); err == nil || s.Degree() != -1 {
		t.Errorf("failed fit left degree %d", s.Degree())
	}
}

func TestEmptySeries(t *testing.T) {
	var s Series
	if s.Degree() != -1 || s.Eval(0.3) != 0 || s.Integral() != 0 {
		t.Errorf("empty series: degree %d, Eval %g, Integral %g", s.Degree(), s.Eval(0.3), s.Integral())
	}
}

func TestEvalTo(t *testing.T) {
	s, _ := NewFromFunc(0, 1, 10, math.Exp)
	x := grid(0, 1, 10)
	got := s.EvalTo(nil, x)
	for i := range x {
		if got[i] != s.Eval(x[i]) {
			t.Fatalf("EvalTo[%d] = %g, Eval = %g", i, got[i], s.Eval(x[i]))
		}
	}
}

func TestNoAllocs(t *testing.T) {
	const m = 25
	var s, p, q Series
	vals := make([]float64, m+1)
	for j := range vals {
		vals[j] = float64(j)
	}
	_ = s.Fit(-1, 2, vals)
	_ = p.Mul(&s, &s)
	_ = q.Antiderivative(&p)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Fit", func() { _ = s.Fit(-1, 2, vals) }},
		{"FitFunc", func() { _ = s.FitFunc(-1, 2, m, math.Sin) }},
		{"Mul", func() { _ = p.Mul(&s, &s) }},
		{"MulAliased", func() { _ = s.Mul(&s, &s); _ = s.Fit(-1, 2, vals) }},
		{"Antiderivative", func() { _ = q.Antiderivative(&p) }},
		{"Eval", func() { _ = q.Eval(0.3) }},
		{"Chop", func() { _, _ = p.Chop(1e-10) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per run", tc.name, n)
		}
	}
}

func TestEvalToMatchesEval(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{0, 1, 2, 5, 30} {
		c := make([]float64, n+1)
		for k := range c {
			c[k] = rnd.NormFloat64()
		}
		s, _ := New(-1, 3, c)
		for _, npts := range []int{0, 1, 3, 4, 5, 9} {
			x := make([]float64, npts)
			for i := range x {
				x[i] = -1 + 4*rnd.Float64()
			}
			got := s.EvalTo(make([]float64, npts), x)
			for i := range x {
				if got[i] != s.Eval(x[i]) {
					t.Fatalf("n=%d, %d points: EvalTo[%d] = %v, Eval = %v", n, npts, i, got[i], s.Eval(x[i]))
				}
			}
		}
	}
}
