package infer

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// frozenCycle is a model single-site Gibbs accepts and never moves in
// part: x0 ≤ x1, x1 ≤ x2 and x2 ≤ x0 (hard factors of different scopes,
// which the samplers' frozen-link test does not see together) allow only
// x0 = x1 = x2, so no single-site update changes them, although a unary
// factor gives the pair of states 0.3 and 0.7. x3 is fixed by a chain of
// hard equalities to x4, observed at 1: degenerate, never moving, and not
// frozen. x5 is a free variable with a soft field. Without the cycle
// (cycle false) x0, x1 and x2 are free variables too.
func frozenCycle(t testing.TB, cycle bool) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(6, factorgraph.Discrete(2))
	le := []float64{0, 0, math.Inf(-1), 0} // x_a ≤ x_b
	eq := []float64{0, math.Inf(-1), math.Inf(-1), 0}
	for _, s := range [][]int{{0, 1}, {1, 2}, {2, 0}} {
		if cycle {
			b.AddFactor(factorgraph.NewTable(s, []int{2, 2}, le))
		}
	}
	b.AddFactor(factorgraph.NewUnary(0, []float64{0, math.Log(7.0 / 3)}))
	b.AddFactor(factorgraph.NewTable([]int{3, 4}, []int{2, 2}, eq))
	b.AddFactor(factorgraph.NewUnary(5, []float64{0, 0.5}))
	b.Observe(4, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFrozenVerdict: single-site Gibbs on frozenCycle keeps x0, x1 and x2
// where they start, each conditional degenerate given the others: the
// verdict counts them frozen — not converged, R̂ ∞, the answer's Frozen
// 3 — whether the marginals are Rao–Blackwellised or counts, and with a
// stopping rule; x3, which arc consistency fixes, never moves either and
// is not counted. The answer is labelled sampled and timed.
func TestFrozenVerdict(t *testing.T) {
	g := frozenCycle(t, true)
	for _, tc := range []struct {
		name string
		run  *Run
	}{
		{"rb", &Run{Spec: &Spec{Name: "gibbs"}, Steps: 30000, Burn: 1000}},
		{"counts", &Run{Spec: &Spec{Name: "gibbs"}, Steps: 30000, Burn: 1000, Counts: true}},
		{"until", &Run{Spec: &Spec{Name: "gibbs"}, Steps: 30000, Burn: 1000, Until: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Marginals(context.Background(), g, Options{Seed: 3, Run: tc.run})
			if err != nil {
				t.Fatal(err)
			}
			v := a.Verdict
			if v == nil || v.Converged || v.Frozen != 3 || a.Frozen != 3 || !math.IsInf(v.RHatMax, 1) ||
				!strings.HasPrefix(v.Reason, "3 variables never moved in any chain") || strings.Contains(v.Reason, "x3 ") {
				t.Fatalf("verdict %+v, answer's frozen %d; want not converged, x0, x1 and x2 frozen, x3 not", v, a.Frozen)
			}
			if tc.run.Until && a.Run.Converged {
				t.Error("the stopping rule stopped a frozen chain as converged")
			}
			if !tc.run.Until {
				return
			}
			// Without the cycle only x3 never moves: the stopping rule
			// knows it need not, and stops.
			run := *tc.run
			a, err = Marginals(context.Background(), frozenCycle(t, false), Options{Seed: 3, Run: &run})
			if err != nil {
				t.Fatal(err)
			}
			if !a.Run.Converged || !a.Verdict.Converged || a.Verdict.Constant != 1 || a.Frozen != 0 {
				t.Errorf("no cycle: stopped as converged %v, verdict %+v; want converged, x3 a constant quantity", a.Run.Converged, a.Verdict)
			}
			if a.Method != MethodSampled || !(a.Seconds > 0) {
				t.Errorf("method %q, %v s; want sampled, timed", a.Method, a.Seconds)
			}
		})
	}
}

// TestDegenerate: arc consistency on the hard factors and the evidence
// shows x3 of frozenCycle degenerate (through its equality with the
// observed x4) and no other variable; an exact component's variables need
// not move either.
func TestDegenerate(t *testing.T) {
	g := frozenCycle(t, true)
	deg := degenerate(g, nil)
	for i := range 6 {
		if want := i == 3; deg(i) != want {
			t.Errorf("x%d degenerate %v, want %v", i, deg(i), want)
		}
	}
	ex, err := PlanExact(context.Background(), g, 1<<20, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.Solve(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	deg = degenerate(g, ex)
	for _, i := range []int{0, 1, 2, 5} {
		if !deg(i) {
			t.Errorf("x%d of an exact component: not said to need no moves", i)
		}
	}
}

// TestFrozenVerdictNoRun: an answer without a Run (the pilots choose the
// sampler, no hooks) is judged with the same rule: x3, fixed by the hard
// factors, is never frozen, whatever sampler the pilots chose.
func TestFrozenVerdictNoRun(t *testing.T) {
	g := frozenCycle(t, true)
	a, err := Marginals(context.Background(), g, Options{Seed: 1, Sweeps: 3000, MaxBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict == nil || a.Choice == nil || strings.Contains(a.Verdict.Reason, "x3 ") || a.Frozen != a.Verdict.Frozen {
		t.Fatalf("verdict %+v (choice %v); want one that does not count x3", a.Verdict, a.Choice)
	}
	t.Logf("%s: %+v", a.Choice.Spec, a.Verdict)
}
