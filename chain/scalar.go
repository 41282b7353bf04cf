package chain

import "fmt"

// ScalarTrace is an Observer that records a scalar function of the state —
// a user's summary such as an energy or a magnetisation — on the schedule
// of a [Trace]: every Every steps (NewScalarTrace) or once a
// sweep-equivalent of a Counter kernel (NewSweepScalarTrace), at most
// maxDraws draws, thinned by halves when full. The function is evaluated
// only at the steps a draw is taken, so an O(n) summary costs O(n) a draw,
// not a step. Several chains' ScalarTraces give diag's chains × draws
// layout through [ScalarChains], so the summary gets R̂ and ESS with no
// Observer of one's own.
type ScalarTrace struct {
	f   func(x []float64) float64
	t   *Trace
	buf [1]float64
}

// NewScalarTrace returns a trace of f(x) recorded every every steps (≥ 1),
// keeping at most maxDraws (≥ 2) draws. f must not modify or keep x.
func NewScalarTrace(f func(x []float64) float64, every int64, maxDraws int) (*ScalarTrace, error) {
	if f == nil {
		return nil, fmt.Errorf("chain: scalar trace of a nil function")
	}
	t, err := NewTrace([]int{0}, every, maxDraws)
	if err != nil {
		return nil, err
	}
	return &ScalarTrace{f: f, t: t}, nil
}

// NewSweepScalarTrace returns a trace of f(x) recorded once a
// sweep-equivalent of k's coordinate updates (see NewSweepTrace), keeping
// at most maxDraws (≥ 2) draws.
func NewSweepScalarTrace(f func(x []float64) float64, k Counter, maxDraws int) (*ScalarTrace, error) {
	if f == nil {
		return nil, fmt.Errorf("chain: scalar trace of a nil function")
	}
	t, err := NewSweepTrace([]int{0}, k, maxDraws)
	if err != nil {
		return nil, err
	}
	return &ScalarTrace{f: f, t: t}, nil
}

// Observe implements Observer.
func (s *ScalarTrace) Observe(n int64, i int, x []float64) {
	c := n
	if s.t.clock != nil {
		c, _ = s.t.clock.Updates()
	}
	if c < s.t.next {
		return // the Trace takes no draw (a full one only moves next later)
	}
	s.buf[0] = s.f(x)
	s.t.Observe(n, i, s.buf[:])
}

// Draws returns the recorded values (a view).
func (s *ScalarTrace) Draws() []float64 { return s.t.draws[0] }

// Every returns the current interval between draws, in steps (in
// coordinate updates for a sweep trace).
func (s *ScalarTrace) Every() int64 { return s.t.every }

// ScalarChains returns the draws of one ScalarTrace per chain in diag's
// chains × draws layout (views): row c is chain c's draws. Chains stopped
// by a Duration have different lengths; diag.SummarizeUnequal takes them
// as they are.
func ScalarChains(traces ...*ScalarTrace) [][]float64 {
	out := make([][]float64, len(traces))
	for c, s := range traces {
		out[c] = s.Draws()
	}
	return out
}

// TraceChains turns the Traces of several chains (one per chain, the same
// coordinates in each) into diag's layout: out[j] is a chains × draws
// matrix of coordinate Vars()[j], out[j][c] chain c's draws of it (views).
// It reports traces of different coordinates. The rows may have different
// lengths (chains stopped by a Duration; see diag.SummarizeUnequal), and
// traces that thinned themselves a different number of times hold draws at
// different spacings (compare their Every).
func TraceChains(traces ...*Trace) ([][][]float64, error) {
	if len(traces) == 0 {
		return nil, nil
	}
	vars := traces[0].vars
	for c, t := range traces[1:] {
		if len(t.vars) != len(vars) {
			return nil, fmt.Errorf("chain: trace %d records %d coordinates, trace 0 %d", c+1, len(t.vars), len(vars))
		}
		for j, v := range t.vars {
			if v != vars[j] {
				return nil, fmt.Errorf("chain: trace %d records coordinate %d where trace 0 records %d", c+1, v, vars[j])
			}
		}
	}
	out := make([][][]float64, len(vars))
	for j := range vars {
		out[j] = make([][]float64, len(traces))
		for c, t := range traces {
			out[j][c] = t.draws[j]
		}
	}
	return out, nil
}
