package blocked

import (
	"bytes"
	"fmt"
	"github.com/pgibbs/pgibbs/blocks"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/potts"
)

// overlappingBlocks returns user blocks over the free variables of g that
// overlap: consecutive pairs, and one triple of the first, middle and last.
func overlappingBlocks(g *factorgraph.Graph) [][]int {
	f := g.Free()
	if len(f) == 1 {
		return [][]int{{f[0]}}
	}
	var blocks [][]int
	for k := 0; k+1 < len(f); k++ {
		blocks = append(blocks, []int{f[k+1], f[k]})
	}
	if len(f) >= 3 {
		blocks = append(blocks, []int{f[0], f[len(f)/2], f[len(f)-1]})
	}
	return blocks
}

// oneBlock is a single block of every free variable of g.
func oneBlock(g *factorgraph.Graph) [][]int { return [][]int{slices.Clone(g.Free())} }

// blockedCase is a samplerCase of Blocked with the blocks of blocks(g)
// (nil: automatic) and cfg.
func blockedCase(name string, blocks func(*factorgraph.Graph) [][]int, cfg Config, steps int) gibbstest.SamplerCase {
	return gibbstest.SamplerCase{Name: name, New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
		var b [][]int
		if blocks != nil {
			b = blocks(m.(*factorgraph.Graph))
		}
		return NewWith(m, r, &gibbs.Options{Init: init}, b, cfg)
	}, Steps: steps}
}

// blockSteps is the run length of the exactness tests of Blocked: a step
// updates a whole block, so its samples are far less correlated than
// single-site ones.
const blockSteps = 30000

// TestBlockedExactness: Blocked with automatic blocks (default, and of
// width 1 so that the graphs get several blocks), overlapping user blocks
// and one block of every free variable has the exact joint and marginals
// on the random graphs (hard zeros, evidence).
func TestBlockedExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.Graphs(t), []gibbstest.SamplerCase{
		blockedCase("Blocked/auto", nil, Config{}, blockSteps),
		blockedCase("Blocked/auto-width-1", nil, Config{Config: blocks.Config{MaxWidth: 1}}, blockSteps),
		blockedCase("Blocked/overlapping", overlappingBlocks, Config{}, blockSteps),
		blockedCase("Blocked/one-block", oneBlock, Config{}, blockSteps),
	}, 17, 1)
}

// dropBoundary breaks s: each block's update ignores the factors touching
// one variable outside the block (the first such variable), as if a
// boundary factor had been forgotten.
func dropBoundary(s *Blocked) {
	for b, p := range s.plans {
		out := -1
		for _, fc := range p.facs {
			for _, v := range fc.f.Vars() {
				if !slices.Contains(s.blocks[b], v) && (out < 0 || v < out) {
					out = v
				}
			}
		}
		p.facs = slices.DeleteFunc(p.facs, func(fc blockFactor) bool { return slices.Contains(fc.f.Vars(), out) })
		p.split() // the factors' lists, of the facs left
	}
}

// wrongConditioning breaks s's backward sampling: each variable is drawn
// from the row of its table selected by the value of a wrong variable (one
// drawn before it, other than the one the table depends on), or by no
// variable when there is none of the same size.
func wrongConditioning(s *Blocked) {
	for _, p := range s.plans {
		for k := range p.buckets {
			bk := &p.buckets[k]
			if len(bk.others) == 0 {
				continue
			}
			bk.others = slices.Clone(bk.others)
			want := p.size[bk.others[0]]
			swapped := false
			for _, later := range p.buckets[k+1:] {
				if later.v != bk.others[0] && p.size[later.v] == want {
					bk.others[0], swapped = later.v, true
					break
				}
			}
			if !swapped {
				bk.ostr = append([]int{0}, bk.ostr[1:]...)
			}
		}
	}
}

// softZeros hides the zeros of the hard factors from a sampler that reads
// the factors themselves: a −Inf value reads as the factor's lower bound.
type softZeros struct{ *factorgraph.Graph }

func (s softZeros) Factor(f int) factorgraph.Factor { return softFactor{s.Graph.Factor(f)} }

type softFactor struct{ factorgraph.Factor }

func (f softFactor) Value(x []float64) float64 {
	v := f.Factor.Value(x)
	if math.IsInf(v, -1) {
		lo, _ := f.Range()
		return lo
	}
	return v
}

// TestBlockedCatchesBroken: the exactness check rejects a block update
// that drops a boundary factor, backward sampling conditioned on the wrong
// variable, and an elimination blind to hard zeros.
func TestBlockedCatchesBroken(t *testing.T) {
	gibbstest.SkipShort(t)
	broken := func(blocks func(*factorgraph.Graph) [][]int, breakIt func(*Blocked)) func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 17)), &gibbs.Options{Init: tg.Init}, blocks(tg.G), Config{})
			if err == nil {
				breakIt(s)
			}
			return s, err
		}
	}
	gibbstest.CheckBroken(t, gibbstest.Graphs(t), []gibbstest.BrokenCase{
		{Name: "Blocked/dropped-boundary-factor", New: broken(overlappingBlocks, dropBoundary), Steps: 2 * blockSteps},
		{Name: "Blocked/backward-wrong-variable", New: broken(oneBlock, wrongConditioning), Steps: 2 * blockSteps},
		{Name: "Blocked/hard-zeros-ignored", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return NewWith(softZeros{tg.G}, rand.New(rand.NewPCG(tg.Seed, 17)), &gibbs.Options{Init: tg.Init}, oneBlock(tg.G), Config{})
		}, Steps: 2 * blockSteps},
	})
}

// marginalError returns the mean over the variables of |p̂_i(1) − p_i(1)|
// of a chain run for updates variable updates from x = 0.
func marginalError(t *testing.T, g *factorgraph.Graph, s gibbs.Sampler, updates int64) float64 {
	var exact []float64
	for _, p := range gibbstest.MarginalsOf(g, gibbstest.Enumerate(g)) {
		exact = append(exact, p[1])
	}
	return meanAbsError(t, exact, s, updates)
}

// TestBlockedMixing: on a chain of 10 strongly coupled binary variables
// (Potts weight 8, a weak field), single-site Gibbs started from the less
// probable ordered state stays there, while Blocked (the chain is one block
// of width 1) samples it exactly: at equal variable updates its marginal
// error is far smaller.
func TestBlockedMixing(t *testing.T) {
	gibbstest.SkipShort(t)
	g := gibbstest.PottsChain(t, 10, 8, 0.2)
	init := make([]float64, 10)
	const updates = 200000
	gs, err := site.NewGibbs(g, rand.New(rand.NewPCG(3, 3)), &gibbs.Options{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := New(g, rand.New(rand.NewPCG(3, 3)), &gibbs.Options{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	if b := bs.Blocks(); len(b) != 1 || b[0].Width != 1 {
		t.Fatalf("blocks of the chain %+v: want one block of width 1", b)
	}
	eg, eb := marginalError(t, g, gs, updates), marginalError(t, g, bs, updates)
	t.Logf("mean |marginal error| after %d variable updates: Gibbs %.4f, Blocked %.4f (ratio %.0f)", updates, eg, eb, eg/eb)
	if eb > 0.02 || eg < 20*eb {
		t.Errorf("Gibbs error %.4f, Blocked %.4f: want Blocked below 0.02 and 20 times smaller", eg, eb)
	}
}

// TestBuildBlocks: the blocks cover the free variables within the bounds,
// the build is deterministic, and strongly coupled or deterministically
// linked pairs share a block even when the width allows only trees.
func TestBuildBlocks(t *testing.T) {
	// A 6×6 grid of weak Potts pairs (0.1) with strong horizontal dimers
	// (weight 5) in every row, shifted by one column in odd rows, and a
	// hard link (a pair table with zeros) between (0,0) and (1,1).
	const side = 6
	b := factorgraph.NewBuilder()
	b.AddVariables(side*side, factorgraph.Discrete(2))
	strong := map[[2]int]bool{}
	for r := range side {
		for c := range side {
			i := r*side + c
			if c+1 < side {
				w := 0.1
				if (c+r)%2 == 0 {
					w = 5
					strong[[2]int{i, i + 1}] = true
				}
				b.AddFactor(factorgraph.NewPotts(i, i+1, w))
			}
			if r+1 < side {
				b.AddFactor(factorgraph.NewPotts(i, i+side, 0.1))
			}
		}
	}
	b.AddFactor(factorgraph.NewTable([]int{0, side + 1}, []int{2, 2}, []float64{0, math.Inf(-1), math.Inf(-1), 0}))
	b.Observe(side*side-1, 1)
	g := gibbstest.Build(t, b)
	for _, cfg := range []Config{{}, {Config: blocks.Config{MaxWidth: 1}}, {Config: blocks.Config{MaxWidth: 2, MaxVars: 10}}, {Config: blocks.Config{MaxTable: 8}}} {
		blocks, err := BuildBlocks(g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := BuildBlocks(g, cfg)
		if !slices.EqualFunc(blocks, again, slices.Equal) {
			t.Errorf("%+v: two builds differ", cfg)
		}
		s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, blocks, cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		full, _ := cfg.withDefaults()
		covered := map[int]bool{}
		for _, bi := range s.Blocks() {
			if bi.Width > full.MaxWidth || bi.MaxTable > float64(full.MaxTable) || len(bi.Vars) > full.MaxVars {
				t.Errorf("%+v: block %v of width %d, table %g", cfg, bi.Vars, bi.Width, bi.MaxTable)
			}
			for _, v := range bi.Vars {
				covered[v] = true
			}
		}
		if len(covered) != len(g.Free()) || covered[side*side-1] {
			t.Errorf("%+v: blocks cover %d variables, want the %d free ones", cfg, len(covered), len(g.Free()))
		}
		together := func(a, c int) bool {
			return slices.ContainsFunc(blocks, func(blk []int) bool { return slices.Contains(blk, a) && slices.Contains(blk, c) })
		}
		if cfg.MaxVars == 0 {
			for pair := range strong {
				if pair[1] != side*side-1 && !together(pair[0], pair[1]) {
					t.Errorf("%+v: strongly coupled %v in no common block: %v", cfg, pair, blocks)
				}
			}
		}
		if !together(0, side+1) {
			t.Errorf("%+v: the hard link (0, %d) in no common block: %v", cfg, side+1, blocks)
		}
		t.Logf("%+v: %d blocks, sizes %v", cfg, len(blocks), blockSizes(blocks))
	}
	// A 10×10 grid has treewidth 10: one block at the default width.
	grid := gibbstest.GridPotts(t, 10, 1)
	if blocks, err := BuildBlocks(grid, Config{}); err != nil || len(blocks) != 1 || len(blocks[0]) != 100 {
		t.Errorf("10×10 grid: %d blocks (%v), want one", len(blocks), err)
	}
}

func blockSizes(blocks [][]int) []int {
	out := make([]int, len(blocks))
	for k, b := range blocks {
		out[k] = len(b)
	}
	return out
}

// TestBlockedRefusals: bad blocks, configurations and models are refused
// with errors naming what is wrong.
func TestBlockedRefusals(t *testing.T) {
	g := gibbstest.Graphs(t)[4] // evidence on variable 1
	ev := 1
	if _, ok := g.G.Observed(ev); !ok {
		t.Fatal("test graph 5 has no evidence on variable 1")
	}
	free := g.G.Free()
	r := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		blocks [][]int
		cfg    Config
		m      factorgraph.Model
		want   string
	}{
		{[][]int{{free[0], 99}}, Config{}, g.G, "block 0: variable 99 out of range"},
		{[][]int{free, {free[0], free[0]}}, Config{}, g.G, "block 1: variable " + strconv.Itoa(free[0]) + " appears twice"},
		{[][]int{free, {ev}}, Config{}, g.G, "block 1: variable " + strconv.Itoa(ev) + " is evidence"},
		{[][]int{free[1:]}, Config{}, g.G, "free variable " + strconv.Itoa(free[0]) + " is in no block"},
		{[][]int{free, {}}, Config{}, g.G, "block 1 is empty"},
		{[][]int{free}, Config{Config: blocks.Config{MaxTable: 2}}, g.G, "block 0 (" + strconv.Itoa(len(free)) + " variables): its elimination needs a table of more than MaxTable = 2"},
		{nil, Config{Config: blocks.Config{MaxTable: 1}}, g.G, "more than MaxTable = 1"},
		{nil, Config{Config: blocks.Config{MaxWidth: -1}}, g.G, "must be ≥ 0"},
		{nil, Config{Boundary: 7}, g.G, "Boundary(7): want BoundaryAuto"},
		{[][]int{free}, Config{Boundary: -1}, g.G, "Boundary(-1): want BoundaryAuto"},
		{nil, Config{}, struct{ factorgraph.Model }{g.G}, "does not list its factors"},
	}
	for _, tc := range cases {
		_, err := NewWith(tc.m, r, &gibbs.Options{Init: g.Init}, tc.blocks, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("blocks %v, %+v: error %v, want one containing %q", tc.blocks, tc.cfg, err, tc.want)
		}
	}
	if _, err := New(gibbstest.SmallPotts(t), r, &gibbs.Options{MaxDraws: 10}); err == nil || !strings.Contains(err.Error(), "Options.MaxDraws") {
		t.Errorf("a block beyond MaxDraws: %v", err)
	}
	if _, err := NewWith(gibbstest.SmallPotts(t), r, &gibbs.Options{Lambda: 1e12}, nil, Config{Config: blocks.Config{MaxWidth: 1}, Boundary: BoundaryPoisson}); err == nil || !strings.Contains(err.Error(), "a smaller λ_B") {
		t.Errorf("a minibatched boundary beyond MaxDraws: %v", err)
	}
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddVariable(factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 1, func(x []float64) float64 { return x[0] * x[1] }))
	if _, err := New(gibbstest.Build(t, b), r, nil); err == nil || !strings.Contains(err.Error(), "discrete variables only") {
		t.Errorf("a continuous variable: %v", err)
	}
}

// TestBlockedZeroAllocations: after the first update of each block, a step
// allocates nothing.
func TestBlockedZeroAllocations(t *testing.T) {
	for _, g := range []*factorgraph.Graph{gibbstest.SmallPotts(t), gibbstest.Graphs(t)[9].G, gibbstest.PottsChain(t, 30, 2, 0.1)} {
		for _, cfg := range []Config{{Config: blocks.Config{MaxWidth: 3}}, {Config: blocks.Config{MaxWidth: 1}, Boundary: BoundaryPoisson}} {
			s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, cfg)
			if err != nil {
				t.Fatal(err)
			}
			s.RecordConditionals(true)
			checkNoAllocs(t, g, s)
		}
	}
}

// checkNoAllocs checks that s's steps and sweeps allocate nothing once
// every block has been updated twice.
func checkNoAllocs(t *testing.T, g *factorgraph.Graph, s *Blocked) {
	t.Helper()
	for range 2 * len(s.plans) {
		s.Step()
	}
	if a := testing.AllocsPerRun(200, func() { s.Step() }); a != 0 {
		t.Errorf("%v: %v allocations a step", g, a)
	}
	if a := testing.AllocsPerRun(20, func() { s.Sweep() }); a != 0 {
		t.Errorf("%v: %v allocations a sweep", g, a)
	}
}

// TestBlockedSteps: a step updates the blocks in turn and counts their
// variables; a sweep updates each once; Update(i) the first block holding
// i, and evidence not at all.
func TestBlockedSteps(t *testing.T) {
	g := gibbstest.Graphs(t)[6]
	blocks := overlappingBlocks(g.G)
	s, err := NewWith(g.G, rand.New(rand.NewPCG(2, 2)), &gibbs.Options{Init: g.Init}, blocks, Config{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for k, blk := range blocks {
		before := s.Stats().Steps
		if got := s.Step(); got != chain.Any {
			t.Errorf("Step returned %d, want chain.Any", got)
		}
		if d := s.Stats().Steps - before; d != int64(len(blk)) {
			t.Errorf("step %d: %d updates, want %d", k, d, len(blk))
		}
		total += len(blk)
	}
	before := s.Stats().Steps
	s.Sweep()
	if d := s.Stats().Steps - before; d != int64(total) {
		t.Errorf("sweep: %d updates, want %d", d, total)
	}
	before = s.Stats().Steps
	s.Update(blocks[len(blocks)-1][0])
	for i := range g.G.NumVars() {
		if _, ok := g.G.Observed(i); ok {
			s.Update(i)
		}
	}
	if d := s.Stats().Steps - before; d != int64(len(blocks[s.blockOf[blocks[len(blocks)-1][0]]])) {
		t.Errorf("Update: %d updates", d)
	}
	if s.Err() != nil || s.Stats().Factors == 0 {
		t.Errorf("error %v, %d factors", s.Err(), s.Stats().Factors)
	}
}

// TestBlockedInterrupt: with the interrupt channel closed, a step and a
// sweep return chain.Aborted and leave the sampler as it was; the step
// after is that of a sampler never interrupted.
func TestBlockedInterrupt(t *testing.T) {
	g := gibbstest.GridPotts(t, 12, 0.3) // one update: thousands of table entries
	mk := func(r *rand.Rand) (gibbs.Sampler, error) { return New(g, r, nil) }
	gibbstest.AbortOnce(t, "block step", mk, gibbstest.Step)
	gibbstest.AbortOnce(t, "block sweep", mk, gibbstest.Sweep)
}

// TestBlockedSnapshot: a chain restored from a snapshot goes on as the
// original (the next block included); a snapshot with other blocks is
// refused.
func TestBlockedSnapshot(t *testing.T) {
	g := gibbstest.Graphs(t)[8]
	blocks := overlappingBlocks(g.G)
	mk := func(seed uint64) *Blocked {
		s, err := NewWith(g.G, rand.New(rand.NewPCG(seed, 1)), &gibbs.Options{Init: g.Init}, blocks, Config{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := mk(1)
	for range 7 {
		a.Step()
	}
	snap := gibbstest.SnapshotOf(t, a)
	b := mk(2)
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if b.next != a.next || !bytes.Equal(gibbstest.SnapshotOf(t, b), snap) {
		t.Errorf("restored sampler differs: next %d, want %d", b.next, a.next)
	}
	other, err := NewWith(g.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: g.Init}, oneBlock(g.G), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Restore(snap); err == nil || !strings.Contains(err.Error(), "other blocks") {
		t.Errorf("restore with other blocks: %v", err)
	}
	poisson, err := NewWith(g.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: g.Init}, blocks, Config{Boundary: BoundaryPoisson})
	if err != nil {
		t.Fatal(err)
	}
	if err := poisson.Restore(snap); err == nil || !strings.Contains(err.Error(), "block boundaries") {
		t.Errorf("restore with minibatched boundaries: %v", err)
	}
	if err := b.Restore(gibbstest.SnapshotOf(t, poisson)); err == nil || !strings.Contains(err.Error(), "block boundaries") {
		t.Errorf("restore of minibatched boundaries into exact ones: %v", err)
	}
}

// TestBlockedUAI times block updates on the shared Grids_11 model (skipped
// without it) and checks that a sweep runs clean.
func TestBlockedUAI(t *testing.T) {
	gibbstest.SkipShort(t)
	const file = "../../shared/data/uai/Grids_11.uai"
	if _, err := os.Stat(file); err != nil {
		t.Skip("no shared UAI data")
	}
	p, err := uai.ReadProblem(file, file+".evid", file+".MAR")
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Model.Graph(p.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{Config: blocks.Config{MaxWidth: 8}}, {}} {
		start := time.Now()
		s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		build := time.Since(start)
		start = time.Now()
		sweeps := 0
		for time.Since(start) < 200*time.Millisecond {
			s.Sweep()
			sweeps++
		}
		el := time.Since(start)
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		widths := []int{}
		for _, bi := range s.Blocks() {
			widths = append(widths, bi.Width)
		}
		t.Logf("Grids_11 %+v: built in %v: %d blocks, widths %v; %.3g ms a sweep, %.3g µs a variable update",
			cfg, build, len(s.Blocks()), widths, float64(el.Microseconds())/1e3/float64(sweeps),
			float64(el.Nanoseconds())/1e3/float64(s.Stats().Steps))
	}
}

// BenchmarkBlockedUAI times a step of Blocked on shared UAI models: a grid,
// a pedigree and a UAI 2014 linkage pedigree beyond exact elimination
// (each skipped without its file).
func BenchmarkBlockedUAI(b *testing.B) {
	for _, model := range []string{"uai/Grids_11", "uai/Pedigree_11", "uai-hard/linkage_20"} {
		file := "../../../shared/data/" + model + ".uai"
		if _, err := os.Stat(file); err != nil {
			b.Logf("%s: %v", model, err)
			continue
		}
		p, err := uai.ReadProblem(file, file+".evid", "")
		if err != nil {
			b.Fatal(err)
		}
		g, err := p.Model.Graph(p.Evidence)
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range []int{4, 12} {
			for _, rb := range []bool{false, true} {
				b.Run(fmt.Sprintf("model=%s/width=%d/rb=%v", path.Base(model), w, rb), func(b *testing.B) {
					s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, Config{Config: blocks.Config{MaxWidth: w}})
					if err != nil {
						b.Fatal(err)
					}
					s.RecordConditionals(rb)
					b.ReportAllocs()
					for b.Loop() {
						s.Step()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(s.Stats().Steps), "ns/update")
				})
			}
		}
	}
}

// TestBlockedConditionalExact: the distribution the backward pass draws a
// block from, read off the tables of the forward pass (the product over
// the buckets of each variable's row, normalised), equals the block's
// full conditional computed by enumeration, to rounding, for every block
// of several block sets on every test graph, at states drawn by a chain;
// and the marginals of the downward pass (what Conditionals reports) equal
// that conditional's marginals.
func TestBlockedConditionalExact(t *testing.T) {
	for _, tg := range gibbstest.Graphs(t) {
		joint := gibbstest.Enumerate(tg.G)
		for _, bs := range [][][]int{oneBlock(tg.G), overlappingBlocks(tg.G), nil} {
			s, err := NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 5)), &gibbs.Options{Init: tg.Init}, bs, Config{Config: blocks.Config{MaxWidth: 1}})
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				for b, p := range s.plans {
					if !s.tabulate(b, p) || !s.forward(p) {
						t.Fatalf("graph %d: block %d: %v", tg.Seed, b, s.Err())
					}
					checkBlockConditional(t, tg, joint, s, b)
				}
				s.Sweep()
			}
		}
	}
}

// checkBlockConditional compares the draw distribution of block b of s
// (its forward tables filled at the current state) with enumeration.
func checkBlockConditional(t *testing.T, tg gibbstest.Graph, joint []float64, s *Blocked, b int) {
	t.Helper()
	p := s.plans[b]
	x := slices.Clone(s.State())
	y := make([]int32, len(p.vars))
	var states []int
	var got []float64
	total := 0.0
	marg := make([][]float64, len(p.vars))
	for l := range marg {
		marg[l] = make([]float64, p.size[l])
	}
	for done := false; !done; {
		for l, v := range p.vars {
			x[v] = float64(y[l])
		}
		st := gibbstest.StateIndex(tg.G, x)
		states, got = append(states, st), append(got, drawProbability(s, p, y))
		total += joint[st]
		for l := range marg {
			marg[l][y[l]] += joint[st]
		}
		done = true // the next assignment (odometer over y), if any
		for k := range y {
			if y[k]++; int(y[k]) < p.size[k] {
				done = false
				break
			}
			y[k] = 0
		}
	}
	for k, st := range states {
		if w := joint[st] / total; math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("graph %d, block %d (%v): state %d drawn with probability %.12f, conditional %.12f", tg.Seed, b, s.blocks[b], st, got[k], w)
		}
	}
	if !s.blockMarginals(p) {
		t.Fatalf("graph %d, block %d: no marginals", tg.Seed, b)
	}
	for l, v := range p.vars {
		for y, w := range marg[l] {
			if got := s.condP[l][y]; math.Abs(got-w/total) > 1e-9 {
				t.Errorf("graph %d, block %d: P(x%d=%d | outside) = %.12f, enumeration %.12f", tg.Seed, b, v, y, got, w/total)
			}
		}
	}
}

// drawProbability returns the probability that the backward pass of plan
// p draws the block assignment y (local values) from the current tables
// (after forward, each row the distribution of its variable).
func drawProbability(s *Blocked, p *blockPlan, y []int32) float64 {
	prob := 1.0
	for _, bk := range p.buckets {
		r := 0
		for j, o := range bk.others {
			r += int(y[o]) * bk.ostr[j]
		}
		prob *= s.arena[bk.off+r*bk.dims[0]+int(y[bk.v])]
	}
	return prob
}

// upwardOnly breaks s's marginals: the downward pass is skipped, so each
// variable's reported marginal is its bucket's table summed, which weighs
// the factors eliminated before it only (exact for the last variable of
// each block alone).
func upwardOnly(s *Blocked) {
	for _, p := range s.plans {
		for k := range p.buckets {
			bk := &p.buckets[k]
			bk.delta = -1
			bk.ins = slices.Clone(bk.ins)
			for j := range bk.ins {
				bk.ins[j].child = -1
			}
		}
	}
}

// TestBlockedRaoBlackwell: the Rao–Blackwellised marginals of Blocked (each
// block variable's marginal given the outside, from the block's
// elimination) agree with enumeration on the random test graphs, with
// automatic, overlapping and width-1 blocks; the same check rejects the
// marginals of the upward pass alone.
func TestBlockedRaoBlackwell(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := gibbstest.Graphs(t)
	cases := []struct {
		name   string
		blocks func(*factorgraph.Graph) [][]int
		cfg    Config
		broken bool
	}{
		{"auto", nil, Config{}, false},
		{"auto-width-1", nil, Config{Config: blocks.Config{MaxWidth: 1}}, false},
		{"overlapping", overlappingBlocks, Config{}, false},
		{"regions", nil, Config{Config: blocks.Config{MaxWidth: 1}, Regions: 8}, false},
		{"upward-only", oneBlock, Config{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			caught, worst := 0, 0.0
			for _, tg := range graphs {
				var blocks [][]int
				if c.blocks != nil {
					blocks = c.blocks(tg.G)
				}
				s, err := NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 79)), &gibbs.Options{Init: tg.Init}, blocks, c.cfg)
				if err != nil {
					t.Fatal(err)
				}
				if c.broken {
					upwardOnly(s)
				}
				z, where := gibbstest.RBZ(tg.G, s, blockSteps/2)
				if z > gibbstest.ZLimit {
					caught++
					if !c.broken {
						t.Errorf("graph %d: %s: z = %.2f > %v", tg.Seed, where, z, gibbstest.ZLimit)
					}
				}
				worst = max(worst, z)
			}
			if c.broken && caught == 0 {
				t.Errorf("no graph rejected the broken marginals (largest z %.2f)", worst)
			}
			t.Logf("largest z over %d graphs: %.2f (%d above %v)", len(graphs), worst, caught, gibbstest.ZLimit)
		})
	}
}

// TestSets: NewWith on the blocks Sets returns builds the same blocks, in
// the same orders, without searching (the exchange's replicas share them):
// on the small test graphs with the default bounds, and on a 9×9 Potts
// torus with tables of at most 2¹² entries, where the blocks' variables in
// sorted order (Info.Vars, what Sets must not return) need a larger table
// and are refused.
func TestSets(t *testing.T) {
	type tcase struct {
		name string
		g    *factorgraph.Graph
		opt  *gibbs.Options
		cfg  Config
	}
	var cases []tcase
	for _, tg := range gibbstest.Graphs(t)[:6] {
		cases = append(cases, tcase{fmt.Sprint("graph ", tg.Seed), tg.G, &gibbs.Options{Init: tg.Init}, Config{}})
	}
	torus, err := potts.NearestNeighbour(9, 3, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	tight := Config{Config: blocks.Config{MaxWidth: 6, MaxTable: 1 << 12}}
	cases = append(cases, tcase{"9×9 torus", torus, &gibbs.Options{}, tight})
	for _, c := range cases {
		s, err := NewWith(c.g, rand.New(rand.NewPCG(1, 1)), c.opt, nil, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := NewWith(c.g, rand.New(rand.NewPCG(1, 1)), c.opt, s.Sets(), c.cfg)
		if err != nil {
			t.Fatalf("%s: rebuilt from Sets: %v", c.name, err)
		}
		if !slices.EqualFunc(s.Sets(), s2.Sets(), slices.Equal) || len(s.Blocks()) != len(s2.Blocks()) {
			t.Errorf("%s: blocks %v, rebuilt %v", c.name, s.Sets(), s2.Sets())
		}
		for b, bi := range s.Blocks() {
			if bi.Width != s2.Blocks()[b].Width || bi.MaxTable != s2.Blocks()[b].MaxTable {
				t.Errorf("%s, block %d: %+v, rebuilt %+v", c.name, b, bi, s2.Blocks()[b])
			}
		}
	}
	// The broken variant: the blocks' variables sorted.
	s, err := NewWith(torus, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{}, nil, tight)
	if err != nil {
		t.Fatal(err)
	}
	var sorted [][]int
	for _, b := range s.Blocks() {
		sorted = append(sorted, slices.Clone(b.Vars))
	}
	if _, err := NewWith(torus, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{}, sorted, tight); err == nil {
		t.Error("9×9 torus: the blocks' variables in sorted order rebuilt within MaxTable; the test cannot tell Sets from Info.Vars")
	}
}
