package blocks

import (
	"cmp"
	"slices"

	"github.com/pgibbs/pgibbs/elim"
)

// The elimination of a set of variables, kept up to date as the set
// grows. A block, or a core, is checked against the bounds by the cliques
// of an elimination order of its interaction graph: eliminating v when its
// neighbours still live are up(v) makes a table over {v} ∪ up(v), so the
// width is the largest |up(v)|, the tables the products of the domain
// sizes. Build adds one variable at a time, and rebuilding the cliques of
// the whole set for each candidate (a simulated elimination) made the
// construction quadratic in the size of a block, and on dense graphs in
// the number of factors. Two additions change the cliques locally:
//
//   - Appending v (eliminated last), with neighbours K in the set: the
//     variables whose cliques gain v are those on the paths from the
//     members of K to the root of the elimination tree (the parent of u is
//     the first of up(u) eliminated): the row subtree of v (J. W. H. Liu,
//     "The role of elimination trees in sparse factorization", SIAM J.
//     Matrix Anal. Appl. 11:134–172, 1990). Nothing else changes. Appending
//     the variables of a set one at a time in an order builds its cliques
//     from nothing (row-oriented symbolic elimination), at a cost of O(|E| +
//     Σ|up(v)|) for the set's interaction edges E: how a whole set is
//     rebuilt in a new order.
//   - Prepending v (eliminated first), with neighbours K: v's clique is K,
//     and the others' are unchanged if K is already a clique of the
//     elimination (its first variable's up holding the rest), since the
//     fill edges of eliminating v are then there already.
//
// Every change is logged, so that a trial that breaks a bound is undone:
// the cliques of a failed union are those of its parts again.

// cliques holds the cliques of the eliminations of disjoint sets of
// variables (the cores; or the block being grown), indexed by variable.
type cliques struct {
	size []int32   // domain sizes
	up   [][]int32 // up(v), in elimination order (up(v)[0] is v's parent)
	tab  []float64 // entries of the table of v's elimination
	pos  []int64   // v's position in its set's elimination order
	lim  elim.Stats

	walk    []uint32 // walk[u] = stamp: u's clique has gained the variable being appended
	stamp   uint32
	in      []uint32 // in[u] = inStamp: u is in the set being rebuilt
	inStamp uint32
	log     []change // the changes of the trials under way
	work    int      // adjacency entries and tree nodes visited (read by the caller's meter)
}

// change is a logged change of variable v's clique: what it was.
type change struct {
	v   int32
	up  []int32
	tab float64
	pos int64
}

// eset is one set of a cliques: its variables in elimination order (those
// prepended, last first, then those appended) and the statistics of its
// elimination.
type eset struct {
	head, tail []int32
	lo, hi     int64 // positions before the first and after the last variable
	st         elim.Stats
}

// mark is the state of a set and of the log before a trial.
type mark struct {
	heads, tails int
	lo, hi       int64
	st           elim.Stats
	log          int
}

func newCliques(size []int32, lim elim.Stats) *cliques {
	n := len(size)
	return &cliques{size: size, up: make([][]int32, n), tab: make([]float64, n), pos: make([]int64, n),
		walk: make([]uint32, n), in: make([]uint32, n), lim: lim}
}

// newSet returns an empty set.
func newSet() *eset { return &eset{lo: -1} }

// clone returns a copy of s.
func (s *eset) clone() *eset {
	return &eset{head: slices.Clone(s.head), tail: slices.Clone(s.tail), lo: s.lo, hi: s.hi, st: s.st}
}

// next returns a fresh stamp of *stamp's array a.
func next(a []uint32, stamp *uint32) uint32 {
	if *stamp++; *stamp == 0 {
		clear(a)
		*stamp = 1
	}
	return *stamp
}

// len returns the number of variables of s.
func (s *eset) len() int { return len(s.head) + len(s.tail) }

// order returns the variables of s in elimination order, as a new slice.
func (s *eset) order() []int32 {
	out := make([]int32, 0, s.len())
	for k := len(s.head) - 1; k >= 0; k-- {
		out = append(out, s.head[k])
	}
	return append(out, s.tail...)
}

// mark returns the state to which undo takes s and c back.
func (c *cliques) mark(s *eset) mark {
	return mark{heads: len(s.head), tails: len(s.tail), lo: s.lo, hi: s.hi, st: s.st, log: len(c.log)}
}

// undo takes s and the cliques back to mk (a mark of s, taken since).
func (c *cliques) undo(s *eset, mk mark) {
	for k := len(c.log) - 1; k >= mk.log; k-- {
		ch := c.log[k]
		c.up[ch.v], c.tab[ch.v], c.pos[ch.v] = ch.up, ch.tab, ch.pos
	}
	c.log = c.log[:mk.log]
	s.head, s.tail = s.head[:mk.heads], s.tail[:mk.tails]
	s.lo, s.hi, s.st = mk.lo, mk.hi, mk.st
}

// commit forgets the log: the trials under way are kept.
func (c *cliques) commit() { c.log = c.log[:0] }

// save logs v's clique before it changes.
func (c *cliques) save(v int32) {
	c.log = append(c.log, change{v: v, up: c.up[v], tab: c.tab[v], pos: c.pos[v]})
}

// add records the table of v's new clique in s's statistics and reports
// whether they stay within the bounds.
func (s *eset) add(old, tab float64, width int, lim elim.Stats) bool {
	s.st.Width = max(s.st.Width, width)
	s.st.MaxTable = max(s.st.MaxTable, tab)
	s.st.Entries += tab - old
	return s.st.Within(lim)
}

// appendVar eliminates v last in s, k holding its neighbours in s (each
// once), and reports whether s stays within the bounds; if not, s and the
// cliques are as they were. v's earlier clique, if any (another set's),
// is logged.
func (c *cliques) appendVar(s *eset, v int32, k []int32) bool {
	mk := c.mark(s)
	st := next(c.walk, &c.stamp)
	dv := float64(c.size[v])
	for _, u := range k {
		for u >= 0 && c.walk[u] != st {
			c.walk[u] = st
			c.work++
			c.save(u)
			next := int32(-1)
			if len(c.up[u]) > 0 {
				next = c.up[u][0]
			}
			old := c.tab[u]
			c.up[u] = append(c.up[u], v)
			c.tab[u] *= dv
			if !s.add(old, c.tab[u], len(c.up[u]), c.lim) {
				c.undo(s, mk)
				return false
			}
			u = next
		}
	}
	c.work += len(k)
	c.save(v)
	c.up[v], c.tab[v], c.pos[v] = nil, dv, s.hi
	s.hi++
	s.tail = append(s.tail, v)
	if !s.add(0, dv, 0, c.lim) {
		c.undo(s, mk)
		return false
	}
	return true
}

// prependVar eliminates v first in s, k holding its neighbours in s (each
// once; k is sorted in place), if k is a clique of s's elimination, so
// that nothing else changes. It reports whether it did (fits) and, if not,
// whether v first could still fit with the fill edges it adds (fill: the
// caller rebuilds s with v first to find out).
func (c *cliques) prependVar(s *eset, v int32, k []int32) (fits, fill bool) {
	tab := float64(c.size[v])
	for _, u := range k {
		tab *= float64(c.size[u])
	}
	c.work += len(k)
	if len(k) > c.lim.Width || tab > c.lim.MaxTable || s.st.Entries+tab > c.lim.Entries {
		return false, false
	}
	slices.SortFunc(k, func(a, b int32) int { return cmp.Compare(c.pos[a], c.pos[b]) })
	if len(k) > 1 {
		up := c.up[k[0]]
		c.work += len(up)
		j := 0
		for _, u := range k[1:] {
			for j < len(up) && up[j] != u {
				j++
			}
			if j == len(up) {
				return false, true
			}
		}
	}
	c.save(v)
	c.up[v], c.tab[v], c.pos[v] = slices.Clone(k), tab, s.lo
	s.lo--
	s.head = append(s.head, v)
	s.add(0, tab, len(k), c.lim)
	return true, false
}

// rebuild returns a new set of the variables order, eliminated in that
// order, with their cliques, if it stays within the bounds; otherwise nil,
// with the cliques as they were. nbr(v, seen) appends to dst the
// neighbours u of v in the set for which seen(u) holds (those eliminated
// before v).
func (c *cliques) rebuild(order []int32, nbr func(dst []int32, v int32, seen func(int32) bool) []int32) *eset {
	s := newSet()
	s.tail = make([]int32, 0, len(order))
	mk := c.mark(s)
	st := next(c.in, &c.inStamp)
	seen := func(u int32) bool { return c.in[u] == st }
	var k []int32
	for _, v := range order {
		k = nbr(k[:0], v, seen)
		if !c.appendVar(s, v, k) {
			c.undo(s, mk)
			return nil
		}
		c.in[v] = st
	}
	return s
}
