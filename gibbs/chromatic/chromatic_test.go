package chromatic

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// factoryOf returns the factory of the sampler called name, as a
// chromatic sweep's workers are built (auto: single-site).
func factoryOf(t testing.TB, name string) gibbs.Factory {
	t.Helper()
	e, err := samplers.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e.Factory(samplers.Config{SingleSite: true})
}

func TestChromaticExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	for _, name := range []string{"gibbs", "pgibbs"} {
		worst := 0.0
		for _, tg := range gibbstest.Graphs(t) {
			classes := tg.G.Colouring()
			rngs := chain.Streams(tg.Seed, 2)
			c, err := New(factoryOf(t, name), tg.G, classes, rngs, &gibbs.Options{Init: tg.Init})
			if err != nil {
				t.Fatal(err)
			}
			z, where := gibbstest.Exactness(tg.G, gibbs.Sweeper{Sampler: c}, 30000) // a step is a parallel sweep
			if z > gibbstest.ZLimit {
				t.Errorf("%s, graph %d (%d colours): %s: z = %.2f", name, tg.Seed, len(classes), where, z)
			}
			worst = max(worst, z)
		}
		t.Logf("%s: largest z-score %.2f", name, worst)
	}
}

// TestChromaticDeterministic: a run depends on the seeds and the number of
// workers only, not on scheduling.
func TestChromaticDeterministic(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	run := func() []float64 {
		c, err := New(factoryOf(t, "pgibbs"), g, g.Colouring(), chain.Streams(3, 4), nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			c.Sweep()
		}
		if c.Stats().Steps != 300*16 || c.Sweeps() != 300 {
			t.Errorf("%d updates in %d sweeps, want %d in 300", c.Stats().Steps, c.Sweeps(), 300*16)
		}
		return slices.Clone(c.State())
	}
	a := run()
	for range 5 {
		if b := run(); !slices.Equal(a, b) {
			t.Fatal("the same seeds gave different chains")
		}
	}
}

// TestChromaticSampler: a Chromatic is a Sampler whose Step and Update run
// worker 0 on the shared state, and package chain drives it like any
// sampler, by single-site steps or (in a Sweeper) by parallel sweeps.
func TestChromaticSampler(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	c, err := New(factoryOf(t, "pgibbs"), g, g.Colouring(), chain.Streams(5, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	var s gibbs.Sampler = c
	seen := make(map[int]bool)
	for range 400 {
		i := s.Step()
		if i < 0 || i >= g.NumVars() {
			t.Fatalf("Step updated variable %d", i)
		}
		seen[i] = true
	}
	if len(seen) != g.NumVars() {
		t.Errorf("400 random-scan steps visited %d of %d variables", len(seen), g.NumVars())
	}
	s.Update(3)
	c.Sweep()
	if st := s.Stats(); st.Steps != 400+1+16 || c.Sweeps() != 1 {
		t.Errorf("%d updates, %d sweeps; want %d and 1", st.Steps, c.Sweeps(), 400+1+16)
	}
	if err := (&chain.Chain{Kernel: gibbs.Sweeper{Sampler: c}}).Advance(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Steps != 400+1+16+64 || c.Sweeps() != 5 || s.Err() != nil {
		t.Errorf("after 4 sweeps in a chain: %d updates, %d sweeps, error %v", st.Steps, c.Sweeps(), s.Err())
	}
	if err := (&chain.Chain{Kernel: c}).Advance(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Steps != 400+1+16+64+100 || c.Sweeps() != 5 {
		t.Errorf("after 100 single-site steps in a chain: %d updates, %d sweeps", st.Steps, c.Sweeps())
	}
}

func TestColouring(t *testing.T) {
	for _, tg := range gibbstest.Graphs(t) {
		classes := tg.G.Colouring()
		if err := checkColouring(tg.G, classes); err != nil {
			t.Errorf("graph %d: %v", tg.Seed, err)
		}
	}
	// A 4×4 torus of nearest neighbours needs 2 colours; greedy finds ≤ 3.
	g := gibbstest.SmallPotts(t)
	if n := len(g.Colouring()); n < 2 {
		t.Errorf("%d colours for a connected graph", n)
	}
}

func TestChromaticErrors(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	all := make([]int, 16)
	for i := range all {
		all[i] = i
	}
	for _, tc := range []struct {
		name    string
		sampler string
		classes [][]int
		want    string
	}{
		{"improper", "gibbs", [][]int{all}, "share a factor"},
		{"missing", "gibbs", [][]int{all[:15]}, "free variable 15 is in no colour class"},
		{"twice", "gibbs", [][]int{all, {3}}, "variable 3 is in colour classes"},
		{"range", "gibbs", [][]int{{99}}, "out of range"},
		{"global sampler", "mingibbs", g.Colouring(), "reads more than A[i]"},
	} {
		_, err := New(factoryOf(t, tc.sampler), g, tc.classes, chain.Streams(1, 2), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := New(factoryOf(t, "gibbs"), g, g.Colouring(), nil, nil); err == nil {
		t.Error("no workers accepted")
	}
	// A sampler from outside the package (here a wrapper) cannot be a
	// worker: nothing says its updates read A[i] only.
	wrapped := func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		s, err := site.NewGibbs(m, r, opt)
		return gibbstest.Outsider{Sampler: s}, err
	}
	if _, err := New(wrapped, g, g.Colouring(), chain.Streams(1, 2), nil); err == nil || !strings.Contains(err.Error(), "gibbstest.Outsider is not one of the family") {
		t.Errorf("outside sampler: %v", err)
	}
	if _, err := New(nil, g, g.Colouring(), chain.Streams(1, 2), nil); err == nil {
		t.Error("nil factory accepted")
	}
	var _ factorgraph.Adjacency = g
}
