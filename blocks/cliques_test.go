package blocks

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/elim"
)

// TestCliquesSimulate: the incremental eliminations of cliques.go — a set
// rebuilt in an order, variables appended and prepended one at a time,
// trials undone — have the statistics elim.Simulate gives the same order
// on the same graph, and refuse exactly the orders it finds beyond the
// bounds, on random graphs of mixed domains.
func TestCliquesSimulate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for trial := range 300 {
		n := 2 + r.IntN(14)
		p := 0.1 + 0.6*r.Float64()
		adj := make([][]int32, n)
		size := make([]int32, n)
		for v := range n {
			size[v] = int32(1 + r.IntN(3))
			for u := range v {
				if r.Float64() < p {
					adj[v] = append(adj[v], int32(u))
					adj[u] = append(adj[u], int32(v))
				}
			}
		}
		lim := elim.Stats{Width: 1 + r.IntN(6), MaxTable: float64(int(1) << (2 + r.IntN(8))), Entries: math.Inf(1)}
		if r.IntN(3) == 0 {
			lim.Entries = float64(10 + r.IntN(200))
		}
		simulate := func(order []int32) (elim.Stats, bool) { return elim.Simulate(adj, size, order, lim) }
		c := newCliques(size, lim)
		nbr := func(dst []int32, v int32, seen func(int32) bool) []int32 {
			for _, u := range adj[v] {
				if seen(u) {
					dst = append(dst, u)
				}
			}
			return dst
		}
		// Rebuilt in a random order.
		order := make([]int32, n)
		for k, v := range r.Perm(n) {
			order[k] = int32(v)
		}
		s := c.rebuild(order, nbr)
		want, ok := simulate(order)
		if (s != nil) != ok || s != nil && s.st != want {
			t.Fatalf("trial %d: rebuild of %v: %v, Simulate %+v %v", trial, order, s, want, ok)
		}
		c.commit()
		// Grown one variable at a time, first or last at random, from
		// the first variable: each addition agrees with Simulate on the
		// new order, and one that does not fit leaves the set as it was.
		s = newSet()
		c.appendVar(s, order[0], nil)
		c.commit()
		in := []int32{order[0]}
		for _, v := range order[1:] {
			var k []int32
			for _, u := range adj[v] {
				if slices.Contains(in, u) {
					k = append(k, u)
				}
			}
			before := s.order()
			first := r.IntN(2) == 0
			var fits bool
			var next []int32
			if first {
				var fill bool
				fits, fill = c.prependVar(s, v, slices.Clone(k))
				next = append([]int32{v}, before...)
				if !fits && fill {
					if ns := c.rebuild(next, nbr); ns != nil {
						s, fits = ns, true
					}
				}
			} else {
				fits = c.appendVar(s, v, k)
				next = append(slices.Clone(before), v)
			}
			c.commit()
			sub := induced(adj, size, next)
			want, ok := elim.Simulate(sub.adj, sub.size, sub.order, lim)
			if fits != ok {
				t.Fatalf("trial %d: adding %d (first %v) to %v: fits %v, Simulate %v (%+v)", trial, v, first, before, fits, ok, want)
			}
			if !fits {
				if !slices.Equal(s.order(), before) {
					t.Fatalf("trial %d: a failed addition changed the order %v to %v", trial, before, s.order())
				}
				continue
			}
			if !slices.Equal(s.order(), next) || s.st != want {
				t.Fatalf("trial %d: adding %d (first %v): order %v stats %+v, want %v %+v", trial, v, first, s.order(), s.st, next, want)
			}
			in = append(in, v)
		}
	}
}

// inducedGraph is a graph induced on some vertices, relabelled 0, 1, …,
// with an order of them.
type inducedGraph struct {
	adj   [][]int32
	size  []int32
	order []int32
}

// induced returns the graph adj induced on the vertices of order, with
// order relabelled.
func induced(adj [][]int32, size []int32, order []int32) inducedGraph {
	local := map[int32]int32{}
	for l, v := range order {
		local[v] = int32(l)
	}
	g := inducedGraph{adj: make([][]int32, len(order)), size: make([]int32, len(order)), order: make([]int32, len(order))}
	for l, v := range order {
		g.size[l] = size[v]
		g.order[l] = int32(l)
		for _, u := range adj[v] {
			if lu, ok := local[u]; ok {
				g.adj[l] = append(g.adj[l], lu)
			}
		}
	}
	return g
}
