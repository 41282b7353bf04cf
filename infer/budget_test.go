package infer

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/densegen"
	"github.com/pgibbs/pgibbs/internal/phase"
)

// twoParts is a model of two components: a chain of 6 variables that
// elimination answers, and a side×side Ising torus (no fields, exact
// marginals uniform) that a MaxBytes of 1 MiB leaves to sampling.
func twoParts(t testing.TB, side int) (*factorgraph.Graph, []int) {
	t.Helper()
	b := factorgraph.NewBuilder()
	n := side * side
	b.AddVariables(n+6, factorgraph.Discrete(2))
	for i := range n {
		r, c := i/side, i%side
		for _, j := range []int{r*side + (c+1)%side, ((r+1)%side)*side + c} {
			b.AddFactor(factorgraph.NewPotts(i, j, 0.3))
		}
	}
	chainVars := []int{n, n + 1, n + 2, n + 3, n + 4, n + 5}
	for k := 1; k < len(chainVars); k++ {
		b.AddFactor(factorgraph.NewTable([]int{chainVars[k-1], chainVars[k]}, []int{2, 2}, []float64{1, -0.5, 0.25, 2}))
	}
	b.AddFactor(factorgraph.NewTable([]int{n}, []int{2}, []float64{0, 1}))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g, chainVars
}

// TestMarginalsInterrupted: a cancellation at the start of each phase of
// Marginals returns within a second the answer so far — the exact
// component, if it was solved, exact; every other marginal a distribution
// —, marked incomplete and not converged, with an error wrapping
// context.Canceled.
func TestMarginalsInterrupted(t *testing.T) {
	g, chainVars := twoParts(t, 16)
	want := bruteChain(t, g, chainVars)
	defer func() { phase.Hook = nil }()
	for _, at := range []string{"plan", "solve", "pilots", "pilot site", "pilot block width 4 + regions", "bp", "race", "build", "sample"} {
		t.Run(at, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelled time.Time
			phase.Hook = func(p string) {
				if p == at && cancelled.IsZero() {
					cancelled = time.Now()
					cancel()
				}
			}
			a, err := Marginals(ctx, g, Options{Time: 5 * time.Second, MaxBytes: 1 << 20, Seed: 1})
			if cancelled.IsZero() {
				t.Fatalf("phase %s never began", at)
			}
			if took := time.Since(cancelled); took > time.Second {
				t.Errorf("returned %v after the cancellation, want ≤ 1 s", took)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if a == nil || a.Incomplete == "" || a.Verdict == nil || a.Verdict.Converged {
				t.Fatalf("answer %+v: want the answer so far, incomplete and not converged", a)
			}
			t.Logf("%s: %s", at, a.Incomplete)
			if sh := a.Shrink; sh != nil && sh.Why == "" {
				t.Errorf("shrinkage %+v of an interrupted run: want it to say why it was not done", sh)
			}
			for i, p := range a.Marginals {
				if s := p[0] + p[1]; math.Abs(s-1) > 1e-9 {
					t.Fatalf("x%d: marginal %v sums to %v", i, p, s)
				}
			}
			solved := at != "plan" && at != "solve"
			for k, v := range chainVars {
				if a.Exact[v] != solved {
					t.Fatalf("x%d exact = %v after an interruption at %s", v, a.Exact[v], at)
				}
				if solved && math.Abs(a.Marginals[v][1]-want[k]) > 1e-12 {
					t.Errorf("x%d: P(1) = %v, want %v", v, a.Marginals[v][1], want[k])
				}
			}
		})
	}
}

// bruteChain enumerates P(x_v = 1) for the chain's variables (a
// component: no factor reads a chain variable and another).
func bruteChain(t *testing.T, g *factorgraph.Graph, vars []int) []float64 {
	x := make([]float64, g.NumVars())
	var facs []int
	for f := range g.NumFactors() {
		for _, v := range g.Factor(f).Vars() {
			if v >= vars[0] {
				facs = append(facs, f)
				break
			}
		}
	}
	p, z := make([]float64, len(vars)), 0.0
	for s := range 1 << len(vars) {
		for k, v := range vars {
			x[v] = float64(s >> k & 1)
		}
		w := 0.0
		for _, f := range facs {
			w += g.Factor(f).Value(x)
		}
		w = math.Exp(w)
		z += w
		for k := range vars {
			p[k] += w * float64(s>>k&1)
		}
	}
	for k := range p {
		p[k] /= z
	}
	return p
}

// denseModels are models on which the phases before sampling cost the
// most (internal/densegen): K_{n,n} of pair tables (a dense RBM's shape;
// every variable of degree n), and hubs of degree ~100 tied through 5000
// leaves.
func denseModels(t testing.TB) map[string]*factorgraph.Graph {
	t.Helper()
	out := map[string]*factorgraph.Graph{}
	for name, p := range map[string]densegen.Pairs{"K150,150": densegen.KBip(150), "hubs": densegen.Hubs(100, 5000, 7)} {
		g, err := p.Tables(7)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = g
	}
	return out
}

// TestMarginalsBudget: on dense models beyond exact elimination, Marginals
// answers within 1.25 times its budget, every phase included.
func TestMarginalsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for seconds")
	}
	const budget = 2 * time.Second
	for name, g := range denseModels(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // every phase keeps to the clock: sharing the cores costs samples, not time
			start := time.Now()
			a, err := Marginals(context.Background(), g, Options{Time: budget, Seed: 1})
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if took > budget*5/4 {
				t.Errorf("answered in %v, over 1.25 × the budget %v", took, budget)
			}
			why := "sampled"
			if a.Choice != nil {
				why = a.Choice.Reason
			}
			t.Logf("%v; %s; %s", took.Round(time.Millisecond), why, a.Incomplete)
		})
	}
}

// TestLateDeadline: the last elimination of an answer that would be exact
// may end a tenth of the budget past its deadline, no later; a budget
// without Time has none.
func TestLateDeadline(t *testing.T) {
	start := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC)
	b := Budget{Start: start, Time: 2 * time.Second}
	if got, want := b.lateDeadline(), start.Add(2200*time.Millisecond); !got.Equal(want) {
		t.Errorf("lateDeadline of 2 s from %v: %v, want %v", start, got, want)
	}
	if got := (Budget{Start: start}).lateDeadline(); !got.IsZero() {
		t.Errorf("lateDeadline without Time: %v, want none", got)
	}
}

// TestRunBurnRule: in a timed run, a Run's negative Burn takes the rule's
// burn-in, as a run without a Run gets it — for a fixed sampler, which no
// pilot burnt in, a thousand sweeps where the cost model expects ten
// thousand or more in the budget —, and a Burn of 0 or more is kept.
func TestRunBurnRule(t *testing.T) {
	g, _ := twoParts(t, 4)
	for _, tc := range []struct {
		burn, want int64 // want −1: the rule's thousand sweeps
	}{{-1, -1}, {0, 0}, {50, 50}} {
		a, err := Marginals(context.Background(), g, Options{Time: 300 * time.Millisecond, Seed: 1, MaxBytes: 1,
			Run: &Run{Spec: &Spec{Name: "gibbs"}, Burn: tc.burn}})
		if err != nil {
			t.Fatal(err)
		}
		want := tc.want
		if want < 0 {
			want = int64(1000 * len(g.Free()))
		}
		if a.Run == nil || a.Run.Burn != want {
			t.Errorf("Burn %d: the chains kept %v steps of burn-in, want %d", tc.burn, a.Run, want)
		} else if c := a.Run.Chains[0]; c.Burn != want || c.Done() <= want {
			t.Errorf("Burn %d: chain 0 burn %d after %d steps", tc.burn, c.Burn, c.Done())
		}
	}
}
