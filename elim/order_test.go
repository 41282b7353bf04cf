package elim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// scanOrder is the greedy order as package gibbs first wrote it, a scan of
// every live vertex a pick: the reference GreedyOrder must reproduce
// exactly, so that the blocks of package gibbs keep their orders.
func scanOrder(adj [][]int32, size []int32, byFill bool, maxTable float64) []int32 {
	n := len(adj)
	e := newGraph(adj)
	dirty := make([]bool, n)
	fill := make([]int, n)
	table := make([]float64, n)
	for v := range n {
		dirty[v] = true
	}
	better := func(a, b int32) bool {
		if byFill {
			return fill[a] < fill[b] || fill[a] == fill[b] && table[a] < table[b]
		}
		return table[a] < table[b] || table[a] == table[b] && fill[a] < fill[b]
	}
	order := make([]int32, 0, n)
	var nb []int32
	for len(order) < n {
		best := int32(-1)
		for v := range int32(n) {
			if e.gone[v] {
				continue
			}
			if dirty[v] {
				fill[v], table[v] = e.fill(v, size, &nb)
				dirty[v] = false
			}
			if best < 0 || better(v, best) {
				best = v
			}
		}
		if table[best] > maxTable {
			return nil
		}
		order = append(order, best)
		nb = e.live(best, nb[:0])
		e.gone[best] = true
		e.connect(nb)
		for _, u := range nb {
			dirty[u] = true
			for _, w := range e.g[u] {
				dirty[w] = true
			}
		}
	}
	return order
}

// randomGraph returns a random undirected graph of n vertices (each pair
// linked with probability p) and random domain sizes in [1, 4].
func randomGraph(r *rand.Rand, n int, p float64) ([][]int32, []int32) {
	adj := make([][]int32, n)
	size := make([]int32, n)
	for v := range n {
		size[v] = int32(1 + r.IntN(4))
		for u := range v {
			if r.Float64() < p {
				adj[v] = append(adj[v], int32(u))
				adj[u] = append(adj[u], int32(v))
			}
		}
	}
	return adj, size
}

// TestGreedyOrderScan: the heap-based GreedyOrder picks the vertex the scan
// of every vertex picks, on random graphs of all densities, with and
// without a table bound that makes it give up.
func TestGreedyOrderScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 400 {
		n := 1 + r.IntN(60)
		adj, size := randomGraph(r, n, []float64{0.02, 0.05, 0.1, 0.3, 0.8}[trial%5])
		maxTable := 1e300
		if trial%3 == 0 {
			maxTable = float64(int(1) << r.IntN(20))
		}
		for _, h := range []Heuristic{MinFill, MinWeight} {
			want := scanOrder(adj, size, h == MinFill, maxTable)
			got := GreedyOrder(adj, size, h, maxTable)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d (%d vertices), %v: heap order %v, scan order %v", trial, n, h, got, want)
			}
		}
	}
}

// TestBestOrder: BestOrder returns, of min-fill, min-weight and the order
// given, the one with the smallest largest table (then the fewest entries),
// with its statistics, and nothing when every order exceeds the bound.
func TestBestOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + r.IntN(30)
		adj, size := randomGraph(r, n, []float64{0.05, 0.2, 0.5}[trial%3])
		given := make([]int32, n)
		for k, v := range r.Perm(n) {
			given[k] = int32(v)
		}
		best, st, ok := BestOrder(adj, size, given, 1e300)
		if !ok {
			t.Fatalf("trial %d: no order", trial)
		}
		if got, _ := Simulate(adj, size, best, Unbounded); got != st {
			t.Fatalf("trial %d: statistics %+v, Simulate %+v", trial, st, got)
		}
		for _, o := range [][]int32{GreedyOrder(adj, size, MinFill, 1e300), GreedyOrder(adj, size, MinWeight, 1e300), given} {
			s, _ := Simulate(adj, size, o, Unbounded)
			if s.MaxTable < st.MaxTable || s.MaxTable == st.MaxTable && s.Entries < st.Entries {
				t.Fatalf("trial %d: %+v chosen over %+v", trial, st, s)
			}
		}
		// Below the best largest table no order of the three fits.
		if o, s, ok := BestOrder(adj, size, given, st.MaxTable/2); ok {
			t.Fatalf("trial %d: order %v (%+v) under the bound %g", trial, o, s, st.MaxTable/2)
		}
	}
	if MinFill.String() != "min-fill" || MinWeight.String() != "min-weight" || Heuristic(7).String() != "Heuristic(7)" {
		t.Error("Heuristic.String")
	}
}
