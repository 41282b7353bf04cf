package tgm_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/tgm"
)

func rng(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// search returns the minimum and maximum of f over the box by a grid
// search refined twice around the best grid points.
func search(f func(x1, x2 float64) float64, b tgm.Box) (lo, hi float64) {
	extreme := func(sign float64) float64 {
		best, b1, b2 := math.Inf(-1), 0.0, 0.0
		a1, c1, a2, c2 := b.Lo1, b.Hi1, b.Lo2, b.Hi2
		for range 4 {
			const n = 120
			h1, h2 := (c1-a1)/n, (c2-a2)/n
			for i := 0; i <= n; i++ {
				for j := 0; j <= n; j++ {
					x1, x2 := a1+float64(i)*h1, a2+float64(j)*h2
					if v := sign * f(x1, x2); v > best {
						best, b1, b2 = v, x1, x2
					}
				}
			}
			// Zoom in on the best point, staying inside the box.
			a1, c1 = max(b.Lo1, b1-2*h1), min(b.Hi1, b1+2*h1)
			a2, c2 = max(b.Lo2, b2-2*h2), min(b.Hi2, b2+2*h2)
		}
		return sign * best
	}
	return extreme(-1), extreme(1)
}

// TestRanges checks the closed-form ranges against a refined grid search
// on random data (including data far outside the box): no value found lies
// outside the declared range, and both ends are attained to 10⁻⁶ of the
// width.
func TestRanges(t *testing.T) {
	for _, cfg := range []tgm.Config{tgm.GibbsConfig(), tgm.MHConfig()} {
		cfg.N = 60
		cfg.Beta = 0.5
		cfg.Box.Lo1 = -2 // an asymmetric x1-range
		m, err := tgm.Generate(cfg, rng(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		y := m.Data()
		y[0], y[1], y[2] = 25, -25, cfg.Box.Hi1+0.5*cfg.Box.Hi2
		m, err = tgm.New(cfg, y)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.N() {
			lo, hi := m.Range(i)
			glo, ghi := search(func(a, b float64) float64 { return m.LogLik(i, a, b) }, cfg.Box)
			w := hi - lo
			if glo < lo || ghi > hi {
				t.Fatalf("y = %v: search found [%v, %v] outside declared [%v, %v]", y[i], glo, ghi, lo, hi)
			}
			if glo-lo > 1e-6*w || hi-ghi > 1e-6*w {
				t.Fatalf("y = %v: declared [%v, %v] not tight: search [%v, %v]", y[i], lo, hi, glo, ghi)
			}
		}
		// Prior ranges.
		for j := range 2 {
			lo, hi := m.PriorRange(j)
			glo, ghi := search(func(a, b float64) float64 { return m.PriorTerm(j, []float64{a, b}[j]) }, cfg.Box)
			if math.Abs(glo-lo) > 1e-9 || math.Abs(ghi-hi) > 1e-9 {
				t.Errorf("prior %d: declared [%v, %v], search [%v, %v]", j, lo, hi, glo, ghi)
			}
		}
	}
}

// TestGibbsL checks the paper-scale value of L: the design handbook computed
// L ≈ 1.43·10³ for N = 10⁶, β = 10⁻⁴, box [−6, 6]² (the Poisson-Gibbs paper
// printed 1581.14).
func TestGibbsL(t *testing.T) {
	m, err := tgm.Generate(tgm.GibbsConfig(), rng(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if l := m.L(); l < 1.40e3 || l > 1.46e3 {
		t.Errorf("L = %v, want about 1.43e3", l)
	}
	t.Logf("N = 10⁶: Σ ranges = %.2f, prior ranges %.2f and %.2f, L = %.2f", m.SumRanges(),
		rangeWidth(m.PriorRange(0)), rangeWidth(m.PriorRange(1)), m.L())
}

func rangeWidth(lo, hi float64) float64 { return hi - lo }

// TestDerivativesAndBounds checks the gradient and Hessian by differences
// and the declared c_i and β·Ū_{2,i} against the derivatives on a grid.
func TestDerivativesAndBounds(t *testing.T) {
	cfg := tgm.MHConfig()
	cfg.N, cfg.Beta = 40, 1
	m, err := tgm.Generate(cfg, rng(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	tg := m.Target()
	const e = 1e-5
	for i := range m.N() {
		for a := -3.0; a <= 3; a += 0.25 {
			for b := -3.0; b <= 3; b += 0.25 {
				g1, g2 := m.Grad(i, a, b)
				h11, h12, h22 := m.Hess(i, a, b)
				f1 := (m.LogLik(i, a+e, b) - m.LogLik(i, a-e, b)) / (2 * e)
				f2 := (m.LogLik(i, a, b+e) - m.LogLik(i, a, b-e)) / (2 * e)
				if math.Abs(f1-g1) > 1e-6*(1+math.Abs(g1)) || math.Abs(f2-g2) > 1e-6*(1+math.Abs(g2)) {
					t.Fatalf("gradient (%v, %v) vs differences (%v, %v)", g1, g2, f1, f2)
				}
				p1, p2 := m.Grad(i, a+e, b)
				q1, q2 := m.Grad(i, a-e, b)
				r1, r2 := m.Grad(i, a, b+e)
				s1, s2 := m.Grad(i, a, b-e)
				d11, d12, d22 := (p1-q1)/(2*e), (p2-q2)/(2*e), (r2-s2)/(2*e)
				if d21 := (r1 - s1) / (2 * e); math.Abs(d21-d12) > 1e-5*(1+math.Abs(d12)) {
					t.Fatalf("Hessian not symmetric: %v vs %v", d12, d21)
				}
				for _, c := range [][2]float64{{h11, d11}, {h12, d12}, {h22, d22}} {
					if math.Abs(c[0]-c[1]) > 1e-5*(1+math.Abs(c[0])) {
						t.Fatalf("Hessian entry %v vs difference %v", c[0], c[1])
					}
				}
				if math.Hypot(g1, g2) > tg.LocalBound(i) {
					t.Fatalf("‖∇ℓ‖ = %v > c_i = %v", math.Hypot(g1, g2), tg.LocalBound(i))
				}
				if u := m.SecondBound(i); math.Abs(h11) > u || math.Abs(h12) > u || math.Abs(h22) > u {
					t.Fatalf("Hessian (%v, %v, %v) exceeds β·Ū₂ = %v", h11, h12, h22, u)
				}
			}
		}
	}
}

// TestLocalBoundTable1 checks C = Σ c_i on the TunaMH paper's setting
// against the reference digest's Monte Carlo value C ≈ 681.6.
func TestLocalBoundTable1(t *testing.T) {
	m, err := tgm.Generate(tgm.MHConfig(), rng(7, 8))
	if err != nil {
		t.Fatal(err)
	}
	c := 0.0
	for i := range m.N() {
		c += m.LocalBound(i)
	}
	if math.Abs(c-681.6) > 2 {
		t.Errorf("C = %v, digest ≈ 681.6", c)
	}
}

func TestData(t *testing.T) {
	cfg := tgm.MHConfig()
	cfg.N = 200_000
	m, err := tgm.Generate(cfg, rng(9, 10))
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := tgm.Generate(cfg, rng(9, 10))
	for i, v := range m.Data() {
		if m2.Data()[i] != v {
			t.Fatal("same seed, different data")
		}
	}
	// Mixture moments: mean (x1 + (x1+x2))/2 = 0.5, variance σ² + x2²/4 = 2.25.
	s, s2 := 0.0, 0.0
	for _, v := range m.Data() {
		s += v
		s2 += v * v
	}
	n := float64(cfg.N)
	mean := s / n
	v := s2/n - mean*mean
	if math.Abs(mean-0.5) > 5*math.Sqrt(2.25/n) || math.Abs(v-2.25) > 0.03 {
		t.Errorf("data mean %v, variance %v; want 0.5, 2.25", mean, v)
	}
}

func TestErrors(t *testing.T) {
	bad := []func(c *tgm.Config){
		func(c *tgm.Config) { c.Box.Lo2 = -2 },
		func(c *tgm.Config) { c.Beta = 0 },
		func(c *tgm.Config) { c.Beta = 2 },
		func(c *tgm.Config) { c.SigmaY2 = -1 },
		func(c *tgm.Config) { c.Box.Hi1 = c.Box.Lo1 },
		func(c *tgm.Config) { c.Prior = tgm.Gaussian; c.PriorVar1 = 0 },
		func(c *tgm.Config) { c.N = 0 },
	}
	for k, f := range bad {
		cfg := tgm.MHConfig()
		cfg.N = 10
		f(&cfg)
		if _, err := tgm.Generate(cfg, rng(1, 1)); err == nil {
			t.Errorf("bad config %d accepted", k)
		}
	}
	if _, err := tgm.New(tgm.MHConfig(), []float64{1, math.NaN()}); err == nil {
		t.Error("NaN datum accepted")
	}
}
