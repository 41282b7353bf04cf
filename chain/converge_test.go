package chain

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// blockWalk is a Counter kernel over n binary coordinates whose step
// redraws `block` of them (a block update), each kept with probability
// stick (a sticky chain when stick is near 1).
type blockWalk struct {
	x            []float64
	block, next  int
	stick        float64
	r            *rand.Rand
	updates      int64
	frozenAtZero bool // coordinate 0 never changes
}

func (b *blockWalk) Step() int {
	for range b.block {
		j := b.next % len(b.x)
		b.next++
		b.updates++
		if (j == 0 && b.frozenAtZero) || b.r.Float64() < b.stick {
			continue
		}
		b.x[j] = float64(b.r.IntN(2))
	}
	return Any
}
func (b *blockWalk) State() []float64      { return b.x }
func (b *blockWalk) Err() error            { return nil }
func (b *blockWalk) Updates() (int64, int) { return b.updates, len(b.x) }
func newBlockWalk(n, block int, stick float64, seed uint64) *blockWalk {
	return &blockWalk{x: make([]float64, n), block: block, stick: stick, r: rand.New(rand.NewPCG(seed, 1))}
}

// TestSweepTrace: a sweep trace takes one draw every n coordinate updates,
// whatever a step updates, so a block kernel and a site kernel give the
// same number of draws for the same sweeps; it keeps its clock through a
// snapshot and refuses one of a step trace.
func TestSweepTrace(t *testing.T) {
	vars := []int{0, 1, 2}
	for _, block := range []int{1, 5, 40} {
		k := newBlockWalk(40, block, 0.5, 1)
		tr, err := NewSweepTrace(vars, k, 1000)
		if err != nil {
			t.Fatal(err)
		}
		steps := 200 * 40 / block // 200 sweeps
		c := &Chain{Kernel: k, Observers: []Observer{tr}}
		if err := c.Advance(context.Background(), int64(steps)); err != nil {
			t.Fatal(err)
		}
		if got := len(tr.Draws()[0]); got != 200 {
			t.Errorf("block %d: %d draws in 200 sweeps, want 200", block, got)
		}
		if sw, ok := Sweeps(k); !ok || sw != 200 {
			t.Errorf("block %d: Sweeps = %v, %v; want 200", block, sw, ok)
		}
	}
	k := newBlockWalk(40, 5, 0.5, 1)
	sweep, _ := NewSweepTrace(vars, k, 10)
	step, _ := NewTrace(vars, 1, 10)
	data, err := sweep.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := step.Restore(data); err == nil || !strings.Contains(err.Error(), "a trace by steps from a snapshot of one by sweeps") {
		t.Errorf("step trace restored from a sweep trace: %v", err)
	}
	again, _ := NewSweepTrace(vars, k, 10)
	if err := again.Restore(data); err != nil {
		t.Errorf("sweep trace round trip: %v", err)
	}
}

// TestMonitorVerdict: a well-mixing chain is converged, alone or with
// others; a sticky one is not (split-R̂ sees its halves differ even with
// one chain), and the verdict names the worst quantities; chains stuck at
// different values are named as such; a coordinate constant everywhere is
// counted, not judged; too few draws give no verdict.
func TestMonitorVerdict(t *testing.T) {
	var degenerate func(int) bool
	var names []int
	run := func(chains int, stick float64, sweeps int64, frozen bool) Verdict {
		m, err := NewMonitor([]int{0, 1, 2, 3}, []int{2, 2, 2, 2}, 2000)
		if err != nil {
			t.Fatal(err)
		}
		if degenerate != nil {
			m.UseDegenerate(degenerate)
		}
		if names != nil {
			m.UseNames(names)
		}
		var cs []*Chain
		for c := range chains {
			k := newBlockWalk(4, 2, stick, uint64(c+1))
			k.frozenAtZero = frozen
			if frozen {
				k.x[0] = float64(c % 2)
			}
			tr, err := m.Trace(k)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, &Chain{Kernel: k, Observers: []Observer{tr}})
		}
		r := &Runner{Steps: sweeps * 2} // a step is half a sweep
		if err := r.Run(context.Background(), cs); err != nil {
			t.Fatal(err)
		}
		return m.Verdict(Criteria{})
	}
	if v := run(1, 0.3, 2000, false); !v.Converged || v.Chains != 1 || math.IsNaN(v.RHatMax) {
		t.Errorf("one mixing chain: %+v, want converged with a split-R̂", v)
	}
	if v := run(3, 0.3, 2000, false); !v.Converged {
		t.Errorf("three mixing chains: %+v, want converged", v)
	}
	if v := run(1, 0.999, 2000, false); v.Converged || len(v.Worst) == 0 || !strings.Contains(v.Reason, "fail R̂ < 1.01, ESS ≥ 100") {
		t.Errorf("one sticky chain: %+v, want not converged with the worst quantities named", v)
	}
	v := run(2, 0.3, 2000, true)
	if v.Converged || v.Frozen != 1 || !strings.Contains(v.Reason, "x0 (stuck: constant in each chain at different values)") ||
		!strings.Contains(v.Reason, "x0 (never moved, at different values in different chains)") {
		t.Errorf("x0 stuck at 0 and 1: %+v", v)
	}
	// Named in the caller's numbering (a renumbered model): coordinate 0
	// is the caller's x40.
	names = []int{40, 41, 42, 43}
	if v := run(2, 0.3, 2000, true); !strings.Contains(v.Reason, "x40 (stuck: constant in each chain at different values)") ||
		!strings.Contains(v.Reason, "x40 (never moved, at different values in different chains)") || strings.Contains(v.Reason, "x0 ") {
		t.Errorf("x0 stuck at 0 and 1, named 40: %+v", v)
	}
	names = nil
	// A variable that never moved, with nothing to say its marginal is
	// degenerate, is frozen: R̂ ∞, named first; the model's word that it
	// is degenerate makes it a constant quantity.
	if v := run(1, 0.3, 2000, true); v.Converged || v.Constant != 1 || v.Frozen != 1 || !math.IsInf(v.RHatMax, 1) ||
		len(v.Worst) != 1 || v.Worst[0] != "x0 (never left 0)" || v.RHat() != "∞ (1 variable never moved, its marginal not known to be degenerate)" {
		t.Errorf("x0 constant in the one chain: %+v, want not converged, x0 frozen", v)
	}
	degenerate = func(i int) bool { return i == 0 }
	if v := run(1, 0.3, 2000, true); !v.Converged || v.Constant != 1 || v.Frozen != 0 || math.IsInf(v.RHatMax, 0) {
		t.Errorf("x0 constant in the one chain, degenerate: %+v, want converged with 1 constant quantity", v)
	}
	degenerate = nil
	// The verdict's JSON has null for an infinite R̂, and the count.
	data, err := json.Marshal(run(1, 0.3, 2000, true))
	if err != nil || !strings.Contains(string(data), `"rhat_max":null`) || !strings.Contains(string(data), `"frozen":1`) {
		t.Errorf("verdict JSON %s, %v", data, err)
	}
	if v := run(1, 0.3, 10, false); v.Converged || !strings.Contains(v.Reason, "too few draws (10 a chain") {
		t.Errorf("10 sweeps: %+v, want too few draws", v)
	}
	// The verdict's JSON has null for undefined diagnostics.
	data, err = json.Marshal(run(1, 0.3, 10, false))
	if err != nil || !strings.Contains(string(data), `"rhat_max":null`) || !strings.Contains(string(data), `"converged":false`) {
		t.Errorf("verdict JSON %s, %v", data, err)
	}
}

// TestMonitorUntil: as a stopping rule the monitor stops a mixing chain
// early and lets a sticky one run to the ceiling, with the last verdict.
func TestMonitorUntil(t *testing.T) {
	for _, tc := range []struct {
		stick float64
		stop  bool
	}{{0.3, true}, {0.9995, false}} {
		m, _ := NewMonitor([]int{0, 1}, []int{2, 2}, 2000)
		k := newBlockWalk(2, 1, tc.stick, 3)
		tr, _ := m.Trace(k)
		var last Verdict
		r := &Runner{Steps: 200000, Until: m.Until(Criteria{}, &last), CheckEvery: 100}
		if err := r.Run(context.Background(), []*Chain{{Kernel: k, Observers: []Observer{tr}}}); err != nil {
			t.Fatal(err)
		}
		if r.Converged() != tc.stop || last.Converged != tc.stop {
			t.Errorf("stick %v: stopped %v (last verdict %+v), want %v", tc.stick, r.Converged(), last, tc.stop)
		}
	}
}

// TestMonitorBudget: Budget cuts the traces to the draws a verdict can
// judge in the time given — quantities counted as Judge counts them (one
// a coordinate of two values or fewer, one a value otherwise) — never
// below MinBudgetDraws nor above the monitor's own maximum; the traces
// then keep no more.
func TestMonitorBudget(t *testing.T) {
	vars := []int{0, 1, 2}
	sizes := []int{2, 10, 0} // 1 + 10 + 1 = 12 quantities
	for _, tc := range []struct {
		d      time.Duration
		chains int
		want   int
	}{
		{12 * 2 * 1000 * VerdictCost, 2, 1000},
		{12 * 1500 * VerdictCost, 1, 1500},
		{time.Nanosecond, 1, MinBudgetDraws},
		{time.Hour, 4, 2000},
	} {
		m, err := NewMonitor(vars, sizes, 2000)
		if err != nil {
			t.Fatal(err)
		}
		m.Budget(tc.d, tc.chains)
		if m.max != tc.want {
			t.Errorf("Budget(%v, %d chains): %d draws, want %d", tc.d, tc.chains, m.max, tc.want)
		}
		tr, err := m.Trace(stepper{})
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{0, 0, 0}
		for k := range int64(10000) {
			x[0] = float64(k % 2)
			tr.Observe(k+1, Any, x)
		}
		if n := len(tr.Draws()[0]); n > tc.want {
			t.Errorf("Budget(%v): the trace keeps %d draws, over %d", tc.d, n, tc.want)
		}
	}
}

// stepper is a kernel that is not a Counter: a Trace of it keeps a draw a
// step.
type stepper struct{}

func (stepper) Step() int        { return 0 }
func (stepper) State() []float64 { return nil }
func (stepper) Err() error       { return nil }

// frozen is a Conditioner on two binary coordinates that updates x1 by
// drawing it from (½, ½) and "updates" x0 by reporting the same (½, ½)
// while leaving it at 0: a chain that cannot move x0 although its law
// gives it mass on 1 — what a frozen single-site chain looks like.
type frozen struct {
	x   []float64
	r   *rand.Rand
	i   int
	rec bool
	w   []float64
}

func (f *frozen) Step() int {
	f.i = f.r.IntN(2)
	if f.i == 1 {
		f.x[1] = float64(f.r.IntN(2))
	}
	return f.i
}
func (f *frozen) State() []float64          { return f.x }
func (f *frozen) Err() error                { return nil }
func (f *frozen) RecordConditionals(b bool) { f.rec = b }
func (f *frozen) Conditional() (int, []float64, float64) {
	if !f.rec {
		return -1, nil, 0
	}
	return f.i, f.w, 1
}

// TestVerdictStuck: a variable that never moved is frozen (Verdict.Frozen)
// unless something shows its marginal degenerate. Rao–Blackwellised
// conditionals of (½, ½) name it stuck as well; conditionals of (0.999,
// 0.001) — positive probability elsewhere — say it could move and its
// marginal is near-degenerate: not frozen; conditionals of (1, 0), visit
// counts or no marginals say nothing: frozen, unless the model says it is
// degenerate (UseDegenerate). The stopping rule never stops while it is
// frozen.
func TestVerdictStuck(t *testing.T) {
	run := func(marginals, rb bool, w []float64, degenerate bool) Verdict {
		k := &frozen{x: []float64{0, 0}, r: rand.New(rand.NewPCG(1, 2)), w: w}
		m, err := NewMonitor([]int{0, 1}, []int{2, 2}, 2000)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := m.Trace(k)
		if err != nil {
			t.Fatal(err)
		}
		mg := NewMarginals([]int{2, 2})
		if rb {
			mg.RaoBlackwellise(k)
		}
		if marginals {
			m.UseMarginals(mg)
		}
		if degenerate {
			m.UseDegenerate(func(i int) bool { return i == 0 })
		}
		var last Verdict
		r := &Runner{Steps: 20000, Until: m.Until(Criteria{}, &last), CheckEvery: 5000}
		if err := r.Run(context.Background(), []*Chain{{Kernel: k, Observers: []Observer{mg, tr}}}); err != nil {
			t.Fatal(err)
		}
		v := m.Verdict(Criteria{})
		if r.Converged() != v.Converged || last.Converged != v.Converged || last.Frozen != v.Frozen {
			t.Errorf("stopping rule %v (last check %+v), verdict %+v", r.Converged(), last, v)
		}
		return v
	}
	half, soft, hard := []float64{0.5, 0.5}, []float64{0.999, 0.001}, []float64{1, 0}
	if v := run(true, true, half, false); v.Converged || v.Stuck != 1 || v.Frozen != 1 || !strings.Contains(v.Reason, "x0 (never left 0, whose Rao–Blackwellised probability is 0.500)") {
		t.Errorf("frozen x0, Rao–Blackwellised marginals: %+v; want not converged, one stuck variable named", v)
	}
	if v := run(true, true, half, true); v.Converged || v.Stuck != 1 {
		t.Errorf("x0 stuck, said degenerate: %+v; want stuck all the same (its conditionals say it is not)", v)
	}
	if v := run(true, true, soft, false); !v.Converged || v.Frozen != 0 || v.Constant != 1 {
		t.Errorf("x0 constant with conditionals of 0.999: %+v; want converged, x0 a constant quantity", v)
	}
	for _, tc := range []struct {
		marginals, rb bool
		w             []float64
	}{{true, true, hard}, {false, false, half}, {true, false, half}} {
		if v := run(tc.marginals, tc.rb, tc.w, false); v.Converged || v.Stuck != 0 || v.Frozen != 1 || v.Constant != 1 ||
			!strings.Contains(v.Reason, "1 variable never moved in any chain, its marginal not known to be degenerate (R̂ ∞): x0 (never left 0)") {
			t.Errorf("marginals %v, Rao–Blackwellised %v, conditionals %v: %+v; want not converged, x0 frozen", tc.marginals, tc.rb, tc.w, v)
		}
		if v := run(tc.marginals, tc.rb, tc.w, true); !v.Converged || v.Frozen != 0 || v.Constant != 1 {
			t.Errorf("marginals %v, Rao–Blackwellised %v, conditionals %v, x0 degenerate: %+v; want converged, x0 a constant quantity", tc.marginals, tc.rb, tc.w, v)
		}
	}
}

// TestVerdictMemo: a verdict on traces that have not changed reuses the
// R̂ and ESS of the last one (the frozen rule is judged again: what
// UseDegenerate says may have changed), and one on traces that moved on
// judges them again.
func TestVerdictMemo(t *testing.T) {
	m, _ := NewMonitor([]int{0, 1}, []int{2, 2}, 2000)
	k := newBlockWalk(2, 1, 0.3, 5)
	k.frozenAtZero = true
	tr, _ := m.Trace(k)
	c := &Chain{Kernel: k, Observers: []Observer{tr}}
	if err := c.Advance(context.Background(), 2000); err != nil {
		t.Fatal(err)
	}
	first := m.Verdict(Criteria{})
	memo := m.memo
	m.UseDegenerate(func(i int) bool { return i == 0 })
	second := m.Verdict(Criteria{})
	if m.memo != memo || first.Frozen != 1 || second.Frozen != 0 || !second.Converged || second.BulkESSMin != first.BulkESSMin {
		t.Errorf("same traces: memo %v → %v, verdicts %+v, %+v", memo, m.memo, first, second)
	}
	if m.Verdict(Criteria{RHat: 1.05}); m.memo == memo {
		t.Error("other criteria: the memo was reused")
	}
	memo = m.memo
	if err := c.Advance(context.Background(), 2010); err != nil {
		t.Fatal(err)
	}
	if m.Verdict(Criteria{RHat: 1.05}); m.memo == memo {
		t.Error("traces moved on: the memo was reused")
	}
}

// TestVerdictSummary: the one-line verdict names the criteria, the
// quantities judged (not the constant ones), the chains and draws, and
// which variables when not all; an unconverged one its reason.
func TestVerdictSummary(t *testing.T) {
	for _, c := range []struct {
		v    Verdict
		of   string
		want string
	}{
		{Verdict{Converged: true, Chains: 2, Draws: 500, Constant: 1}, "",
			"converged: R̂ < 1.01 and ESS ≥ 100 for all 11 tracked quantities (2 chain(s) × 500 draws, one a sweep-equivalent)"},
		{Verdict{Converged: true, Chains: 1, Draws: 9}, "3 of 9 variables",
			"converged: R̂ < 1.01 and ESS ≥ 100 for all 12 tracked quantities of 3 of 9 variables (1 chain(s) × 9 draws, one a sweep-equivalent)"},
		{Verdict{Reason: "x3 never moved"}, "", "NOT converged: x3 never moved"},
		{Verdict{Reason: "R̂ 1.2"}, "3 of 9 variables", "NOT converged: R̂ 1.2 (judged on 3 of 9 variables)"},
	} {
		if got := c.v.Summary(Criteria{}, 12, c.of); got != c.want {
			t.Errorf("Summary = %q, want %q", got, c.want)
		}
	}
}
