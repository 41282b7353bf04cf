package elim

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Stats describes a variable elimination by the tables it makes: eliminating
// v in a graph where its live neighbours are N(v) makes a table over the
// clique {v} ∪ N(v). Entries are float64 because products of domain sizes
// may overflow an int.
type Stats struct {
	Width    int     // the largest |N(v)| (clique size − 1): the induced width
	MaxTable float64 // the entries of the largest table
	Entries  float64 // the entries of all the tables
}

// Unbounded is a limit that no elimination exceeds.
var Unbounded = Stats{Width: math.MaxInt, MaxTable: math.Inf(1), Entries: math.Inf(1)}

// Within reports whether no field of s exceeds the same field of limit.
func (s Stats) Within(limit Stats) bool {
	return s.Width <= limit.Width && s.MaxTable <= limit.MaxTable && s.Entries <= limit.Entries
}

// Heuristic is the criterion of a greedy elimination order.
type Heuristic int

const (
	// MinFill eliminates the vertex whose elimination adds the fewest fill
	// edges (U. Kjærulff, "Triangulation of graphs — algorithms giving small
	// total state space", Aalborg University, 1990), ties broken by the
	// smaller table.
	MinFill Heuristic = iota
	// MinWeight eliminates the vertex whose elimination makes the smallest
	// table (the product of the domain sizes of the clique), ties broken by
	// the fewer fill edges.
	MinWeight
	// WeightedMinFill eliminates the vertex whose fill edges weigh the
	// least, an edge weighing the product of its ends' domain sizes (the
	// weighted min-fill of Kjærulff 1990, the heuristic of the linkage
	// program Superlink: Fishelson and Geiger 2003), ties broken by the
	// smaller table. Where domain sizes differ, as in pedigrees, it avoids
	// the fill between large domains that min-fill counts as any other.
	WeightedMinFill
)

// String returns "min-fill", "min-weight" or "weighted-min-fill".
func (h Heuristic) String() string {
	switch h {
	case MinFill:
		return "min-fill"
	case MinWeight:
		return "min-weight"
	case WeightedMinFill:
		return "weighted-min-fill"
	}
	return "Heuristic(" + strconv.Itoa(int(h)) + ")"
}

// graph is a graph under elimination: adjacency lists that may hold
// eliminated vertices (skipped, and pruned when a list is read), and stamp
// marks that make set operations linear in the lists.
type graph struct {
	g     [][]int32
	gone  []bool
	mark  []uint32
	stamp uint32
	cost  float64 // the adjacency entries the last fill read
	// weighted makes fill weigh each fill edge by the product of its ends'
	// domain sizes (WeightedMinFill) instead of counting it.
	weighted bool
}

func newGraph(adj [][]int32) *graph {
	e := &graph{g: make([][]int32, len(adj)), gone: make([]bool, len(adj)), mark: make([]uint32, len(adj))}
	for v := range adj {
		e.g[v] = slices.Clone(adj[v])
	}
	return e
}

// next returns a fresh stamp.
func (e *graph) next() uint32 {
	e.stamp++
	return e.stamp
}

// live appends the live neighbours of v to dst, each once, pruning v's
// list to them.
func (e *graph) live(v int32, dst []int32) []int32 {
	s := e.next()
	kept := e.g[v][:0]
	for _, u := range e.g[v] {
		if e.gone[u] || e.mark[u] == s {
			continue
		}
		e.mark[u] = s
		kept = append(kept, u)
		dst = append(dst, u)
	}
	e.g[v] = kept
	return dst
}

// connect makes the vertices of clique pairwise adjacent (the fill-in of
// eliminating their common neighbour).
func (e *graph) connect(clique []int32) {
	for _, a := range clique {
		s := e.next()
		e.mark[a] = s
		for _, u := range e.g[a] {
			e.mark[u] = s
		}
		for _, b := range clique {
			if e.mark[b] != s {
				e.g[a] = append(e.g[a], b)
			}
		}
	}
}

// fill returns the fill edges (their weight if e.weighted) and the table
// of eliminating v now (nb is scratch).
func (e *graph) fill(v int32, size []int32, nb *[]int32) (float64, float64) {
	*nb = e.live(v, (*nb)[:0])
	table := float64(size[v])
	s := e.next()
	for _, a := range *nb {
		table *= float64(size[a])
		e.mark[a] = s
	}
	cost := len(e.g[v])
	if e.weighted {
		// The pairs of neighbours weigh ((Σ d)² − Σ d²)/2; the linked
		// ones, each seen from both ends, are taken off.
		var sum, sq, linked float64
		for _, a := range *nb {
			da := float64(size[a])
			sum += da
			sq += da * da
			cost += len(e.g[a])
			for _, u := range e.g[a] {
				if e.mark[u] == s {
					linked += da * float64(size[u])
				}
			}
		}
		e.cost = float64(cost)
		return (sum*sum-sq)/2 - linked/2, table
	}
	linked := 0 // ordered pairs of neighbours of v already adjacent
	for _, a := range *nb {
		cost += len(e.g[a])
		for _, u := range e.g[a] {
			if e.mark[u] == s {
				linked++
			}
		}
	}
	e.cost = float64(cost)
	k := len(*nb)
	return float64(k*(k-1)/2 - linked/2), table
}

// Simulate simulates variable elimination in order on the undirected graph
// adj (vertices 0, …, n−1, adj[v] the neighbours of v, domain sizes size)
// and returns its statistics. It stops as soon as they exceed limit,
// returning ok false and the statistics so far. order must hold every
// vertex once. Simulate allocates a copy of the graph, never a table.
func Simulate(adj [][]int32, size []int32, order []int32, limit Stats) (st Stats, ok bool) {
	e := newGraph(adj)
	var clique []int32
	for _, v := range order {
		clique = e.live(v, clique[:0])
		table := float64(size[v])
		for _, u := range clique {
			table *= float64(size[u])
		}
		st.Width = max(st.Width, len(clique))
		st.MaxTable = max(st.MaxTable, table)
		st.Entries += table
		if !st.Within(limit) {
			return st, false
		}
		e.gone[v] = true
		e.connect(clique)
	}
	return st, true
}

// GreedyOrder returns a greedy elimination order of the undirected graph adj
// (vertices 0, …, n−1, domain sizes size): at each step the live vertex best
// by h, ties broken by h's second criterion and then by the lower index. It
// gives up, returning nil, when the vertex it picks makes a table of more
// than maxTable entries.
func GreedyOrder(adj [][]int32, size []int32, h Heuristic, maxTable float64) []int32 {
	order, _, _ := greedy(context.Background(), adj, size, h, nil, Stats{Width: math.MaxInt, MaxTable: maxTable, Entries: math.Inf(1)}, math.Inf(1))
	return order
}

// greedy is GreedyOrder with its last tie-break by a random priority drawn
// from r for each vertex (the lower index if r is nil), giving up, with a
// nil order, as soon as the elimination exceeds limit or its own work
// exceeds maxWork or ctx is done (it looks every ctxWork adjacency entries
// read). It also returns the statistics of the elimination (so far, if it
// gave up) and its work, in adjacency entries read.
//
// The live vertices wait in a binary heap ordered by the criteria, and only
// the vertices whose fill or table an elimination can change (the clique's
// and their neighbours) are scored again: O(log n) a pick beyond the
// rescoring, where a scan of every vertex would cost O(n). The criteria
// with the final tie-break order the vertices totally, so the heap picks the
// vertex a scan would.
func greedy(ctx context.Context, adj [][]int32, size []int32, h Heuristic, r *rand.Rand, limit Stats, maxWork float64) ([]int32, Stats, float64) {
	n := len(adj)
	e := newGraph(adj)
	e.weighted = h == WeightedMinFill
	q := &queue{h: h, fill: make([]float64, n), table: make([]float64, n), at: make([]int32, n), heap: make([]int32, n)}
	if r != nil {
		q.prio = make([]uint64, n)
		for v := range q.prio {
			q.prio[v] = r.Uint64()
		}
	}
	work := 0.0
	look := float64(ctxWork) // the work at which ctx is looked at next
	done := func() bool {
		if work < look {
			return false
		}
		look = work + ctxWork
		return ctx.Err() != nil
	}
	var nb []int32
	for v := range int32(n) {
		q.fill[v], q.table[v] = e.fill(v, size, &nb)
		work += e.cost
		q.heap[v], q.at[v] = v, v
		if done() {
			return nil, Stats{}, work
		}
	}
	for k := n/2 - 1; k >= 0; k-- {
		q.down(k)
	}
	order := make([]int32, 0, n)
	var st Stats
	seen := make([]uint32, n)
	round := uint32(0)
	for len(order) < n {
		best := q.pop()
		order = append(order, best)
		nb = e.live(best, nb[:0])
		st.Width = max(st.Width, len(nb))
		st.MaxTable = max(st.MaxTable, q.table[best])
		st.Entries += q.table[best]
		if !st.Within(limit) || work > maxWork || done() {
			return nil, st, work
		}
		e.gone[best] = true
		e.connect(nb)
		round++
		var nb2 []int32
		rescore := func(u int32) {
			if e.gone[u] || seen[u] == round {
				return
			}
			seen[u] = round
			q.fill[u], q.table[u] = e.fill(u, size, &nb2)
			work += e.cost
			q.fix(u)
		}
		for _, u := range nb {
			rescore(u)
			for _, w := range e.g[u] {
				rescore(w)
			}
		}
	}
	return order, st, work
}

// ctxWork is the adjacency entries greedy reads between two looks at its
// context: a millisecond or two.
const ctxWork = 1 << 20

// queue is a binary heap of the live vertices, the best first.
type queue struct {
	h     Heuristic
	fill  []float64 // fill edges, or their weight (WeightedMinFill)
	table []float64
	prio  []uint64 // the last tie-break (nil: the lower index)
	heap  []int32
	at    []int32 // position of each vertex in heap (−1: popped)
}

// less reports whether vertex a is a better pick than b.
func (q *queue) less(a, b int32) bool {
	fa, fb, ta, tb := q.fill[a], q.fill[b], q.table[a], q.table[b]
	if q.h == MinWeight {
		if ta != tb {
			return ta < tb
		}
		if fa != fb {
			return fa < fb
		}
	} else {
		if fa != fb {
			return fa < fb
		}
		if ta != tb {
			return ta < tb
		}
	}
	if q.prio != nil && q.prio[a] != q.prio[b] {
		return q.prio[a] < q.prio[b]
	}
	return a < b
}

func (q *queue) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.at[q.heap[i]], q.at[q.heap[j]] = int32(i), int32(j)
}

func (q *queue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(q.heap[i], q.heap[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *queue) down(i int) {
	n := len(q.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && q.less(q.heap[c+1], q.heap[c]) {
			c++
		}
		if !q.less(q.heap[c], q.heap[i]) {
			return
		}
		q.swap(i, c)
		i = c
	}
}

// pop removes and returns the best vertex.
func (q *queue) pop() int32 {
	v := q.heap[0]
	last := len(q.heap) - 1
	q.swap(0, last)
	q.heap = q.heap[:last]
	q.at[v] = -1
	q.down(0)
	return v
}

// fix restores the heap after v's scores changed.
func (q *queue) fix(v int32) {
	i := int(q.at[v])
	q.up(i)
	q.down(int(q.at[v]))
}

// BestOrder returns, of the min-fill order, the min-weight order and given
// (an order of the caller's, or nil), the one with the smallest largest
// table, then the fewest entries in all, then the first, with its
// statistics. Orders with a table of more than maxTable entries are not
// considered; ok is false if none is left. (The blocked Gibbs sampler of
// package gibbs compiles its blocks in this order.)
func BestOrder(adj [][]int32, size []int32, given []int32, maxTable float64) (best []int32, bs Stats, ok bool) {
	return BestOrderWithin(adj, size, given, maxTable, math.Inf(1))
}
