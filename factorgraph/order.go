package factorgraph

import (
	"context"
	"fmt"
	"slices"
	"unsafe"

	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/prefetch"
)

// LocalityOrder returns an order of g's variables in which variables that
// share a factor sit close together: the reverse Cuthill–McKee order
// (Cuthill & McKee 1969; George & Liu 1981, §4.3), component by component,
// each started from a pseudo-peripheral variable (the far end of a
// breadth-first search) and its breadth-first levels visited by
// increasing degree. order[k] is
// the variable that comes k-th; Renumber(g, order) stores the graph in it.
//
// On a graph whose numbering has no locality — a lattice or a mesh
// numbered at random, a geometric graph in the order its points were
// drawn — a variable's neighbours then lie within about two breadth-first
// levels of it, so that a systematic scan (gibbs.Options.Systematic) or a
// sweep reads its rows in the order they are stored and its neighbours'
// values from cache. A random graph has no such order to find (its levels
// hold most of the graph after a few steps), and a lattice in row-major
// order has one already; Locality measures which case a numbering is.
//
// It runs in O(entries of the rows) time — 0.45 s for the 10⁷ entries of
// a geometric graph of 10⁶ variables numbered at random, whose rows it
// reads in an order of its own (prefetched a few variables ahead) — in a
// quarter of a byte a variable besides the order and one search's queue.
// It checks ctx every 2¹⁶ variables and returns its error if it ends
// first.
func LocalityOrder(ctx context.Context, g *Graph) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := g.NumVars()
	o := orderer{ctx: ctx, g: g, seen: newBitset(n), placed: newBitset(n)}
	order := make([]int, 0, n)
	for s := range n {
		if o.placed.has(s) {
			continue
		}
		root := o.peripheral(s)
		start := len(order)
		order = o.cuthillMcKee(root, order)
		if o.err != nil {
			return nil, o.err
		}
		slices.Reverse(order[start:])
	}
	return order, nil
}

// orderer holds LocalityOrder's scratch: seen marks the variables a
// breadth-first search reached (cleared after each search, variable by
// variable), placed those that have their place; bit sets, an eighth of
// a byte a variable, which stay in cache where a byte array would not.
type orderer struct {
	ctx    context.Context
	err    error // ctx's, once seen
	work   int   // variables visited since ctx was last checked
	g      *Graph
	seen   bitset
	placed bitset
	queue  []int32
	nb     []int // the neighbours of one variable
	vars   []int // a generic factor's scope
}

// bitset is a set of variables, a bit each.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) add(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b bitset) remove(i int)   { b[i>>6] &^= 1 << (i & 63) }

// neighbours returns the variables that share a factor with i (with
// repeats, i excluded), read from the compiled rows: a Potts entry is its
// neighbour's index, other entries name their table or factor.
func (o *orderer) neighbours(i int) []int {
	kg := o.g.kern
	o.nb = o.nb[:0]
	if o.work++; o.work == 1<<16 && o.ctx != nil {
		o.work = 0
		if o.err = o.ctx.Err(); o.err != nil {
			return o.nb // none: the searches end
		}
	}
	if o.err != nil {
		return o.nb
	}
	for _, ref := range kg.Nbr[kg.SoftStart[i]:kg.SoftStart[i+1]] {
		if ref >= 0 {
			o.nb = append(o.nb, int(ref))
			continue
		}
		o.scope(i, &kg.Ops[^ref])
	}
	if len(kg.Hard) == 0 {
		return o.nb // no hard rows to read
	}
	for k := range kg.Hard[kg.HardStart[i]:kg.HardStart[i+1]] {
		o.scope(i, &kg.Hard[kg.HardStart[i]+k])
	}
	return o.nb
}

// scope appends the variables of op's factor but i to o.nb.
func (o *orderer) scope(i int, op *compiled.Op) {
	var vs []int32
	if op.Kind == compiled.Table {
		t := &o.g.kern.Tabs
		vs = t.Vars[t.Off[op.Ref]:t.Off[op.Ref+1]]
	} else {
		o.vars = o.g.fs.vars(o.vars[:0], int(op.Fac))
		for _, v := range o.vars {
			if v != i {
				o.nb = append(o.nb, v)
			}
		}
		return
	}
	for _, v := range vs {
		if int(v) != i {
			o.nb = append(o.nb, int(v))
		}
	}
}

// Distances in a search's queue at which ahead prefetches a variable's
// row bounds and its row: a search reads rows in an order of its own, a
// miss each on a graph numbered at random.
const (
	boundsAhead = 8
	rowAhead    = 4
)

// ahead prefetches the row bounds and the row of the variables that the
// search of queue reaches boundsAhead and rowAhead places after head.
func ahead[T int | int32](kg *compiled.Graph, queue []T, head int) {
	if h := head + boundsAhead; h < len(queue) {
		prefetch.Line(unsafe.Pointer(&kg.SoftStart[queue[h]]))
	}
	if h := head + rowAhead; h < len(queue) {
		if p := kg.SoftStart[queue[h]]; p < len(kg.Nbr) {
			prefetch.Line(unsafe.Pointer(&kg.Nbr[p]))
		}
	}
}

// degree is a variable's number of factors.
func (o *orderer) degree(i int) int {
	kg := o.g.kern
	d := kg.SoftStart[i+1] - kg.SoftStart[i]
	if len(kg.Hard) > 0 {
		d += kg.HardStart[i+1] - kg.HardStart[i]
	}
	return d
}

// levels runs a breadth-first search from root and returns its number of
// levels and the variable of least degree in the last one.
func (o *orderer) levels(root int) (depth, far int) {
	o.seen.add(root)
	o.queue = append(o.queue[:0], int32(root))
	last := 0 // the start of the last level
	for head := 0; head < len(o.queue); depth++ {
		last = head
		for end := len(o.queue); head < end; head++ {
			ahead(o.g.kern, o.queue, head)
			for _, u := range o.neighbours(int(o.queue[head])) {
				if !o.seen.has(u) {
					o.seen.add(u)
					o.queue = append(o.queue, int32(u))
				}
			}
		}
	}
	for _, v := range o.queue {
		o.seen.remove(int(v))
	}
	far = int(o.queue[last])
	for _, v := range o.queue[last:] {
		if o.degree(int(v)) < o.degree(far) {
			far = int(v)
		}
	}
	return depth, far
}

// peripheral returns a pseudo-peripheral variable of s's component: the
// least-degree variable of the last level of a breadth-first search from
// s (the first step of George & Liu's search; its further searches cost
// as much as the order each and changed no locality we measured).
func (o *orderer) peripheral(s int) int {
	if soft, hard := o.g.Degree(s); soft+hard == 0 {
		return s
	}
	_, far := o.levels(s)
	return far
}

// cuthillMcKee appends root's component to order breadth first, each
// variable's unplaced neighbours by increasing degree.
func (o *orderer) cuthillMcKee(root int, order []int) []int {
	o.placed.add(root)
	head := len(order)
	order = append(order, root)
	for ; head < len(order); head++ {
		ahead(o.g.kern, order, head)
		first := len(order)
		for _, u := range o.neighbours(order[head]) {
			if !o.placed.has(u) {
				o.placed.add(u)
				order = append(order, u)
			}
		}
		slices.SortStableFunc(order[first:], func(a, b int) int { return o.degree(a) - o.degree(b) })
	}
	return order
}

// Locality returns the share of the row entries of g whose two variables
// lie within window places of each other when the variables are stored in
// order (nil: g's own numbering), over the rows of at most LocalitySample
// variables evenly spread: near 1 for a lattice in row-major order or any
// graph in its LocalityOrder, near 2·window/n for a numbering at random. A
// scan in storage order reads the neighbours' values of a variable from
// cache when they are within a few thousand places.
func Locality(g *Graph, order []int, window int) float64 {
	n := g.NumVars()
	var pos []int32
	if order != nil {
		pos = make([]int32, n)
		for k, v := range order {
			pos[v] = int32(k)
		}
	}
	place := func(v int) int {
		if pos == nil {
			return v
		}
		return int(pos[v])
	}
	o := orderer{g: g}
	var near, all int
	m := min(n, LocalitySample)
	for s := range m {
		i := s * n / m
		p := place(i)
		for _, u := range o.neighbours(i) {
			all++
			if d := place(u) - p; d <= window && d >= -window {
				near++
			}
		}
	}
	if all == 0 {
		return 1
	}
	return float64(near) / float64(all)
}

// LocalitySample is the number of variables whose rows Locality reads at
// most.
const LocalitySample = 1 << 16

// Renumber returns g with its variables renumbered: variable k of the
// result is variable order[k] of g, with its domain and evidence, and
// every factor keeps its index and its log-potential, its scope renamed.
// A state x of the result is the state y of g with y[order[k]] = x[k]
// (OriginalOrder); the marginals, states and log Z of the two graphs agree
// under that map. With LocalityOrder it stores a graph in an order with
// locality: a variable's row, its neighbours' values and its marginals
// sit together.
//
// Potts pairs and tables (NewPotts, NewTable, NewUnary, NewProbTable and
// the bulk adds) are renamed; a factor of another type (Func, one of the
// caller's) reads the state at its own indices and cannot be, and is
// refused with an error naming it. The result shares the tables' entries
// and the pairs' weights with g and holds its own scopes and compiled
// rows: about g.Bytes() more until g is dropped.
func Renumber(g *Graph, order []int) (*Graph, error) {
	n := g.NumVars()
	if len(order) != n {
		return nil, fmt.Errorf("factorgraph: Renumber: an order of %d variables for a graph of %d", len(order), n)
	}
	inv := make([]int32, n)
	for k := range inv {
		inv[k] = -1
	}
	for k, v := range order {
		if v < 0 || v >= n {
			return nil, fmt.Errorf("factorgraph: Renumber: order[%d] = %d is not a variable of the graph's %d", k, v, n)
		}
		if inv[v] >= 0 {
			return nil, fmt.Errorf("factorgraph: Renumber: order[%d] = %d repeats order[%d]", k, v, inv[v])
		}
		inv[v] = int32(k)
	}
	b := &Builder{domains: make([]Domain, n), fs: g.fs}
	for k, v := range order {
		d := g.Domain(v)
		b.domains[k] = d
		b.maxSize = max(b.maxSize, d.Size)
		if x, ok := g.Observed(v); ok {
			if b.observed == nil {
				b.observed = make(map[int]float64)
			}
			b.observed[k] = x
		}
	}
	s := &b.fs
	rename := func(vs []int32) []int32 {
		out := make([]int32, len(vs))
		for k, v := range vs {
			out[k] = inv[v]
		}
		return out
	}
	s.pa, s.pb, s.tab.Vars = rename(g.fs.pa), rename(g.fs.pb), rename(g.fs.tab.Vars)
	s.obj = make([]Factor, len(g.fs.obj))
	for r, f := range g.fs.obj {
		switch f := f.(type) {
		case *Potts:
			s.obj[r] = &Potts{scope: [2]int{int(inv[f.scope[0]]), int(inv[f.scope[1]])}, W: f.W}
		case *Table:
			t := *f
			t.scope = make([]int, len(f.scope))
			for k, v := range f.scope {
				t.scope[k] = int(inv[v])
			}
			s.obj[r] = &t
		default:
			fi := objectFactor(&g.fs, r)
			return nil, fmt.Errorf("factorgraph: Renumber: factor %d (vars %v) is a %T, which reads the state at its own indices; only Potts pairs and tables can be renumbered", fi, f.Vars(), f)
		}
	}
	return b.Build()
}

// objectFactor returns the index of the factor added as value r.
func objectFactor(s *store, r int) int {
	for k, run := range s.runs {
		if run.kind == objectKind && r >= run.off && r < run.off+s.end(k)-run.start {
			return run.start + r - run.off
		}
	}
	return -1
}

// OriginalOrder returns per-variable values of a renumbered graph (a
// state, marginals, flags) in the numbering of the graph it came from:
// out[order[k]] = v[k]. It writes into dst if it has room.
func OriginalOrder[T any](dst, v []T, order []int) []T {
	if cap(dst) < len(v) {
		dst = make([]T, len(v))
	}
	dst = dst[:len(v)]
	for k, i := range order {
		dst[i] = v[k]
	}
	return dst
}

// RenumberedOrder is OriginalOrder's inverse: it returns per-variable
// values in g's numbering (an initial state, evidence) in the numbering of
// Renumber(g, order): out[k] = v[order[k]].
func RenumberedOrder[T any](dst, v []T, order []int) []T {
	if cap(dst) < len(v) {
		dst = make([]T, len(v))
	}
	dst = dst[:len(v)]
	for k, i := range order {
		dst[k] = v[i]
	}
	return dst
}
