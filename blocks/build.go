package blocks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/meter"
	"github.com/pgibbs/pgibbs/internal/unionfind"
)

// Config bounds the blocks Build and Forests make. The zero value gives
// the defaults.
type Config struct {
	// MaxWidth is the largest elimination width (the number of other
	// variables in a table of the elimination, the clique size less one)
	// of a block Build makes. Zero means DefaultWidth. (blocked.New
	// and blocked.NewWith read a zero as "chosen from the model": see
	// blocked.Config.) User blocks are bounded by MaxTable only.
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

// varLister is a model that lists a factor's variables without making the
// factor's value (a *factorgraph.Graph: see factorgraph.Graph.FactorVars).
type varLister interface {
	FactorVars(dst []int, f int) []int
}

// FactorVars appends the variables of factor f of m to dst and returns it,
// without making the factor's value where m can (a *factorgraph.Graph).
func FactorVars(m Model, dst []int, f int) []int {
	if vl, ok := m.(varLister); ok {
		return vl.FactorVars(dst, f)
	}
	return append(dst, m.Factor(f).Vars()...)
}

// interaction is the interaction graph of the free variables: i and j are
// neighbours when a factor holds both. For each free i, nbr[i] lists its
// free neighbours, hard[i] the number of hard factors (tables with zeros)
// linking i to each, and soft[i] the sum of the ranges M_φ of the soft
// factors linking them. incid is the number of factor incidences of the
// free variables, Σ_i |A[i]|, and work the units its building took.
type interaction struct {
	nbr   [][]int32
	hard  [][]int32
	soft  [][]float64
	incid int
	work  int

	sorted [][]int32 // nbr[i] sorted, for adjacency tests (built on first use)
}

// newInteraction builds the interaction graph of m's free variables,
// looking at mt as it goes (it returns mt's error).
func newInteraction(m Model, mt *meter.Meter) (*interaction, error) {
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
	var vars []int
	counted := 0
	for _, i := range m.Free() {
		soft, hard := m.Degree(i)
		ig.incid += soft + hard
		for k := range soft + hard {
			mk := m.Bound(i, k)
			vars = FactorVars(m, vars[:0], m.FactorIndex(i, k))
			ig.work += unitsPerRead + len(vars)
			for _, j := range vars {
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
		if err := mt.Add(ig.work - counted); err != nil {
			return nil, err
		}
		counted = ig.work
	}
	return ig, nil
}

// adjacent reports whether free variables u and v are neighbours, in
// O(log deg).
func (ig *interaction) adjacent(u, v int32) bool {
	if ig.sorted == nil {
		ig.sorted = make([][]int32, len(ig.nbr))
		for i, nb := range ig.nbr {
			ig.sorted[i] = slices.Sorted(slices.Values(nb))
		}
	}
	_, ok := slices.BinarySearch(ig.sorted[u], v)
	return ok
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

// Build covers the free variables of m with blocks for a Blocked sampler:
// sets of free variables whose induced factor graph (the factors touching
// the block, with every variable outside it fixed) has an elimination of
// width at most cfg.MaxWidth, tables of at most cfg.MaxTable entries (32·
// MaxTable in all), and at most cfg.MaxVars variables. Blocks may
// overlap; every free variable is in one at least.
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
//     Kjærulff 1995). Two cores that failed to merge are not tried again,
//     nor are the cores that later hold them: the bounds are monotone (a
//     subgraph's treewidth is at most the graph's), and on a dense graph
//     the same two cores are linked by many pairs.
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
//     block boundary are also updated together; a covered variable joins
//     another block only while the blocks' factor incidences beyond one
//     cover stay within RecoverFactor times the model's, so that on a dense
//     graph, where every block could reach every variable, the blocks
//     touch a bounded multiple of the model's factors in all.
//
// A union or a candidate is checked by the cliques of an elimination order
// built from the orders of its parts: a candidate eliminated first, or
// last; two cores in the order of one followed by the other's (the core
// of the link's lower variable first), or the other way round. These
// orders are checked incrementally (see cliques.go: a check costs the
// part of the elimination tree that changes, not the block); failing
// them, and while a budget proportional to the model lasts, a fresh
// min-fill order (Kjærulff 1990) is tried where the least degree of the
// union's graph does not already exceed the width (a lower bound on its
// treewidth). Each block is listed in the elimination order that showed
// it fits: Blocked compiles a block in the order given or in a better
// one.
//
// Cost. Reading the interaction graph costs O(Σ_φ |φ|²); the cores
// O(E log E) for the E linked pairs plus the checks; a block grows at a
// cost of O(Σ_{v∈B} |A[v]| log) for its candidates plus its checks, each
// of them the changed part of an elimination tree (at most its width times
// the block's size when a whole order is rebuilt). The factor incidences
// of all the blocks together are at most (2 + RecoverFactor) Σ_i |A[i]|
// and the min-fill checks have a budget of mfBase plus mfPerIncidence a
// factor incidence, so the construction is near-linear in the factors on
// dense models; on sparse models of wide blocks the rebuilt orders cost
// O(n·MaxVars·width) at worst (see the package's story of the cost, and
// EstimateWork for an estimate before a build starts). Build looks at
// ctx about every millisecond of work and returns its error, wrapped, once
// it is done.
//
// Where the bounds keep the variables of a hard factor apart so that one
// of them would never change — fixed, in every block holding it, by the
// factor's variables outside that block (the equality x0 = x1 split into
// {0} and {1}; see blocked.NewWith) — a block of the factor's free
// variables is added, beyond MaxWidth and MaxVars if need be; a factor
// whose variables' joint table exceeds MaxTable is an error naming it.
//
// With cfg.Forests set, Build returns Forests(ctx, m, cfg).
func Build(ctx context.Context, m Model, cfg Config) ([][]int, error) {
	blocks, _, err := build(ctx, m, cfg)
	return blocks, err
}

// build is Build; it also returns the work it counted.
func build(ctx context.Context, m Model, cfg Config) ([][]int, int64, error) {
	if isNil(m) {
		return nil, 0, errors.New("blocks: Build: nil graph")
	}
	cfg, err := checkModel(m, cfg)
	if err != nil {
		return nil, 0, err
	}
	what := "blocks: Build"
	if cfg.Forests {
		what = "blocks: Forests"
	}
	mt := meter.New(ctx, what)
	if err := mt.Check(); err != nil {
		return nil, mt.Work(), err
	}
	gr, err := newGrower(m, cfg, mt)
	if err != nil {
		return nil, mt.Work(), err
	}
	var blocks [][]int
	if cfg.Forests {
		blocks, err = forests(gr)
	} else {
		blocks, err = gr.build()
	}
	if err != nil {
		return nil, mt.Work(), err
	}
	blocks, err = coverLinks(mt, m, blocks, cfg.MaxTable)
	return blocks, mt.Work(), err
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

// RecoverFactor bounds the growth of Build's blocks into variables another
// block already covers: the factor incidences |A[v]| of such additions sum
// to at most RecoverFactor·Σ_i |A[i]| over a build. On the shared UAI
// models the blocks never come near it (their incidences beyond the first
// cover sum to at most 9 times the model's); on K_{n,n}, where a block of
// width w holds w variables of one side and all of the other, n/w blocks
// would each touch the whole model.
const RecoverFactor = 4

// Budget of the fresh min-fill checks of a build, in adjacency entries
// read (elim.GreedyOrderWithin's work): mfBase (about 0.1 s) plus
// mfPerIncidence a factor incidence of the model (Σ_i |A[i]|), so that on a
// large model they cost at most a fixed multiple of its size, and on the
// shared UAI models (10³ variables, blocks of up to 10³, which use up to
// 2·10⁸ when unbounded) about what they did when the budget counted
// squared block sizes. One check gives up beyond mfMaxCheck (an order's
// search does not look at the context: about 10–30 ms), and is not tried
// if its initial scoring alone (about Σ deg²) would exceed that.
var mfBase = 3e7 // a variable: the tests of linear growth set it to 0

const (
	mfPerIncidence = 200
	mfMaxCheck     = 1 << 23
)

// Work units of the operations that cost more than an adjacency entry's
// read (a unit is about a nanosecond on the project's machine kind, so
// that the meter looks at the context about every millisecond):
// reading a factor incidence of the model (its index, scope and bound
// through the Model interface), comparing links as they are sorted, a
// step of a heap of candidates, and a tie to a candidate updated.
const (
	unitsPerRead      = 20
	unitsPerSorted    = 4
	unitsPerHeap      = 4
	unitsPerCandidate = 8
)

// grower builds the blocks of Build.
type grower struct {
	m      Model
	cfg    Config
	lim    elim.Stats // the bounds as elimination statistics
	ig     *interaction
	size   []int32 // domain sizes
	degree []int32 // factor incidences |A[v]|
	mt     *meter.Meter
	mfLeft float64 // work left for fresh min-fill checks
	reLeft float64 // factor incidences left for growth into covered variables

	// Cores: a union–find forest over the free variables, the set (the
	// order and cliques in cc) of each root, the adjacency within each
	// core, the pairs of roots that failed to merge (key, and the partners
	// of each root), and the adjacency entries added by the merge under
	// way (to take back if it fails).
	cc       *cliques
	parent   []int32
	sets     []*eset
	adj      [][]int32
	fails    map[uint64]struct{}
	failsOf  [][]int32
	adjLog   []int32
	coreList [][]int32 // the cores in seeding order, each in an elimination order
	coreSets []*eset
	packed   []bool // coreList[k] was packed into a block
	packFrom int    // the cores before it are packed or covered

	// The block being grown: its set (cliques in bc), members, the
	// adjacency within it, membership.
	bc      *cliques
	blk     *eset
	members []int32
	badj    [][]int32
	inB     []bool

	covered  []int32   // the blocks covering each variable
	blocksOf [][]int32 // the blocks holding each variable

	// Candidates: ties to the block, the members adjacent to each
	// (bnbr), set-aside marks (rejected[j] = block number), the candidates
	// (a heap of ties as they were when pushed: an entry is current if the
	// tie still is).
	score    []tie
	bnbr     [][]int32
	rejected []int32
	inFront  []bool
	front    []int32
	cands    heap[cand]
	block    int32
	full     bool // a candidate did not fit: pack no further core

	// Scratch: local indices of variables (−1 outside: one array for
	// Forests, one for minFill), a stamp array.
	local   []int32
	mfLocal []int32
	seen    []uint32
	stamp   uint32
	k       []int32
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

// cand is a candidate of a growing block with its tie when pushed.
type cand struct {
	j int32
	t tie
}

func newGrower(m Model, cfg Config, mt *meter.Meter) (*grower, error) {
	ig, err := newInteraction(m, mt)
	if err != nil {
		return nil, err
	}
	n := m.NumVars()
	gr := &grower{
		m: m, cfg: cfg, ig: ig, mt: mt,
		lim:    elim.Stats{Width: cfg.MaxWidth, MaxTable: float64(cfg.MaxTable), Entries: TotalFactor * float64(cfg.MaxTable)},
		mfLeft: mfBase + mfPerIncidence*float64(ig.incid), reLeft: RecoverFactor * float64(ig.incid),
		size: make([]int32, n), degree: make([]int32, n),
		covered: make([]int32, n), blocksOf: make([][]int32, n), inB: make([]bool, n), badj: make([][]int32, n),
		score: make([]tie, n), bnbr: make([][]int32, n), rejected: make([]int32, n), inFront: make([]bool, n),
		local: make([]int32, n), mfLocal: make([]int32, n), seen: make([]uint32, n),
	}
	for i := range n {
		gr.local[i], gr.mfLocal[i] = -1, -1
		gr.rejected[i] = -1
	}
	for _, i := range m.Free() {
		gr.size[i] = int32(m.Domain(i).Size)
		soft, hard := m.Degree(i)
		gr.degree[i] = int32(soft + hard)
	}
	gr.cc = newCliques(gr.size, gr.lim)
	gr.bc = newCliques(gr.size, gr.lim)
	gr.cands.above = func(a, b cand) bool { return a.t.stronger(b.t) || !b.t.stronger(a.t) && a.j < b.j }
	return gr, nil
}

// build makes the blocks (phases 1 and 2 of Build).
func (gr *grower) build() ([][]int, error) {
	if err := gr.cores(); err != nil {
		return nil, err
	}
	var blocks [][]int
	for k, core := range gr.coreList {
		if gr.inOneBlock(core) {
			continue
		}
		blk, err := gr.grow(gr.coreSets[k])
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, blk)
	}
	return blocks, nil
}

// tick counts the work of the cliques since the last tick and n more units,
// and returns the meter's error.
func (gr *grower) tick(n int) error {
	n += gr.cc.work + gr.bc.work
	gr.cc.work, gr.bc.work = 0, 0
	return gr.mt.Add(n)
}

// find returns the root of v's core.
func (gr *grower) find(v int32) int32 { return unionfind.Find(gr.parent, v) }

// cores merges the free variables into cores along their ties, strongest
// first, as long as a merged core fits the bounds, and sets coreList to
// them in seeding order (largest first, then by lowest variable), each in
// an elimination order that fits.
func (gr *grower) cores() error {
	n := gr.m.NumVars()
	gr.parent, gr.sets, gr.adj = make([]int32, n), make([]*eset, n), make([][]int32, n)
	gr.failsOf, gr.fails = make([][]int32, n), map[uint64]struct{}{}
	unionfind.Init(gr.parent)
	free := gr.m.Free()
	for _, u := range free {
		s := newSet()
		gr.cc.appendVar(s, int32(u), nil)
		gr.sets[u] = s
	}
	gr.cc.commit()
	edges := gr.ig.links(free)
	if err := gr.tick(unitsPerSorted * len(edges) * bits.Len(uint(len(edges)))); err != nil {
		return err
	}
	for _, e := range edges {
		a, b := gr.find(e.u), gr.find(e.v)
		if a == b || gr.sets[a].len()+gr.sets[b].len() > gr.cfg.MaxVars || gr.failed(a, b) {
			if err := gr.tick(1); err != nil {
				return err
			}
			continue
		}
		if !gr.merge(a, b) {
			gr.fail(a, b)
		}
		if err := gr.tick(1); err != nil {
			return err
		}
	}
	var roots []int32
	for _, u := range free {
		if gr.find(int32(u)) == int32(u) {
			roots = append(roots, int32(u))
		}
	}
	slices.SortStableFunc(roots, func(a, b int32) int { return gr.sets[b].len() - gr.sets[a].len() })
	for _, r := range roots {
		gr.coreList = append(gr.coreList, gr.sets[r].order())
		gr.coreSets = append(gr.coreSets, gr.sets[r])
	}
	gr.packed = make([]bool, len(gr.coreList))
	return nil
}

// pairKey is the key of the pair of roots a, b in fails.
func pairKey(a, b int32) uint64 {
	return uint64(uint32(min(a, b)))<<32 | uint64(uint32(max(a, b)))
}

// failed reports whether the cores of roots a and b (or cores inside
// them) failed to merge.
func (gr *grower) failed(a, b int32) bool {
	_, ok := gr.fails[pairKey(a, b)]
	return ok
}

// fail records that the cores of roots a and b failed to merge.
func (gr *grower) fail(a, b int32) {
	gr.fails[pairKey(a, b)] = struct{}{}
	gr.failsOf[a] = append(gr.failsOf[a], b)
	gr.failsOf[b] = append(gr.failsOf[b], a)
}

// merge merges the core of root b into that of root a if their union fits
// the bounds, and reports whether it did. It tries a's order followed by b's, then b's followed by a's (as
// the strongest link u–v joins them, a holding u < v), then a fresh
// min-fill order.
func (gr *grower) merge(a, b int32) bool {
	big, small := a, b
	if gr.sets[b].len() > gr.sets[a].len() {
		big, small = b, a
	}
	gr.linkCross(small, big)
	out := gr.concat(a, b)
	if out == nil {
		out = gr.concat(b, a)
	}
	if out == nil {
		out = gr.minFill(gr.cc, append(gr.sets[a].order(), gr.sets[b].order()...), gr.coreNbr)
	}
	gr.cc.commit()
	if out == nil {
		for k := len(gr.adjLog) - 1; k >= 0; k-- {
			v := gr.adjLog[k]
			gr.adj[v] = gr.adj[v][:len(gr.adj[v])-1]
		}
		gr.adjLog = gr.adjLog[:0]
		return false
	}
	gr.adjLog = gr.adjLog[:0]
	gr.parent[b], gr.sets[a], gr.sets[b] = a, out, nil
	for _, p := range gr.failsOf[b] {
		if q := gr.find(p); q != a && !gr.failed(a, q) {
			gr.fail(a, q)
		}
	}
	gr.failsOf[b] = nil
	return true
}

// concat returns the set of the cores of roots a and b eliminated in a's
// order, then b's, if it fits the bounds, or nil with both as they were.
// A variable of b alone is appended to a's elimination and a variable of a
// alone prepended to b's (incremental changes: see cliques.go); otherwise
// b's variables are appended to a's elimination one by one.
func (gr *grower) concat(a, b int32) *eset {
	A, B := gr.sets[a], gr.sets[b]
	if A.len() == 1 && B.len() > 1 {
		x := A.tail[0]
		gr.k = append(gr.k[:0], gr.adj[x]...)
		switch fits, fill := gr.cc.prependVar(B, x, gr.k); {
		case fits:
			return B
		case fill:
			return gr.cc.rebuild(append([]int32{x}, B.order()...), gr.coreNbr)
		}
		return nil
	}
	mk := gr.cc.mark(A)
	st := next(gr.seen, &gr.stamp)
	for _, v := range B.order() {
		gr.k = gr.k[:0]
		gr.cc.work += len(gr.adj[v])
		for _, u := range gr.adj[v] {
			if gr.seen[u] == st || gr.find(u) == a {
				gr.k = append(gr.k, u)
			}
		}
		if !gr.cc.appendVar(A, v, gr.k) {
			gr.cc.undo(A, mk)
			return nil
		}
		gr.seen[v] = st
	}
	return A
}

// linkCross adds the links between the cores of roots small and big to the
// cores' adjacency (logged in adjLog), scanning the neighbours of small's
// variables or testing each pair, whichever is cheaper.
func (gr *grower) linkCross(small, big int32) {
	S, B := gr.sets[small], gr.sets[big]
	scan := 0
	for _, x := range S.head {
		scan += len(gr.ig.nbr[x])
	}
	for _, x := range S.tail {
		scan += len(gr.ig.nbr[x])
	}
	add := func(x, y int32) {
		gr.adj[x] = append(gr.adj[x], y)
		gr.adj[y] = append(gr.adj[y], x)
		gr.adjLog = append(gr.adjLog, x, y)
	}
	pairs := float64(S.len()) * float64(B.len()) * 8 // a binary search costs about 8 reads
	if float64(scan) <= pairs {
		gr.cc.work += scan
		for _, xs := range [2][]int32{S.head, S.tail} {
			for _, x := range xs {
				for _, y := range gr.ig.nbr[x] {
					if gr.find(y) == big {
						add(x, y)
					}
				}
			}
		}
		return
	}
	gr.cc.work += int(pairs)
	for _, xs := range [2][]int32{S.head, S.tail} {
		for _, x := range xs {
			for _, ys := range [2][]int32{B.head, B.tail} {
				for _, y := range ys {
					if gr.ig.adjacent(x, y) {
						add(x, y)
					}
				}
			}
		}
	}
}

// coreNbr appends to dst the neighbours u of v in the cores (with the
// links of the merge under way) for which seen holds.
func (gr *grower) coreNbr(dst []int32, v int32, seen func(int32) bool) []int32 {
	gr.cc.work += len(gr.adj[v])
	for _, u := range gr.adj[v] {
		if seen(u) {
			dst = append(dst, u)
		}
	}
	return dst
}

// minFill returns a set of the variables vars in a fresh min-fill order,
// with its cliques in c, if it fits the bounds; nil if it does not, or if
// the check would exceed the budget, or if the least degree of the graph
// (a lower bound on its treewidth) exceeds the width. nbr lists the
// neighbours of a variable in vars, as for rebuild. The budget pays for
// reading the graph and for the order's search.
func (gr *grower) minFill(c *cliques, vars []int32, nbr func(dst []int32, v int32, seen func(int32) bool) []int32) *eset {
	if gr.mfLeft <= 0 {
		return nil
	}
	local := gr.mfLocal
	for l, v := range vars {
		local[v] = int32(l)
	}
	defer func() {
		for _, v := range vars {
			local[v] = -1
		}
	}()
	in := func(u int32) bool { return local[u] >= 0 }
	adj := make([][]int32, len(vars))
	size := make([]int32, len(vars))
	// The local graph, its reading charged to the budget: its initial
	// scoring alone (Σ 1 + d + d²) must fit a check, and its least degree
	// the width.
	read, cost, minDeg := 0.0, 0.0, math.MaxInt
	defer func() { gr.mfLeft -= read }()
	for l, v := range vars {
		for _, u := range nbr(nil, v, in) {
			adj[l] = append(adj[l], local[u])
		}
		size[l] = gr.size[v]
		d := float64(len(adj[l]))
		read += 1 + d
		cost += 1 + d + d*d
		minDeg = min(minDeg, len(adj[l]))
		if cost > mfMaxCheck || cost > gr.mfLeft {
			return nil
		}
	}
	if minDeg > gr.cfg.MaxWidth {
		return nil
	}
	mf, work := elim.GreedyOrderWithin(adj, size, elim.MinFill, gr.lim, min(gr.mfLeft, mfMaxCheck))
	gr.mfLeft -= work
	c.work += int(work)
	if mf == nil {
		return nil
	}
	order := make([]int32, len(mf))
	for k, l := range mf {
		order[k] = vars[l]
	}
	return c.rebuild(order, nbr)
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
func (gr *grower) grow(core *eset) ([]int, error) {
	gr.members, gr.front, gr.full = gr.members[:0], gr.front[:0], false
	gr.cands.a = gr.cands.a[:0]
	gr.blk = core.clone()
	vars := core.order()
	for _, v := range vars {
		gr.bc.up[v], gr.bc.tab[v], gr.bc.pos[v] = slices.Clip(gr.cc.up[v]), gr.cc.tab[v], gr.cc.pos[v]
		gr.badj[v] = slices.Clip(gr.adj[v])
	}
	gr.addAll(vars)
	for len(gr.members) < gr.cfg.MaxVars {
		if err := gr.tick(0); err != nil {
			return nil, err
		}
		c := gr.bestCandidate()
		if c < 0 {
			if gr.full || !gr.pack() {
				break
			}
			continue
		}
		if gr.tryAdd(c) {
			if gr.covered[c] > 0 {
				gr.reLeft -= float64(gr.degree[c])
			}
			gr.addAll([]int32{c})
		} else {
			gr.rejected[c] = gr.block
			gr.full = true
		}
	}
	order := gr.blk.order()
	out := make([]int, len(order))
	for k, v := range order {
		out[k] = int(v)
		gr.covered[v]++
		gr.blocksOf[v] = append(gr.blocksOf[v], gr.block)
	}
	gr.reset()
	return out, gr.tick(len(order))
}

// tryAdd adds candidate c to the block if it stays within the bounds
// (Build's checks, in order: c first without fill, c first with it, c
// last, a fresh min-fill order) and reports whether it did; the block's
// adjacency gains c's links to it if so.
func (gr *grower) tryAdd(c int32) bool {
	k := gr.bnbr[c]
	gr.badj[c] = slices.Clone(k)
	for _, u := range k {
		gr.badj[u] = append(gr.badj[u], c)
	}
	gr.k = append(gr.k[:0], k...)
	fits, fill := gr.bc.prependVar(gr.blk, c, gr.k)
	var out *eset
	if fits {
		out = gr.blk
	} else if fill {
		out = gr.bc.rebuild(append([]int32{c}, gr.blk.order()...), gr.blockNbr)
	}
	if out == nil && gr.bc.appendVar(gr.blk, c, k) {
		out = gr.blk
	}
	if out == nil {
		out = gr.minFill(gr.bc, append(slices.Clone(gr.members), c), gr.blockNbr)
	}
	gr.bc.commit()
	if out == nil {
		for _, u := range k {
			gr.badj[u] = gr.badj[u][:len(gr.badj[u])-1]
		}
		gr.badj[c] = nil
		return false
	}
	gr.blk = out
	return true
}

// blockNbr appends to dst the neighbours u of v in the block (with the
// candidate under trial) for which seen holds.
func (gr *grower) blockNbr(dst []int32, v int32, seen func(int32) bool) []int32 {
	gr.bc.work += len(gr.badj[v])
	for _, u := range gr.badj[v] {
		if seen(u) {
			dst = append(dst, u)
		}
	}
	return dst
}

// pack adds the next core no block covers yet, whole, if it fits (its
// order after the block's, or a fresh min-fill order); it reports whether
// it did.
func (gr *grower) pack() bool {
	for ; gr.packFrom < len(gr.coreList); gr.packFrom++ {
		k := gr.packFrom
		core := gr.coreList[k]
		gr.cc.work += len(core)
		if gr.packed[k] || slices.ContainsFunc(core, func(v int32) bool { return gr.covered[v] > 0 || gr.inB[v] }) {
			continue // for good: covered, or covered at the end of this block
		}
		if len(gr.members)+len(core) > gr.cfg.MaxVars {
			return false
		}
		// The core's links to the block and within it.
		st := next(gr.seen, &gr.stamp)
		for _, v := range core {
			gr.seen[v] = st
		}
		for _, v := range core {
			gr.badj[v] = slices.Clone(gr.bnbr[v])
			for _, u := range gr.bnbr[v] {
				gr.badj[u] = append(gr.badj[u], v)
			}
			for _, u := range gr.adj[v] {
				if gr.seen[u] == st {
					gr.badj[v] = append(gr.badj[v], u)
				}
			}
		}
		mk := gr.bc.mark(gr.blk)
		ok := true
		in := next(gr.bc.in, &gr.bc.inStamp)
		for _, v := range core {
			gr.k = gr.k[:0]
			for _, u := range gr.badj[v] {
				if gr.inB[u] || gr.bc.in[u] == in {
					gr.k = append(gr.k, u)
				}
			}
			if ok = gr.bc.appendVar(gr.blk, v, gr.k); !ok {
				break
			}
			gr.bc.in[v] = in
		}
		out := gr.blk
		if !ok {
			gr.bc.undo(gr.blk, mk)
			out = gr.minFill(gr.bc, append(slices.Clone(gr.members), core...), gr.blockNbr)
		}
		gr.bc.commit()
		if out == nil {
			for _, v := range core {
				for _, u := range gr.bnbr[v] {
					gr.badj[u] = gr.badj[u][:len(gr.badj[u])-1]
				}
				gr.badj[v] = nil
			}
			return false
		}
		gr.blk = out
		gr.packed[k] = true
		gr.addAll(core)
		return true
	}
	return false
}

// key returns candidate j's tie to the block as bestCandidate ranks it:
// the soft sum halved for a variable some block covers.
func (gr *grower) key(j int32) tie {
	t := gr.score[j]
	if gr.covered[j] > 0 {
		t.soft /= 2
	}
	return t
}

// bestCandidate returns the neighbour of the block with the strongest tie
// to it (not set aside; a covered one only while the budget of growth into
// covered variables allows), or −1.
func (gr *grower) bestCandidate() int32 {
	for gr.cands.len() > 0 {
		c := gr.cands.pop()
		j := c.j
		gr.cc.work += unitsPerHeap * bits.Len(uint(gr.cands.len()))
		if gr.inB[j] || gr.rejected[j] == gr.block || c.t != gr.key(j) {
			continue
		}
		if gr.covered[j] > 0 && float64(gr.degree[j]) > gr.reLeft {
			continue
		}
		return j
	}
	return -1
}

// addAll puts vars into the block (its set already holds them) and
// updates the candidates' ties.
func (gr *grower) addAll(vars []int32) {
	for _, c := range vars {
		gr.inB[c] = true
		gr.members = append(gr.members, c)
		gr.cc.work += unitsPerCandidate * len(gr.ig.nbr[c])
		for k, j := range gr.ig.nbr[c] {
			if gr.inB[j] {
				continue
			}
			gr.bnbr[j] = append(gr.bnbr[j], c)
			gr.score[j].hard += gr.ig.hard[c][k]
			gr.score[j].soft += gr.ig.soft[c][k]
			if !gr.inFront[j] {
				gr.inFront[j] = true
				gr.front = append(gr.front, j)
			}
			if gr.rejected[j] != gr.block {
				gr.cands.push(cand{j, gr.key(j)})
			}
		}
	}
}

// reset clears the block's marks for the next block.
func (gr *grower) reset() {
	for _, v := range gr.members {
		gr.inB[v] = false
		gr.badj[v] = nil
		gr.bnbr[v] = nil
	}
	for _, j := range gr.front {
		gr.score[j] = tie{}
		gr.inFront[j] = false
		gr.bnbr[j] = nil
	}
	gr.block++
}

// fits returns an elimination order of vars within the bounds — order if
// it is one, otherwise a fresh min-fill order within the budget — or nil:
// Forests' check of a component that closes a cycle.
func (gr *grower) fits(vars, order []int32) []int32 {
	for l, v := range vars {
		gr.local[v] = int32(l)
	}
	defer func() {
		for _, v := range vars {
			gr.local[v] = -1
		}
	}()
	nbr := func(dst []int32, v int32, seen func(int32) bool) []int32 {
		gr.bc.work += len(gr.ig.nbr[v])
		for _, u := range gr.ig.nbr[v] {
			if gr.local[u] >= 0 && seen(u) {
				dst = append(dst, u)
			}
		}
		return dst
	}
	s := gr.bc.rebuild(order, nbr)
	if s == nil {
		s = gr.minFill(gr.bc, vars, nbr)
	}
	gr.bc.commit()
	if s == nil {
		return nil
	}
	return s.order()
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
// more): where single-site chains freeze, and blocks pay. It reads every
// factor's scope (O(Σ_φ |φ|²)) and looks at ctx as it goes, returning its
// error, wrapped, once it is done.
func Stickiness(ctx context.Context, m Model, strong float64) (hard, soft float64, err error) {
	ig, err := newInteraction(m, meter.New(ctx, "blocks: Stickiness"))
	if err != nil {
		return 0, 0, err
	}
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
		return 0, 0, nil
	}
	return float64(nh) / float64(links), float64(ns) / float64(links), nil
}
