package blocks

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// Config bounds the blocks Build and Forests make. The zero value gives
// the defaults.
type Config struct {
	// MaxWidth is the largest elimination width (the number of other
	// variables in a table of the elimination, the clique size less one)
	// of a block Build makes. Zero means DefaultWidth. (blocked.New
	// and blocked.NewWith read a zero as "chosen from the model": see
	// gibbs.Config.) User blocks are bounded by MaxTable only.
	MaxWidth int
	// MaxTable is the largest table of a block's elimination, in entries
	// (the product of the domain sizes of the variables of a clique). Zero
	// means DefaultTable.
	MaxTable int
	// MaxVars is the largest number of variables of a block Build makes
	// (it keeps the building fast on long chains, where a block of small
	// width could grow without end). Zero means DefaultVars.
	MaxVars int
	// Forests builds two interleaved spanning forests (Forests) instead of
	// width-bounded blocks, within the same bounds. They pay on grid-like
	// models with strong pairwise couplings (F. Hamze and N. de Freitas,
	// UAI 2004).
	Forests bool
}

// Defaults of Config.
const (
	DefaultWidth = 12
	DefaultTable = 1 << 16
	DefaultVars  = 1024
)

// TotalFactor bounds the tables of one block built by Build in all:
// at most TotalFactor·MaxTable entries, so that an update of a block
// of many wide cliques stays within a sampler's default work limit.
const TotalFactor = 32

// WithDefaults returns cfg with its zero fields set to the defaults, or an
// error for a negative one.
func (cfg Config) WithDefaults() (Config, error) {
	if cfg.MaxWidth < 0 || cfg.MaxTable < 0 || cfg.MaxVars < 0 {
		return cfg, fmt.Errorf("block config %+v: the bounds must be ≥ 0 (0: the default)", cfg)
	}
	if cfg.MaxWidth == 0 {
		cfg.MaxWidth = DefaultWidth
	}
	if cfg.MaxTable == 0 {
		cfg.MaxTable = DefaultTable
	}
	if cfg.MaxVars == 0 {
		cfg.MaxVars = DefaultVars
	}
	return cfg, nil
}

// Model is the model blocks are built on: one that hands out its factors
// (a *factorgraph.Graph), so that the interactions between variables and
// the tables of an elimination can be read.
type Model interface {
	factorgraph.Model
	// FactorIndex returns the index of the k-th factor of A[i].
	FactorIndex(i, k int) int
	// Factor returns factor f.
	Factor(f int) factorgraph.Factor
}

// interaction is the interaction graph of the free variables: i and j are
// neighbours when a factor holds both. For each free i, nbr[i] lists its
// free neighbours, hard[i] the number of hard factors (tables with zeros)
// linking i to each, and soft[i] the sum of the ranges M_φ of the soft
// factors linking them.
type interaction struct {
	nbr  [][]int32
	hard [][]int32
	soft [][]float64
}

// newInteraction builds the interaction graph of m's free variables.
func newInteraction(m Model) *interaction {
	n := m.NumVars()
	ig := &interaction{nbr: make([][]int32, n), hard: make([][]int32, n), soft: make([][]float64, n)}
	clamped := make([]bool, n)
	for i := range n {
		_, clamped[i] = m.Observed(i)
	}
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = -1
	}
	for _, i := range m.Free() {
		soft, hard := m.Degree(i)
		for k := range soft + hard {
			mk := m.Bound(i, k)
			for _, j := range m.Factor(m.FactorIndex(i, k)).Vars() {
				if j == i || clamped[j] {
					continue
				}
				p := pos[j]
				if p < 0 {
					p = int32(len(ig.nbr[i]))
					pos[j] = p
					ig.nbr[i] = append(ig.nbr[i], int32(j))
					ig.hard[i] = append(ig.hard[i], 0)
					ig.soft[i] = append(ig.soft[i], 0)
				}
				if math.IsInf(mk, 1) {
					ig.hard[i][p]++
				} else {
					ig.soft[i][p] += mk
				}
			}
		}
		for _, j := range ig.nbr[i] {
			pos[j] = -1
		}
	}
	return ig
}

// link is a pair of free variables sharing a factor, u < v, and the
// strength of their tie.
type link struct {
	u, v int32
	t    tie
}

// links returns the links between the variables free (ascending), the
// strongest first: most hard factors, then the largest sum of soft ranges,
// then by u and by the order of nbr[u].
func (ig *interaction) links(free []int) []link {
	var edges []link
	for _, u := range free {
		for k, v := range ig.nbr[u] {
			if v > int32(u) {
				edges = append(edges, link{int32(u), v, tie{ig.hard[u][k], ig.soft[u][k]}})
			}
		}
	}
	slices.SortStableFunc(edges, func(a, b link) int {
		if a.t.stronger(b.t) {
			return -1
		}
		if b.t.stronger(a.t) {
			return 1
		}
		return 0
	})
	return edges
}

// BuildBlocks covers the free variables of g with blocks for a Blocked
// sampler: sets of free variables whose induced factor graph (the factors
// touching the block, with every variable outside it fixed) has an
// elimination of width at most cfg.MaxWidth, tables of at most
// cfg.MaxTable entries (32·MaxTable in all), and at most cfg.MaxVars
// variables. Blocks may overlap; every free variable is in one at least.
//
// The heuristic is greedy and deterministic, in two phases.
//
//  1. Cores. The pairs of free variables sharing a factor are taken from
//     the most strongly tied down — most hard factors (tables with zeros:
//     deterministic links) first, then the largest sum of the ranges M_φ of
//     their soft factors, then the lowest indices — and each merges the
//     cores of its two variables (initially one variable each) when their
//     union stays within the bounds (Kruskal's algorithm for a maximum
//     spanning forest, with a bound on the width of each tree's induced
//     graph). Deterministically linked and strongly coupled variables so
//     end up in the same core wherever the bounds allow: the condition for
//     a blocked sampler to mix where single sites cannot (Jensen, Kong &
//     Kjærulff 1995).
//  2. Blocks. Each core not already inside a block, the largest first
//     (then by lowest variable), seeds a block, which grows one variable
//     at a time: among the free neighbours of its members, the one most
//     strongly tied to the block (the same order, ties to members summed,
//     the soft sum halved for a variable some block already covers so that
//     blocks spread over uncovered ground), if the block stays within the
//     bounds with it; a candidate that does not fit is set aside for this
//     block. While nothing has been set aside, a block whose neighbours are
//     all in takes the next core no block covers yet whole, so that small
//     components share a block. Growing past its core makes a block
//     overlap its neighbours, so that the variables on either side of a
//     block boundary are also updated together.
//
// A union or a candidate is checked by simulating its elimination in an
// order built from the orders of its parts (the candidate eliminated first
// or last), and failing that, within a budget of work, in a fresh min-fill
// order. Each block is listed in the elimination order that showed it
// fits: Blocked compiles a block in the order given or in a better one.
//
// Where the bounds keep the variables of a hard factor apart so that one
// of them would never change — fixed, in every block holding it, by the
// factor's variables outside that block (the equality x0 = x1 split into
// {0} and {1}; see blocked.NewWith) — a block of the factor's free
// variables is added, beyond MaxWidth and MaxVars if need be; a factor
// whose variables' joint table exceeds MaxTable is an error naming it.
//
// With cfg.Forests set, BuildBlocks returns BuildForests(g, cfg).
func Build(m Model, cfg Config) ([][]int, error) {
	if isNil(m) {
		return nil, errors.New("blocks: Build: nil graph")
	}
	cfg, err := checkModel(m, cfg)
	if err != nil {
		return nil, err
	}
	var blocks [][]int
	if cfg.Forests {
		blocks = forests(m, cfg)
	} else {
		gr := newGrower(m, cfg)
		for _, core := range gr.cores() {
			if gr.inOneBlock(core) {
				continue
			}
			blocks = append(blocks, gr.grow(core))
		}
	}
	return coverLinks(m, blocks, cfg.MaxTable)
}

// isNil reports whether m is nil or a nil *factorgraph.Graph.
func isNil(m Model) bool {
	g, ok := m.(*factorgraph.Graph)
	return m == nil || ok && g == nil
}

// checkModel returns cfg with its defaults set, or an error for a
// negative bound, a continuous free variable or one with more values than
// cfg.MaxTable.
func checkModel(m Model, cfg Config) (Config, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return cfg, fmt.Errorf("blocks: %w", err)
	}
	for _, i := range m.Free() {
		if d := m.Domain(i); !d.IsDiscrete() {
			return cfg, fmt.Errorf("blocks: variable %d is continuous on %v; blocks hold discrete variables only", i, d)
		} else if d.Size > cfg.MaxTable {
			return cfg, fmt.Errorf("blocks: variable %d has %d values, more than MaxTable = %d", i, d.Size, cfg.MaxTable)
		}
	}
	return cfg, nil
}

// grower builds the blocks of Build.
type grower struct {
	m        Model
	cfg      Config
	maxTotal float64
	ig       *interaction
	budget   float64 // work left for fresh min-fill checks (vertices², summed)

	covered  []bool
	blocksOf [][]int32 // the blocks holding each variable
	coreList [][]int32 // the cores in seeding order, each in an elimination order
	packed   []bool    // coreList[k] was packed into a block

	// The block being grown: members (global), an elimination order of
	// them within the bounds (global), inB[v] for a member.
	members []int32
	order   []int32
	inB     []bool

	// Candidates: ties to the block, set-aside marks (rejected[j] = block
	// number), the candidate list.
	score    []tie
	rejected []int32
	inFront  []bool
	front    []int32
	block    int32
	full     bool // a candidate did not fit: pack no further core

	// Scratch of check: local index of each variable (−1 outside).
	local []int32
}

// tie is the strength of a tie between variables: hard links first, then
// the summed soft ranges.
type tie struct {
	hard int32
	soft float64
}

// stronger reports whether a is a stronger tie than b.
func (a tie) stronger(b tie) bool {
	return a.hard > b.hard || a.hard == b.hard && a.soft > b.soft
}

// mfBudget bounds the work of the fresh min-fill checks of a build, in
// squared vertices (a check of n vertices costs about n²).
const mfBudget = 1e8

func newGrower(m Model, cfg Config) *grower {
	n := m.NumVars()
	gr := &grower{
		m: m, cfg: cfg, maxTotal: TotalFactor * float64(cfg.MaxTable), budget: mfBudget,
		ig: newInteraction(m), covered: make([]bool, n), blocksOf: make([][]int32, n), inB: make([]bool, n),
		score: make([]tie, n), rejected: make([]int32, n), inFront: make([]bool, n), local: make([]int32, n),
	}
	for i := range n {
		gr.local[i] = -1
		gr.rejected[i] = -1
	}
	return gr
}

// check reports whether a block of vars stays within the bounds, trying
// each of orders (elimination orders of vars) and then, within the budget,
// a fresh min-fill order; it returns the order that fits.
func (gr *grower) check(vars []int32, orders ...[]int32) ([]int32, bool) {
	for l, v := range vars {
		gr.local[v] = int32(l)
	}
	defer func() {
		for _, v := range vars {
			gr.local[v] = -1
		}
	}()
	adj, size := gr.localGraph(vars)
	lorder := make([]int32, len(vars))
	for _, order := range orders {
		for k, v := range order {
			lorder[k] = gr.local[v]
		}
		if _, ok := elim.Simulate(adj, size, lorder, gr.limit()); ok {
			return order, true
		}
	}
	cost := float64(len(vars)) * float64(len(vars))
	if cost > gr.budget {
		return nil, false
	}
	gr.budget -= cost
	mf := elim.GreedyOrder(adj, size, elim.MinFill, float64(gr.cfg.MaxTable))
	if mf == nil {
		return nil, false
	}
	if _, ok := elim.Simulate(adj, size, mf, gr.limit()); !ok {
		return nil, false
	}
	out := make([]int32, len(mf))
	for k, l := range mf {
		out[k] = vars[l]
	}
	return out, true
}

// limit returns the bounds of a block as elimination statistics.
func (gr *grower) limit() elim.Stats {
	return elim.Stats{Width: gr.cfg.MaxWidth, MaxTable: float64(gr.cfg.MaxTable), Entries: gr.maxTotal}
}

// localGraph returns the interaction graph induced on vars (whose local
// indices are set) and their domain sizes.
func (gr *grower) localGraph(vars []int32) ([][]int32, []int32) {
	adj := make([][]int32, len(vars))
	size := make([]int32, len(vars))
	for l, v := range vars {
		size[l] = int32(gr.m.Domain(int(v)).Size)
		for _, j := range gr.ig.nbr[v] {
			if lj := gr.local[j]; lj >= 0 {
				adj[l] = append(adj[l], lj)
			}
		}
	}
	return adj, size
}

// cores merges the free variables into cores along their ties, strongest
// first, as long as a merged core fits the bounds, and returns them in
// seeding order (largest first, then by lowest variable), each in an
// elimination order that fits.
func (gr *grower) cores() [][]int32 {
	parent := make([]int32, gr.m.NumVars())
	ord := make([][]int32, gr.m.NumVars())
	for _, u := range gr.m.Free() {
		parent[u], ord[u] = int32(u), []int32{int32(u)}
	}
	edges := gr.ig.links(gr.m.Free())
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for _, e := range edges {
		a, b := find(e.u), find(e.v)
		if a == b || len(ord[a])+len(ord[b]) > gr.cfg.MaxVars {
			continue
		}
		ab := append(slices.Clone(ord[a]), ord[b]...)
		ba := append(slices.Clone(ord[b]), ord[a]...)
		if order, ok := gr.check(ab, ab, ba); ok {
			parent[b], ord[a], ord[b] = a, order, nil
		}
	}
	for _, u := range gr.m.Free() {
		if find(int32(u)) == int32(u) {
			gr.coreList = append(gr.coreList, ord[u])
		}
	}
	slices.SortStableFunc(gr.coreList, func(a, b []int32) int { return len(b) - len(a) })
	gr.packed = make([]bool, len(gr.coreList))
	return gr.coreList
}

// inOneBlock reports whether some block holds every variable of core.
func (gr *grower) inOneBlock(core []int32) bool {
	for _, b := range gr.blocksOf[core[0]] {
		all := true
		for _, v := range core[1:] {
			all = all && slices.Contains(gr.blocksOf[v], b)
		}
		if all {
			return true
		}
	}
	return false
}

// grow grows a block from core and returns its variables in an
// elimination order within the bounds.
func (gr *grower) grow(core []int32) []int {
	gr.members, gr.order, gr.front, gr.full = gr.members[:0], nil, gr.front[:0], false
	gr.addAll(core, slices.Clone(core))
	for len(gr.members) < gr.cfg.MaxVars {
		c := gr.bestCandidate()
		if c < 0 {
			if gr.full || !gr.pack() {
				break
			}
			continue
		}
		vars := append(slices.Clone(gr.members), c)
		first := append([]int32{c}, gr.order...)
		last := append(slices.Clone(gr.order), c)
		if order, ok := gr.check(vars, first, last); ok {
			gr.addAll([]int32{c}, order)
		} else {
			gr.rejected[c] = gr.block
			gr.full = true
		}
	}
	out := make([]int, len(gr.order))
	for k, v := range gr.order {
		out[k] = int(v)
		gr.covered[v] = true
		gr.blocksOf[v] = append(gr.blocksOf[v], gr.block)
	}
	gr.reset()
	return out
}

// pack adds the next core no block covers yet, whole, if it fits; it
// reports whether it did.
func (gr *grower) pack() bool {
	for k, core := range gr.coreList {
		if gr.packed[k] || slices.ContainsFunc(core, func(v int32) bool { return gr.covered[v] || gr.inB[v] }) {
			continue
		}
		if len(gr.members)+len(core) > gr.cfg.MaxVars {
			return false
		}
		vars := append(slices.Clone(gr.members), core...)
		order, ok := gr.check(vars, append(slices.Clone(gr.order), core...))
		if !ok {
			return false
		}
		gr.packed[k] = true
		gr.addAll(core, order)
		return true
	}
	return false
}

// bestCandidate returns the neighbour of the block with the strongest tie
// to it (not set aside), or −1.
func (gr *grower) bestCandidate() int32 {
	best, bt := int32(-1), tie{}
	for _, j := range gr.front {
		if gr.inB[j] || gr.rejected[j] == gr.block {
			continue
		}
		t := gr.score[j]
		if gr.covered[j] {
			t.soft /= 2
		}
		if best < 0 || t.stronger(bt) || !bt.stronger(t) && j < best {
			best, bt = j, t
		}
	}
	return best
}

// addAll puts vars into the block, whose elimination order becomes order,
// and updates the candidates' ties.
func (gr *grower) addAll(vars []int32, order []int32) {
	gr.order = order
	for _, c := range vars {
		gr.inB[c] = true
		gr.members = append(gr.members, c)
		for k, j := range gr.ig.nbr[c] {
			gr.score[j].hard += gr.ig.hard[c][k]
			gr.score[j].soft += gr.ig.soft[c][k]
			if !gr.inFront[j] {
				gr.inFront[j] = true
				gr.front = append(gr.front, j)
			}
		}
	}
}

// reset clears the block's marks for the next block.
func (gr *grower) reset() {
	for _, v := range gr.members {
		gr.inB[v] = false
	}
	for _, j := range gr.front {
		gr.score[j] = tie{}
		gr.inFront[j] = false
	}
	gr.block++
}

// Check validates user blocks on m: non-empty, free variables in
// range, none twice in a block, every free variable in some block.
func Check(m factorgraph.Model, blocks [][]int) error {
	n := m.NumVars()
	in := make([]bool, n)
	seen := make([]int, n)
	for b, blk := range blocks {
		if len(blk) == 0 {
			return fmt.Errorf("block %d is empty", b)
		}
		for _, v := range blk {
			switch {
			case v < 0 || v >= n:
				return fmt.Errorf("block %d: variable %d out of range [0, %d)", b, v, n)
			case seen[v] == b+1:
				return fmt.Errorf("block %d: variable %d appears twice", b, v)
			}
			if ov, ok := m.Observed(v); ok {
				return fmt.Errorf("block %d: variable %d is evidence (observed at %v); blocks hold free variables only", b, v, ov)
			}
			seen[v], in[v] = b+1, true
		}
	}
	for _, i := range m.Free() {
		if !in[i] {
			return fmt.Errorf("free variable %d is in no block: the blocks must cover every free variable", i)
		}
	}
	return nil
}

// Stickiness returns the shares of the links between free variables of m
// that are deterministic (a hard factor holds both) and, of the others,
// strong (the ranges of the soft factors holding both sum to strong or
// more): where single-site chains freeze, and blocks pay.
func Stickiness(m Model, strong float64) (hard, soft float64) {
	ig := newInteraction(m)
	links, nh, ns := 0, 0, 0
	for i, nb := range ig.nbr {
		for k, j := range nb {
			if int(j) <= i {
				continue
			}
			links++
			switch {
			case ig.hard[i][k] > 0:
				nh++
			case ig.soft[i][k] >= strong:
				ns++
			}
		}
	}
	if links == 0 {
		return 0, 0
	}
	return float64(nh) / float64(links), float64(ns) / float64(links)
}
