package mh_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
)

// TestMaxDrawsConstruction: a sampler whose expected batch per step is
// known at construction and exceeds Options.MaxDraws is refused with an
// error naming the limit, and accepted once the limit is raised.
func TestMaxDrawsConstruction(t *testing.T) {
	small := huge{n: 1000, w: 1e-3, v: 1e-3, loose: 1}
	cases := []struct {
		name   string
		t      mh.Target
		o      mh.Options
		raised float64 // a MaxDraws that accepts it
	}{
		// Every datum every step: N = 10⁷ + 1.
		{"mh", huge{n: 10_000_001, w: 1e-6, v: 1e-6, loose: 1}, mh.Options{Step: 0.1}, 2e7},
		// λ + L.
		{"poissonmh", small, mh.Options{Step: 0.1, Lambda: 2e7}, 3e7},
		// Algorithm 4: at least λ.
		{"tunamh", small, mh.Options{Step: 0.1, Lambda: 2e7}, 3e7},
		// Algorithm 2: χC²M² for M = Step, C = 1000·2.5·10⁻³ = 2.5.
		{"tunamh", small, mh.Options{Step: 0.1, Chi: 1e9}, 1e8},
		// CM with bounds loosened 10¹⁰ times.
		{"tfmh", huge{n: 1000, w: 1e-3, v: 1e-3, loose: 1e10}, mh.Options{Step: 0.1}, 1e10},
		// Cφ, φ = (0.1² + 0.3²)/2 for θ̂ = 0, θ = 0.1, θ' = 0.2.
		{"smh1", huge{n: 1000, w: 1e-3, v: 1e-3, loose: 1e9}, mh.Options{Step: 0.1, Init: []float64{0.1}, Ref: []float64{0}}, 1e8},
		{"mhss1", huge{n: 1000, w: 1e-3, v: 1e-3, loose: 1e9}, mh.Options{Step: 0.1, Init: []float64{0.1}, Ref: []float64{0}}, 1e8},
	}
	for _, c := range cases {
		_, err := mh.New(c.name, c.t, rng(1, 1), &c.o)
		if err == nil || !strings.Contains(err.Error(), "Options.MaxDraws") {
			t.Errorf("%s %+v: error %v, want one naming Options.MaxDraws", c.name, c.o, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
		c.o.MaxDraws = c.raised
		if _, err := mh.New(c.name, c.t, rng(1, 1), &c.o); err != nil {
			t.Errorf("%s with MaxDraws %g: %v", c.name, c.raised, err)
		}
	}
	// The fallback caps TunaMH's, TFMH's and MH-SS's expected batch at N.
	for _, name := range []string{"tunamh", "tfmh", "mhss1"} {
		o := mh.Options{Step: 0.1, Chi: 1e9, Fallback: true, Init: []float64{0.1}, Ref: []float64{0}}
		if _, err := mh.New(name, huge{n: 1000, w: 1e-3, v: 1e-3, loose: 1e10}, rng(1, 1), &o); err != nil {
			t.Errorf("%s with the fallback: %v", name, err)
		}
	}
	// FlyMC: q_{d→b}·N dark points proposed; the Barker test and
	// AustereMH: the initial minibatch.
	for _, name := range []string{"flymc", "barker", "austere"} {
		o := mh.Options{Step: 0.1, QDarkToBright: 0.5, BatchSize: 600, MaxDraws: 100}
		if _, err := mh.New(name, small, rng(1, 1), &o); err == nil || !strings.Contains(err.Error(), "Options.MaxDraws") {
			t.Errorf("%s: error %v, want one naming Options.MaxDraws", name, err)
		}
		o.MaxDraws = 1000
		if _, err := mh.New(name, small, rng(1, 1), &o); err != nil {
			t.Errorf("%s with MaxDraws 1000: %v", name, err)
		}
	}
}

// TestMaxDrawsStep: where the batch depends on the state, a step whose
// expected batch exceeds MaxDraws records an error before touching the
// data; the sequential tests' minibatch may not grow past it.
func TestMaxDrawsStep(t *testing.T) {
	prop, err := mh.NewGaussianRW(1, nil, 1) // no up-front estimate for a custom proposal
	if err != nil {
		t.Fatal(err)
	}
	target := huge{n: 1000, w: 1e-3, v: 1e-3, loose: 1e6}
	for _, name := range []string{"tunamh", "tfmh", "smh1", "mhss1"} {
		o := mh.Options{Proposal: prop, Chi: 1, Init: []float64{0.5}, Ref: []float64{-0.5}, MaxDraws: 1e4}
		s, err := mh.New(name, target, rng(2, 2), &o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for range 100 {
			s.Step()
		}
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), "Options.MaxDraws") {
			t.Errorf("%s: error %v, want one naming Options.MaxDraws", name, err)
		} else if st := s.Stats(); st.Evals > 0 {
			t.Errorf("%s: %d evaluations before the error", name, st.Evals)
		}
	}
	// Tokens so spread that the minibatch grows to N.
	spread := huge{n: 10_000, w: 1e-6, v: 0.1, loose: 1}
	for _, name := range []string{"barker", "austere"} {
		s, err := mh.New(name, spread, rng(2, 2), &mh.Options{Step: 0.1, MaxDraws: 1000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for range 20 {
			s.Step()
		}
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), "Options.MaxDraws") {
			t.Errorf("%s: error %v, want one naming Options.MaxDraws", name, err)
		}
		if b := s.Stats().Batch; b > 1000*20 {
			t.Errorf("%s: batch %v", name, b)
		}
	}
}

// TestOptionValues: NaN, negative and infinite values are errors naming
// the field, whichever sampler is built; the zero values that are errors
// say so.
func TestOptionValues(t *testing.T) {
	target := huge{n: 100, w: 1e-3, v: 1e-3, loose: 1}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		sampler string
		o       mh.Options
		want    string
	}{
		{"mh", mh.Options{Step: nan}, "Options.Step"},
		{"mh", mh.Options{Step: inf}, "Options.Step"},
		{"mh", mh.Options{Step: 0}, "Options.Step"},
		{"mh", mh.Options{Step: 0.1, Chi: nan}, "Options.Chi"},
		{"tunamh", mh.Options{Step: 0.1, Chi: inf}, "Options.Chi"},
		{"tunamh", mh.Options{Step: 0.1, Chi: 1, Lambda: -1}, "Options.Lambda"},
		{"poissonmh", mh.Options{Step: 0.1, Lambda: inf}, "Options.Lambda"},
		{"poissonmh", mh.Options{Step: 0.1}, "Options.Lambda"},
		{"tunamh", mh.Options{Step: 0.1}, "Options.Chi"},
		{"mhss1", mh.Options{Step: 0.1, Gamma: nan}, "Options.Gamma"},
		{"flymc", mh.Options{Step: 0.1, QDarkToBright: -0.5}, "Options.QDarkToBright"},
		{"austere", mh.Options{Step: 0.1, Epsilon: inf}, "Options.Epsilon"},
		{"barker", mh.Options{Step: 0.1, Delta: inf}, "Options.Delta"},
		{"barker", mh.Options{Step: 0.1, BatchSize: -3}, "Options.BatchSize"},
		{"mh", mh.Options{Step: 0.1, MaxDraws: nan}, "Options.MaxDraws"},
		{"mh", mh.Options{Step: 0.1, MaxDraws: inf}, "Options.MaxDraws"},
		{"mh", mh.Options{Step: 0.1, MaxDraws: -1}, "Options.MaxDraws"},
		{"smh1", mh.Options{Step: 0.1, Ref: []float64{nan}}, "Options.Ref"},
	}
	for _, c := range cases {
		_, err := mh.New(c.sampler, target, rng(1, 1), &c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: error %v, want one naming %s", c.sampler, c.o, err, c.want)
		}
	}
}
