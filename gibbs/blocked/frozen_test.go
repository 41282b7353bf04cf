package blocked

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// TestFrozenLinkBuiltBlocks: blocks whose bounds bind (one variable a
// block; forests of width 1 on a triangle of equalities) get a block of
// each link they would freeze; a link whose joint table exceeds MaxTable
// is an error naming it.
func TestFrozenLinkBuiltBlocks(t *testing.T) {
	triangle := gibbstest.LinkModel(t, 3, 2, func(b *factorgraph.Builder) {
		b.AddFactor(gibbstest.Relation([]int{0, 1}, 2, gibbstest.Equal))
		b.AddFactor(gibbstest.Relation([]int{1, 2}, 2, gibbstest.Equal))
		b.AddFactor(gibbstest.Relation([]int{0, 2}, 2, gibbstest.Equal))
	})
	for _, cfg := range []Config{{Config: blocks.Config{MaxVars: 1}}, {Config: blocks.Config{Forests: true, MaxWidth: 1}}, {Config: blocks.Config{Forests: true, MaxVars: 1}}} {
		sets, err := BuildBlocks(triangle, cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if err := blocks.CheckCover(context.Background(), triangle, sets); err != nil {
			t.Errorf("%+v: blocks %v freeze: %v", cfg, sets, err)
		}
		if !slices.ContainsFunc(sets, func(b []int) bool { return len(b) >= 2 }) {
			t.Errorf("%+v: blocks %v: no block holds a link", cfg, sets)
		}
	}
	wide := gibbstest.LinkModel(t, 2, 100, func(b *factorgraph.Builder) { b.AddFactor(gibbstest.Relation([]int{0, 1}, 100, gibbstest.Equal)) })
	_, err := BuildBlocks(wide, Config{Config: blocks.Config{MaxVars: 1, MaxTable: 1000}})
	if want := "hard factor 1 (vars 0,1) fixes variable 0 block by block, and a block holding the factor's variables [0 1] needs a table of 10000 entries, more than MaxTable = 1000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("link wider than MaxTable: %v, want an error containing %q", err, want)
	}
}

// frozenGraph returns a random graph on which single-site updates freeze:
// 3–5 variables of a common domain size 2–3 with random soft tables and
// Potts pairs, a deterministic link (an equality, a permutation of two
// variables' values, or x_c = x_a + x_b mod d) and, for odd seeds, a
// variable observed.
func frozenGraph(t *testing.T, seed uint64) gibbstest.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0xf0))
	for attempt := 0; ; attempt++ {
		if attempt > 100 {
			t.Fatalf("seed %d: no frozen random graph", seed)
		}
		b := factorgraph.NewBuilder()
		n, d := 3+r.IntN(3), 2+r.IntN(2)
		b.AddVariables(n, factorgraph.Discrete(d))
		for range n + r.IntN(n) {
			scope := r.Perm(n)[:1+r.IntN(2)]
			if len(scope) == 2 && r.IntN(3) == 0 {
				b.AddFactor(factorgraph.NewPotts(scope[0], scope[1], 1.5*r.NormFloat64()))
				continue
			}
			sizes, vals := gibbstest.Cube(len(scope), d)
			for k := range vals {
				vals[k] = 1.2*r.Float64() - 0.6
			}
			b.AddFactor(factorgraph.NewTable(scope, sizes, vals))
		}
		p := r.Perm(n)
		switch perm := r.Perm(d); seed % 3 {
		case 0:
			b.AddFactor(gibbstest.Relation(p[:2], d, gibbstest.Equal))
		case 1:
			b.AddFactor(gibbstest.Relation(p[:2], d, func(v []int) bool { return v[1] == perm[v[0]] }))
		default:
			b.AddFactor(gibbstest.Relation(p[:3], d, func(v []int) bool { return v[2] == (v[0]+v[1])%d }))
		}
		if seed%2 == 1 {
			b.Observe(p[n-1], float64(r.IntN(d)))
		}
		g, err := b.Build()
		if err != nil || core.CheckSiteMoves(context.Background(), "gibbs", g) == nil {
			continue
		}
		joint := gibbstest.Enumerate(g)
		start := slices.IndexFunc(joint, func(p float64) bool { return p > 0 })
		if start < 0 {
			continue
		}
		init := make([]float64, n)
		gibbstest.Decode(g, start, init)
		return gibbstest.Graph{G: g, Init: init, Seed: seed}
	}
}

// frozenGraphs are 8 graphs on which single-site updates freeze.
func frozenGraphs(t *testing.T) []gibbstest.Graph {
	var gs []gibbstest.Graph
	for seed := uint64(1); seed <= 8; seed++ {
		gs = append(gs, frozenGraph(t, seed))
	}
	return gs
}

// TestFrozenLinkSound: on random graphs with hard pair tables (some of them
// permutations: deterministic links), a single-site sampler is refused
// only where the feasible states are not connected by single-site moves
// (enumerated), and the test finds nearly all of those (all, today).
func TestFrozenLinkSound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	refused, disconnected, graphs := 0, 0, 0
	for range 400 {
		b := factorgraph.NewBuilder()
		n, d := 2+r.IntN(3), 2+r.IntN(2)
		b.AddVariables(n, factorgraph.Discrete(d))
		for range 1 + r.IntN(n) {
			p := r.Perm(n)
			switch perm := r.Perm(d); r.IntN(3) {
			case 0:
				b.AddFactor(gibbstest.Relation(p[:2], d, func(v []int) bool { return v[1] == perm[v[0]] }))
			case 1:
				b.AddFactor(gibbstest.Relation(p[:2], d, func(v []int) bool { return v[0] != v[1] || perm[0] == 0 }))
			default:
				b.AddFactor(gibbstest.Relation(p[:1], d, func(v []int) bool { return v[0] != perm[0] }))
			}
		}
		g, err := b.Build()
		if err != nil {
			continue
		}
		joint := gibbstest.Enumerate(g)
		if !slices.ContainsFunc(joint, func(p float64) bool { return p > 0 }) {
			continue
		}
		graphs++
		_, conn := gibbstest.Connected(g, joint)
		err = core.CheckSiteMoves(context.Background(), "gibbs", g)
		if err != nil {
			refused++
			if conn {
				t.Errorf("refused a graph whose feasible states single sites connect: %v", err)
			}
		}
		if !conn {
			disconnected++
		}
	}
	t.Logf("%d graphs: %d disconnected for single sites, %d refused", graphs, disconnected, refused)
	if refused < disconnected*9/10 {
		t.Errorf("refused %d of %d disconnected graphs; the test should find nearly all", refused, disconnected)
	}
}

// TestFrozenLinkExactness: on graphs whose deterministic links freeze
// single-site chains, the registry's auto, Blocked with automatic blocks,
// with blocks of one variable (extended by the links' blocks) and with
// width-1 forests have the exact joint and marginals, and the broken block
// updates are still rejected there.
func TestFrozenLinkExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := frozenGraphs(t)
	gibbstest.CheckExact(t, graphs, []gibbstest.SamplerCase{
		{Name: "auto", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			b, err := NewIfSticky(m, r, &gibbs.Options{Init: init})
			if err == nil && b == nil {
				return nil, errors.New("auto chose single-site updates on a frozen graph")
			}
			return b, err
		}, Steps: blockSteps},
		blockedCase("Blocked/auto", nil, Config{}, blockSteps),
		blockedCase("Blocked/one-variable-blocks", nil, Config{Config: blocks.Config{MaxVars: 1}}, blockSteps),
		blockedCase("Blocked/forests-width-1", nil, Config{Config: blocks.Config{Forests: true, MaxWidth: 1}}, blockSteps),
	}, 23, 1)
	broken := func(breakIt func(*Blocked)) func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 23)), &gibbs.Options{Init: tg.Init}, nil, Config{Config: blocks.Config{MaxVars: 2}})
			if err == nil {
				breakIt(s)
			}
			return s, err
		}
	}
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{
		{Name: "Blocked/dropped-boundary-factor", New: broken(dropBoundary), Steps: 2 * blockSteps},
		{Name: "Blocked/backward-wrong-variable", New: broken(wrongConditioning), Steps: 2 * blockSteps},
		// Blocks of one variable, without the links' blocks: frozen.
		{Name: "Blocked/one-variable-blocks-unchecked", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			var blocks [][]int
			for _, v := range tg.G.Free() {
				blocks = append(blocks, []int{v})
			}
			cfg, _ := Config{}.withDefaults()
			opt := &gibbs.Options{Init: tg.Init}
			plans, err := compilePlans(tg.G, blocks, cfg, opt)
			if err != nil {
				return nil, err
			}
			return newBlocked(tg.G, rand.New(rand.NewPCG(tg.Seed, 23)), opt, blocks, plans)
		}, Steps: 2 * blockSteps},
	})
}
