package elim

import (
	"context"
	"math"
)

// GreedyOrderWithin is GreedyOrder bounded: it gives up, returning a nil
// order, as soon as the elimination exceeds limit (its width, largest
// table or entries in all) or its own work exceeds maxWork, and it returns
// that work (adjacency entries read, the initial scoring of every vertex
// included, which is not bounded: about Σ_v deg(v)²), so that a caller can
// budget the orders it tries (package blocks' fresh min-fill checks).
func GreedyOrderWithin(adj [][]int32, size []int32, h Heuristic, limit Stats, maxWork float64) ([]int32, float64) {
	order, _, work := greedy(context.Background(), adj, size, h, nil, limit, maxWork)
	return order, work
}

// BestOrderWithin is BestOrder with each greedy order given up beyond
// maxWork adjacency entries read (GreedyOrderWithin; given is then the
// only candidate left if it fits): a greedy order's rescoring costs up to
// O(n·Σ deg²) on a graph of high-degree vertices, such as a block holding
// a few variables of K_{n,n} and all of the other side, where the order
// given is as good.
func BestOrderWithin(adj [][]int32, size []int32, given []int32, maxTable, maxWork float64) (best []int32, bs Stats, ok bool) {
	bound := maxTable
	limit := Stats{Width: math.MaxInt, MaxTable: maxTable, Entries: math.Inf(1)}
	mf, _ := GreedyOrderWithin(adj, size, MinFill, limit, maxWork)
	mw, _ := GreedyOrderWithin(adj, size, MinWeight, limit, maxWork)
	for _, order := range [][]int32{mf, mw, given} {
		if order == nil {
			continue
		}
		st, fits := Simulate(adj, size, order, Stats{Width: math.MaxInt, MaxTable: bound, Entries: math.Inf(1)})
		if fits && (best == nil || st.MaxTable < bs.MaxTable || st.MaxTable == bs.MaxTable && st.Entries < bs.Entries) {
			best, bs, bound = order, st, st.MaxTable
		}
	}
	return best, bs, best != nil
}
