package elim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// scanOrder is the greedy order as package gibbs first wrote it, a scan of
// every live vertex a pick: the reference GreedyOrder must reproduce
// exactly, so that the blocks of package gibbs keep their orders.
func scanOrder(adj [][]int32, size []int32, h Heuristic, maxTable float64) []int32 {
	n := len(adj)
	e := newGraph(adj)
	e.weighted = h == WeightedMinFill
	byFill := h != MinWeight
	dirty := make([]bool, n)
	fill := make([]float64, n)
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
		for _, h := range []Heuristic{MinFill, MinWeight, WeightedMinFill} {
			want := scanOrder(adj, size, h, maxTable)
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
	if MinFill.String() != "min-fill" || MinWeight.String() != "min-weight" || WeightedMinFill.String() != "weighted-min-fill" || Heuristic(7).String() != "Heuristic(7)" {
		t.Error("Heuristic.String")
	}
}

// TestWeightedFill: with weighted set, fill returns the weight of the
// missing edges between v's live neighbours, Σ d_a·d_b over the pairs not
// yet adjacent, as a scan of the pairs finds it, at every step of random
// eliminations; and weighted min-fill picks by that weight where min-fill
// picks by the count.
func TestWeightedFill(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 100 {
		n := 2 + r.IntN(30)
		adj, size := randomGraph(r, n, []float64{0.1, 0.3, 0.6}[trial%3])
		e := newGraph(adj)
		e.weighted = true
		var nb []int32
		for _, v := range r.Perm(n) {
			for u := range int32(n) {
				if e.gone[u] {
					continue
				}
				got, _ := e.fill(u, size, &nb)
				live := e.live(u, nil)
				want := 0.0
				for i, a := range live {
					for _, b := range live[i+1:] {
						if !slices.Contains(e.g[a], b) {
							want += float64(size[a]) * float64(size[b])
						}
					}
				}
				if got != want {
					t.Fatalf("trial %d: vertex %d: weighted fill %g, want %g", trial, u, got, want)
				}
			}
			clique := e.live(int32(v), nil)
			e.gone[v] = true
			e.connect(clique)
		}
	}
	// Vertex 3 has three neighbours of one value (three fill edges weighing
	// 1 each); every other vertex has one fill edge, the lightest that of
	// vertex 4 (between 3 and 9, of 2 values each: weight 4), which also
	// makes the smallest table. Min-fill takes 4 first, weighted min-fill 3.
	adj := [][]int32{{1, 2}, {0, 7}, {0, 8}, {4, 5, 6}, {3, 9}, {3, 9}, {3, 9}, {1, 8}, {2, 7}, {4, 5, 6}}
	size := []int32{2, 4, 4, 2, 1, 1, 1, 4, 4, 2}
	for h, want := range map[Heuristic]int32{MinFill: 4, WeightedMinFill: 3} {
		if got := GreedyOrder(adj, size, h, 1e300)[0]; got != want {
			t.Errorf("%v eliminates %d first, want %d", h, got, want)
		}
	}
}
