package chain_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// scripted is a Conditioner over two 3-valued coordinates that replays a
// script: each step sets coordinate i to value v and reports the weights w
// (nil: no conditional).
type scripted struct {
	x      []float64
	script []scriptStep
	t      int
	on     bool
}

type scriptStep struct {
	i int
	v float64
	w []float64
}

func (s *scripted) Step() int {
	st := s.script[s.t]
	s.t++
	if st.i >= 0 {
		s.x[st.i] = st.v
	} else {
		s.x[0], s.x[1] = st.v, st.v
	}
	return st.i
}
func (s *scripted) State() []float64           { return s.x }
func (s *scripted) Err() error                 { return nil }
func (s *scripted) RecordConditionals(on bool) { s.on = on }
func (s *scripted) Conditional() (int, []float64, float64) {
	st := s.script[s.t-1]
	if !s.on || st.w == nil || st.i < 0 {
		return -1, nil, 0
	}
	total := 0.0
	for _, w := range st.w {
		total += w
	}
	return st.i, st.w, total
}

// TestRaoBlackwellCredits: every state after an update credits, for the
// updated coordinate, the conditional of its draw until the next update of
// it, and the value where no conditional is reported (or after an Any
// step); the counts estimator is unchanged.
func TestRaoBlackwellCredits(t *testing.T) {
	k := &scripted{x: []float64{0, 0}, script: []scriptStep{
		{0, 1, []float64{1, 2, 1}}, // state 1: x0 ~ (¼, ½, ¼)
		{1, 2, []float64{0, 0, 3}}, // state 2: x1 ~ (0, 0, 1)
		{1, 0, nil},                // state 3: x1 = 0, no conditional
		{0, 2, []float64{1, 1, 2}}, // state 4: x0 ~ (¼, ¼, ½)
		{-1, 1, nil},               // state 5: Any: both 1
	}}
	counts, rb := chain.NewMarginals([]int{3, 3}), chain.NewMarginals([]int{3, 3})
	rb.RaoBlackwellise(k)
	for tt := range int64(5) {
		i := k.Step()
		counts.Observe(tt+1, i, k.State())
		rb.Observe(tt+1, i, k.State())
	}
	want := [][]float64{
		// x0: states 1–3 ~ (¼, ½, ¼), state 4 ~ (¼, ¼, ½), state 5 = 1.
		{(3*0.25 + 0.25) / 5, (3*0.5 + 0.25 + 1) / 5, (3*0.25 + 0.5) / 5},
		// x1: state 1 = 0 (initial), state 2 ~ (0, 0, 1), states 3–4 = 0, state 5 = 1.
		{3.0 / 5, 1.0 / 5, 1.0 / 5},
	}
	got := rb.Probs()
	for j := range want {
		for v := range want[j] {
			if math.Abs(got[j][v]-want[j][v]) > 1e-12 {
				t.Errorf("P(x%d = %d) = %v, want %v", j, v, got[j][v], want[j][v])
			}
		}
	}
	if c := counts.Probs(); c[0][1] != 4.0/5 || c[1][0] != 3.0/5 {
		t.Errorf("visit counts changed: %v", c)
	}
	if !rb.RaoBlackwellised() || counts.RaoBlackwellised() {
		t.Error("RaoBlackwellised reports the wrong estimator")
	}
}

// TestRaoBlackwellSnapshot: a snapshot taken mid-run and restored into a
// fresh observer continues to the same estimates; snapshots of the other
// estimator are refused.
func TestRaoBlackwellSnapshot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	script := make([]scriptStep, 200)
	for n := range script {
		script[n] = scriptStep{i: r.IntN(2), v: float64(r.IntN(3)), w: []float64{r.Float64(), r.Float64(), r.Float64()}}
		if n%7 == 0 {
			script[n].w = nil
		}
	}
	run := func(mg *chain.Marginals, k *scripted, from, to int) {
		for tt := from; tt < to; tt++ {
			i := k.Step()
			mg.Observe(int64(tt+1), i, k.State())
		}
	}
	k := &scripted{x: []float64{0, 0}, script: script}
	ref := chain.NewMarginals([]int{3, 3})
	ref.RaoBlackwellise(k)
	run(ref, k, 0, 100)
	snap, err := ref.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	run(ref, k, 100, 200)

	k2 := &scripted{x: []float64{0, 0}, script: script}
	for range 100 {
		k2.Step()
	}
	again := chain.NewMarginals([]int{3, 3})
	again.RaoBlackwellise(k2)
	if err := again.Restore(snap); err != nil {
		t.Fatal(err)
	}
	run(again, k2, 100, 200)
	a, _ := ref.Snapshot()
	b, _ := again.Snapshot()
	if !bytes.Equal(a, b) {
		t.Errorf("restored run differs:\n%s\n%s", a, b)
	}
	if err := chain.NewMarginals([]int{3, 3}).Restore(snap); err == nil {
		t.Error("visit-count marginals restored a Rao–Blackwellised snapshot")
	}
	countsSnap, _ := chain.NewMarginals([]int{3, 3}).Snapshot()
	if err := again.Restore(countsSnap); err == nil {
		t.Error("Rao–Blackwellised marginals restored a visit-count snapshot")
	}
}

// blockScripted is a BlockConditioner over three 2-valued coordinates
// that replays a script of joint draws: each step sets the coordinates
// vars to vals, returns Any and reports the marginals p (nil: none).
type blockScripted struct {
	x      []float64
	script []blockStep
	t      int
	on     bool
}

type blockStep struct {
	vars []int
	vals []float64
	p    [][]float64
}

func (s *blockScripted) Step() int {
	st := s.script[s.t]
	s.t++
	for k, j := range st.vars {
		s.x[j] = st.vals[k]
	}
	return chain.Any
}
func (s *blockScripted) State() []float64                       { return s.x }
func (s *blockScripted) Err() error                             { return nil }
func (s *blockScripted) RecordConditionals(on bool)             { s.on = on }
func (s *blockScripted) Conditional() (int, []float64, float64) { return -1, nil, 0 }
func (s *blockScripted) Conditionals() ([]int, [][]float64) {
	st := s.script[s.t-1]
	if !s.on || st.p == nil {
		return nil, nil
	}
	return st.vars, st.p
}

// TestRaoBlackwellBlockCredits: a joint draw credits each listed
// coordinate's marginal until its next draw, leaves the holdings of the
// others going on, and a step that reports nothing credits values.
func TestRaoBlackwellBlockCredits(t *testing.T) {
	k := &blockScripted{x: []float64{0, 0, 0}, script: []blockStep{
		{[]int{0, 1}, []float64{1, 1}, [][]float64{{0.2, 0.8}, {0.6, 0.4}}}, // state 1
		{[]int{1, 2}, []float64{0, 1}, [][]float64{{0.5, 0.5}, {0.1, 0.9}}}, // state 2
		{[]int{0, 1}, []float64{0, 0}, nil},                                 // state 3: no report
		{[]int{2}, []float64{1}, [][]float64{{0.3, 0.7}}},                   // state 4
	}}
	rb := chain.NewMarginals([]int{2, 2, 2})
	rb.RaoBlackwellise(k)
	for tt := range int64(4) {
		rb.Observe(tt+1, k.Step(), k.State())
	}
	want := [][]float64{
		// x0: states 1–2 ~ (0.2, 0.8), states 3–4 = 0.
		{(2*0.2 + 2) / 4, 2 * 0.8 / 4},
		// x1: state 1 ~ (0.6, 0.4), state 2 ~ (0.5, 0.5), states 3–4 = 0.
		{(0.6 + 0.5 + 2) / 4, (0.4 + 0.5) / 4},
		// x2: state 1 = 0, state 2 ~ (0.1, 0.9), state 3 = 1, state 4 ~ (0.3, 0.7).
		{(1 + 0.1 + 0.3) / 4, (0.9 + 1 + 0.7) / 4},
	}
	got := rb.Probs()
	for j := range want {
		for v := range want[j] {
			if math.Abs(got[j][v]-want[j][v]) > 1e-12 {
				t.Errorf("P(x%d = %d) = %v, want %v", j, v, got[j][v], want[j][v])
			}
		}
	}
}
