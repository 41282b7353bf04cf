package elim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// randomModel builds a random factor graph of 3–8 discrete variables with
// domains of 2–4 values: unary, pair and triple tables (a third of them
// with zeros, −Inf entries), equality and inequality constraints, Potts
// pairs, user factors (factorgraph.Func) and evidence; most have several components, many a variable no factor
// reads. It returns nil for a seed whose graph Build refuses.
func randomModel(seed uint64) *factorgraph.Graph {
	r := rand.New(rand.NewPCG(seed, 99))
	n := 3 + r.IntN(6)
	b := factorgraph.NewBuilder()
	sizes := make([]int, n)
	for i := range n {
		sizes[i] = 2 + r.IntN(3)
		b.AddVariable(factorgraph.Discrete(sizes[i]))
	}
	for range r.IntN(2 * n) {
		switch kind := r.IntN(10); {
		case kind < 1: // a constraint x_a = x_b or x_a ≠ x_b (domains cut to the smaller)
			s := r.Perm(n)[:2]
			eq := r.IntN(2) == 0
			vals := make([]float64, sizes[s[0]]*sizes[s[1]])
			for a := range sizes[s[0]] {
				for c := range sizes[s[1]] {
					if (a == c) != eq {
						vals[a*sizes[s[1]]+c] = math.Inf(-1)
					}
				}
			}
			b.AddFactor(factorgraph.NewTable(s, []int{sizes[s[0]], sizes[s[1]]}, vals))
		case kind < 6: // a table of arity 1–3
			scope := r.Perm(n)[:1+r.IntN(min(3, n))]
			sz := make([]int, len(scope))
			e := 1
			for k, v := range scope {
				sz[k] = sizes[v]
				e *= sizes[v]
			}
			vals := make([]float64, e)
			scale := []float64{0.3, 2, 8}[r.IntN(3)]
			hard := r.IntN(3) == 0
			for k := range vals {
				vals[k] = scale * r.NormFloat64()
				if hard && r.IntN(3) == 0 {
					vals[k] = math.Inf(-1)
				}
			}
			vals[r.IntN(e)] = 0.5 // a finite entry at least
			b.AddFactor(factorgraph.NewTable(scope, sz, vals))
		case kind < 9:
			s := r.Perm(n)[:2]
			b.AddFactor(factorgraph.NewPotts(s[0], s[1], 3*r.NormFloat64()))
		default: // a user factor of two variables, with no fast path
			s := r.Perm(n)[:2]
			w := r.NormFloat64()
			b.AddFactor(factorgraph.NewFunc(s, -math.Abs(w), math.Abs(w), func(x []float64) float64 {
				return w * math.Sin(x[s[0]]+2*x[s[1]])
			}))
		}
	}
	for i := range n {
		if r.IntN(5) == 0 {
			b.Observe(i, float64(r.IntN(sizes[i])))
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil
	}
	return g
}

// enumerate returns the marginals of vars (discrete, free) under
// exp(Σ of the factors facs), the other variables at their evidence, and
// the log of the sum of that weight over the assignments of vars (−Inf if
// it is zero, marginals nil), by visiting every assignment. Weights are
// summed max-subtracted, so the answer is exact however wide the range of
// the log weights.
func enumerate(g *factorgraph.Graph, vars, facs []int) ([][]float64, float64) {
	x := make([]float64, g.NumVars())
	for i := range x {
		x[i], _ = g.Observed(i)
	}
	var logw []float64
	var states [][]int
	cur := make([]int, len(vars))
	var walk func(k int)
	walk = func(k int) {
		if k == len(vars) {
			w := 0.0
			for _, f := range facs {
				w += g.Factor(f).Value(x)
			}
			logw = append(logw, w)
			states = append(states, slices.Clone(cur))
			return
		}
		for a := range g.Domain(vars[k]).Size {
			x[vars[k]], cur[k] = float64(a), a
			walk(k + 1)
		}
	}
	walk(0)
	mx := slices.Max(logw)
	if math.IsInf(mx, -1) {
		return nil, mx
	}
	marg := make([][]float64, len(vars))
	for k, v := range vars {
		marg[k] = make([]float64, g.Domain(v).Size)
	}
	z := 0.0
	for s, lw := range logw {
		w := math.Exp(lw - mx)
		z += w
		for k, a := range states[s] {
			marg[k][a] += w
		}
	}
	for _, m := range marg {
		for a := range m {
			m[a] /= z
		}
	}
	return marg, mx + math.Log(z)
}

// touching returns the factors of g that read a variable of vars.
func touching(g *factorgraph.Graph, vars []int) []int {
	var facs []int
	for f := range g.NumFactors() {
		if slices.ContainsFunc(g.Factor(f).Vars(), func(v int) bool { return slices.Contains(vars, v) }) {
			facs = append(facs, f)
		}
	}
	return facs
}

// checkPlan checks a plan of g against the definitions: the components
// partition the free variables, no factor reads two of them, each order is
// a permutation of its component with the statistics Simulate gives.
func checkPlan(t *testing.T, g *factorgraph.Graph, comps []*Component) {
	t.Helper()
	var all []int
	compOf := map[int]int{}
	for k, c := range comps {
		if !slices.IsSorted(c.Vars) || len(c.Vars) == 0 {
			t.Fatalf("component %d: variables %v not ascending and non-empty", k, c.Vars)
		}
		if k > 0 && comps[k-1].Vars[0] >= c.Vars[0] {
			t.Fatalf("components not ordered by their smallest variable: %v before %v", comps[k-1].Vars, c.Vars)
		}
		for _, v := range c.Vars {
			compOf[v] = k
		}
		all = append(all, c.Vars...)
		if c.Err != nil {
			continue
		}
		if !slices.Equal(slices.Sorted(slices.Values(c.Order)), c.Vars) {
			t.Fatalf("component %d: order %v is not a permutation of %v", k, c.Order, c.Vars)
		}
		if c.Bytes <= 0 || c.Work <= 0 || c.Estimate() <= 0 {
			t.Fatalf("component %d: Bytes %v, Work %v, Estimate %v", k, c.Bytes, c.Work, c.Estimate())
		}
		local := map[int]int32{}
		for l, v := range c.Vars {
			local[v] = int32(l)
		}
		adj := make([][]int32, len(c.Vars))
		size := make([]int32, len(c.Vars))
		for l, v := range c.Vars {
			size[l] = int32(g.Domain(v).Size)
		}
		for _, f := range touching(g, c.Vars) {
			for _, a := range g.Factor(f).Vars() {
				for _, b := range g.Factor(f).Vars() {
					la, oka := local[a]
					lb, okb := local[b]
					if a != b && oka && okb {
						adj[la] = append(adj[la], lb)
					}
				}
			}
		}
		order := make([]int32, len(c.Order))
		for i, v := range c.Order {
			order[i] = local[v]
		}
		st, _ := Simulate(adj, size, order, Unbounded)
		if st != (Stats{Width: c.Width, MaxTable: c.MaxTable, Entries: c.Entries}) {
			t.Fatalf("component %d: plan says %+v, Simulate %+v", k, Stats{c.Width, c.MaxTable, c.Entries}, st)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(all)), g.Free()) {
		t.Fatalf("components hold %v, the free variables are %v", all, g.Free())
	}
	for f := range g.NumFactors() {
		k := -1
		for _, v := range g.Factor(f).Vars() {
			if c, ok := compOf[v]; ok {
				if k >= 0 && c != k {
					t.Fatalf("factor %d reads components %d and %d", f, k, c)
				}
				k = c
			}
		}
	}
}

// check solves every component of g by vr and compares its marginals and
// log Z with enumeration; it returns the largest difference (+Inf where
// Solve failed but enumeration found mass, or the reverse) and where.
func check(t *testing.T, g *factorgraph.Graph, vr variant) (float64, string) {
	t.Helper()
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, g, comps)
	worst, where := 0.0, ""
	for _, c := range comps {
		want, wantZ := enumerate(g, c.Vars, touching(g, c.Vars))
		res, err := c.solve(context.Background(), vr, time.Time{}, time.Time{})
		if want == nil {
			if !errors.Is(err, ErrNoMass) {
				return math.Inf(1), fmt.Sprintf("%s: no mass, Solve returned %v", name(c.Vars), err)
			}
			continue
		}
		if err != nil {
			return math.Inf(1), fmt.Sprintf("%s: %v", name(c.Vars), err)
		}
		if !slices.Equal(res.Vars, c.Vars) {
			t.Fatalf("result for %v, component %v", res.Vars, c.Vars)
		}
		for k, v := range c.Vars {
			for a := range want[k] {
				d := math.Abs(res.Marginals[k][a] - want[k][a])
				if math.IsNaN(d) {
					d = math.Inf(1)
				}
				if d > worst {
					worst, where = d, fmt.Sprintf("variable %d: %v, enumeration %v", v, res.Marginals[k], want[k])
				}
			}
		}
		if d := math.Abs(res.LogZ-wantZ) / max(1, math.Abs(wantZ)); !(d <= worst) {
			worst, where = d, fmt.Sprintf("%s: log Z %v, enumeration %v", name(c.Vars), res.LogZ, wantZ)
		}
	}
	return worst, where
}

// mustPlan plans g with the default options or fails t.
func mustPlan(t *testing.T, g *factorgraph.Graph) []*Component {
	t.Helper()
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return comps
}

// randomModels returns the first n graphs randomModel builds.
func randomModels(n int) []*factorgraph.Graph {
	var gs []*factorgraph.Graph
	for seed := uint64(1); len(gs) < n; seed++ {
		if g := randomModel(seed); g != nil {
			gs = append(gs, g)
		}
	}
	return gs
}

// TestExactRandom: on 60 random graphs every component's marginals and log
// Z agree with enumeration to 1e-9 (components with no state of positive
// probability: ErrNoMass), and the plans agree with their definitions.
func TestExactRandom(t *testing.T) {
	comps, noMass, userFactors, hard, clamped := 0, 0, 0, 0, 0
	for k, g := range randomModels(60) {
		if d, where := check(t, g, variant{}); d > 1e-9 {
			t.Errorf("graph %d: differs from enumeration by %g (%s)", k, d, where)
		}
		// log Z of the whole graph: the components' and the factors
		// reading observed variables only.
		all := make([]int, g.NumFactors())
		for f := range all {
			all[f] = f
		}
		if _, wantZ := enumerate(g, g.Free(), all); !math.IsInf(wantZ, -1) {
			logZ := ClampedLogPotential(g)
			if logZ != 0 {
				clamped++
			}
			for _, c := range mustPlan(t, g) {
				res, err := c.Solve(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				logZ += res.LogZ
			}
			if math.Abs(logZ-wantZ) > 1e-9*max(1, math.Abs(wantZ)) {
				t.Errorf("graph %d: log Z = %v, enumeration %v", k, logZ, wantZ)
			}
		}
		cs, _ := Plan(context.Background(), g, Options{})
		comps += len(cs)
		for _, c := range cs {
			if m, _ := enumerate(g, c.Vars, touching(g, c.Vars)); m == nil {
				noMass++
			}
		}
		for f := range g.NumFactors() {
			if _, ok := g.Factor(f).(*factorgraph.Func); ok {
				userFactors++
			}
			if _, hi := g.FactorRange(f); math.IsInf(hi, 1) {
				hard++
			}
		}
	}
	if comps < 100 || noMass == 0 || userFactors == 0 || hard < 20 || clamped == 0 {
		t.Errorf("the graphs lack variety: %d components, %d with no mass, %d user factors, %d hard factors, %d with factors of observed variables only",
			comps, noMass, userFactors, hard, clamped)
	}
	t.Logf("60 graphs: %d components, %d with no mass, %d user factors, %d hard factors, %d with factors of observed variables only",
		comps, noMass, userFactors, hard, clamped)
}

// TestBrokenPasses: the enumeration check of TestExactRandom rejects
// deliberately broken downward passes — marginals of the upward pass only
// (no separator marginal weighs a bucket), and children sent the parent's
// conditional instead of its marginal.
func TestBrokenPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		vr   variant
	}{
		{"upward only", variant{upwardOnly: true}},
		{"conditional to the children", variant{scatterFirst: true}},
	} {
		rejected := 0
		gs := randomModels(60)
		for _, g := range gs {
			if d, _ := check(t, g, tc.vr); d > 1e-6 {
				rejected++
			}
		}
		if rejected < 10 {
			t.Errorf("%s: rejected on %d of %d graphs only", tc.name, rejected, len(gs))
		}
		t.Logf("%s: rejected on %d of %d graphs", tc.name, rejected, len(gs))
	}
}

// TestPlanDeterministic: planning twice gives the same orders, also with
// the randomised restarts.
func TestPlanDeterministic(t *testing.T) {
	g := gridModel(t, 9, 9, 3, 1)
	a, err := Plan(context.Background(), g, Options{Restarts: 64})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Plan(context.Background(), g, Options{Restarts: 64})
	for k := range a {
		if !slices.Equal(a[k].Order, b[k].Order) {
			t.Fatalf("component %d: orders %v and %v", k, a[k].Order, b[k].Order)
		}
	}
}

// gridModel returns a rows×cols grid of variables of d values with random
// pair tables (log-potentials of standard deviation sd) and unary fields.
func gridModel(t testing.TB, rows, cols, d int, sd float64) *factorgraph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(rows*1000+cols), uint64(d)))
	b := factorgraph.NewBuilder()
	b.AddVariables(rows*cols, factorgraph.Discrete(d))
	table := func(scope ...int) {
		sizes := make([]int, len(scope))
		e := 1
		for k := range scope {
			sizes[k] = d
			e *= d
		}
		vals := make([]float64, e)
		for k := range vals {
			vals[k] = sd * r.NormFloat64()
		}
		b.AddFactor(factorgraph.NewTable(scope, sizes, vals))
	}
	for i := range rows {
		for j := range cols {
			v := i*cols + j
			table(v)
			if j+1 < cols {
				table(v, v+1)
			}
			if i+1 < rows {
				table(v, v+cols)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRestartsHelp: the randomised restarts never make the plan worse and,
// on a grid where min-fill ties abound, find fewer entries.
func TestRestartsHelp(t *testing.T) {
	g := gridModel(t, 12, 12, 2, 1)
	none, err := Plan(context.Background(), g, Options{Restarts: -1})
	if err != nil {
		t.Fatal(err)
	}
	some, _ := Plan(context.Background(), g, Options{Restarts: 64})
	if some[0].Entries > none[0].Entries {
		t.Errorf("restarts: %g entries, without %g", some[0].Entries, none[0].Entries)
	}
	t.Logf("12×12 grid: %g entries (width %d) without restarts, %g (width %d) with 64", none[0].Entries, none[0].Width, some[0].Entries, some[0].Width)
}

// TestConcurrentSolve: one component solved from several goroutines at
// once gives the same answer each time (run with -race).
func TestConcurrentSolve(t *testing.T) {
	g := gridModel(t, 6, 6, 3, 1)
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := comps[0].Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			res, err := comps[0].Solve(context.Background())
			if err == nil && (res.LogZ != want.LogZ || !slices.Equal(res.Marginals[7], want.Marginals[7])) {
				err = fmt.Errorf("log Z %v, marginal %v; first solve %v, %v", res.LogZ, res.Marginals[7], want.LogZ, want.Marginals[7])
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
