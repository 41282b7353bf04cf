package chain

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/pgibbs/pgibbs/internal/prefetch"
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
	// data holds one block for each counted coordinate: everything an
	// Observe of the coordinate reads or writes, side by side, so that on a
	// model far larger than the cache an update misses on one block's few
	// cache lines rather than on seven arrays. A coordinate with d values
	// has the block
	//
	//	[mgLast] the state its current holding started at (an int64's bits)
	//	[mgCur]  the value it holds (an int's bits)
	//	[mgFlags] d<<mgSizeShift | mgHasCond | mgIsCond (bits)
	//	[mgHeader, mgHeader+d)    its counts
	//	[mgHeader+d, mgHeader+2d) Rao–Blackwellised only: the distribution
	//	                          its value was drawn from, credited to the
	//	                          holding while mgIsCond
	//
	// and padding (mgPad).
	data []float64
	// off[j] is where coordinate j's block starts, −1 if j is not counted
	// (a continuous coordinate); nil when every coordinate has d values,
	// j's block then starting at j·stride (no offset to load).
	off    []int
	stride int   // off nil: the blocks' length
	d      int   // off nil: every coordinate's number of values
	nvars  int   // the number of coordinates
	n      int64 // the number of states observed
	// nextBatch is n at the next batch boundary, −1 if none (beside n:
	// the check a step costs reads the cache line it writes).
	nextBatch int64

	src   Conditioner      // Rao–Blackwellised: the kernel
	block BlockConditioner // src, if it can draw blocks
	ahead Ahead            // src, if it knows its next coordinate

	batch *batchRecord // TrackBatches' record, or nil
}

// The words of a block of Marginals.data.
const (
	mgLast   = 0
	mgCur    = 1
	mgFlags  = 2
	mgHeader = 3 // the counts start here
)

// The bits of a block's mgFlags word.
const (
	mgIsCond    = 1 << 0 // the holding is credited the stored conditional
	mgHasCond   = 1 << 1 // a conditional was stored (Snapshot writes it)
	mgSizeShift = 2      // the coordinate's number of values above the flags
)

// mgWord and mgInt store and read an integer in a float64 word, exactly.
func mgWord(v int64) float64 { return math.Float64frombits(uint64(v)) }
func mgInt(w float64) int64  { return int64(math.Float64bits(w)) }

// mgPad returns the length of a block of used words. A Rao–Blackwellised
// update reads and writes its whole block, and its block is padded to a
// multiple of a 64-byte cache line's 8 words, so that from an aligned start
// it spans as few lines as it can (3 for 10 values, not 4 three times in
// four), unless that would add more than a quarter to it; a visit-count
// update touches the header and one count, and a padded block would only
// spread the blocks over more memory (measured: BenchmarkMarginalsObserve).
func mgPad(used int, rb bool) int {
	if p := (used + 7) &^ 7; rb && 4*(p-used) <= used {
		return p
	}
	return used
}

// NewMarginals returns marginal counters for coordinates with sizes[j]
// values 0, …, sizes[j]−1 (0: not counted, a continuous coordinate); see
// factorgraph.Sizes.
func NewMarginals(sizes []int) *Marginals {
	mg := &Marginals{nvars: len(sizes), nextBatch: -1}
	mg.layout(sizes, false)
	for j := range mg.nvars {
		if b, _ := mg.at(j); b != nil {
			b[mgCur] = mgWord(-1)
		}
	}
	return mg
}

// layout allocates data for coordinates of sizes values, with the space of
// conditionals if rb, each block's counts and flags zero (and d set).
func (mg *Marginals) layout(sizes []int, rb bool) {
	used := func(d int) int {
		if rb {
			return mgHeader + 2*d
		}
		return mgHeader + d
	}
	uniform := len(sizes) > 0
	for _, d := range sizes {
		uniform = uniform && d > 0 && d == sizes[0]
	}
	mg.off, mg.stride, mg.d = nil, 0, 0
	size := 0
	if uniform {
		mg.d = sizes[0]
		mg.stride = mgPad(used(mg.d), rb)
		size = len(sizes) * mg.stride
	} else {
		mg.off = make([]int, len(sizes))
		for j, d := range sizes {
			mg.off[j] = -1
			if d > 0 {
				mg.off[j] = size
				size += mgPad(used(d), rb)
			}
		}
	}
	mg.data = make([]float64, size)
	for j, d := range sizes {
		if b, _ := mg.at(j); b != nil {
			b[mgFlags] = mgWord(int64(d) << mgSizeShift)
		}
	}
}

// at returns coordinate j's block and its number of values d (nil, 0 if j
// is not counted). The block holds its header and d counts, and, when
// Rao–Blackwellised, d conditional probabilities.
func (mg *Marginals) at(j int) ([]float64, int) {
	if mg.off != nil {
		return mg.atOff(j)
	}
	o := j * mg.stride
	return mg.data[o : o+mg.stride : o+mg.stride], mg.d
}

// atOff is at when the blocks are found by offset.
func (mg *Marginals) atOff(j int) ([]float64, int) {
	o := mg.off[j]
	if o < 0 {
		return nil, 0
	}
	d := int(math.Float64bits(mg.data[o+mgFlags]) >> mgSizeShift)
	n := mgHeader + d
	if mg.src != nil {
		n += d
	}
	return mg.data[o : o+n : o+n], d
}

// sizes returns the number of values of every coordinate.
func (mg *Marginals) sizes() []int {
	s := make([]int, mg.nvars)
	for j := range s {
		_, s[j] = mg.at(j)
	}
	return s
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
// minibatch; see site.PoissonGibbs.Conditional). A step whose
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
// value it keeps (mingibbs.MGPMH and mingibbs.DoubleMINGibbs are therefore not
// Conditioners).
func (mg *Marginals) RaoBlackwellise(src Conditioner) {
	// Lay the blocks out again with the conditionals' space, keeping the
	// holdings and counts, with no conditional stored.
	old := *mg
	mg.layout(mg.sizes(), true)
	mg.src = src
	mg.block, _ = src.(BlockConditioner)
	mg.ahead, _ = src.(Ahead)
	for j := range mg.nvars {
		if b, d := mg.at(j); b != nil {
			ob, _ := old.at(j)
			b[mgLast], b[mgCur] = ob[mgLast], ob[mgCur]
			copy(b[mgHeader:mgHeader+d], ob[mgHeader:mgHeader+d])
		}
	}
	src.RecordConditionals(true)
}

// RaoBlackwellised reports whether mg averages conditionals.
func (mg *Marginals) RaoBlackwellised() bool { return mg.src != nil }

// Observe implements Observer.
func (mg *Marginals) Observe(_ int64, i int, x []float64) {
	if mg.n == 0 {
		for j := range mg.nvars {
			if b, _ := mg.at(j); b != nil {
				b[mgCur] = mgWord(int64(int(x[j])))
			}
		}
	}
	if i == Any {
		mg.observeAny(x)
	} else {
		b, d := mg.at(i)
		flushed := false
		if b != nil {
			flushed = mg.see(b, d, int(x[i]))
		}
		if mg.src != nil && i >= 0 {
			// The distribution src drew i from, if it reports one, is the
			// credit of i's new holding.
			if ci, w, total := mg.src.Conditional(); ci == i && b != nil {
				mg.setCond(b, d, w, total, int(x[i]), !flushed)
			}
		}
	}
	mg.n++
	if mg.n == mg.nextBatch {
		mg.recordBatch()
	}
	if mg.ahead != nil && mg.off == nil {
		if j := mg.ahead.Next(); uint(j) < uint(mg.nvars) {
			// The next step's block, whose lines a random scan of a
			// model far larger than the cache would wait for.
			o := j * mg.stride
			for k := o; k < o+mg.stride; k += 8 {
				prefetch.Line(unsafe.Pointer(&mg.data[k]))
			}
		}
	}
}

// observeAny observes a step that may have changed any coordinate: a block
// drawn jointly (conditionBlock), or any.
func (mg *Marginals) observeAny(x []float64) {
	if mg.block != nil {
		if vars, p := mg.block.Conditionals(); vars != nil {
			mg.conditionBlock(vars, p, x)
			return
		}
	}
	if data, stride, d := mg.data, mg.stride, mg.d; mg.off == nil {
		// see, inlined: a scan reads a word or two of each block.
		for j, xj := range x[:mg.nvars] {
			o, v := j*stride, int(xj)
			if int64(v) != mgInt(data[o+mgCur]) || mgInt(data[o+mgFlags])&mgIsCond != 0 {
				b := data[o : o+stride : o+stride]
				mg.flush(b, d)
				b[mgCur] = mgWord(int64(v))
			}
		}
		return
	}
	for j := range mg.nvars {
		if b, d := mg.at(j); b != nil {
			mg.see(b, d, int(x[j]))
		}
	}
}

// conditionBlock credits a step that drew the coordinates vars jointly,
// vars[k] from the marginal p[k]. The others were not drawn (the
// BlockConditioner contract), and their holdings go on: the cost is
// O(len(vars)), not a scan of every coordinate.
func (mg *Marginals) conditionBlock(vars []int, p [][]float64, x []float64) {
	for k, j := range vars {
		if b, d := mg.at(j); b != nil {
			mg.setCond(b, d, p[k], 1, int(x[j]), true)
		}
	}
}

// see credits the holding of the coordinate of block b (of d values), now
// at value v, so far if its value changed (or, if its value was drawn
// from a distribution, whatever happened), and reports whether it did.
func (mg *Marginals) see(b []float64, d, v int) bool {
	_ = b[mgFlags]
	if int64(v) != mgInt(b[mgCur]) || mgInt(b[mgFlags])&mgIsCond != 0 {
		mg.flush(b, d)
		b[mgCur] = mgWord(int64(v))
		return true
	}
	return false
}

// flush credits the holding of the coordinate of block b (of d values)
// since its start (up to the current state, not included) and starts a
// new one.
func (mg *Marginals) flush(b []float64, d int) {
	_ = b[mgFlags]
	h, c := float64(mg.n-mgInt(b[mgLast])), b[mgHeader:mgHeader+d]
	if f := mgInt(b[mgFlags]); f&mgIsCond != 0 {
		for v, p := range b[mgHeader+d : mgHeader+2*d] {
			c[v] += h * p
		}
		b[mgFlags] = mgWord(f &^ mgIsCond)
	} else if h > 0 {
		c[mgInt(b[mgCur])] += h
	}
	b[mgLast] = mgWord(mg.n)
}

// setCond makes w/total, the distribution the coordinate of block b (of d
// values) was drawn from as v, the credit of its new holding (ignored if
// it does not fit its values). Rao–Blackwellised only. Unless flush, see
// has just flushed the holding so far (a flush now would credit nothing).
func (mg *Marginals) setCond(b []float64, d int, w []float64, total float64, v int, flush bool) {
	if !(total > 0) || len(w) != d || d == 0 {
		return
	}
	if mg.n > 0 && flush {
		mg.flush(b, d) // the holding so far
	}
	p := b[mgHeader+d : mgHeader+2*d]
	for k, wv := range w {
		p[k] = wv / total
	}
	b[mgCur] = mgWord(int64(v))
	b[mgFlags] = mgWord(mgInt(b[mgFlags]) | mgIsCond | mgHasCond)
}

// held adds the current holding of the coordinate of block b (of d
// values) to out (len out = d).
func (mg *Marginals) held(b []float64, d int, out []float64) {
	h := float64(mg.n - mgInt(b[mgLast]))
	if mgInt(b[mgFlags])&mgIsCond != 0 {
		for v, p := range b[mgHeader+d : mgHeader+2*d] {
			out[v] += h * p
		}
		return
	}
	out[mgInt(b[mgCur])] += h
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
	out := make([][]float64, mg.nvars)
	for j := range out {
		b, d := mg.at(j)
		if b == nil {
			out[j] = []float64{}
			continue
		}
		out[j] = append([]float64{}, b[mgHeader:mgHeader+d]...)
		if mg.n > 0 {
			mg.held(b, d, out[j])
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
