package bp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// randomForest returns a random factor graph whose factor graph is a
// forest: variables of 1–4 values, pair and triple tables each joining a
// new variable or two to the tree built so far, unary fields, a few hard
// zeros and a few observed variables (which cut the tree further).
func randomForest(r *rand.Rand, n int) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = 1 + r.IntN(4)
		b.AddVariable(factorgraph.Discrete(sizes[i]))
	}
	table := func(scope []int) {
		sz := make([]int, len(scope))
		e := 1
		for k, v := range scope {
			sz[k] = sizes[v]
			e *= sz[k]
		}
		vals := make([]float64, e)
		for k := range vals {
			vals[k] = 1.5 * r.NormFloat64()
			if r.IntN(8) == 0 && k > 0 {
				vals[k] = math.Inf(-1) // a hard zero (never the first entry: no empty factor)
			}
		}
		b.AddFactor(factorgraph.NewTable(scope, sz, vals))
	}
	for i := 1; i < n; i++ {
		if r.IntN(5) == 0 {
			continue // a new tree
		}
		p := r.IntN(i)
		if i+1 < n && r.IntN(3) == 0 {
			table([]int{p, i, i + 1})
			i++
			continue
		}
		table([]int{i, p})
	}
	for i := range n {
		if r.IntN(3) == 0 {
			table([]int{i})
		}
	}
	for i := range n {
		if r.IntN(10) == 0 {
			b.Observe(i, 0)
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// exact returns g's exact marginals by elimination (nil, false if the
// evidence has probability zero).
func exact(t *testing.T, g *factorgraph.Graph) ([][]float64, bool) {
	t.Helper()
	comps, err := elim.Plan(context.Background(), g, elim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, g.NumVars())
	for _, c := range comps {
		res, err := c.Solve(context.Background())
		if errors.Is(err, elim.ErrNoMass) {
			return nil, false
		}
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range res.Vars {
			out[v] = res.Marginals[k]
		}
	}
	return out, true
}

// On a forest the beliefs are the exact marginals; the broken variant (a
// variable's message to a factor includes that factor's own message) is
// not.
func TestForestExact(t *testing.T) {
	for _, c := range []struct {
		schedule Schedule
		broken   bool
	}{{Sequential, false}, {Sequential, true}, {Residual, false}, {Residual, true}} {
		broken := c.broken
		brokenCavity = broken
		worst, solved := 0.0, 0
		for seed := range uint64(200) {
			g := randomForest(rand.New(rand.NewPCG(seed, 7)), 2+int(seed%30))
			want, ok := exact(t, g)
			res, err := Run(context.Background(), g, Options{Schedule: c.schedule})
			if !ok {
				if err == nil && !broken {
					t.Errorf("seed %d: evidence of probability zero, and no error", seed)
				}
				continue
			}
			if err != nil {
				if !broken {
					t.Fatalf("seed %d: %v", seed, err)
				}
				continue
			}
			if !res.Converged && !broken {
				t.Errorf("seed %d: not converged on a forest (residual %g after %d)", seed, res.Residual, res.Iterations)
			}
			solved++
			for _, i := range g.Free() {
				for v := range want[i] {
					worst = max(worst, math.Abs(res.Beliefs[i][v]-want[i][v]))
				}
			}
		}
		switch {
		case !broken && worst > 1e-9:
			t.Errorf("largest error of a belief on forests %g, want ≤ 1e-9", worst)
		case broken && worst < 1e-3:
			t.Errorf("broken variant: largest error %g on %d forests, want it caught", worst, solved)
		}
		t.Logf("schedule %d, broken %v: %d forests, largest error %.3g", c.schedule, broken, solved, worst)
	}
	brokenCavity = false
}

// On a loop the beliefs converge to a fixed point of the messages (a run
// to a far smaller tolerance moves them by little) but not to the
// marginals: a frustrated triangle.
func TestLoopFixedPoint(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	for _, p := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
		b.AddFactor(factorgraph.NewTable([]int{p[0], p[1]}, []int{2, 2}, []float64{0, 1, 1, 0}))
	}
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0.3, 0}))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), g, Options{})
	if err != nil || !res.Converged {
		t.Fatalf("%v, %+v", err, res)
	}
	again, err := Run(context.Background(), g, Options{Tol: 1e-15})
	if err != nil {
		t.Fatal(err)
	}
	resid, err := Run(context.Background(), g, Options{Schedule: Residual})
	if err != nil || !resid.Converged {
		t.Fatalf("residual schedule: %v, %+v", err, resid)
	}
	want, _ := exact(t, g)
	diff, off := 0.0, 0.0
	for i := range 3 {
		diff = max(diff, math.Abs(again.Beliefs[i][1]-res.Beliefs[i][1]), math.Abs(resid.Beliefs[i][1]-res.Beliefs[i][1]))
		off = max(off, math.Abs(res.Beliefs[i][1]-want[i][1]))
	}
	if diff > 1e-7 {
		t.Errorf("a run to a smaller tolerance moved a belief by %g", diff)
	}
	if off < 1e-3 {
		t.Errorf("beliefs on a frustrated loop within %g of the marginals: the test's loop shows nothing", off)
	}
}

func TestRunErrors(t *testing.T) {
	cont := factorgraph.NewBuilder()
	cont.AddVariable(factorgraph.Interval(0, 1))
	gc, err := cont.Build()
	if err != nil {
		t.Fatal(err)
	}
	wide := factorgraph.NewBuilder()
	wide.AddVariables(3, factorgraph.Discrete(10))
	wide.AddFactor(factorgraph.NewTable([]int{0, 1, 2}, []int{10, 10, 10}, make([]float64, 1000)))
	gw, err := wide.Build()
	if err != nil {
		t.Fatal(err)
	}
	zero := factorgraph.NewBuilder()
	zero.AddVariables(2, factorgraph.Discrete(2))
	inf := math.Inf(-1)
	zero.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{2, 2}, []float64{0, inf, inf, inf}))
	zero.Observe(0, 1)
	gz, err := zero.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *factorgraph.Graph
		opt  Options
		want string
	}{
		{"nil", nil, Options{}, "nil graph"},
		{"continuous", gc, Options{}, "continuous"},
		{"wide", gw, Options{MaxEntries: 100}, "more than 100 entries"},
		{"part of a component", gw, Options{Vars: []int{0}}, "whole components"},
		{"observed", gz, Options{Vars: []int{0}}, "observed"},
		{"out of range", gz, Options{Vars: []int{5}}, "out of range"},
		{"no mass", gz, Options{}, "no value of positive mass"},
		{"tolerance", gz, Options{Tol: -1}, "Tol"},
		{"schedule", gz, Options{Schedule: Residual + 1}, "unknown Schedule"},
	} {
		_, err := Run(context.Background(), c.g, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, gw, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
