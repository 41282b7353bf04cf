package gibbs

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// Frozen links (frozen.go): a cover of update sets that can never change
// the variables of a hard factor is refused (single-site samplers, user
// blocks) or extended (built blocks); what moves is exact.

// linkModel is a model of n variables with d values, the hard factors
// hard adds, and a weak soft pair on each consecutive pair (so that π is
// not uniform).
func linkModel(t testing.TB, n, d int, hard func(b *factorgraph.Builder)) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(d))
	for i := 0; i+1 < n; i++ {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 0.3+0.1*float64(i)))
	}
	hard(b)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// relation is a hard factor over scope (domain size d each) that allows
// the assignments ok accepts.
func relation(scope []int, d int, ok func(v []int) bool) factorgraph.Factor {
	sizes, vals := cube(len(scope), d)
	v := make([]int, len(scope))
	for e := range vals {
		for k, rest := len(scope)-1, e; k >= 0; k-- {
			v[k], rest = rest%d, rest/d
		}
		if !ok(v) {
			vals[e] = math.Inf(-1)
		}
	}
	return factorgraph.NewTable(scope, sizes, vals)
}

// cube returns the sizes of a table over k variables of d values each, and
// its d^k entries (zero).
func cube(k, d int) ([]int, []float64) {
	sizes := make([]int, k)
	total := 1
	for j := range sizes {
		sizes[j] = d
		total *= d
	}
	return sizes, make([]float64, total)
}

func equal(v []int) bool { return v[0] == v[1] }

// TestFrozenLinks: the single-site samplers refuse a model with a hard
// factor that fixes one of its variables given the others, and
// NewBlockedWith blocks that leave a variable so fixed in every block
// holding it; models where the link can move, or where the rest of the
// model pins it to one assignment, are accepted, and auto and built blocks
// take every one of them.
func TestFrozenLinks(t *testing.T) {
	single := []string{"gibbs", "pgibbs", "mingibbs", "mgpmh", "doublemin"}
	tests := []struct {
		name   string
		n, d   int
		hard   func(b *factorgraph.Builder)
		frozen string // the single-site refusal, "" if accepted
		// blocks and the refusal of NewBlockedWith ("" if accepted)
		blocks  [][]int
		blocked string
	}{
		{"x0 = x1", 2, 2, func(b *factorgraph.Builder) { b.AddFactor(relation([]int{0, 1}, 2, equal)) },
			"single-site updates never change variable 0: hard factor 1 (vars 0,1) fixes it given the factor's other variables, yet it takes more than one value in states of positive probability",
			[][]int{{0}, {1}}, "hard factor 1 (vars 0,1) fixes variable 0 in every block holding it (0 {variables [0]}) given the factor's variables outside the block"},
		{"x0 = x1, overlapping blocks", 2, 3, func(b *factorgraph.Builder) { b.AddFactor(relation([]int{0, 1}, 3, equal)) },
			"never change variable 0: hard factor 1 (vars 0,1)", [][]int{{0}, {0, 1}}, ""},
		{"x0 = x2 = x1 split at x1", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 2}, 2, equal))
			b.AddFactor(relation([]int{2, 1}, 2, equal))
		}, "never change variable 0: hard factor 2 (vars 0,2)", [][]int{{0, 2}, {1}}, "hard factor 3 (vars 2,1) fixes variable 1 in every block holding it (1 {variables [1]})"},
		{"x2 = x0 xor x1", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1, 2}, 2, func(v []int) bool { return v[2] == v[0]^v[1] }))
		}, "never change variable 0: hard factor 2 (vars 0,1,2)", [][]int{{0, 1}, {2}}, "hard factor 2 (vars 0,1,2) fixes variable 2 in every block holding it (1 {variables [2]})"},
		{"x2 = x0 xor x1, blocks {0, 2} and {1, 2}", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1, 2}, 2, func(v []int) bool { return v[2] == v[0]^v[1] }))
		}, "never change variable 0", [][]int{{0, 2}, {1, 2}}, ""},
		{"x1 = x0 mod 2 over 3 values", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1}, 3, func(v []int) bool { return v[1] == v[0]%2 }))
		}, "never change variable 1: hard factor 1 (vars 0,1)", [][]int{{0}, {1}}, "fixes variable 1 in every block holding it (1 {variables [1]})"},
		{"x0 ≤ x1 and x1 ≤ x0", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1}, 3, func(v []int) bool { return v[0] <= v[1] }))
			b.AddFactor(relation([]int{1, 0}, 3, func(v []int) bool { return v[0] <= v[1] }))
		}, "never change variable 0: hard factor 1 (vars 0,1)", [][]int{{1}, {0}}, "fixes variable 0 in every block holding it (1 {variables [0]})"},
		{"x0 ≠ x1 over 3 values", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1}, 3, func(v []int) bool { return v[0] != v[1] }))
		}, "", [][]int{{0}, {1}}, ""},
		{"x0 ≤ x1", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1}, 3, func(v []int) bool { return v[0] <= v[1] }))
		}, "", [][]int{{0}, {1}}, ""},
		{"x0 = x1 = x2, x2 pinned by a zero", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1}, 2, equal))
			b.AddFactor(relation([]int{1, 2}, 2, equal))
			b.AddFactor(factorgraph.NewProbTable([]int{2}, []int{2}, []float64{1, 0}))
		}, "", [][]int{{0}, {1}, {2}}, ""},
		{"x0 = x1, x1 observed", 2, 2, func(b *factorgraph.Builder) {
			b.AddFactor(relation([]int{0, 1}, 2, equal))
			b.Observe(1, 1)
		}, "", [][]int{{0}}, ""},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		g := linkModel(t, tt.n, tt.d, tt.hard)
		for _, name := range single {
			_, err := New(name, g, r, nil)
			switch {
			case tt.frozen == "" && err != nil:
				t.Errorf("%s: %s refused a chain that moves: %v", tt.name, name, err)
			case tt.frozen != "" && (err == nil || !strings.Contains(err.Error(), tt.frozen)):
				t.Errorf("%s: %s: error %v, want one containing %q", tt.name, name, err, tt.frozen)
			}
		}
		_, err := NewBlockedWith(g, r, nil, tt.blocks, BlockConfig{})
		switch {
		case tt.blocked == "" && err != nil:
			t.Errorf("%s: blocks %v refused: %v", tt.name, tt.blocks, err)
		case tt.blocked != "" && (err == nil || !strings.Contains(err.Error(), tt.blocked)):
			t.Errorf("%s: blocks %v: error %v, want one containing %q", tt.name, tt.blocks, err, tt.blocked)
		}
		// The default sampler and built blocks always move.
		for _, name := range []string{"auto", "block"} {
			if _, err := New(name, g, r, nil); err != nil {
				t.Errorf("%s: %s: %v", tt.name, name, err)
			}
		}
	}
}

// TestFrozenLinkBuiltBlocks: blocks whose bounds bind (one variable a
// block; forests of width 1 on a triangle of equalities) get a block of
// each link they would freeze; a link whose joint table exceeds MaxTable
// is an error naming it.
func TestFrozenLinkBuiltBlocks(t *testing.T) {
	triangle := linkModel(t, 3, 2, func(b *factorgraph.Builder) {
		b.AddFactor(relation([]int{0, 1}, 2, equal))
		b.AddFactor(relation([]int{1, 2}, 2, equal))
		b.AddFactor(relation([]int{0, 2}, 2, equal))
	})
	for _, cfg := range []BlockConfig{{MaxVars: 1}, {Forests: true, MaxWidth: 1}, {Forests: true, MaxVars: 1}} {
		sets, err := BuildBlocks(triangle, cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if err := blocks.CheckCover(triangle, sets); err != nil {
			t.Errorf("%+v: blocks %v freeze: %v", cfg, sets, err)
		}
		if !slices.ContainsFunc(sets, func(b []int) bool { return len(b) >= 2 }) {
			t.Errorf("%+v: blocks %v: no block holds a link", cfg, sets)
		}
	}
	wide := linkModel(t, 2, 100, func(b *factorgraph.Builder) { b.AddFactor(relation([]int{0, 1}, 100, equal)) })
	_, err := BuildBlocks(wide, BlockConfig{MaxVars: 1, MaxTable: 1000})
	if want := "hard factor 1 (vars 0,1) fixes variable 0 block by block, and a block holding the factor's variables [0 1] needs a table of 10000 entries, more than MaxTable = 1000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("link wider than MaxTable: %v, want an error containing %q", err, want)
	}
}

// frozenGraph returns a random graph on which single-site updates freeze:
// 3–5 variables of a common domain size 2–3 with random soft tables and
// Potts pairs, a deterministic link (an equality, a permutation of two
// variables' values, or x_c = x_a + x_b mod d) and, for odd seeds, a
// variable observed.
func frozenGraph(t *testing.T, seed uint64) testGraph {
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
			sizes, vals := cube(len(scope), d)
			for k := range vals {
				vals[k] = 1.2*r.Float64() - 0.6
			}
			b.AddFactor(factorgraph.NewTable(scope, sizes, vals))
		}
		p := r.Perm(n)
		switch perm := r.Perm(d); seed % 3 {
		case 0:
			b.AddFactor(relation(p[:2], d, equal))
		case 1:
			b.AddFactor(relation(p[:2], d, func(v []int) bool { return v[1] == perm[v[0]] }))
		default:
			b.AddFactor(relation(p[:3], d, func(v []int) bool { return v[2] == (v[0]+v[1])%d }))
		}
		if seed%2 == 1 {
			b.Observe(p[n-1], float64(r.IntN(d)))
		}
		g, err := b.Build()
		if err != nil || checkSiteMoves("gibbs", g) == nil {
			continue
		}
		joint := enumerate(g)
		start := slices.IndexFunc(joint, func(p float64) bool { return p > 0 })
		if start < 0 {
			continue
		}
		init := make([]float64, n)
		decode(g, start, init)
		return testGraph{g: g, init: init, seed: seed}
	}
}

// frozenGraphs are 8 graphs on which single-site updates freeze.
func frozenGraphs(t *testing.T) []testGraph {
	var gs []testGraph
	for seed := uint64(1); seed <= 8; seed++ {
		gs = append(gs, frozenGraph(t, seed))
	}
	return gs
}

// TestFrozenLinkExactness: on graphs whose deterministic links freeze
// single-site chains, the registry's auto, Blocked with automatic blocks,
// with blocks of one variable (extended by the links' blocks) and with
// width-1 forests have the exact joint and marginals, and the broken block
// updates are still rejected there.
func TestFrozenLinkExactness(t *testing.T) {
	skipShort(t)
	graphs := frozenGraphs(t)
	checkExact(t, graphs, []samplerCase{
		{"auto", func(m factorgraph.Model, r *rand.Rand, init []float64) (Sampler, error) {
			return NewAuto(m, r, &Options{Init: init})
		}, blockSteps},
		blockedCase("Blocked/auto", nil, BlockConfig{}, blockSteps),
		blockedCase("Blocked/one-variable-blocks", nil, BlockConfig{MaxVars: 1}, blockSteps),
		blockedCase("Blocked/forests-width-1", nil, BlockConfig{Forests: true, MaxWidth: 1}, blockSteps),
	}, 23, 1)
	broken := func(breakIt func(*Blocked)) func(tg testGraph) (Sampler, error) {
		return func(tg testGraph) (Sampler, error) {
			s, err := NewBlockedWith(tg.g, rand.New(rand.NewPCG(tg.seed, 23)), &Options{Init: tg.init}, nil, BlockConfig{MaxVars: 2})
			if err == nil {
				breakIt(s)
			}
			return s, err
		}
	}
	checkBroken(t, graphs, []brokenCase{
		{"Blocked/dropped-boundary-factor", broken(dropBoundary), 2 * blockSteps},
		{"Blocked/backward-wrong-variable", broken(wrongConditioning), 2 * blockSteps},
		// Blocks of one variable, without the links' blocks: frozen.
		{"Blocked/one-variable-blocks-unchecked", func(tg testGraph) (Sampler, error) {
			var blocks [][]int
			for _, v := range tg.g.Free() {
				blocks = append(blocks, []int{v})
			}
			cfg, _ := BlockConfig{}.withDefaults()
			opt := &Options{Init: tg.init}
			plans, err := compilePlans(tg.g, blocks, cfg, opt)
			if err != nil {
				return nil, err
			}
			return newBlocked(tg.g, rand.New(rand.NewPCG(tg.seed, 23)), opt, blocks, plans)
		}, 2 * blockSteps},
	})
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
				b.AddFactor(relation(p[:2], d, func(v []int) bool { return v[1] == perm[v[0]] }))
			case 1:
				b.AddFactor(relation(p[:2], d, func(v []int) bool { return v[0] != v[1] || perm[0] == 0 }))
			default:
				b.AddFactor(relation(p[:1], d, func(v []int) bool { return v[0] != perm[0] }))
			}
		}
		g, err := b.Build()
		if err != nil {
			continue
		}
		joint := enumerate(g)
		if !slices.ContainsFunc(joint, func(p float64) bool { return p > 0 }) {
			continue
		}
		graphs++
		_, conn := connected(g, joint)
		err = checkSiteMoves("gibbs", g)
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
