package gibbs

import (
	"errors"
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Histograms is an Observer that accumulates, for each continuous variable,
// the run-average histogram of its values on equal bins of its interval,
// and their running mean: after n observed updates, the weight of a bin is
// the fraction of the n states whose value falls in it. Like Marginals it
// costs O(1) an update: a variable's value is credited with the number of
// states it lasted when it changes or when read.
type Histograms struct {
	bins   int
	counts [][]float64 // per variable; empty for discrete variables
	sum    []float64   // Σ over states of x_i
	lo, w  []float64   // interval start and bin width per variable
	cur    []float64
	last   []int64
	n      int64
}

// NewHistograms returns histograms of bins bins for the continuous
// variables of m.
func NewHistograms(m factorgraph.Model, bins int) (*Histograms, error) {
	if bins < 1 {
		return nil, fmt.Errorf("gibbs: histograms need at least 1 bin, not %d", bins)
	}
	n := m.NumVars()
	h := &Histograms{bins: bins, counts: make([][]float64, n), sum: make([]float64, n),
		lo: make([]float64, n), w: make([]float64, n), cur: make([]float64, n), last: make([]int64, n)}
	for i := range n {
		d := m.Domain(i)
		if d.IsDiscrete() {
			continue
		}
		h.counts[i] = make([]float64, bins)
		h.lo[i], h.w[i] = d.Lo, (d.Hi-d.Lo)/float64(bins)
	}
	return h, nil
}

func (h *Histograms) bin(i int, v float64) int {
	return min(max(int((v-h.lo[i])/h.w[i]), 0), h.bins-1)
}

// credit adds the states variable i has held its current value since the
// last credit.
func (h *Histograms) credit(i int) {
	k := float64(h.n - h.last[i])
	h.counts[i][h.bin(i, h.cur[i])] += k
	h.sum[i] += k * h.cur[i]
	h.last[i] = h.n
}

// Observe implements Observer.
func (h *Histograms) Observe(_ int64, i int, x []float64) {
	if h.n == 0 {
		copy(h.cur, x)
	}
	if len(h.counts[i]) > 0 && x[i] != h.cur[i] {
		h.credit(i)
		h.cur[i] = x[i]
	}
	h.n++
}

// N returns the number of states observed.
func (h *Histograms) N() int64 { return h.n }

// flush brings every count up to date.
func (h *Histograms) flush() {
	for i, c := range h.counts {
		if len(c) > 0 {
			h.credit(i)
		}
	}
}

// Var returns the histogram of variable i as probabilities per bin (nil
// for a discrete variable).
func (h *Histograms) Var(i int) []float64 {
	if len(h.counts[i]) == 0 {
		return nil
	}
	h.flush()
	out := make([]float64, h.bins)
	for b, c := range h.counts[i] {
		out[b] = c / float64(h.n)
	}
	return out
}

// Mean returns the run-average of variable i (NaN for a discrete one).
func (h *Histograms) Mean(i int) float64 {
	if len(h.counts[i]) == 0 || h.n == 0 {
		return math.NaN()
	}
	h.flush()
	return h.sum[i] / float64(h.n)
}

// Pooled returns the histogram of all continuous variables together (for
// models whose sites share one interval, such as a spin lattice).
func (h *Histograms) Pooled() []float64 {
	h.flush()
	out := make([]float64, h.bins)
	total := 0.0
	for _, c := range h.counts {
		for b, v := range c {
			out[b] += v
			total += v
		}
	}
	if total > 0 {
		for b := range out {
			out[b] /= total
		}
	}
	return out
}

// PoolHistograms merges histograms of runs of the same model: the bins of
// each variable summed over runs. It returns an error for mismatched runs.
func PoolHistograms(hs ...*Histograms) (*Histograms, error) {
	if len(hs) == 0 {
		return nil, errors.New("gibbs: no histograms to pool")
	}
	out := &Histograms{bins: hs[0].bins, counts: make([][]float64, len(hs[0].counts)), sum: make([]float64, len(hs[0].sum)),
		lo: hs[0].lo, w: hs[0].w, cur: make([]float64, len(hs[0].cur)), last: make([]int64, len(hs[0].last))}
	for _, h := range hs {
		if h.bins != out.bins || len(h.counts) != len(out.counts) {
			return nil, errors.New("gibbs: pooling histograms of different shapes")
		}
		h.flush()
		for i, c := range h.counts {
			if len(c) == 0 {
				continue
			}
			if out.counts[i] == nil {
				out.counts[i] = make([]float64, out.bins)
			}
			for b, v := range c {
				out.counts[i][b] += v
			}
			out.sum[i] += h.sum[i]
		}
		out.n += h.n
	}
	for i := range out.last {
		out.last[i] = out.n // nothing pending: the pooled histogram is final
		if len(out.counts[i]) > 0 {
			out.cur[i] = out.lo[i] // credited with 0 states at the next flush
		}
	}
	return out, nil
}

// Joint2D is an Observer that accumulates the run-average 2-D histogram of
// two variables on nx×ny equal bins of their intervals, counting the state
// after every update (O(1) an update).
type Joint2D struct {
	a, b         int
	nx, ny       int
	loA, wA      float64
	loB, wB      float64
	counts       []float64 // cell (p, q) at p·ny + q
	n            int64
	sumA, sumB   float64
	sumAA, sumBB float64
}

// NewJoint2D returns the 2-D histogram of continuous variables a and b.
func NewJoint2D(m factorgraph.Model, a, b, nx, ny int) (*Joint2D, error) {
	if a < 0 || b < 0 || a >= m.NumVars() || b >= m.NumVars() || a == b {
		return nil, fmt.Errorf("gibbs: joint histogram of variables %d and %d", a, b)
	}
	da, db := m.Domain(a), m.Domain(b)
	if da.IsDiscrete() || db.IsDiscrete() {
		return nil, fmt.Errorf("gibbs: joint histogram needs continuous variables")
	}
	if nx < 1 || ny < 1 {
		return nil, fmt.Errorf("gibbs: joint histogram with %d×%d bins", nx, ny)
	}
	return &Joint2D{a: a, b: b, nx: nx, ny: ny, loA: da.Lo, wA: (da.Hi - da.Lo) / float64(nx),
		loB: db.Lo, wB: (db.Hi - db.Lo) / float64(ny), counts: make([]float64, nx*ny)}, nil
}

// Observe implements Observer.
func (j *Joint2D) Observe(_ int64, _ int, x []float64) {
	va, vb := x[j.a], x[j.b]
	p := min(max(int((va-j.loA)/j.wA), 0), j.nx-1)
	q := min(max(int((vb-j.loB)/j.wB), 0), j.ny-1)
	j.counts[p*j.ny+q]++
	j.n++
	j.sumA += va
	j.sumB += vb
	j.sumAA += va * va
	j.sumBB += vb * vb
}

// Probs returns the cell probabilities, cell (p, q) at index p·ny + q.
func (j *Joint2D) Probs() []float64 {
	out := make([]float64, len(j.counts))
	for c, v := range j.counts {
		out[c] = v / float64(max(j.n, 1))
	}
	return out
}

// Means returns the run-averages of the two variables.
func (j *Joint2D) Means() (a, b float64) {
	n := float64(max(j.n, 1))
	return j.sumA / n, j.sumB / n
}

// Bins returns the grid: numbers of bins and the cell centres' first
// coordinates and widths.
func (j *Joint2D) Bins() (nx, ny int, loA, wA, loB, wB float64) {
	return j.nx, j.ny, j.loA, j.wA, j.loB, j.wB
}

// N returns the number of states observed.
func (j *Joint2D) N() int64 { return j.n }

// PoolJoint2D merges 2-D histograms of runs of the same variables.
func PoolJoint2D(js ...*Joint2D) (*Joint2D, error) {
	if len(js) == 0 {
		return nil, errors.New("gibbs: no histograms to pool")
	}
	out := *js[0]
	out.counts = make([]float64, len(js[0].counts))
	out.n, out.sumA, out.sumB, out.sumAA, out.sumBB = 0, 0, 0, 0, 0
	for _, j := range js {
		if j.nx != out.nx || j.ny != out.ny || j.a != out.a || j.b != out.b {
			return nil, errors.New("gibbs: pooling joint histograms of different shapes")
		}
		for c, v := range j.counts {
			out.counts[c] += v
		}
		out.n += j.n
		out.sumA += j.sumA
		out.sumB += j.sumB
		out.sumAA += j.sumAA
		out.sumBB += j.sumBB
	}
	return &out, nil
}

// Trace is an Observer that records the values of chosen variables every
// Every updates, for convergence diagnostics (R̂, ESS). It keeps at most
// MaxDraws draws: when full, it drops every other draw and doubles its
// interval, so any run length fits in bounded memory and the kept draws stay
// equally spaced.
type Trace struct {
	vars  []int
	every int64
	max   int
	draws [][]float64 // draws[j] for variable vars[j]
	last  int64       // update of the last draw
	next  int64       // update of the next draw
}

// NewTrace returns a trace of the variables vars (nil: all of m's free
// variables) recorded every every updates (≥ 1), keeping at most maxDraws
// (≥ 2) draws.
func NewTrace(m factorgraph.Model, vars []int, every int64, maxDraws int) (*Trace, error) {
	if vars == nil {
		vars = m.Free()
	}
	for _, i := range vars {
		if i < 0 || i >= m.NumVars() {
			return nil, fmt.Errorf("gibbs: trace of variable %d out of range", i)
		}
	}
	if every < 1 || maxDraws < 2 {
		return nil, fmt.Errorf("gibbs: trace every %d updates with at most %d draws", every, maxDraws)
	}
	t := &Trace{vars: vars, every: every, max: maxDraws - maxDraws%2, draws: make([][]float64, len(vars)), next: every}
	return t, nil
}

// Observe implements Observer.
func (t *Trace) Observe(n int64, _ int, x []float64) {
	if n < t.next {
		return
	}
	if len(t.draws) > 0 && len(t.draws[0]) == t.max {
		// Full: keep every other draw (those at even multiples of the
		// interval) and double the interval.
		for j, d := range t.draws {
			for k := range t.max / 2 {
				d[k] = d[2*k+1]
			}
			t.draws[j] = d[:t.max/2]
		}
		t.every *= 2
		t.next = t.last + t.every
		if n < t.next {
			return
		}
	}
	for j, i := range t.vars {
		t.draws[j] = append(t.draws[j], x[i])
	}
	t.last, t.next = n, n+t.every
}

// Draws returns the recorded draws, one slice per traced variable (views).
func (t *Trace) Draws() [][]float64 { return t.draws }

// Vars returns the traced variables.
func (t *Trace) Vars() []int { return t.vars }
