package chain

import (
	"errors"
	"fmt"
	"math"
)

// Marginals is an Observer that accumulates the run-average marginal
// distribution of discrete coordinates: after n observed steps, Probs()[j][v]
// is the fraction of the n states in which x_j = v. After a step that
// changed one coordinate it costs O(1) (a coordinate's count is brought up
// to date only when it changes or when read), so it does not dominate a
// cheap single-site step; after a step returning Any it checks every
// coordinate.
//
// RaoBlackwellise switches it to the Rao–Blackwellised estimator: each
// holding period of a coordinate's value credits the distribution the value
// was drawn from instead of the value (see RaoBlackwellise).
type Marginals struct {
	counts [][]float64
	cur    []int
	last   []int64
	n      int64

	// Rao–Blackwellised (src non-nil): cond[j] is the distribution x_j's
	// current value was drawn from, while isCond[j].
	src    Conditioner
	block  BlockConditioner // src, if it can draw blocks
	cond   [][]float64
	isCond []bool
}

// NewMarginals returns marginal counters for coordinates with sizes[j]
// values 0, …, sizes[j]−1 (0: not counted, a continuous coordinate); see
// factorgraph.Sizes.
func NewMarginals(sizes []int) *Marginals {
	n := len(sizes)
	mg := &Marginals{counts: make([][]float64, n), cur: make([]int, n), last: make([]int64, n)}
	for j, d := range sizes {
		mg.counts[j] = make([]float64, max(d, 0))
		mg.cur[j] = -1
	}
	return mg
}

// RaoBlackwellise makes mg average the distributions src's steps draw from
// (src is the chain's kernel; call it before the first Observe). The
// visit-count estimator credits x_j's value for every state it holds; this
// one credits, for the same states, the distribution p the value was drawn
// from. The holding time (until the next draw of j) does not depend on the
// value drawn when the choice of coordinates does not (random or
// systematic scan), so each credit has the expectation of the count it
// replaces: E[h·δ(x_j = v)] = E[h·p(v)], and the estimate converges to the
// same marginals with less variance (Rao–Blackwell: p is the conditional
// expectation of the indicator given what the draw conditioned on). It is
// unbiased for any Gibbs-type draw from an exact conditional of the target
// or of an augmented target with the target as marginal (Poisson-Gibbs's
// minibatch; see gibbs.PoissonGibbs.Conditional). A step whose
// distribution src does not report, and a step returning Any, credit the
// values as before, and a conditional's holding ends at the next step
// returning Any. It turns src's recording on.
//
// The contract src must keep (see Conditioner): which coordinates its next
// steps draw must not depend on the values drawn. Random scan, systematic
// scan and a fixed cycle of blocks keep it. A scan that looks at the state
// to choose — revisit a coordinate that just changed, skip one sitting in
// a likely value — makes a value's holding time depend on the value, so
// E[h·δ(x_j = v)] ≠ E[h·p(v)] and the average is biased (visit counts are
// not, as long as the chain keeps π). And src must report only draws from
// a conditional: an MH step's proposal distribution is not the law of the
// value it keeps (gibbs.MGPMH and gibbs.DoubleMINGibbs are therefore not
// Conditioners).
func (mg *Marginals) RaoBlackwellise(src Conditioner) {
	mg.src = src
	mg.block, _ = src.(BlockConditioner)
	mg.cond = make([][]float64, len(mg.counts))
	mg.isCond = make([]bool, len(mg.counts))
	src.RecordConditionals(true)
}

// RaoBlackwellised reports whether mg averages conditionals.
func (mg *Marginals) RaoBlackwellised() bool { return mg.src != nil }

// Observe implements Observer.
func (mg *Marginals) Observe(_ int64, i int, x []float64) {
	if mg.n == 0 {
		for j := range mg.cur {
			if len(mg.counts[j]) > 0 {
				mg.cur[j] = int(x[j])
			}
		}
	}
	switch {
	case i == Any:
		if mg.block != nil {
			if vars, p := mg.block.Conditionals(); vars != nil {
				mg.conditionBlock(vars, p, x)
				break
			}
		}
		for j := range mg.counts {
			mg.see(j, x)
		}
	default:
		mg.see(i, x)
	}
	if mg.src != nil && i >= 0 {
		mg.condition(i, x)
	}
	mg.n++
}

// conditionBlock credits a step that drew the coordinates vars jointly,
// vars[k] from the marginal p[k]. The others were not drawn (the
// BlockConditioner contract), and their holdings go on: the cost is
// O(len(vars)), not a scan of every coordinate.
func (mg *Marginals) conditionBlock(vars []int, p [][]float64, x []float64) {
	for k, j := range vars {
		mg.setCond(j, p[k], 1, x)
	}
}

// see credits coordinate j's holding so far if its value changed (or, if
// its value was drawn from a distribution, whatever happened).
func (mg *Marginals) see(j int, x []float64) {
	if len(mg.counts[j]) > 0 {
		if v := int(x[j]); v != mg.cur[j] || (mg.isCond != nil && mg.isCond[j]) {
			mg.flush(j)
			mg.cur[j] = v
		}
	}
}

// flush credits coordinate j's holding since last[j] (up to the current
// state, not included) and starts a new one.
func (mg *Marginals) flush(j int) {
	h, c := float64(mg.n-mg.last[j]), mg.counts[j]
	if mg.isCond != nil && mg.isCond[j] {
		for v, p := range mg.cond[j] {
			c[v] += h * p
		}
		mg.isCond[j] = false
	} else if h > 0 {
		c[mg.cur[j]] += h
	}
	mg.last[j] = mg.n
}

// condition makes the distribution src drew coordinate i from, if it
// reports one, the credit of i's new holding.
func (mg *Marginals) condition(i int, x []float64) {
	ci, w, total := mg.src.Conditional()
	if ci == i {
		mg.setCond(i, w, total, x)
	}
}

// setCond makes w/total, the distribution coordinate i's new value was
// drawn from, the credit of i's new holding (ignored if it does not fit
// i's values).
func (mg *Marginals) setCond(i int, w []float64, total float64, x []float64) {
	c := mg.counts[i]
	if !(total > 0) || len(w) != len(c) || len(c) == 0 {
		return
	}
	if mg.n > 0 {
		mg.flush(i) // the holding so far (see has flushed it if the value changed)
	}
	p := mg.cond[i]
	if p == nil {
		p = make([]float64, len(c))
		mg.cond[i] = p
	}
	for v, wv := range w {
		p[v] = wv / total
	}
	mg.cur[i], mg.isCond[i] = int(x[i]), true
}

// held adds the current holding of coordinate j to out (len out = its
// values).
func (mg *Marginals) held(j int, out []float64) {
	h := float64(mg.n - mg.last[j])
	if mg.isCond != nil && mg.isCond[j] {
		for v, p := range mg.cond[j] {
			out[v] += h * p
		}
		return
	}
	out[mg.cur[j]] += h
}

// N returns the number of states observed.
func (mg *Marginals) N() int64 { return mg.n }

// Probs returns the marginal frequencies, one slice per coordinate (empty
// for uncounted ones). The result is freshly allocated.
func (mg *Marginals) Probs() [][]float64 {
	out := mg.Counts()
	if mg.n == 0 {
		return out
	}
	for j := range out {
		for v := range out[j] {
			out[j][v] /= float64(mg.n)
		}
	}
	return out
}

// Counts returns the number of observed states in which x_j = v, as
// float64 (exact below 2⁵³; Rao–Blackwellised: the summed probabilities),
// one slice per coordinate: what pooling runs across processes needs. The
// result is freshly allocated.
func (mg *Marginals) Counts() [][]float64 {
	out := make([][]float64, len(mg.counts))
	for j, c := range mg.counts {
		out[j] = append([]float64{}, c...)
		if len(c) > 0 && mg.n > 0 {
			mg.held(j, out[j])
		}
	}
	return out
}

// PoolMarginals returns the marginal frequencies of several runs of the
// same model pooled: each run weighted by its number of observed states.
func PoolMarginals(ms ...*Marginals) [][]float64 {
	var out [][]float64
	var total int64
	for _, mg := range ms {
		c := mg.Counts()
		if out == nil {
			out = c
		} else {
			for j := range c {
				for v := range c[j] {
					out[j][v] += c[j][v]
				}
			}
		}
		total += mg.n
	}
	if total > 0 {
		for j := range out {
			for v := range out[j] {
				out[j][v] /= float64(total)
			}
		}
	}
	return out
}

// Means is an Observer that accumulates the run-average of every coordinate.
type Means struct {
	sum []float64
	n   int64
}

// NewMeans returns the running means of d coordinates.
func NewMeans(d int) *Means { return &Means{sum: make([]float64, d)} }

// Observe implements Observer.
func (m *Means) Observe(_ int64, _ int, x []float64) {
	for j, v := range x[:len(m.sum)] {
		m.sum[j] += v
	}
	m.n++
}

// N returns the number of states observed.
func (m *Means) N() int64 { return m.n }

// Sums returns the sums of the coordinates over the observed states (a view).
func (m *Means) Sums() []float64 { return m.sum }

// Mean returns the run-averages (freshly allocated; NaN before any state).
func (m *Means) Mean() []float64 {
	out := make([]float64, len(m.sum))
	for j, s := range m.sum {
		out[j] = s / float64(m.n)
	}
	return out
}

// PoolMeans returns the run-averages of several runs pooled, each weighted
// by its number of observed states.
func PoolMeans(ms ...*Means) []float64 {
	if len(ms) == 0 {
		return nil
	}
	out := make([]float64, len(ms[0].sum))
	var n int64
	for _, m := range ms {
		n += m.n
	}
	for _, m := range ms {
		for j, s := range m.sum {
			out[j] += s / float64(n)
		}
	}
	return out
}

// Histograms is an Observer that accumulates, for chosen continuous
// coordinates, the run-average histogram of their values on equal bins of
// an interval, and their running mean: after n observed steps, the weight of
// a bin is the fraction of the n states whose value falls in it. Like
// Marginals it costs O(1) after a single-coordinate step: a value is
// credited with the number of states it lasted when it changes or when read.
type Histograms struct {
	bins   int
	counts [][]float64 // per coordinate; empty when not histogrammed
	sum    []float64   // Σ over states of x_j
	lo, w  []float64   // interval start and bin width per coordinate
	cur    []float64
	last   []int64
	n      int64
}

// NewHistograms returns histograms of bins bins on [lo[j], hi[j]] for every
// coordinate j with lo[j] < hi[j] (others are not histogrammed; see
// factorgraph.Intervals).
func NewHistograms(lo, hi []float64, bins int) (*Histograms, error) {
	if bins < 1 {
		return nil, fmt.Errorf("chain: histograms need at least 1 bin, not %d", bins)
	}
	if len(lo) != len(hi) {
		return nil, fmt.Errorf("chain: histograms: %d lower ends for %d upper ends", len(lo), len(hi))
	}
	n := len(lo)
	h := &Histograms{bins: bins, counts: make([][]float64, n), sum: make([]float64, n),
		lo: make([]float64, n), w: make([]float64, n), cur: make([]float64, n), last: make([]int64, n)}
	for j := range n {
		if !(lo[j] < hi[j]) || math.IsInf(lo[j], 0) || math.IsInf(hi[j], 0) {
			continue
		}
		h.counts[j] = make([]float64, bins)
		h.lo[j], h.w[j] = lo[j], (hi[j]-lo[j])/float64(bins)
	}
	return h, nil
}

func (h *Histograms) bin(j int, v float64) int {
	return min(max(int((v-h.lo[j])/h.w[j]), 0), h.bins-1)
}

// credit adds the states coordinate j has held its current value since the
// last credit.
func (h *Histograms) credit(j int) {
	k := float64(h.n - h.last[j])
	h.counts[j][h.bin(j, h.cur[j])] += k
	h.sum[j] += k * h.cur[j]
	h.last[j] = h.n
}

// Observe implements Observer.
func (h *Histograms) Observe(_ int64, i int, x []float64) {
	switch {
	case h.n == 0:
		copy(h.cur, x)
	case i == Any:
		for j := range h.counts {
			h.see(j, x)
		}
	default:
		h.see(i, x)
	}
	h.n++
}

func (h *Histograms) see(j int, x []float64) {
	if len(h.counts[j]) > 0 && x[j] != h.cur[j] {
		h.credit(j)
		h.cur[j] = x[j]
	}
}

// N returns the number of states observed.
func (h *Histograms) N() int64 { return h.n }

// flush brings every count up to date.
func (h *Histograms) flush() {
	for j, c := range h.counts {
		if len(c) > 0 {
			h.credit(j)
		}
	}
}

// Var returns the histogram of coordinate j as probabilities per bin (nil
// if j is not histogrammed).
func (h *Histograms) Var(j int) []float64 {
	if len(h.counts[j]) == 0 {
		return nil
	}
	h.flush()
	out := make([]float64, h.bins)
	for b, c := range h.counts[j] {
		out[b] = c / float64(h.n)
	}
	return out
}

// Mean returns the run-average of coordinate j (NaN if it is not
// histogrammed or nothing was observed).
func (h *Histograms) Mean(j int) float64 {
	if len(h.counts[j]) == 0 || h.n == 0 {
		return math.NaN()
	}
	h.flush()
	return h.sum[j] / float64(h.n)
}

// Pooled returns the histogram of all histogrammed coordinates together
// (for models whose sites share one interval, such as a spin lattice).
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
// each coordinate summed over runs. It returns an error for mismatched runs.
func PoolHistograms(hs ...*Histograms) (*Histograms, error) {
	if len(hs) == 0 {
		return nil, errors.New("chain: no histograms to pool")
	}
	out := &Histograms{bins: hs[0].bins, counts: make([][]float64, len(hs[0].counts)), sum: make([]float64, len(hs[0].sum)),
		lo: hs[0].lo, w: hs[0].w, cur: make([]float64, len(hs[0].cur)), last: make([]int64, len(hs[0].last))}
	for _, h := range hs {
		if h.bins != out.bins || len(h.counts) != len(out.counts) {
			return nil, errors.New("chain: pooling histograms of different shapes")
		}
		h.flush()
		for j, c := range h.counts {
			if len(c) == 0 {
				continue
			}
			if out.counts[j] == nil {
				out.counts[j] = make([]float64, out.bins)
			}
			for b, v := range c {
				out.counts[j][b] += v
			}
			out.sum[j] += h.sum[j]
		}
		out.n += h.n
	}
	for j := range out.last {
		out.last[j] = out.n // nothing pending: the pooled histogram is final
		if len(out.counts[j]) > 0 {
			out.cur[j] = out.lo[j] // credited with 0 states at the next flush
		}
	}
	return out, nil
}

// Joint2D is an Observer that accumulates the run-average 2-D histogram of
// two coordinates on nx×ny equal bins of their intervals, counting the
// state after every step (O(1) a step).
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

// NewJoint2D returns the 2-D histogram of coordinates a on [loA, hiA] and b
// on [loB, hiB].
func NewJoint2D(a, b int, loA, hiA, loB, hiB float64, nx, ny int) (*Joint2D, error) {
	if a < 0 || b < 0 || a == b {
		return nil, fmt.Errorf("chain: joint histogram of coordinates %d and %d", a, b)
	}
	if !(loA < hiA) || !(loB < hiB) || math.IsInf(hiA-loA, 0) || math.IsInf(hiB-loB, 0) {
		return nil, fmt.Errorf("chain: joint histogram on [%v, %v]×[%v, %v]: need finite, non-empty intervals", loA, hiA, loB, hiB)
	}
	if nx < 1 || ny < 1 {
		return nil, fmt.Errorf("chain: joint histogram with %d×%d bins", nx, ny)
	}
	return &Joint2D{a: a, b: b, nx: nx, ny: ny, loA: loA, wA: (hiA - loA) / float64(nx),
		loB: loB, wB: (hiB - loB) / float64(ny), counts: make([]float64, nx*ny)}, nil
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

// Means returns the run-averages of the two coordinates.
func (j *Joint2D) Means() (a, b float64) {
	n := float64(max(j.n, 1))
	return j.sumA / n, j.sumB / n
}

// Bins returns the grid: numbers of bins, and the first cell's lower
// corner and the cells' widths along each coordinate.
func (j *Joint2D) Bins() (nx, ny int, loA, wA, loB, wB float64) {
	return j.nx, j.ny, j.loA, j.wA, j.loB, j.wB
}

// N returns the number of states observed.
func (j *Joint2D) N() int64 { return j.n }

// PoolJoint2D merges 2-D histograms of runs of the same coordinates.
func PoolJoint2D(js ...*Joint2D) (*Joint2D, error) {
	if len(js) == 0 {
		return nil, errors.New("chain: no histograms to pool")
	}
	out := *js[0]
	out.counts = make([]float64, len(js[0].counts))
	out.n, out.sumA, out.sumB, out.sumAA, out.sumBB = 0, 0, 0, 0, 0
	for _, j := range js {
		if j.nx != out.nx || j.ny != out.ny || j.a != out.a || j.b != out.b {
			return nil, errors.New("chain: pooling joint histograms of different shapes")
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

// Trace is an Observer that records the values of chosen coordinates every
// Every steps — or, made by NewSweepTrace, every Every coordinate updates
// of a Counter kernel — for convergence diagnostics (R̂, ESS). It keeps at
// most MaxDraws draws: when full, it drops every other draw and doubles its
// interval, so any run length fits in bounded memory and the kept draws stay
// equally spaced.
type Trace struct {
	vars  []int
	every int64
	max   int
	draws [][]float64 // draws[j] for coordinate vars[j]
	last  int64       // clock of the last draw
	next  int64       // clock of the next draw
	// clock, if set, is the kernel whose coordinate updates the trace
	// counts (NewSweepTrace); nil: the step count.
	clock Counter
}

// NewTrace returns a trace of the coordinates vars recorded every every
// steps (≥ 1), keeping at most maxDraws (≥ 2) draws.
func NewTrace(vars []int, every int64, maxDraws int) (*Trace, error) {
	for _, i := range vars {
		if i < 0 {
			return nil, fmt.Errorf("chain: trace of coordinate %d", i)
		}
	}
	if every < 1 || maxDraws < 2 {
		return nil, fmt.Errorf("chain: trace every %d steps with at most %d draws", every, maxDraws)
	}
	return &Trace{vars: vars, every: every, max: maxDraws - maxDraws%2, draws: make([][]float64, len(vars)), next: every}, nil
}

// NewSweepTrace returns a trace of the coordinates vars of k's chain
// recorded once a sweep-equivalent — every time k has made as many more
// coordinate updates as a sweep makes (Counter) — whatever one step
// updates: a site, a block, a cluster or a sweep. Diagnostics then see
// samplers of every kind at the same resolution. (A step that makes more
// than a sweep's worth of updates gives one draw.) It keeps at most
// maxDraws (≥ 2) draws.
func NewSweepTrace(vars []int, k Counter, maxDraws int) (*Trace, error) {
	_, per := k.Updates()
	t, err := NewTrace(vars, int64(max(per, 1)), maxDraws)
	if err != nil {
		return nil, err
	}
	t.clock = k
	return t, nil
}

// Observe implements Observer.
func (t *Trace) Observe(n int64, _ int, x []float64) {
	if t.clock != nil {
		n, _ = t.clock.Updates()
	}
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
	if t.clock != nil {
		// The next multiple of the interval: a step may pass several, and
		// draws a fixed distance apart would alias with a chain that
		// alternates step by step (Wolff flipping a cluster of 0.7 n
		// sites would be seen every other step, always in one phase).
		t.next = (n/t.every + 1) * t.every
	}
}

// Draws returns the recorded draws, one slice per traced coordinate (views).
func (t *Trace) Draws() [][]float64 { return t.draws }

// Vars returns the traced coordinates.
func (t *Trace) Vars() []int { return t.vars }

// Every returns the current interval between draws, in steps (in
// coordinate updates for a sweep trace).
func (t *Trace) Every() int64 { return t.every }
