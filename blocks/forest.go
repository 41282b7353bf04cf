package blocks

import (
	"context"
	"math/bits"
	"slices"

	"github.com/pgibbs/pgibbs/internal/unionfind"
)

// Forests covers the free variables of g with the blocks of two
// interleaved spanning forests for a Blocked sampler: it splits the free
// variables into two sets A and B, each of which induces a forest in the
// interaction graph (i ~ j when a factor holds both; evidence is not part
// of it), so that every tree is drawn exactly by elimination of width 1,
// at a cost linear in its size, and the sampler alternates between the
// trees of A given B and the trees of B given A (F. Hamze and N. de
// Freitas, "From fields to trees", UAI 2004). On an L×L grid the two
// forests are two interleaved combs.
//
// Forests pay on grid-like models with strong pairwise couplings, where
// the trees are large, cheap and carry the strong links: each update draws
// half the model at once. On models of small treewidth, or whose strong
// couplings close short cycles, the width-bounded blocks of Build do
// better.
//
// The construction is greedy and deterministic.
//
//  1. Order. The variables are visited in the order their strongest links
//     come (most hard factors, then the largest sum of the ranges M_φ, as
//     in Build), subject to each variable having at most three
//     visited neighbours when it is visited wherever the graph allows it
//     (the reverse of a peeling of vertices of degree ≤ 3). One of the two
//     sets then always takes it without closing a cycle: on grids, 3-D
//     lattices and every other graph that can be peeled so, the two sets
//     are forests, unless hard links close a cycle (step 2).
//  2. Placement. A variable joins the set holding its strongest ties to
//     the visited variables among those where it closes no cycle (a
//     union–find forest per set) and makes no table of more than
//     cfg.MaxTable entries. If neither set takes it, it joins a component
//     of one anyway, closing a cycle, when the component stays within
//     cfg.MaxWidth, cfg.MaxTable and cfg.MaxVars (its elimination
//     simulated as in Build); it also prefers this to breaking a
//     hard link (a deterministic link between the two sets can freeze
//     both its variables). Failing that it is a block of its own.
//  3. Improvement. A variable that is a leaf of its tree, or alone, moves
//     to the other set when it links trees there without closing a cycle
//     and its ties there are not weaker (on a grid this turns the rows of
//     one set into a comb).
//  4. Blocks. A tree of more than cfg.MaxVars variables or
//     32·cfg.MaxTable table entries is cut into connected subtrees, at the
//     weakest links first; the trees of each set are packed, in order,
//     into blocks within those bounds (trees of one set share no factor,
//     so drawing them together is drawing each).
//
// Every free variable is in exactly one of these blocks. The blocks of A
// come first, then those of B, then the variables left alone; each lists
// its variables in an elimination order within the bounds (a tree's leaves
// first). A hard link the forests split so that a variable would never
// change gets a block of its own after them, as in Build. blocked.New
// uses these blocks when Config.Forests is set.
//
// Cost: O(E log E) for the order and O(Σ_i |A[i]|) for the placement and
// the blocks, plus the checks of the components that close cycles (each
// at most cfg.MaxVars variables, an elimination order rebuilt in O(|E| +
// width·size)); Forests looks at ctx as Build does.
func Forests(ctx context.Context, m Model, cfg Config) ([][]int, error) {
	cfg.Forests = true
	return Build(ctx, m, cfg)
}

// forests is Forests on the grower of its model and bounds.
func forests(gr *grower) ([][]int, error) {
	f := newForester(gr)
	order := f.visitOrder()
	if err := gr.tick(unitsPerSorted * len(order) * bits.Len(uint(len(order)))); err != nil {
		return nil, err
	}
	for k, v := range order {
		f.visit[v] = int32(k)
		f.place(v)
		if err := gr.tick(unitsPerCandidate * (1 + len(gr.ig.nbr[v]))); err != nil {
			return nil, err
		}
	}
	if err := f.improve(order); err != nil {
		return nil, err
	}
	return f.blocks(order), gr.tick(len(order))
}

// Sets of a variable in a forester: the two forests, alone (a block of its
// own), or none yet (and for evidence).
const (
	setA     int8 = 0
	setB     int8 = 1
	setAlone int8 = 2
	setNone  int8 = -1
)

// forester builds the blocks of buildForests.
type forester struct {
	m      Model
	gr     *grower // its interaction graph, bounds and check
	size   []int32 // domain sizes
	set    []int8
	visit  []int32 // the visit index of each variable (−1: not yet)
	moved  []bool  // moved by improve (once at most)
	parent [2][]int32
	count  [2][]int32
	// cyclic maps the root of a component of a set that is not a tree to
	// an elimination order of it within the bounds.
	cyclic [2]map[int32][]int32

	mark  []uint32 // scratch: stamps on variables
	stamp uint32
}

func newForester(gr *grower) *forester {
	m := gr.m
	n := m.NumVars()
	f := &forester{
		m: m, gr: gr, size: make([]int32, n), set: make([]int8, n), visit: make([]int32, n),
		moved: make([]bool, n), cyclic: [2]map[int32][]int32{{}, {}}, mark: make([]uint32, n),
	}
	for s := range 2 {
		f.parent[s], f.count[s] = make([]int32, n), make([]int32, n)
	}
	for i := range n {
		f.set[i], f.visit[i] = setNone, -1
		f.parent[0][i], f.parent[1][i] = int32(i), int32(i)
		f.count[0][i], f.count[1][i] = 1, 1
	}
	for _, i := range m.Free() {
		f.size[i] = int32(m.Domain(i).Size)
	}
	return f
}

func (f *forester) next() uint32 {
	f.stamp++
	return f.stamp
}

// find returns the root of v's component in set s.
func (f *forester) find(s int8, v int32) int32 { return unionfind.Find(f.parent[s], v) }

// union merges the components of a and b in set s and returns the root.
func (f *forester) union(s int8, a, b int32) int32 {
	a, b = f.find(s, a), f.find(s, b)
	if a == b {
		return a
	}
	if f.count[s][a] < f.count[s][b] {
		a, b = b, a
	}
	f.parent[s][b] = a
	f.count[s][a] += f.count[s][b]
	return a
}

// visitOrder returns the free variables in visiting order: by the first
// of their links in order of strength, reversed from a peeling that
// removes, while it can, a variable with at most three neighbours left,
// the one visited last first.
func (f *forester) visitOrder() []int32 {
	ig, free := f.gr.ig, f.m.Free()
	rank := make([]int32, f.m.NumVars())
	for _, v := range free {
		rank[v] = -1
	}
	edges := ig.links(free)
	for k, e := range edges {
		for _, v := range [2]int32{e.u, e.v} {
			if rank[v] < 0 {
				rank[v] = int32(k)
			}
		}
	}
	next := int32(len(edges))
	for _, v := range free {
		if rank[v] < 0 {
			rank[v], next = next, next+1
		}
	}
	// later reports whether a is visited after b (so peeled before it).
	later := func(a, b int32) bool { return rank[a] > rank[b] || rank[a] == rank[b] && a > b }
	const peelDeg = 3
	deg := make([]int32, f.m.NumVars())
	removed := make([]bool, f.m.NumVars())
	h := heap[int32]{above: later}
	// low holds the variables of more than three neighbours left, each
	// with its count when pushed (current if it still is): the least
	// count first, then the one visited last.
	type entry struct{ v, deg int32 }
	low := heap[entry]{above: func(a, b entry) bool { return a.deg < b.deg || a.deg == b.deg && later(a.v, b.v) }}
	for _, v := range free {
		if deg[v] = int32(len(ig.nbr[v])); deg[v] <= peelDeg {
			h.push(int32(v))
		} else {
			low.push(entry{int32(v), deg[v]})
		}
	}
	peel := make([]int32, 0, len(free))
	for len(peel) < len(free) {
		v := int32(-1)
		if h.len() > 0 {
			v = h.pop()
		} else { // every variable left has more than three neighbours left
			for v < 0 {
				if e := low.pop(); !removed[e.v] && deg[e.v] == e.deg {
					v = e.v
				}
			}
		}
		removed[v] = true
		peel = append(peel, v)
		for _, u := range ig.nbr[v] {
			if !removed[u] {
				if deg[u]--; deg[u] == peelDeg {
					h.push(u)
				} else if deg[u] > peelDeg {
					low.push(entry{u, deg[u]})
				}
			}
		}
	}
	slices.Reverse(peel)
	return peel
}

// side describes the neighbours of a variable in one set.
type side struct {
	n        int  // neighbours in the set
	distinct bool // in distinct components: joining them closes no cycle
	tables   bool // every table with one of them within MaxTable
	cyclic   bool // one of them is in a component that is not a tree
	t        tie  // the ties to them, summed
	last     int32
}

// look describes the neighbours of v in set s.
func (f *forester) look(v int32, s int8) side {
	ig := f.gr.ig
	sd := side{distinct: true, tables: true, last: -1}
	st := f.next()
	for k, u := range ig.nbr[v] {
		if f.set[u] != s {
			continue
		}
		sd.n++
		sd.t.hard += ig.hard[v][k]
		sd.t.soft += ig.soft[v][k]
		sd.last = max(sd.last, f.visit[u])
		if int(f.size[u])*int(f.size[v]) > f.gr.cfg.MaxTable {
			sd.tables = false
		}
		r := f.find(s, u)
		if f.mark[r] == st {
			sd.distinct = false
		}
		f.mark[r] = st
		if f.cyclic[s][r] != nil {
			sd.cyclic = true
		}
	}
	return sd
}

// tree reports whether v joins the set of sd as a vertex of a tree.
func (sd side) tree() bool { return sd.distinct && sd.tables && !sd.cyclic }

// place puts variable v into a set (see Forests, step 2).
func (f *forester) place(v int32) {
	sides := [2]side{f.look(v, setA), f.look(v, setB)}
	first := setA
	if a, b := sides[0], sides[1]; b.t.stronger(a.t) || !a.t.stronger(b.t) && b.last > a.last {
		first = setB
	}
	pref := [2]int8{first, 1 - first}
	p, q := sides[pref[0]], sides[pref[1]]
	if !p.distinct && p.tables && p.t.hard > q.t.hard && f.joinCyclic(v, pref[0]) {
		return // a cycle rather than a broken hard link
	}
	for _, s := range pref { // no new cycle
		if sd := sides[s]; sd.tree() {
			f.join(v, s)
			return
		} else if sd.distinct && sd.tables && f.joinCyclic(v, s) {
			return
		}
	}
	for _, s := range pref {
		if sd := sides[s]; !sd.distinct && sd.tables && f.joinCyclic(v, s) {
			return
		}
	}
	f.set[v] = setAlone
}

// join puts v into set s, merging the components of its neighbours there.
func (f *forester) join(v int32, s int8) int32 {
	f.set[v] = s
	r := f.find(s, v)
	for _, u := range f.gr.ig.nbr[v] {
		if f.set[u] == s {
			r = f.union(s, v, u)
		}
	}
	return r
}

// joinCyclic puts v into set s if the component it makes there stays
// within the bounds, which may close cycles; it reports whether it did.
func (f *forester) joinCyclic(v int32, s int8) bool {
	ig := f.gr.ig
	st, total := f.next(), int32(1)
	for _, u := range ig.nbr[v] {
		if r := f.find(s, u); f.set[u] == s && f.mark[r] != st {
			f.mark[r] = st
			total += f.count[s][r]
		}
	}
	if int(total) > f.gr.cfg.MaxVars {
		return false
	}
	st = f.next()
	comp := []int32{v}
	f.mark[v] = st
	for k := 0; k < len(comp); k++ {
		f.gr.bc.work += len(ig.nbr[comp[k]])
		for _, u := range ig.nbr[comp[k]] {
			if f.set[u] == s && f.mark[u] != st {
				if len(comp) == f.gr.cfg.MaxVars {
					return false
				}
				f.mark[u] = st
				comp = append(comp, u)
			}
		}
	}
	rev := slices.Clone(comp)
	slices.Reverse(rev)
	order := f.gr.fits(comp, rev)
	if order == nil {
		return false
	}
	for _, u := range ig.nbr[v] {
		if f.set[u] == s {
			delete(f.cyclic[s], f.find(s, u))
		}
	}
	f.cyclic[s][f.join(v, s)] = order
	return true
}

// improve moves leaves and lone variables of one set to the other where
// that links trees there or ties them more strongly (Forests, step
// 3), each variable once at most. It tries the variables in order, and
// again the neighbours of each one it moves.
func (f *forester) improve(order []int32) error {
	ig := f.gr.ig
	queue := slices.Clone(order)
	queued := make([]bool, len(f.set))
	for _, v := range order {
		queued[v] = true
	}
	for len(queue) > 0 {
		v := queue[0]
		queue, queued[v] = queue[1:], false
		if err := f.gr.tick(unitsPerCandidate * (1 + len(ig.nbr[v]))); err != nil {
			return err
		}
		s := f.set[v]
		if s == setAlone || f.moved[v] || f.cyclic[s][f.find(s, v)] != nil {
			continue
		}
		n, lost := 0, tie{}
		for k, u := range ig.nbr[v] {
			if f.set[u] == s {
				n++
				lost.hard += ig.hard[v][k]
				lost.soft += ig.soft[v][k]
			}
		}
		if n > 1 {
			continue
		}
		o := 1 - s
		sd := f.look(v, o)
		merged := sd.n - 1 // trees of o linked, less one
		if n == 0 {
			merged++ // and v's own tree of s gone
		}
		if !sd.tree() || !(sd.t.stronger(lost) || !lost.stronger(sd.t) && merged > 0) {
			continue
		}
		// v leaves s as a leaf or alone: the components of s are as they
		// were without it, and v (never in o before) is a root there.
		f.moved[v] = true
		f.join(v, o)
		for _, u := range ig.nbr[v] {
			if !queued[u] && !f.moved[u] {
				queue, queued[u] = append(queue, u), true
			}
		}
	}
	return nil
}

// blocks returns the blocks of the sets as placed (Forests, step 4).
func (f *forester) blocks(order []int32) [][]int {
	var out [][]int
	for s := setA; s <= setB; s++ {
		pk := packer{maxVars: f.gr.cfg.MaxVars, maxTotal: f.gr.lim.Entries}
		var cyc [][]int
		st := f.next()
		for _, v := range order {
			if f.set[v] != s || f.mark[v] == st {
				continue
			}
			comp := f.component(v, s, st)
			if ord := f.cyclic[s][f.find(s, v)]; ord != nil {
				cyc = append(cyc, int32sToInts(ord))
				continue
			}
			f.split(comp, s, &pk)
		}
		out = append(out, pk.flush()...)
		out = append(out, cyc...)
	}
	for _, v := range order {
		if f.set[v] == setAlone {
			out = append(out, []int{int(v)})
		}
	}
	return out
}

// component returns the component of v in set s in breadth-first order,
// marking its variables with stamp st.
func (f *forester) component(v int32, s int8, st uint32) []int32 {
	comp := []int32{v}
	f.mark[v] = st
	for k := 0; k < len(comp); k++ {
		for _, u := range f.gr.ig.nbr[comp[k]] {
			if f.set[u] == s && f.mark[u] != st {
				f.mark[u] = st
				comp = append(comp, u)
			}
		}
	}
	return comp
}

// split cuts the tree comp of set s (breadth-first from its root) into
// connected subtrees within MaxVars and the total table bound, cutting the
// weakest links first, and hands them to pk bottom-up, each leaves first.
func (f *forester) split(comp []int32, s int8, pk *packer) {
	ig, cfg := f.gr.ig, f.gr.cfg
	local := f.gr.local // −1 outside comp, and left so
	for l, v := range comp {
		local[v] = int32(l)
	}
	defer func() {
		for _, v := range comp {
			local[v] = -1
		}
	}()
	// par[l]: the parent's local index (−1 at the root), up[l]: the tie to
	// it, w[l]: the table of eliminating l before its parent.
	n := len(comp)
	par, up, w := make([]int32, n), make([]tie, n), make([]float64, n)
	par[0], w[0] = -1, float64(f.size[comp[0]])
	for l, v := range comp {
		for k, u := range ig.nbr[v] {
			if lu := local[u]; lu > int32(l) { // a child: in a tree only the parent comes before
				par[lu], up[lu] = int32(l), tie{ig.hard[v][k], ig.soft[v][k]}
				w[lu] = float64(f.size[u]) * float64(f.size[v])
			}
		}
	}
	// Bottom-up (reverse breadth-first): cnt and wt are the pending part
	// of l, its subtree less the subtrees cut off.
	cnt, wt := make([]int, n), slices.Clone(w)
	kids := make([][]int32, n)
	cut := make([]bool, n)
	for l := n - 1; l >= 0; l-- {
		cnt[l]++
		for _, c := range kids[l] {
			cnt[l] += cnt[c]
			wt[l] += wt[c]
		}
		if cnt[l] > cfg.MaxVars || wt[l] > f.gr.lim.Entries {
			ks := slices.Clone(kids[l])
			slices.SortStableFunc(ks, func(a, b int32) int {
				if up[b].stronger(up[a]) {
					return -1
				}
				if up[a].stronger(up[b]) {
					return 1
				}
				return cnt[b] - cnt[a]
			})
			for _, c := range ks {
				if cnt[l] <= cfg.MaxVars && wt[l] <= f.gr.lim.Entries {
					break
				}
				cut[c] = true
				cnt[l] -= cnt[c]
				wt[l] -= wt[c]
				pk.add(f.piece(comp, kids, cut, c), wt[c])
			}
		}
		if l > 0 {
			kids[par[l]] = append(kids[par[l]], int32(l))
		}
	}
	pk.add(f.piece(comp, kids, cut, 0), wt[0])
}

// piece returns the subtree of comp from local root r, not crossing cut
// links, leaves first.
func (f *forester) piece(comp []int32, kids [][]int32, cut []bool, r int32) []int {
	pre := []int32{r}
	for k := 0; k < len(pre); k++ {
		for _, c := range kids[pre[k]] {
			if !cut[c] {
				pre = append(pre, c)
			}
		}
	}
	out := make([]int, len(pre))
	for k, l := range pre {
		out[len(pre)-1-k] = int(comp[l])
	}
	return out
}

// packer packs the subtrees of a set, in order, into blocks of at most
// maxVars variables and maxTotal table entries.
type packer struct {
	maxVars  int
	maxTotal float64
	out      [][]int
	cur      []int
	total    float64
}

func (pk *packer) add(vars []int, total float64) {
	if len(pk.cur) > 0 && (len(pk.cur)+len(vars) > pk.maxVars || pk.total+total > pk.maxTotal) {
		pk.out = append(pk.out, pk.cur)
		pk.cur, pk.total = nil, 0
	}
	pk.cur = append(pk.cur, vars...)
	pk.total += total
}

func (pk *packer) flush() [][]int {
	if len(pk.cur) > 0 {
		pk.out = append(pk.out, pk.cur)
	}
	return pk.out
}

// int32sToInts returns v as a new []int.
func int32sToInts(v []int32) []int {
	out := make([]int, len(v))
	for k, u := range v {
		out[k] = int(u)
	}
	return out
}
