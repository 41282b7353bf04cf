package mh_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// stepper is what both sampler families have in common.
type stepper interface {
	Step() int
	State() []float64
	Err() error
}

var (
	_ stepper = mh.Sampler(nil)
	_ stepper = gibbs.Sampler(nil)
)

// TestNames: Names is a fresh slice in its documented order, and New
// knows each name.
func TestNames(t *testing.T) {
	want := []string{"mh", "poissonmh", "tunamh", "tfmh", "smh1", "smh2", "flymc", "mhss1", "mhss2", "barker", "austere"}
	names := mh.Names()
	if !slices.Equal(names, want) {
		t.Errorf("Names() = %v, want %v", names, want)
	}
	names[0] = "changed"
	if mh.Names()[0] != "mh" {
		t.Error("Names returns a shared slice")
	}
	_, err := mh.New("nope", nil, rng(1, 1), nil)
	if err == nil || !strings.Contains(err.Error(), strings.Join(want, ", ")) {
		t.Errorf("unknown name: %v, want an error listing the names", err)
	}
}

// TestNilOptions: a nil *Options is the zero Options, for New and every
// constructor: an error (the zero random-walk step), never a panic.
func TestNilOptions(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(10, 2, 4, rng(1, 1))
	for _, name := range mh.Names() {
		if s, err := mh.New(name, reg, rng(1, 2), nil); err == nil || s != nil || !strings.Contains(err.Error(), "step") {
			t.Errorf("%s with nil options: %v, %v", name, s, err)
		}
	}
	r := rng(1, 2)
	for name, f := range map[string]func() error{
		"NewMH":        func() error { _, err := mh.NewMH(reg, r, nil); return err },
		"NewPoissonMH": func() error { _, err := mh.NewPoissonMH(reg, r, nil); return err },
		"NewTunaMH":    func() error { _, err := mh.NewTunaMH(reg, r, nil); return err },
		"NewTFMH":      func() error { _, err := mh.NewTFMH(reg, r, nil); return err },
		"NewSMH":       func() error { _, err := mh.NewSMH(reg, r, nil); return err },
		"NewFlyMC":     func() error { _, err := mh.NewFlyMC(reg, r, nil); return err },
		"NewMHSS":      func() error { _, err := mh.NewMHSS(reg, r, nil); return err },
		"NewBarker":    func() error { _, err := mh.NewBarker(reg, r, nil); return err },
		"NewAustere":   func() error { _, err := mh.NewAustere(reg, r, nil); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s(nil options) accepted the zero step", name)
		}
	}
}

// TestOrder: Options.Order selects the control variates of SMH and MH-SS;
// 0 means 1, other values are errors naming them, and the registry names
// set it.
func TestOrder(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(100, 3, 4, rng(6, 6))
	mode := make([]float64, 3)
	if err := reg.Mode(mode); err != nil {
		t.Fatal(err)
	}
	run := func(s mh.Sampler, err error) []float64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			if i := s.Step(); i != -1 {
				t.Fatalf("Step returned %d, want -1", i)
			}
		}
		return slices.Clone(s.State())
	}
	for _, c := range []struct {
		name string
		new  func(o *mh.Options) (mh.Sampler, error)
	}{
		{"smh", func(o *mh.Options) (mh.Sampler, error) { return mh.NewSMH(reg, rng(2, 3), o) }},
		{"mhss", func(o *mh.Options) (mh.Sampler, error) { return mh.NewMHSS(reg, rng(2, 3), o) }},
	} {
		for _, order := range []int{1, 2} {
			o := mh.Options{Step: 0.05, Init: mode, Ref: mode, Order: order}
			direct := run(c.new(&o))
			o.Order = 0
			named := run(mh.New(fmt.Sprintf("%s%d", c.name, order), reg, rng(2, 3), &o))
			if !slices.Equal(direct, named) {
				t.Errorf("%s: Order %d and the name %s%d give different chains", c.name, order, c.name, order)
			}
			if order == 1 {
				if zero := run(c.new(&o)); !slices.Equal(zero, direct) {
					t.Errorf("%s: Order 0 is not order 1", c.name)
				}
			}
		}
		for _, bad := range []int{-1, 3} {
			_, err := c.new(&mh.Options{Step: 0.05, Order: bad})
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("Order = %d", bad)) {
				t.Errorf("%s: Order %d: %v", c.name, bad, err)
			}
		}
		if _, err := mh.New(c.name+"1", reg, rng(2, 3), &mh.Options{Step: 0.05, Order: 2}); err == nil {
			t.Errorf("%s1 with Order 2 accepted", c.name)
		}
	}
}

// TestStats: every step makes one proposal; Add sums field by field, and
// AcceptanceRate is Accepted/Proposals, NaN without proposals.
func TestStats(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(100, 3, 4, rng(6, 6))
	mode := make([]float64, 3)
	if err := reg.Mode(mode); err != nil {
		t.Fatal(err)
	}
	for _, name := range mh.Names() {
		if name == "poissonmh" {
			continue // needs global ranges
		}
		s, err := mh.New(name, reg, rng(4, 5), &mh.Options{Step: 0.05, Init: mode, Ref: mode, Chi: 1e-3})
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			s.Step()
		}
		st := s.Stats()
		if st.Steps != 200 || st.Proposals != 200 || st.Accepted > st.Proposals {
			t.Errorf("%s: %+v", name, st)
		}
		if r := st.AcceptanceRate(); r != float64(st.Accepted)/200 {
			t.Errorf("%s: acceptance rate %v", name, r)
		}
	}
	a := mh.Stats{Stats: chain.Stats{Steps: 1, Proposals: 2, Accepted: 3}, Batch: 4, Evals: 5, FullSteps: 6}
	a.Add(mh.Stats{Stats: chain.Stats{Steps: 10, Proposals: 20, Accepted: 30}, Batch: 40, Evals: 50, FullSteps: 60})
	if want := (mh.Stats{Stats: chain.Stats{Steps: 11, Proposals: 22, Accepted: 33}, Batch: 44, Evals: 55, FullSteps: 66}); a != want {
		t.Errorf("sum %+v, want %+v", a, want)
	}
	if r := (mh.Stats{}).AcceptanceRate(); !math.IsNaN(r) {
		t.Errorf("acceptance rate without proposals: %v", r)
	}
}

// TestStatsJSON: Stats embeds chain.Stats, which encoding/json flattens
// with its fields first, where the Stats of before the embedding had
// them: snapshots are byte for byte what they were.
func TestStatsJSON(t *testing.T) {
	type oldStats struct { // Stats before it embedded chain.Stats
		Steps, Proposals, Accepted int64
		Batch                      float64
		Evals, FullSteps           int64
	}
	old := oldStats{Steps: 1, Proposals: 2, Accepted: 3, Batch: 4.5, Evals: 5, FullSteps: 6}
	cur := mh.Stats{Stats: chain.Stats{Steps: 1, Proposals: 2, Accepted: 3}, Batch: 4.5, Evals: 5, FullSteps: 6}
	ob, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := json.Marshal(cur)
	if err != nil {
		t.Fatal(err)
	}
	if string(ob) != string(nb) {
		t.Errorf("stats marshal as %s, were %s", nb, ob)
	}
	var back mh.Stats
	if err := json.Unmarshal(ob, &back); err != nil || back != cur {
		t.Errorf("old snapshot stats read as %+v (%v), want %+v", back, err, cur)
	}
}

// TestEntries: Lookup knows exactly the names, in Names' order; the
// entries with control variates are those whose order the name fixes (an
// Options.Order contradicting it is refused), and the entries not Exact
// are the approximate tests, *Barker and *Austere.
func TestEntries(t *testing.T) {
	reg, _ := targets.GenerateRobustLinear(50, 2, 4, rng(1, 1))
	for _, name := range mh.Names() {
		e, err := mh.Lookup(name)
		if err != nil || e.Name != name {
			t.Fatalf("Lookup(%q) = %+v, %v", name, e, err)
		}
		o := mh.Options{Step: 0.1, Chi: 1e-4, Lambda: 10}
		s, _ := e.New(reg, rng(1, 2), &o) // nil where the target does not suit it (poissonmh: infinite ranges)
		o.Order = 3
		_, err = e.New(reg, rng(1, 2), &o)
		cv := err != nil && strings.Contains(err.Error(), "contradicts")
		var approximate bool
		switch s.(type) {
		case *mh.Barker, *mh.Austere:
			approximate = true
		}
		if cv != e.ControlVariates || approximate == e.Exact {
			t.Errorf("%s (%T): control variates %v, exact %v", name, s, e.ControlVariates, e.Exact)
		}
	}
	if _, err := mh.Lookup("nope"); err == nil {
		t.Error("Lookup of an unknown name succeeded")
	}
}
