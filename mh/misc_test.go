package mh_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// plain is a target with no bound interfaces.
type plain struct{}

func (plain) Dim() int                                 { return 1 }
func (plain) N() int                                   { return 3 }
func (plain) LogPrior(theta []float64) float64         { return 0 }
func (plain) LogLik(i int, theta []float64) float64    { return -theta[0] * theta[0] }
func (plain) LocalBound(i int) float64                 { return 1 }
func (plain) Distance(theta, thetaP []float64) float64 { return 0.1 * math.Abs(theta[0]-thetaP[0]) }

// lying wraps a robust regression and understates its local bounds.
type lying struct{ *targets.RobustLinear }

func (l lying) LocalBound(i int) float64 { return 0.1 * l.RobustLinear.LocalBound(i) }

func TestOptionErrors(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(10, 2, 4, rng(1, 1))
	good := mh.Options{Step: 0.1, Chi: 1e-3, Lambda: 10}
	cases := []struct {
		name, sampler string
		t             mh.Target
		o             mh.Options
		want          string
	}{
		{"unknown", "gibbs", reg, good, "unknown sampler"},
		{"step", "mh", reg, mh.Options{}, "step"},
		{"negative step", "tunamh", reg, mh.Options{Step: -1, Chi: 1}, "step"},
		{"chi", "tunamh", reg, mh.Options{Step: 0.1, Chi: -1}, "χ"},
		{"no chi no lambda", "tunamh", reg, mh.Options{Step: 0.1}, "χ"},
		{"lambda", "poissonmh", reg, mh.Options{Step: 0.1}, "λ"},
		{"no ranges", "poissonmh", reg, good, "range"},
		{"no local bounds", "tunamh", plainNoBound{}, good, "LocalBounder"},
		{"no control variates", "mhss1", plain{}, good, "ControlVariates"},
		{"no lower bounds", "flymc", plain{}, good, "LowerBounder"},
		{"init dim", "mh", reg, mh.Options{Step: 0.1, Init: []float64{1}}, "length"},
		{"ref dim", "smh1", reg, mh.Options{Step: 0.1, Ref: []float64{1}}, "length"},
		{"gamma", "mhss1", reg, mh.Options{Step: 0.1, Gamma: 2}, "γ"},
		{"qdb", "flymc", reg, mh.Options{Step: 0.1, QDarkToBright: 1.5}, "q_{d→b}"},
		{"batch", "barker", reg, mh.Options{Step: 0.1, BatchSize: 1}, "batch size"},
		{"epsilon", "austere", reg, mh.Options{Step: 0.1, Epsilon: 2}, "ε"},
		{"nil target", "mh", nil, good, "nil target"},
	}
	for _, c := range cases {
		_, err := mh.New(c.sampler, c.t, rng(1, 2), &c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mh: ") {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := mh.New("mh", reg, nil, &good); err == nil {
		t.Error("nil random source accepted")
	}
	// Outside the support.
	if err := reg.SetBox([]float64{0, 0}, []float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := mh.New("mh", reg, rng(1, 2), &mh.Options{Step: 0.1, Init: []float64{2, 0}}); err == nil {
		t.Error("initial state outside the support accepted")
	}
}

type plainNoBound struct{}

func (plainNoBound) Dim() int                              { return 1 }
func (plainNoBound) N() int                                { return 3 }
func (plainNoBound) LogPrior(theta []float64) float64      { return 0 }
func (plainNoBound) LogLik(i int, theta []float64) float64 { return 0 }

// TestBoundViolation checks that an observed violation of a declared bound
// stops the chain with an error instead of biasing it.
func TestBoundViolation(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(200, 2, 4, rng(2, 2))
	for _, name := range []string{"tunamh", "tfmh"} {
		s, err := mh.New(name, lying{reg}, rng(3, 3), &mh.Options{Step: 0.3, Chi: 1e-3})
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			s.Step()
		}
		err = s.Err()
		if err == nil || !strings.Contains(err.Error(), "exceeds its declared bound") {
			t.Fatalf("%s: error %v, want a bound violation", name, err)
		}
		x := slices.Clone(s.State())
		s.Step()
		if !slices.Equal(x, s.State()) {
			t.Fatalf("%s: chain moved after an error", name)
		}
	}
	// A target whose M is too small for its log-likelihood differences.
	s, err := mh.NewTunaMH(plain{}, rng(4, 4), &mh.Options{Step: 1, Chi: 1, Init: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.Step()
	}
	if s.Err() == nil {
		t.Fatal("violated Assumption 1 not reported")
	}
	// Global ranges that are too narrow.
	if err := reg.SetBox([]float64{-3, -3}, []float64{5, 5}); err != nil {
		t.Fatal(err)
	}
	p, err := mh.NewPoissonMH(narrow{reg}, rng(5, 5), &mh.Options{Step: 0.3, Lambda: 10, Init: []float64{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		p.Step()
	}
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "outside its declared range") {
		t.Fatalf("narrow ranges: error %v", p.Err())
	}
}

// narrow declares ranges that are too narrow by a factor 2.
type narrow struct{ *targets.RobustLinear }

func (n narrow) LogLikRange(i int) (lo, hi float64) {
	lo, hi = n.RobustLinear.LogLikRange(i)
	return lo / 2, hi
}

// TestDeterministic checks that equal seeds give identical chains.
func TestDeterministic(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(100, 3, 4, rng(6, 6))
	mode := make([]float64, 3)
	if err := reg.Mode(mode); err != nil {
		t.Fatal(err)
	}
	if err := reg.SetBox([]float64{-5, -5, -5}, []float64{5, 5, 5}); err != nil {
		t.Fatal(err)
	}
	o := mh.Options{Step: 0.05, Init: mode, Ref: mode, Chi: 1e-3, Lambda: 10}
	for _, name := range mh.Names() {
		run := func() []float64 {
			s, err := mh.New(name, reg, rng(7, 7), &o)
			if err != nil {
				t.Fatal(err)
			}
			var out []float64
			for range 200 {
				s.Step()
				out = append(out, s.State()...)
			}
			if s.Err() != nil {
				t.Fatalf("%s: %v", name, s.Err())
			}
			return out
		}
		if !slices.Equal(run(), run()) {
			t.Errorf("%s: same seed, different chains", name)
		}
	}
}

// TestZeroAllocs checks that a step allocates nothing in steady state.
func TestZeroAllocs(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(500, 3, 4, rng(8, 8))
	mode := make([]float64, 3)
	if err := reg.Mode(mode); err != nil {
		t.Fatal(err)
	}
	if err := reg.SetBox([]float64{-5, -5, -5}, []float64{5, 5, 5}); err != nil {
		t.Fatal(err)
	}
	o := mh.Options{Step: 0.02, Init: mode, Ref: mode, Chi: 1e-3, Lambda: 10}
	for _, name := range mh.Names() {
		s, err := mh.New(name, reg, rng(9, 9), &o)
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 { // warm up: let growing buffers reach their size
			s.Step()
		}
		if a := testing.AllocsPerRun(500, func() { s.Step() }); a != 0 {
			t.Errorf("%s: %v allocations per step", name, a)
		}
	}
}

// TestBarkerTable checks the correction distribution against the L∞
// errors of Table 3 of Seita et al., using the grid-scaled ridge penalty
// (ρ_G = ρ_4000·(G/4000)², see DefaultBarkerTable).
func TestBarkerTable(t *testing.T) {
	tb, err := mh.DefaultBarkerTable()
	if err != nil {
		t.Fatal(err)
	}
	// Paper, N = 4000, σ = 1: λ = 10 → 8.9e-4 (we reproduce 8.86e-4).
	if math.Abs(tb.LInf-8.9e-4) > 0.5e-4 {
		t.Errorf("default table L∞ = %.3g, paper 8.9e-4", tb.LInf)
	}
	for _, c := range []struct{ ridge, want float64 }{{100, 1.9e-3}, {1, 1.6e-3}} {
		tb2, err := mh.NewBarkerTable(20, 500, 1, c.ridge/64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(tb2.LInf-c.want) > 0.1*c.want {
			t.Errorf("λ = %v: L∞ = %.3g, paper %.2g", c.ridge, tb2.LInf, c.want)
		}
	}
	// X_corr is symmetric with variance near π²/3 − σ² (2.29; the clipped
	// table gives about 2.36, as the reference digest also found).
	r := rand.New(rand.NewPCG(1, 1))
	m1, m2 := 0.0, 0.0
	const n = 200_000
	for range n {
		x := tb.Sample(r)
		m1 += x
		m2 += x * x
	}
	m1 /= n
	v := m2/n - m1*m1
	if math.Abs(m1) > 0.02 || math.Abs(v-2.36) > 0.05 {
		t.Errorf("X_corr mean %.4f, variance %.4f", m1, v)
	}
	if _, err := mh.NewBarkerTable(20, 100, 2, 1); err == nil {
		t.Error("σ above the logistic standard deviation accepted")
	}
}
