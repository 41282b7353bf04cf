package site

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/potts"
)

// lookAhead returns Poisson-Gibbs on m with the random scan's look-ahead
// forced on (core.AheadVars is far above the test graphs), broken as asked.
func lookAhead(m factorgraph.Model, r *rand.Rand, init []float64, broken bool) (*PoissonGibbs, error) {
	s, err := NewPoissonGibbs(m, r, &gibbs.Options{Init: init})
	if err != nil {
		return nil, err
	}
	s.core().PG.EnableAhead(s.core(), 0)
	s.core().BrokenAhead = broken
	return s, nil
}

// gibbsAhead returns plain Gibbs on m with the look-ahead forced on.
func gibbsAhead(m factorgraph.Model, r *rand.Rand, init []float64, broken bool) (*Gibbs, error) {
	s, err := NewGibbs(m, r, &gibbs.Options{Init: init})
	if err != nil {
		return nil, err
	}
	s.core().EnableExactAhead(0)
	s.core().BrokenAhead = broken
	return s, nil
}

// TestExactnessLookAhead: Poisson-Gibbs and Gibbs whose random scan draws
// its variables two steps ahead (core.Core.Prefetch) pass the enumeration
// check; the same check rejects a look-ahead that draws again an index
// whose variable is at 0 (a scan that depends on the state).
func TestExactnessLookAhead(t *testing.T) {
	gibbstest.SkipShort(t)
	gs := gibbstest.Graphs(t)
	on := func(s interface{ core() *core.Core }, m factorgraph.Model) {
		if s.core().Prefetch == nil {
			t.Errorf("the look-ahead is off on a graph of %d variables", m.NumVars())
		}
	}
	gibbstest.CheckExact(t, gs, []gibbstest.SamplerCase{
		{Name: "PoissonGibbs/look-ahead", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			s, err := lookAhead(m, r, init, false)
			if err == nil {
				on(s, m)
			}
			return s, err
		}},
		{Name: "Gibbs/look-ahead", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			s, err := gibbsAhead(m, r, init, false)
			if err == nil {
				on(s, m)
			}
			return s, err
		}},
	}, 99, 1)
	gibbstest.CheckBroken(t, gs, []gibbstest.BrokenCase{
		{Name: "PoissonGibbs/look-ahead-by-state", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return lookAhead(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), tg.Init, true)
		}},
		{Name: "Gibbs/look-ahead-by-state", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return gibbsAhead(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), tg.Init, true)
		}},
	})
}

// TestResumeLookAhead: a look-ahead chain restored from its snapshot (the
// two variables drawn ahead included) goes on bit for bit; a snapshot
// without them (before the look-ahead, or from a chain without it)
// restores, and one whose variables drawn ahead are not free is refused.
func TestResumeLookAhead(t *testing.T) {
	tg := gibbstest.Graphs(t)[0]
	mk := func() (*PoissonGibbs, *rand.PCG) {
		src := rand.NewPCG(3, 3)
		s, err := lookAhead(tg.G, rand.New(src), tg.Init, false)
		if err != nil {
			t.Fatal(err)
		}
		return s, src
	}
	a, srcA := mk()
	for range 1001 {
		a.Step()
	}
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	rng, _ := srcA.MarshalBinary()
	b, srcB := mk()
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if err := srcB.UnmarshalBinary(rng); err != nil {
		t.Fatal(err)
	}
	for k := range 5000 {
		if ia, ib := a.Step(), b.Step(); ia != ib || !slices.Equal(a.State(), b.State()) {
			t.Fatalf("step %d after the restore: %d, resumed %d", k, ia, ib)
		}
	}
	plain, err := NewPoissonGibbs(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Restore(snap); err == nil {
		t.Error("a chain without the look-ahead restored a look-ahead snapshot")
	}
	old, err := plain.Snapshot() // no indices drawn ahead
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(old); err != nil {
		t.Errorf("a snapshot without indices drawn ahead: %v", err)
	}
}

// hidden is a Conditioner that hides its kernel's look-ahead (chain.Ahead).
type hidden struct{ chain.Conditioner }

// TestMarginalsLookAhead: Rao–Blackwellised marginals that prefetch the
// next variable's counters (the kernel is a chain.Ahead) are those of the
// same chain observed without it, bit for bit; Next is the variable the
// next step updates.
func TestMarginalsLookAhead(t *testing.T) {
	tg := gibbstest.Graphs(t)[1]
	run := func(hide bool) [][]float64 {
		s, err := lookAhead(tg.G, rand.New(rand.NewPCG(5, 5)), tg.Init, false)
		if err != nil {
			t.Fatal(err)
		}
		mg := chain.NewMarginals(factorgraph.Sizes(tg.G))
		var src chain.Conditioner = s
		if hide {
			src = hidden{s}
		}
		mg.RaoBlackwellise(src)
		next := -1
		for k := range 20000 {
			i := s.Step()
			if next >= 0 && i != next {
				t.Fatalf("step %d updated %d, Next said %d", k, i, next)
			}
			mg.Observe(int64(k+1), i, s.State())
			next = s.Next()
		}
		return mg.Probs()
	}
	if a, b := run(false), run(true); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("marginals with the prefetch %v, without %v", a, b)
	}
}

// benchLookAhead times the Steps of the sampler mk builds on the model
// build makes (once a process, whatever -count: *g holds it), with the
// random scan's look-ahead and without it, the same chain otherwise.
func benchLookAhead(b *testing.B, name string, g **factorgraph.Graph, build func() (*factorgraph.Graph, error),
	mk func(*factorgraph.Graph) (gibbs.Sampler, *core.Core, error)) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("%s/look-ahead=%v", name, on), func(b *testing.B) {
			if *g == nil {
				var err error
				if *g, err = build(); err != nil {
					b.Fatal(err)
				}
			}
			s, c, err := mk(*g)
			if err != nil {
				b.Fatal(err)
			}
			if c.Prefetch == nil {
				b.Fatalf("no look-ahead on a model of %d variables", (*g).NumVars())
			}
			if !on {
				c.Prefetch = nil
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Step()
			}
		})
	}
}

// The benchmarks' models, built once a process.
var lookAheadGraph, sparseGraph *factorgraph.Graph

// BenchmarkLookAhead times a Poisson-Gibbs update of the paper's Potts
// model at width 400 (160 000 variables, 1.2·10⁸ pair factors, about 5 GB,
// built in about half a minute) with the random scan's look-ahead (the
// default there) and without it. Run with -count and benchstat:
// GOMAXPROCS=1 go test -run '^$' -bench 'LookAhead$' -count 8 ./gibbs/site.
func BenchmarkLookAhead(b *testing.B) {
	p := potts.Paper()
	p.Width = 400
	benchLookAhead(b, "width=400", &lookAheadGraph, func() (*factorgraph.Graph, error) { return potts.New(p) },
		func(g *factorgraph.Graph) (gibbs.Sampler, *core.Core, error) {
			s, err := NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				return nil, nil, err
			}
			return s, s.core(), nil
		})
}

// BenchmarkLookAheadSparse times a plain Gibbs update of a random graph of
// 10⁶ variables of degree 20 (q = 4, Potts pairs of one weight: auto's
// update there) with the random scan's look-ahead and without it:
// GOMAXPROCS=1 go test -run '^$' -bench LookAheadSparse -count 8 ./gibbs/site.
func BenchmarkLookAheadSparse(b *testing.B) {
	build := func() (*factorgraph.Graph, error) {
		pp, err := potts.Sparse(1e6, 20, 4, 0.1, rand.New(rand.NewPCG(1, 7)))
		if err != nil {
			return nil, err
		}
		return pp.Build()
	}
	benchLookAhead(b, "n=1000000/deg=20", &sparseGraph, build, func(g *factorgraph.Graph) (gibbs.Sampler, *core.Core, error) {
		s, err := NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			return nil, nil, err
		}
		return s, s.core(), nil
	})
}

// TestGatherLookAhead: a Poisson-Gibbs update reads its heavy neighbours'
// values from a gathered copy (a state larger than the core's cache) or
// straight from the state (smaller, or the look-ahead prefetched them):
// the same variables updated from the same stream give the same states,
// bit for bit, in all four combinations.
func TestGatherLookAhead(t *testing.T) {
	p := potts.Paper()
	p.Width = 40 // the smallest widths have no records
	g, err := potts.New(p)
	if err != nil {
		t.Fatal(err)
	}
	order := rand.New(rand.NewPCG(4, 4))
	vars := make([]int, 20000)
	for k := range vars {
		vars[k] = order.IntN(g.NumVars())
	}
	var want []float64
	for _, gather := range []bool{false, true} {
		for _, ahead := range []bool{false, true} {
			s, err := NewPoissonGibbs(g, rand.New(rand.NewPCG(6, 6)), nil)
			if err != nil {
				t.Fatal(err)
			}
			c := s.core()
			if c.PG.Rec == nil {
				t.Fatal("the paper's model has no records: the test tests nothing")
			}
			c.PG.Gather = gather
			if ahead {
				c.PG.EnableAhead(c, 0)
			}
			for _, i := range vars {
				s.Update(i)
			}
			if want == nil {
				want = slices.Clone(s.State())
				continue
			}
			if !slices.Equal(s.State(), want) {
				t.Errorf("gather %v, look-ahead %v: the states differ from the plain update's", gather, ahead)
			}
		}
	}
}
