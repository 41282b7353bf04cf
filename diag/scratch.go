package diag

import "sync"

// scratch holds the buffers of the convergence diagnostics, reused from one
// quantity to the next (a verdict summarises thousands): the FFT plan and
// buffers of the autocovariances, the sorted, ranked, folded and indicator
// draws, and the views that cut them into chains. Summarize and the
// diagnostics take one from a pool, so that judging many quantities
// allocates almost nothing once the buffers have grown.
type scratch struct {
	ac                        autocov
	sorted, z, folded, ind    []float64
	gamma, tmp, means, rmeans []float64
	rho                       []float64
	draws                     []draw
	halves, views             [][]float64
}

// draw is one draw and its position, for ranking.
type draw struct {
	v float64
	i int32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch   { return scratchPool.Get().(*scratch) }
func putScratch(sc *scratch) { scratchPool.Put(sc) }

// zeros returns (*buf)[:n], grown if needed, cleared.
func zeros(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	b := (*buf)[:n]
	clear(b)
	return b
}
