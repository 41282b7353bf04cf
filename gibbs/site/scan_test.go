package site

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// systematic returns the sampler new builds on m with the systematic scan,
// its prefetch forced on (core.AheadVars is far above the test graphs)
// where asked, broken as asked.
func systematic(t *testing.T, name string, m factorgraph.Model, r *rand.Rand, init []float64, prefetch, broken bool) (gibbs.Sampler, error) {
	opt := &gibbs.Options{Init: init, Systematic: true}
	var s gibbs.Sampler
	switch name {
	case "gibbs":
		g, err := NewGibbs(m, r, opt)
		if err != nil {
			return nil, err
		}
		if prefetch {
			g.core().EnableExactAhead(0)
		}
		g.core().BrokenScan = broken
		s = g
	case "pgibbs":
		p, err := NewPoissonGibbs(m, r, opt)
		if err != nil {
			return nil, err
		}
		if prefetch {
			p.core().PG.EnableAhead(p.core(), 0)
		}
		p.core().BrokenScan = broken
		s = p
	case "auto":
		a, err := NewMixed(m, r, opt)
		if err != nil {
			return nil, err
		}
		a.core().BrokenScan = broken
		s = a
	default:
		t.Fatalf("no sampler %q", name)
	}
	return s, nil
}

// TestExactnessSystematic: plain Gibbs, Poisson-Gibbs and Mixed in a
// systematic scan (gibbs.Options.Systematic), with and without the scan's
// prefetch, pass the enumeration check; the same check rejects a scan
// that skips a variable at 0 (a scan that depends on the state).
// (TestExactnessBytes checks the scan over the one-byte state.)
func TestExactnessSystematic(t *testing.T) {
	gibbstest.SkipShort(t)
	gs := gibbstest.Graphs(t)
	var cases []gibbstest.SamplerCase
	for _, c := range []struct {
		name     string
		prefetch bool
	}{{"gibbs", false}, {"gibbs", true}, {"pgibbs", false}, {"pgibbs", true}, {"auto", false}} {
		label := c.name + "/systematic"
		if c.prefetch {
			label += "/prefetch"
		}
		cases = append(cases, gibbstest.SamplerCase{Name: label, New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return systematic(t, c.name, m, r, init, c.prefetch, false)
		}})
	}
	gibbstest.CheckExact(t, gs, cases, 99, 1)
	gibbstest.CheckBroken(t, gs, []gibbstest.BrokenCase{
		{Name: "Gibbs/systematic-by-state", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return systematic(t, "gibbs", tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), tg.Init, false, true)
		}},
		{Name: "PoissonGibbs/systematic-by-state", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return systematic(t, "pgibbs", tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), tg.Init, false, true)
		}},
	})
}

// TestSystematicOrder: the steps of a systematic scan update the free
// variables in turn, evidence skipped, and wrap around.
func TestSystematicOrder(t *testing.T) {
	b := factorgraph.NewBuilder()
	for range 5 {
		b.AddVariable(factorgraph.Discrete(3))
	}
	for i := range 4 {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 0.5))
	}
	b.Observe(2, 1)
	g := gibbstest.Build(t, b)
	for _, name := range []string{"gibbs", "pgibbs", "auto"} {
		s, err := systematic(t, name, g, rand.New(rand.NewPCG(1, 1)), nil, true, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for range 8 {
			got = append(got, s.Step())
		}
		if want := []int{0, 1, 3, 4, 0, 1, 3, 4}; !slices.Equal(got, want) {
			t.Errorf("%s: steps updated %v, want %v", name, got, want)
		}
	}
}

// TestResumeSystematic: a systematic chain restored mid-scan from its
// snapshot goes on bit for bit, at the same place of the scan; a
// random-scan snapshot is refused by a systematic chain and the reverse,
// each saying so.
func TestResumeSystematic(t *testing.T) {
	tg := gibbstest.Graphs(t)[0]
	for _, name := range []string{"gibbs", "pgibbs", "auto"} {
		mk := func() (gibbs.Sampler, *rand.PCG) {
			src := rand.NewPCG(3, 3)
			s, err := systematic(t, name, tg.G, rand.New(src), tg.Init, true, false)
			if err != nil {
				t.Fatal(err)
			}
			return s, src
		}
		a, srcA := mk()
		for range 1001 { // not a multiple of the free variables
			a.Step()
		}
		snap, err := a.(interface{ Snapshot() ([]byte, error) }).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		rng, _ := srcA.MarshalBinary()
		b, srcB := mk()
		if err := b.(interface{ Restore([]byte) error }).Restore(snap); err != nil {
			t.Fatal(err)
		}
		if err := srcB.UnmarshalBinary(rng); err != nil {
			t.Fatal(err)
		}
		for k := range 3000 {
			if ia, ib := a.Step(), b.Step(); ia != ib || !slices.Equal(a.State(), b.State()) {
				t.Fatalf("%s: step %d after the restore: %d, resumed %d", name, k, ia, ib)
			}
		}
		var random gibbs.Sampler
		opt := &gibbs.Options{Init: tg.Init}
		r := rand.New(rand.NewPCG(1, 1))
		switch name {
		case "gibbs":
			random, err = NewGibbs(tg.G, r, opt)
		case "pgibbs":
			random, err = NewPoissonGibbs(tg.G, r, opt)
		default:
			random, err = NewMixed(tg.G, r, opt)
		}
		if err != nil {
			t.Fatal(err)
		}
		err = random.(interface{ Restore([]byte) error }).Restore(snap)
		if err == nil || !strings.Contains(err.Error(), "systematic") {
			t.Errorf("%s: a random-scan chain restored a systematic snapshot: %v", name, err)
		}
		rsnap, err := random.(interface{ Snapshot() ([]byte, error) }).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		err = b.(interface{ Restore([]byte) error }).Restore(rsnap)
		if err == nil || !strings.Contains(err.Error(), "random-scan") {
			t.Errorf("%s: a systematic chain restored a random-scan snapshot: %v", name, err)
		}
	}
}
