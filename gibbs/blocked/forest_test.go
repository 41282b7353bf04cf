package blocked

import (
	"fmt"
	"github.com/pgibbs/pgibbs/blocks"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// couplingGrid is a rows×cols grid of variables with d values (a torus if
// wrap), Potts pairs of weight w(r) between neighbours and, if field, a
// random unary table on each variable; r drives w and the fields.
func couplingGrid(t testing.TB, rows, cols, d int, wrap, field bool, r *rand.Rand, w func(r *rand.Rand) float64) *factorgraph.Builder {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(rows*cols, factorgraph.Discrete(d))
	for i := range rows * cols {
		rr, c := i/cols, i%cols
		if c+1 < cols || wrap && cols > 2 {
			b.AddFactor(factorgraph.NewPotts(i, rr*cols+(c+1)%cols, w(r)))
		}
		if rr+1 < rows || wrap && rows > 2 {
			b.AddFactor(factorgraph.NewPotts(i, (i+cols)%(rows*cols), w(r)))
		}
		if field {
			vals := make([]float64, d)
			for k := range vals {
				vals[k] = r.NormFloat64() / 2
			}
			b.AddFactor(factorgraph.NewTable([]int{i}, []int{d}, vals))
		}
	}
	return b
}

// uniform returns a coupling of weight w.
func uniform(w float64) func(*rand.Rand) float64 { return func(*rand.Rand) float64 { return w } }

// randomCoupling draws a coupling from N(0, 1), zero one time in four.
func randomCoupling(r *rand.Rand) float64 {
	if r.IntN(4) == 0 {
		return 0
	}
	return r.NormFloat64()
}

// completeGraph is K_n of binary Potts pairs of weight w.
func completeGraph(t testing.TB, n int, w float64) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	for i := range n {
		for j := i + 1; j < n; j++ {
			b.AddFactor(factorgraph.NewPotts(i, j, w))
		}
	}
	return gibbstest.Build(t, b)
}

// sparseGraph is a random graph of n variables with 2–3 values, 3n/2
// random pairs and n/10 random triples of random tables.
func sparseGraph(t testing.TB, n int, seed uint64) *factorgraph.Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	b := factorgraph.NewBuilder()
	sizes := make([]int, n)
	for i := range n {
		sizes[i] = 2 + r.IntN(2)
		b.AddVariable(factorgraph.Discrete(sizes[i]))
	}
	for k := range 3*n/2 + n/10 {
		scope := r.Perm(n)[:2+k/(3*n/2)]
		dims, total := make([]int, len(scope)), 1
		for j, v := range scope {
			dims[j] = sizes[v]
			total *= sizes[v]
		}
		vals := make([]float64, total)
		for j := range vals {
			vals[j] = 2 * r.Float64()
		}
		b.AddFactor(factorgraph.NewTable(scope, dims, vals))
	}
	b.Observe(n-1, 0)
	return gibbstest.Build(t, b)
}

// interactionPairs returns, for each free variable of g, its free
// neighbours (sharing a factor of positive range).
func interactionPairs(g *factorgraph.Graph) []map[int]bool {
	nb := make([]map[int]bool, g.NumVars())
	for i := range nb {
		nb[i] = map[int]bool{}
	}
	for f := range g.NumFactors() {
		if lo, hi := g.FactorRange(f); !(hi > lo) {
			continue
		}
		vars := g.Factor(f).Vars()
		for _, a := range vars {
			for _, c := range vars {
				_, oa := g.Observed(a)
				_, oc := g.Observed(c)
				if a != c && !oa && !oc {
					nb[a][c] = true
				}
			}
		}
	}
	return nb
}

// forestShape describes a block set: the trees of the blocks that are
// forests, the blocks that are not, and whether the blocks can be coloured
// with two colours such that no two blocks of one colour interact.
type forestShape struct {
	trees, cyclic int
	twoColours    bool
}

func shapeOf(g *factorgraph.Graph, blocks [][]int) forestShape {
	nb := interactionPairs(g)
	blockOf := map[int]int{}
	for b, blk := range blocks {
		for _, v := range blk {
			blockOf[v] = b
		}
	}
	var sh forestShape
	adj := make([]map[int]bool, len(blocks))
	for b, blk := range blocks {
		adj[b] = map[int]bool{}
		edges, comps := 0, 0
		seen := map[int]bool{}
		for _, v := range blk {
			for u := range nb[v] {
				if ob := blockOf[u]; ob != b {
					adj[b][ob] = true
				} else if u > v {
					edges++
				}
			}
			if seen[v] {
				continue
			}
			comps++
			seen[v] = true
			for queue := []int{v}; len(queue) > 0; queue = queue[1:] {
				for u := range nb[queue[0]] {
					if blockOf[u] == b && !seen[u] {
						seen[u] = true
						queue = append(queue, u)
					}
				}
			}
		}
		if edges == len(blk)-comps {
			sh.trees += comps
		} else {
			sh.cyclic++
		}
	}
	colour := make([]int, len(blocks))
	sh.twoColours = true
	for b := range blocks {
		if colour[b] != 0 {
			continue
		}
		colour[b] = 1
		for queue := []int{b}; len(queue) > 0; queue = queue[1:] {
			for o := range adj[queue[0]] {
				if colour[o] == 0 {
					colour[o] = -colour[queue[0]]
					queue = append(queue, o)
				} else if colour[o] == colour[queue[0]] {
					sh.twoColours = false
				}
			}
		}
	}
	return sh
}

// TestBuildForests: on grids, a torus, a chain, complete graphs, a random
// sparse graph and graphs with evidence, the forest blocks cover every free
// variable exactly once, hold no evidence, fit the bounds, are forests
// (all of them where the graph can be peeled by degree ≤ 3), are built
// deterministically and are the blocks of New with Forests; on grids
// they are two colours of few trees (two combs when uniform).
func TestBuildForests(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	grid := func(rows, cols, d int, w func(*rand.Rand) float64, field bool) *factorgraph.Graph {
		return gibbstest.Build(t, couplingGrid(t, rows, cols, d, false, field, r, w))
	}
	withEvidence := couplingGrid(t, 7, 7, 2, false, true, r, randomCoupling)
	for k := 0; k < 49; k += 8 { // the diagonal
		withEvidence.Observe(k, float64(k%2))
	}
	hardGrid := couplingGrid(t, 6, 6, 2, false, false, r, uniform(0.5))
	for _, pair := range [][2]int{{0, 1}, {1, 7}, {7, 6}, {14, 15}, {15, 21}, {21, 20}, {20, 14}} { // a hard square closes a cycle
		hardGrid.AddFactor(factorgraph.NewTable(pair[:], []int{2, 2}, []float64{0, math.Inf(-1), math.Inf(-1), 0}))
	}
	cases := []struct {
		name      string
		g         *factorgraph.Graph
		cfg       Config
		cyclic    int  // non-forest blocks allowed
		grid      bool // two colours of forest blocks
		maxTrees  int  // 0: unchecked
		maxBlocks int  // 0: unchecked
	}{
		{"grid 2×2", grid(2, 2, 2, uniform(1), false), Config{}, 0, true, 2, 2},
		{"grid 3×5", grid(3, 5, 2, uniform(1), false), Config{}, 0, true, 2, 2},
		{"grid 8×8", grid(8, 8, 2, uniform(1), false), Config{}, 0, true, 2, 2},
		{"grid 20×20", grid(20, 20, 2, uniform(1), false), Config{}, 0, true, 2, 2},
		{"grid 20×20 ternary, random couplings", grid(20, 20, 3, randomCoupling, true), Config{}, 0, true, 0, 2},
		{"grid 30×30, MaxVars 50", grid(30, 30, 2, uniform(1), false), Config{Config: blocks.Config{MaxVars: 50}}, 0, false, 0, 0},
		{"grid 6×6 ternary, MaxTable 8", grid(6, 6, 3, uniform(1), false), Config{Config: blocks.Config{MaxTable: 8}}, 0, true, 36, 2},
		{"grid 7×7, diagonal evidence", gibbstest.Build(t, withEvidence), Config{}, 0, true, 0, 2},
		{"grid 6×6, hard square", gibbstest.Build(t, hardGrid), Config{}, 1, false, 0, 0},
		{"torus 6×6", gibbstest.Build(t, couplingGrid(t, 6, 6, 2, true, false, r, uniform(1))), Config{}, 1, false, 0, 3},
		{"chain 50", gibbstest.PottsChain(t, 50, 2, 0.1), Config{}, 0, true, 1, 1},
		{"K5", completeGraph(t, 5, 1), Config{}, 1, false, 0, 0},
		{"K5, MaxWidth 1", completeGraph(t, 5, 1), Config{Config: blocks.Config{MaxWidth: 1}}, 0, false, 0, 0},
		{"sparse random 200", sparseGraph(t, 200, 3), Config{}, 4, false, 0, 0},
	}
	for _, tc := range cases {
		g := tc.g
		blocks, err := BuildForests(g, tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		again, _ := BuildForests(g, tc.cfg)
		if !slices.EqualFunc(blocks, again, slices.Equal) {
			t.Errorf("%s: two builds differ", tc.name)
		}
		in := make([]int, g.NumVars())
		for _, blk := range blocks {
			for _, v := range blk {
				in[v]++
				if _, ok := g.Observed(v); ok {
					t.Errorf("%s: evidence %d in a block", tc.name, v)
				}
			}
		}
		for _, i := range g.Free() {
			if in[i] != 1 {
				t.Errorf("%s: free variable %d in %d blocks, want 1", tc.name, i, in[i])
			}
		}
		cfg := tc.cfg
		cfg.Forests = true
		s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.EqualFunc(s.blocks, blocks, slices.Equal) {
			t.Errorf("%s: NewWith with Forests has other blocks than BuildForests", tc.name)
		}
		full, _ := cfg.withDefaults()
		for _, bi := range s.Blocks() {
			if bi.Width > full.MaxWidth || bi.MaxTable > float64(full.MaxTable) || len(bi.Vars) > full.MaxVars || bi.Entries > maxTotalFactor*float64(full.MaxTable) {
				t.Errorf("%s: block of %d variables, width %d, table %g, %g entries: beyond %+v", tc.name, len(bi.Vars), bi.Width, bi.MaxTable, bi.Entries, full)
			}
		}
		sh := shapeOf(g, blocks)
		if sh.cyclic > tc.cyclic {
			t.Errorf("%s: %d blocks are not forests, want at most %d", tc.name, sh.cyclic, tc.cyclic)
		}
		if tc.grid && !sh.twoColours {
			t.Errorf("%s: the blocks need more than two colours", tc.name)
		}
		if tc.maxTrees > 0 && sh.trees > tc.maxTrees {
			t.Errorf("%s: %d trees, want at most %d", tc.name, sh.trees, tc.maxTrees)
		}
		if tc.maxBlocks > 0 && len(blocks) > tc.maxBlocks {
			t.Errorf("%s: %d blocks, want at most %d", tc.name, len(blocks), tc.maxBlocks)
		}
		for f := range g.NumFactors() { // hard links inside a block
			if lo, hi := g.FactorRange(f); !math.IsInf(hi-lo, 1) {
				continue
			}
			vars := slices.DeleteFunc(slices.Clone(g.Factor(f).Vars()), func(v int) bool { _, ok := g.Observed(v); return ok })
			if !slices.ContainsFunc(blocks, func(blk []int) bool {
				return !slices.ContainsFunc(vars, func(v int) bool { return !slices.Contains(blk, v) })
			}) {
				t.Errorf("%s: the hard factor on %v is split between blocks", tc.name, vars)
			}
		}
		t.Logf("%s: %d blocks of sizes %v: %d trees, %d blocks with cycles, two colours %v", tc.name, len(blocks), blockSizes(blocks), sh.trees, sh.cyclic, sh.twoColours)
	}
}

// forestGraphs are small grids, a torus and a complete graph for the
// exactness tests of forest blocks: random couplings (a quarter of them
// zero), random fields, a hard pair and evidence.
func forestGraphs(t *testing.T) []gibbstest.Graph {
	r := rand.New(rand.NewPCG(5, 5))
	var out []gibbstest.Graph
	add := func(b *factorgraph.Builder, seed uint64) {
		g := gibbstest.Build(t, b)
		init, ok := gibbstest.Connected(g, gibbstest.Enumerate(g))
		if !ok {
			t.Fatalf("forest graph %d: the feasible states are not connected", seed)
		}
		out = append(out, gibbstest.Graph{G: g, Init: init, Seed: seed})
	}
	b := couplingGrid(t, 3, 3, 2, false, true, r, randomCoupling)
	b.Observe(2, 1)
	add(b, 101)
	b = couplingGrid(t, 3, 3, 3, false, true, r, randomCoupling)
	b.AddFactor(factorgraph.NewTable([]int{4, 5}, []int{3, 3}, []float64{0, math.Inf(-1), 0, math.Inf(-1), 0, 0, 0, 0, 0}))
	b.Observe(8, 0)
	add(b, 102)
	add(couplingGrid(t, 3, 4, 2, true, true, r, func(r *rand.Rand) float64 { return 0.3 + 0.4*r.Float64() }), 103)
	b = factorgraph.NewBuilder()
	b.AddVariables(5, factorgraph.Discrete(3))
	for i := range 5 {
		for j := i + 1; j < 5; j++ {
			b.AddFactor(factorgraph.NewPotts(i, j, r.NormFloat64()))
		}
	}
	add(b, 104)
	return out
}

// forestBlocks is BuildForests with the default bounds.
func forestBlocks(g *factorgraph.Graph) [][]int {
	blocks, err := BuildForests(g, Config{})
	if err != nil {
		panic(err)
	}
	return blocks
}

// TestForestExactness: Blocked with forest blocks (default bounds, trees
// cut to two variables, and width 1 so that a variable no forest takes is
// alone) has the exact joint and marginals on the random test graphs and
// on small grids, a torus and K5.
func TestForestExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, append(gibbstest.Graphs(t), forestGraphs(t)...), []gibbstest.SamplerCase{
		blockedCase("Blocked/forests", nil, Config{Config: blocks.Config{Forests: true}}, blockSteps),
		blockedCase("Blocked/forests-max-vars-2", nil, Config{Config: blocks.Config{Forests: true, MaxVars: 2}}, blockSteps),
		blockedCase("Blocked/forests-width-1", nil, Config{Config: blocks.Config{Forests: true, MaxWidth: 1}}, blockSteps),
	}, 23, 1)
}

// TestForestCatchesBroken: the same check rejects forest blocks whose
// updates drop a boundary factor or condition the backward pass on the
// wrong variable, and NewWith refuses forest blocks that leave a
// variable out.
func TestForestCatchesBroken(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := append(gibbstest.Graphs(t), forestGraphs(t)...)
	broken := func(breakIt func(*Blocked)) func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 23)), &gibbs.Options{Init: tg.Init}, nil, Config{Config: blocks.Config{Forests: true}})
			if err == nil {
				breakIt(s)
			}
			return s, err
		}
	}
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{
		{Name: "Blocked/forests/dropped-boundary-factor", New: broken(dropBoundary), Steps: 2 * blockSteps},
		{Name: "Blocked/forests/backward-wrong-variable", New: broken(wrongConditioning), Steps: 2 * blockSteps},
	})
	for _, tg := range graphs {
		blocks := forestBlocks(tg.G)
		left := blocks[len(blocks)-1][0]
		blocks[len(blocks)-1] = blocks[len(blocks)-1][1:]
		if len(blocks[len(blocks)-1]) == 0 {
			blocks = blocks[:len(blocks)-1]
		}
		_, err := NewWith(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init}, blocks, Config{})
		if want := "free variable " + strconv.Itoa(left) + " is in no block"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("graph %d: forest blocks without variable %d: error %v, want one containing %q", tg.Seed, left, err, want)
		}
	}
}

// rowMarginals returns the exact P(x_i = 1) of a model of rows×cols binary
// variables (variable r·cols+c in row r) each of whose factors lies within
// two consecutive rows, by a transfer matrix over the 2^cols states of a
// row, in log space.
func rowMarginals(g *factorgraph.Graph, rows, cols int) []float64 {
	ns := 1 << cols
	within, across := make([][]int, rows), make([][]int, rows) // factors in row r, across rows r−1 and r
	for f := range g.NumFactors() {
		lo, hi := rows, -1
		for _, v := range g.Factor(f).Vars() {
			lo, hi = min(lo, v/cols), max(hi, v/cols)
		}
		if lo == hi {
			within[lo] = append(within[lo], f)
		} else {
			across[hi] = append(across[hi], f)
		}
	}
	x := make([]float64, rows*cols)
	setRow := func(r, s int) {
		for c := range cols {
			x[r*cols+c] = float64(s >> c & 1)
		}
	}
	energy := func(fs []int) float64 {
		e := 0.0
		for _, f := range fs {
			e += g.Factor(f).Value(x)
		}
		return e
	}
	logSum := func(n int, term func(k int) float64) float64 {
		m := math.Inf(-1)
		for k := range n {
			m = max(m, term(k))
		}
		sum := 0.0
		for k := range n {
			sum += math.Exp(term(k) - m)
		}
		return m + math.Log(sum)
	}
	unary, pair := make([][]float64, rows), make([][]float64, rows) // pair[r][s'·ns+s]: rows r−1, r
	for r := range rows {
		unary[r] = make([]float64, ns)
		for s := range ns {
			setRow(r, s)
			unary[r][s] = energy(within[r])
		}
		if r > 0 {
			pair[r] = make([]float64, ns*ns)
			for sp := range ns {
				setRow(r-1, sp)
				for s := range ns {
					setRow(r, s)
					pair[r][sp*ns+s] = energy(across[r])
				}
			}
		}
	}
	alpha, beta := make([][]float64, rows), make([][]float64, rows)
	for r := range rows {
		alpha[r] = slices.Clone(unary[r])
		if r > 0 {
			for s := range ns {
				alpha[r][s] += logSum(ns, func(sp int) float64 { return alpha[r-1][sp] + pair[r][sp*ns+s] })
			}
		}
	}
	for r := rows - 1; r >= 0; r-- {
		beta[r] = make([]float64, ns)
		if r < rows-1 {
			for sp := range ns {
				beta[r][sp] = logSum(ns, func(s int) float64 { return beta[r+1][s] + pair[r+1][sp*ns+s] + unary[r+1][s] })
			}
		}
	}
	out := make([]float64, rows*cols)
	for r := range rows {
		z := logSum(ns, func(s int) float64 { return alpha[r][s] + beta[r][s] })
		for s := range ns {
			p := math.Exp(alpha[r][s] + beta[r][s] - z)
			for c := range cols {
				out[r*cols+c] += p * float64(s>>c&1)
			}
		}
	}
	return out
}

// TestRowMarginals: the transfer matrix agrees with enumeration on a 3×4
// grid.
func TestRowMarginals(t *testing.T) {
	g := gibbstest.Build(t, couplingGrid(t, 3, 4, 2, false, true, rand.New(rand.NewPCG(4, 4)), randomCoupling))
	exact := gibbstest.MarginalsOf(g, gibbstest.Enumerate(g))
	for i, p := range rowMarginals(g, 3, 4) {
		if math.Abs(p-exact[i][1]) > 1e-12 {
			t.Errorf("P(x%d = 1) = %v, enumeration %v", i, p, exact[i][1])
		}
	}
}

// TestForestMixing: on an 8×8 grid of strongly coupled rows (Potts weight
// 3 along the rows, 0.3 across, random fields), forest blocks hold the
// strong links inside trees and so draw whole rows at once: started from
// x = 0, at equal variable updates their mean |marginal error| (against the
// transfer matrix) is far smaller than single-site Gibbs's, whose rows
// flip only by a domain wall wandering across them. (On an isotropic grid
// deep in the ordered phase, Potts weight 1.5 and more, both stay in the
// mode they start in: the trees of one forest are pinned by the other.)
func TestForestMixing(t *testing.T) {
	gibbstest.SkipShort(t)
	const side, updates, chains = 8, 64 * 5000, 4
	errGibbs, errForest := 0.0, 0.0
	for seed := uint64(1); seed <= chains; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		b := factorgraph.NewBuilder()
		b.AddVariables(side*side, factorgraph.Discrete(2))
		for i := range side * side {
			if i%side+1 < side {
				b.AddFactor(factorgraph.NewPotts(i, i+1, 3))
			}
			if i/side+1 < side {
				b.AddFactor(factorgraph.NewPotts(i, i+side, 0.3))
			}
			b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{0, 0.3 * r.NormFloat64()}))
		}
		g := gibbstest.Build(t, b)
		exact := rowMarginals(g, side, side)
		init := make([]float64, side*side)
		gs, err := site.NewGibbs(g, rand.New(rand.NewPCG(seed, 3)), &gibbs.Options{Init: init})
		if err != nil {
			t.Fatal(err)
		}
		fs, err := NewWith(g, rand.New(rand.NewPCG(seed, 3)), &gibbs.Options{Init: init}, nil, Config{Config: blocks.Config{Forests: true}})
		if err != nil {
			t.Fatal(err)
		}
		eg, ef := meanAbsError(t, exact, gs, updates), meanAbsError(t, exact, fs, updates)
		t.Logf("seed %d: mean |marginal error| after %d variable updates: Gibbs %.4f, forests %.4f (%d blocks)", seed, updates, eg, ef, len(fs.Blocks()))
		errGibbs += eg / chains
		errForest += ef / chains
	}
	// Over seeds 1–12 a single chain's ratio ranges from 2.5 to 18, the
	// mean of four from about 3.5 up.
	t.Logf("mean over %d chains: Gibbs %.4f, forests %.4f (ratio %.1f)", chains, errGibbs, errForest, errGibbs/errForest)
	if errForest > 0.05 || errGibbs < 2.5*errForest {
		t.Errorf("Gibbs error %.4f, forests %.4f: want forests below 0.05 and 2.5 times smaller", errGibbs, errForest)
	}
}

// meanAbsError returns the mean over the variables of |p̂_i(1) − p_i(1)|
// of a chain run for updates variable updates.
func meanAbsError(t *testing.T, exact []float64, s gibbs.Sampler, updates int64) float64 {
	count := make([]float64, len(exact))
	samples := 0
	for s.Stats().Steps < updates {
		s.Step()
		for i, v := range s.State() {
			count[i] += v
		}
		samples++
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	e := 0.0
	for i := range count {
		e += math.Abs(count[i]/float64(samples)-exact[i]) / float64(len(count))
	}
	return e
}

// TestForestRefusals: BuildForests and NewWith with Forests refuse
// bad graphs, models and bounds with errors, never panics.
func TestForestRefusals(t *testing.T) {
	grid := gibbstest.Build(t, couplingGrid(t, 3, 3, 3, false, false, nil, uniform(1)))
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddVariable(factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 1, func(x []float64) float64 { return x[0] * x[1] }))
	continuous := gibbstest.Build(t, b)
	r := rand.New(rand.NewPCG(1, 1))
	forests := func(g *factorgraph.Graph, cfg Config) func() error {
		return func() error { _, err := BuildForests(g, cfg); return err }
	}
	blocked := func(m factorgraph.Model, opt *gibbs.Options, cfg Config) func() error {
		cfg.Forests = true
		return func() error { _, err := NewWith(m, r, opt, nil, cfg); return err }
	}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"nil graph", forests(nil, Config{}), "nil graph"},
		{"negative MaxVars", forests(grid, Config{Config: blocks.Config{MaxVars: -1}}), "must be ≥ 0"},
		{"negative MaxWidth", forests(grid, Config{Config: blocks.Config{MaxWidth: -2}}), "must be ≥ 0"},
		{"MaxTable below a domain", forests(grid, Config{Config: blocks.Config{MaxTable: 2}}), "variable 0 has 3 values, more than MaxTable = 2"},
		{"continuous variable", forests(continuous, Config{}), "discrete variables only"},
		{"Blocked: negative MaxTable", blocked(grid, nil, Config{Config: blocks.Config{MaxTable: -1}}), "must be ≥ 0"},
		{"Blocked: nil model", blocked(nil, nil, Config{}), "nil model"},
		{"Blocked: no factor list", blocked(struct{ factorgraph.Model }{grid}, nil, Config{}), "does not list its factors"},
		{"Blocked: MaxDraws", blocked(grid, &gibbs.Options{MaxDraws: 10}, Config{}), "Options.MaxDraws"},
		{"Blocked: continuous variable", blocked(continuous, nil, Config{}), "discrete"},
	}
	for _, tc := range cases {
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return tc.run()
		}()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// Two interleaved combs on a 6×6 grid: each forest is one tree, drawn
// exactly by elimination of width 1 given the other.
func ExampleBuildForests() {
	const side = 6
	b := factorgraph.NewBuilder()
	b.AddVariables(side*side, factorgraph.Discrete(2))
	for i := range side * side {
		if i%side+1 < side {
			b.AddFactor(factorgraph.NewPotts(i, i+1, 1.5))
		}
		if i/side+1 < side {
			b.AddFactor(factorgraph.NewPotts(i, i+side, 1.5))
		}
	}
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fs, err := BuildForests(g, Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	name := make([]string, side*side)
	for k, blk := range fs {
		fmt.Printf("forest %c: %d variables\n", 'A'+k, len(blk))
		for _, v := range blk {
			name[v] = string(rune('A' + k))
		}
	}
	for r := range side {
		fmt.Println(strings.Join(name[r*side:(r+1)*side], " "))
	}
	s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, Config{Config: blocks.Config{Forests: true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, bi := range s.Blocks() {
		fmt.Printf("width %d, largest table %g entries\n", bi.Width, bi.MaxTable)
	}
	// Output:
	// forest A: 19 variables
	// forest B: 17 variables
	// A A A A A A
	// A B B B B B
	// A A A A A B
	// A B B B B B
	// A A A A A B
	// A B B B B B
	// width 1, largest table 4 entries
	// width 1, largest table 4 entries
}
