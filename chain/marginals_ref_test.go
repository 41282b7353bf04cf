package chain

// This file keeps the implementation of Marginals before its blocks were
// laid out contiguously (observe.go and snapshot.go at 73b1ebf), verbatim
// but for the names: the reference the new layout must match bit for bit
// (marginals_layout_test.go).

import "fmt"

type refMarginals struct {
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

// newRefMarginals returns marginal counters for coordinates with sizes[j]
// values 0, …, sizes[j]−1 (0: not counted, a continuous coordinate); see
// factorgraph.Sizes.
func newRefMarginals(sizes []int) *refMarginals {
	n := len(sizes)
	mg := &refMarginals{counts: make([][]float64, n), cur: make([]int, n), last: make([]int64, n)}
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
func (mg *refMarginals) RaoBlackwellise(src Conditioner) {
	mg.src = src
	mg.block, _ = src.(BlockConditioner)
	mg.cond = make([][]float64, len(mg.counts))
	mg.isCond = make([]bool, len(mg.counts))
	src.RecordConditionals(true)
}

// RaoBlackwellised reports whether mg averages conditionals.
func (mg *refMarginals) RaoBlackwellised() bool { return mg.src != nil }

// Observe implements Observer.
func (mg *refMarginals) Observe(_ int64, i int, x []float64) {
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
func (mg *refMarginals) conditionBlock(vars []int, p [][]float64, x []float64) {
	for k, j := range vars {
		mg.setCond(j, p[k], 1, x)
	}
}

// see credits coordinate j's holding so far if its value changed (or, if
// its value was drawn from a distribution, whatever happened).
func (mg *refMarginals) see(j int, x []float64) {
	if len(mg.counts[j]) > 0 {
		if v := int(x[j]); v != mg.cur[j] || (mg.isCond != nil && mg.isCond[j]) {
			mg.flush(j)
			mg.cur[j] = v
		}
	}
}

// flush credits coordinate j's holding since last[j] (up to the current
// state, not included) and starts a new one.
func (mg *refMarginals) flush(j int) {
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
func (mg *refMarginals) condition(i int, x []float64) {
	ci, w, total := mg.src.Conditional()
	if ci == i {
		mg.setCond(i, w, total, x)
	}
}

// setCond makes w/total, the distribution coordinate i's new value was
// drawn from, the credit of i's new holding (ignored if it does not fit
// i's values).
func (mg *refMarginals) setCond(i int, w []float64, total float64, x []float64) {
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
func (mg *refMarginals) held(j int, out []float64) {
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
func (mg *refMarginals) N() int64 { return mg.n }

// Probs returns the marginal frequencies, one slice per coordinate (empty
// for uncounted ones). The result is freshly allocated.
func (mg *refMarginals) Probs() [][]float64 {
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
func (mg *refMarginals) Counts() [][]float64 {
	out := make([][]float64, len(mg.counts))
	for j, c := range mg.counts {
		out[j] = append([]float64{}, c...)
		if len(c) > 0 && mg.n > 0 {
			mg.held(j, out[j])
		}
	}
	return out
}

type refMarginalsState struct {
	Counts [][]float64 `json:"counts"`
	Cur    []int       `json:"cur"`
	Last   []int64     `json:"last"`
	N      int64       `json:"n"`
	// Rao–Blackwellised marginals only.
	Cond   [][]float64 `json:"cond,omitempty"`
	IsCond []bool      `json:"is_cond,omitempty"`
}

// Snapshot implements Snapshotter.
func (mg *refMarginals) Snapshot() ([]byte, error) {
	return snapshotObserver("marginals", refMarginalsState{mg.counts, mg.cur, mg.last, mg.n, mg.cond, mg.isCond})
}

// Restore implements Snapshotter.
func (mg *refMarginals) Restore(data []byte) error {
	st, err := restoreObserver[refMarginalsState]("marginals", data)
	if err != nil {
		return err
	}
	if len(st.Counts) != len(mg.counts) || len(st.Cur) != len(mg.cur) || len(st.Last) != len(mg.last) {
		return fmt.Errorf("chain: restore marginals: snapshot of %d coordinates, observer of %d", len(st.Counts), len(mg.counts))
	}
	for j := range st.Counts {
		if len(st.Counts[j]) != len(mg.counts[j]) {
			return fmt.Errorf("chain: restore marginals: coordinate %d has %d values, snapshot %d", j, len(mg.counts[j]), len(st.Counts[j]))
		}
		if c := st.Cur[j]; len(st.Counts[j]) > 0 && st.N > 0 && (c < 0 || c >= len(st.Counts[j])) {
			return fmt.Errorf("chain: restore marginals: coordinate %d holds value %d of %d", j, c, len(st.Counts[j]))
		}
	}
	if err := mg.restoreCond(st); err != nil {
		return err
	}
	mg.counts, mg.cur, mg.last, mg.n = st.Counts, st.Cur, st.Last, st.N
	return nil
}

// restoreCond restores the conditionals of Rao–Blackwellised marginals,
// refusing a snapshot of the other estimator.
func (mg *refMarginals) restoreCond(st refMarginalsState) error {
	if (mg.src != nil) != (st.IsCond != nil) {
		kinds := map[bool]string{false: "visit-count", true: "Rao–Blackwellised"}
		return fmt.Errorf("chain: restore marginals: a snapshot of %s marginals into %s ones", kinds[st.IsCond != nil], kinds[mg.src != nil])
	}
	if mg.src == nil {
		return nil
	}
	if len(st.IsCond) != len(mg.counts) || len(st.Cond) != len(mg.counts) {
		return fmt.Errorf("chain: restore marginals: conditionals of %d coordinates, observer of %d", len(st.Cond), len(mg.counts))
	}
	for j, p := range st.Cond {
		if st.IsCond[j] && len(p) != len(mg.counts[j]) {
			return fmt.Errorf("chain: restore marginals: coordinate %d has %d values, its conditional %d", j, len(mg.counts[j]), len(p))
		}
		for v, q := range p {
			if !(q >= 0 && q <= 1) {
				return fmt.Errorf("chain: restore marginals: coordinate %d: conditional probability %v of value %d", j, q, v)
			}
		}
	}
	mg.cond, mg.isCond = st.Cond, st.IsCond
	return nil
}
