package elim

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// build builds a graph or fails t.
func build(t *testing.T, b *factorgraph.Builder) *factorgraph.Graph {
	t.Helper()
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestContinuous: a component with a continuous variable is planned but
// not solvable, its error naming the variable and its interval; the other
// components are solved.
func TestContinuous(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(2))
	c := b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(factorgraph.NewFunc([]int{1, c}, -1, 1, func(x []float64) float64 { return x[1] * x[c] }))
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 1}))
	g := build(t, b)
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 2 {
		t.Fatalf("%d components, want 2", len(comps))
	}
	want := "elim: component of variables [1 2]: variable 2 is continuous on [0, 1]"
	if comps[1].Err == nil || !strings.HasPrefix(comps[1].Err.Error(), want) {
		t.Errorf("error %v, want it to start %q", comps[1].Err, want)
	}
	if _, err := comps[1].Solve(context.Background()); err != comps[1].Err {
		t.Errorf("Solve returned %v, want the component's error", err)
	}
	res, err := comps[0].Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Marginals[0][1]; math.Abs(p-math.E/(1+math.E)) > 1e-15 {
		t.Errorf("π(x0 = 1) = %v, want e/(1+e)", p)
	}
}

// TestInfeasibleEvidence: evidence that every assignment of a component
// contradicts is ErrNoMass, naming the component.
func TestInfeasibleEvidence(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	ninf := math.Inf(-1)
	eq := []float64{0, ninf, ninf, 0} // x_a = x_b
	b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{2, 2}, eq))
	b.AddFactor(factorgraph.NewTable([]int{1, 2}, []int{2, 2}, eq))
	b.Observe(0, 0)
	b.Observe(2, 1)
	g := build(t, b)
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = comps[0].Solve(context.Background())
	if !errors.Is(err, ErrNoMass) || !strings.Contains(err.Error(), "component of variables [1]") {
		t.Errorf("Solve returned %v, want ErrNoMass naming variable 1", err)
	}
}

// TestBadFactorValue: a factor value outside its declared range, or NaN,
// is a *factorgraph.RangeError naming the factor and the state.
func TestBadFactorValue(t *testing.T) {
	for _, bad := range []float64{5, math.NaN()} {
		b := factorgraph.NewBuilder()
		b.AddVariables(2, factorgraph.Discrete(3))
		b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 1, func(x []float64) float64 {
			if x[0] == 2 && x[1] == 1 {
				return bad
			}
			return 0.5
		}))
		g := build(t, b)
		comps, _ := Plan(context.Background(), g, Options{})
		_, err := comps[0].Solve(context.Background())
		var re *factorgraph.RangeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "x0=2 x1=1") || !strings.Contains(err.Error(), "factor 0") {
			t.Errorf("value %v: Solve returned %v, want a range error at x0=2 x1=1", bad, err)
		}
	}
}

// countdown is a context whose Err turns context.Canceled after a number
// of calls, so that a test can cancel a Solve in the middle,
// deterministically.
type countdown struct {
	context.Context
	left atomic.Int64
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCancel: Solve returns ctx.Err() for a context done before it
// starts, and for one done while it works.
func TestCancel(t *testing.T) {
	g := gridModel(t, 15, 15, 2, 1)
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := comps[0].Solve(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: Solve returned %v", err)
	}
	cd := &countdown{Context: context.Background()}
	cd.left.Store(1 << 40)
	if _, err := comps[0].Solve(cd); err != nil {
		t.Fatal(err)
	}
	looks := 1<<40 - cd.left.Load()
	if looks < 3 {
		t.Fatalf("Solve of %g entries looked at its context %d times", comps[0].Entries, looks)
	}
	cd.left.Store(looks / 2)
	if _, err := comps[0].Solve(cd); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during: Solve returned %v", err)
	}
}

// TestBudget: a component whose elimination needs more than MaxBytes is
// planned with an error saying so, which Solve returns; a budget smaller
// than any table stops the order search itself.
func TestBudget(t *testing.T) {
	g := gridModel(t, 10, 10, 2, 1)
	full, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []float64{full[0].Bytes / 2, 8 * full[0].MaxTable / 4} {
		comps, err := Plan(context.Background(), g, Options{MaxBytes: budget})
		if err != nil {
			t.Fatal(err)
		}
		c := comps[0]
		if c.Err == nil || !strings.Contains(c.Err.Error(), "over the budget MaxBytes = ") {
			t.Fatalf("budget %g: error %v", budget, c.Err)
		}
		if _, err := c.Solve(context.Background()); err != c.Err {
			t.Errorf("budget %g: Solve returned %v", budget, err)
		}
	}
	// A time budget: below the estimate, the component is refused; below
	// three work units an entry of the best order, the search itself.
	for _, budget := range []time.Duration{full[0].Estimate() / 2, time.Duration(full[0].Entries * nsPerWork)} {
		comps, err := Plan(context.Background(), g, Options{MaxTime: budget})
		if err != nil {
			t.Fatal(err)
		}
		if c := comps[0]; c.Err == nil || !strings.Contains(c.Err.Error(), "MaxTime = "+budget.String()) {
			t.Errorf("MaxTime %v (estimate %v): error %v", budget, full[0].Estimate(), c.Err)
		}
	}
	if comps, _ := Plan(context.Background(), g, Options{MaxTime: 2 * full[0].Estimate()}); comps[0].Err != nil {
		t.Errorf("MaxTime twice the estimate: %v", comps[0].Err)
	}
	// A grid of 40 000 variables (width ~200) is refused after a few
	// thousand picks, not after a full greedy order.
	big, err := Plan(context.Background(), gridModel(t, 200, 200, 2, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if big[0].Err == nil {
		t.Error("a 200×200 grid planned")
	}
	t.Log(big[0].Err)
	for _, opt := range []Options{{MaxBytes: -1}, {MaxBytes: math.NaN()}, {MaxTime: -1}} {
		if _, err := Plan(context.Background(), g, opt); err == nil {
			t.Errorf("%+v accepted", opt)
		}
	}
	if _, err := Plan(context.Background(), nil, Options{}); err == nil {
		t.Error("nil graph accepted")
	}
}

// TestBytes: Bytes is what Solve allocates, within 20%: the Go heap's
// allocations during Solve, and the arena where it is mapped outside it.
func TestBytes(t *testing.T) {
	graphs := []*factorgraph.Graph{gridModel(t, 4, 4, 3, 1), gridModel(t, 12, 12, 2, 1), gridModel(t, 8, 8, 4, 1), starModel(1)}
	graphs = append(graphs, randomModels(20)...)
	for k, g := range graphs {
		comps, err := Plan(context.Background(), g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range comps {
			got, err := math.Inf(1), error(nil)
			for range 3 { // the least of three: other goroutines may allocate meanwhile
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err = c.Solve(context.Background())
				runtime.ReadMemStats(&after)
				got = min(got, float64(after.TotalAlloc-before.TotalAlloc))
			}
			if err != nil && !errors.Is(err, ErrNoMass) {
				t.Fatal(err)
			}
			if mapped(c.s.arena) {
				got += 8 * float64(c.s.arena)
			}
			if err == nil && (got > 1.2*c.Bytes || got < 0.8*c.Bytes) {
				t.Errorf("graph %d, %s: Solve allocated %g bytes, Bytes = %g", k, name(c.Vars), got, c.Bytes)
			}
		}
	}
}

// TestPlanContext: Plan stops when its context ends — a cancelled context
// plans nothing, a deadline stops the search of a large component soon
// after it passes — and the components left unplanned say why, their Err
// wrapping the context's error.
func TestPlanContext(t *testing.T) {
	g := gridModel(t, 200, 200, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	comps, err := Plan(ctx, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range comps {
		if !errors.Is(c.Err, context.Canceled) {
			t.Fatalf("cancelled: component of %d variables: Err %v, want context.Canceled", len(c.Vars), c.Err)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	comps, err = Plan(ctx, g, Options{MaxBytes: 1 << 40})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(comps[0].Err, context.DeadlineExceeded) {
		t.Fatalf("deadline: Err %v, want context.DeadlineExceeded", comps[0].Err)
	}
	if took > time.Second {
		t.Errorf("Plan returned %v after a deadline of 20 ms", took)
	}
	t.Logf("Plan returned after %v with a deadline of 20 ms", took)
	// A context that ends while a component's factors are gathered (2¹⁶
	// and more: seconds on a model of 5·10⁶) leaves it unplanned there,
	// and the scratch of local indices as it found it.
	comps2, facs := components(g)
	if len(facs[0]) <= ctxEvery {
		t.Fatalf("%d factors: too few to look at the context while gathering them", len(facs[0]))
	}
	local := make([]int32, g.NumVars())
	for i := range local {
		local[i] = -1
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	c := plan(cctx, g, comps2[0], facs[0], Options{MaxBytes: 1 << 40, Restarts: DefaultRestarts}, 0, local)
	if !errors.Is(c.Err, context.Canceled) || !strings.Contains(c.Err.Error(), "not planned") {
		t.Errorf("cancelled while gathering: Err %v, want context.Canceled, not planned", c.Err)
	}
	for i, l := range local {
		if l != -1 {
			t.Fatalf("cancelled while gathering: local[%d] = %d, want −1", i, l)
		}
	}
	for l, v := range comps2[0] {
		local[v] = int32(l)
	}
	if pots, err := groupFactors(cctx, g, facs[0], local, len(comps2[0])); !errors.Is(err, context.Canceled) || pots != nil {
		t.Errorf("groupFactors with a cancelled context: %d groups, %v; want none and context.Canceled", len(pots), err)
	}
}

// TestSolveBy: past its soft deadline SolveBy goes on while the rate of its
// work would end the rest by the hard one, and gives up with ErrLate (a
// context.DeadlineExceeded) once it would not; the work it counts ends at
// the work it planned, so that its rate is the solve's own. A variant that
// gives up at the soft deadline, whatever its progress, fails.
func TestSolveBy(t *testing.T) {
	g := gridModel(t, 15, 15, 2, 1)
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := comps[0]
	want, err := c.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The work counted in a solve is the work planned.
	var steps [2]int
	if _, err := c.solve(context.Background(), variant{steps: &steps}, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if steps[0] != steps[1] || steps[1] < 3*ticks {
		t.Fatalf("work done %d, planned %d (want equal, and several looks at the clock)", steps[0], steps[1])
	}
	// Past the soft deadline, with all the time it needs: it finishes, and
	// gives Solve's answer.
	past, later := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	for _, vr := range []variant{{}, {lateAtSoft: true}} {
		got, err := c.solve(context.Background(), vr, past, later)
		switch {
		case vr.lateAtSoft && err == nil:
			t.Error("the variant that gives up at the soft deadline finished: the test cannot see it")
		case vr.lateAtSoft:
		case err != nil:
			t.Fatalf("SolveBy past its soft deadline with an hour left: %v", err)
		case got.LogZ != want.LogZ || !slices.EqualFunc(got.Marginals, want.Marginals, slices.Equal):
			t.Error("SolveBy's answer differs from Solve's")
		}
	}
	// Both deadlines passed: ErrLate, a deadline error.
	if _, err := c.SolveBy(context.Background(), past, past); !errors.Is(err, ErrLate) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("SolveBy past both deadlines: %v, want ErrLate", err)
	}
	// The projection: a tenth of the work done in one second projects ten,
	// so a hard deadline 5 s after the start gives up and one 11 s after
	// goes on; before the soft deadline nothing is projected.
	start := time.Now()
	sv := &solver{start: start, soft: start, done: 1, total: 10}
	at := start.Add(time.Second)
	for _, tc := range []struct {
		soft, hard time.Duration
		late       bool
	}{{0, 5 * time.Second, true}, {0, 11 * time.Second, false}, {2 * time.Second, 5 * time.Second, false}, {0, 500 * time.Millisecond, true}} {
		sv.soft, sv.hard = start.Add(tc.soft), start.Add(tc.hard)
		if err := sv.late(at); (err != nil) != tc.late {
			t.Errorf("soft %v, hard %v, a tenth done at 1 s: late %v, want %v", tc.soft, tc.hard, err, tc.late)
		}
	}
}

// TestPlanSmallFirst: a deadline that ends the planning in a large
// component leaves the smaller ones after it planned: Plan takes the
// components smallest first (a grid of 40 000 variables, then a pair).
func TestPlanSmallFirst(t *testing.T) {
	const side = 200
	n := side * side
	b := factorgraph.NewBuilder()
	b.AddVariables(n+2, factorgraph.Discrete(2))
	pair := []float64{1, 0.5, 0.5, 1}
	for i := range n {
		if (i+1)%side != 0 {
			b.AddFactor(factorgraph.NewProbTable([]int{i, i + 1}, []int{2, 2}, pair))
		}
		if i+side < n {
			b.AddFactor(factorgraph.NewProbTable([]int{i, i + side}, []int{2, 2}, pair))
		}
	}
	b.AddFactor(factorgraph.NewProbTable([]int{n, n + 1}, []int{2, 2}, pair))
	g := build(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	comps, err := Plan(ctx, g, Options{MaxBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 2 || len(comps[0].Vars) != n || len(comps[1].Vars) != 2 {
		t.Fatalf("%d components", len(comps))
	}
	if !errors.Is(comps[0].Err, context.DeadlineExceeded) {
		t.Errorf("the grid: Err %v, want context.DeadlineExceeded", comps[0].Err)
	}
	if comps[1].Err != nil || comps[1].Order == nil {
		t.Errorf("the pair after it: Err %v, order %v; want it planned", comps[1].Err, comps[1].Order)
	}
}
