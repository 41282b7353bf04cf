package factorgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// queens is the n-queens problem: variable r is the column of the queen of
// row r; a hard pair factor per pair of rows forbids shared columns and
// diagonals, a soft unary factor per row keeps the graph non-trivial.
func queens(t *testing.T, n int) *Graph {
	t.Helper()
	b := NewBuilder()
	b.AddVariables(n, Discrete(n))
	for r1 := range n {
		b.AddFactor(NewTable([]int{r1}, []int{n}, make([]float64, n)))
		for r2 := r1 + 1; r2 < n; r2++ {
			vals := make([]float64, n*n)
			for c1 := range n {
				for c2 := range n {
					if c1 == c2 || c1-c2 == r1-r2 || c1-c2 == r2-r1 {
						vals[c1*n+c2] = math.Inf(-1)
					}
				}
			}
			b.AddFactor(NewTable([]int{r1, r2}, []int{n, n}, vals))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// logProb returns Σ_φ φ(x).
func logProb(g *Graph, x []float64) float64 {
	s := 0.0
	for f := range g.NumFactors() {
		s += g.Factor(f).Value(x)
	}
	return s
}

func TestFeasibleStateQueens(t *testing.T) {
	g := queens(t, 8)
	seen := map[[8]float64]bool{}
	for seed := range uint64(5) {
		x, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 1)), 0)
		if err != nil {
			t.Fatal(err)
		}
		if lp := logProb(g, x); math.IsInf(lp, -1) {
			t.Fatalf("seed %d: state %v has zero probability", seed, x)
		}
		seen[[8]float64(x)] = true
	}
	if len(seen) < 2 {
		t.Errorf("5 seeds gave %d distinct starting states; the search should randomise", len(seen))
	}
	// 3 queens cannot be placed on a 3×3 board.
	if _, err := queens(t, 3).FeasibleState(context.Background(), rand.New(rand.NewPCG(1, 1)), 0); !errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("3 queens: %v, want ErrNoFeasibleState", err)
	}
	// A tiny node budget gives up with a clear error.
	if _, err := queens(t, 12).FeasibleState(context.Background(), rand.New(rand.NewPCG(1, 1)), 3); err == nil || errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("budget of 3 nodes: %v, want a give-up error", err)
	}
}

func TestFeasibleStateEvidence(t *testing.T) {
	// x0 = x1 is required; evidence x0 = 1 forces x1 = 1; evidence x1 = 0
	// as well contradicts it.
	eq := NewProbTable([]int{0, 1}, []int{2, 2}, []float64{1, 0, 0, 1})
	b := NewBuilder()
	b.AddVariables(3, Discrete(2))
	b.AddFactor(eq)
	b.Observe(0, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(1, 1)), 0)
	if err != nil || x[0] != 1 || x[1] != 1 {
		t.Errorf("FeasibleState = %v, %v; want x0 = x1 = 1", x, err)
	}
	b.Observe(1, 0)
	g, err = b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(1, 1)), 0); !errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("contradictory evidence: %v, want ErrNoFeasibleState", err)
	}
}

// TestFeasibleStateGiven: variables held at given values are honoured,
// contradictions are proven, and bad givens are errors.
func TestFeasibleStateGiven(t *testing.T) {
	eq := NewProbTable([]int{0, 1}, []int{2, 2}, []float64{1, 0, 0, 1})
	b := NewBuilder()
	b.AddVariables(3, Discrete(2))
	b.AddFactor(eq)
	b.Observe(2, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for v := range 2 {
		x, err := g.FeasibleStateGiven(context.Background(), r, 0, map[int]float64{1: float64(v)})
		if err != nil || x[0] != float64(v) || x[1] != float64(v) || x[2] != 1 {
			t.Errorf("given x1 = %d: %v, %v; want x0 = x1 = %d, x2 = 1", v, x, err, v)
		}
	}
	if _, err := g.FeasibleStateGiven(context.Background(), r, 0, map[int]float64{0: 0, 1: 1}); !errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("given x0 ≠ x1: %v, want ErrNoFeasibleState", err)
	}
	for _, given := range []map[int]float64{{2: 0}, {0: 2}, {3: 0}, {-1: 0}} {
		if _, err := g.FeasibleStateGiven(context.Background(), r, 0, given); err == nil || errors.Is(err, ErrNoFeasibleState) {
			t.Errorf("given %v: %v, want an error about the given value", given, err)
		}
	}
}

// hardFunc is a hard factor over vars allowing the states where ok holds.
func hardFunc(vars []int, ok func(x []float64) bool) *Func {
	return NewFunc(vars, 0, math.Inf(1), func(x []float64) float64 {
		if ok(x) {
			return 0
		}
		return math.Inf(-1)
	})
}

// pigeons puts p pigeons (variables) in h holes (values), no two in one.
func pigeons(t *testing.T, p, h int) *Graph {
	t.Helper()
	b := NewBuilder()
	b.AddVariables(p, Discrete(h))
	for i := range p {
		for j := i + 1; j < p; j++ {
			b.AddFactor(hardFunc([]int{i, j}, func(x []float64) bool { return x[i] != x[j] }))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFeasibleStateProofs: infeasibility is proved by arc consistency
// before any node, or by a search that runs to its end, and never claimed
// when the budget cuts the search short.
func TestFeasibleStateProofs(t *testing.T) {
	ctx := context.Background()
	// x2 = 2 by the ternary factor, x2 ≠ 2 by the pair: forward checking
	// sees nothing before an assignment, generalised arc consistency
	// empties x2's domain at the root, with no node searched.
	b := NewBuilder()
	b.AddVariables(2, Discrete(2))
	b.AddVariable(Discrete(3))
	b.AddVariables(30, Discrete(2)) // a search tree of 2³⁰ leaves for a blind search
	b.AddFactor(hardFunc([]int{0, 1, 2}, func(x []float64) bool { return x[2] == 2 }))
	b.AddFactor(hardFunc([]int{1, 2}, func(x []float64) bool { return x[2] != 2 }))
	for i := 3; i < 33; i++ {
		b.AddFactor(hardFunc([]int{i - 1, i}, func(x []float64) bool { return x[i-1] != x[i] || i == 3 }))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.FeasibleState(ctx, rand.New(rand.NewPCG(1, 1)), 1); !errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("contradiction at the root, 1 node: %v, want ErrNoFeasibleState", err)
	}
	// p pigeons in p − 1 holes: arc consistency on x ≠ y prunes nothing
	// at the root; a run must search its whole tree within its failure
	// limit (5 pigeons: the first run, about 40 nodes; 6: after restarts,
	// about 400 nodes).
	for p := 5; p <= 6; p++ {
		if _, err := pigeons(t, p, p-1).FeasibleState(ctx, rand.New(rand.NewPCG(1, 1)), 0); !errors.Is(err, ErrNoFeasibleState) {
			t.Errorf("%d pigeons, %d holes: %v, want ErrNoFeasibleState", p, p-1, err)
		}
	}
	// Eight pigeons in seven holes take more than 200 nodes to refute:
	// the restarts cut runs short, which proves nothing.
	for seed := range uint64(4) {
		_, err := pigeons(t, 8, 7).FeasibleState(ctx, rand.New(rand.NewPCG(seed, 1)), 200)
		if err == nil || errors.Is(err, ErrNoFeasibleState) {
			t.Errorf("8 pigeons, 7 holes, 200 nodes, seed %d: %v, want a give-up error", seed, err)
		}
	}
}

// TestFeasibleStateSeed: the same seed gives the same state, bit for bit.
func TestFeasibleStateSeed(t *testing.T) {
	g := queens(t, 20)
	for seed := range uint64(3) {
		x, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 7)), 0)
		if err != nil {
			t.Fatal(err)
		}
		y, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 7)), 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("seed %d: two searches gave %v and %v", seed, x, y)
			}
		}
		if lp := logProb(g, x); math.IsInf(lp, -1) {
			t.Fatalf("seed %d: 20 queens %v has zero probability", seed, x)
		}
	}
}

// TestFeasibleStateLarge: a hard factor too large to tabulate is revised
// by enumeration once its domains are small, and checked forward before.
func TestFeasibleStateLarge(t *testing.T) {
	b := NewBuilder()
	b.AddVariables(4, Discrete(60)) // 60³ > gacMaxTuples
	b.AddFactor(hardFunc([]int{0, 1, 2}, func(x []float64) bool { return x[0]+x[1]+x[2] == 3*59 }))
	b.AddFactor(hardFunc([]int{2, 3}, func(x []float64) bool { return x[3] == 59-x[2] }))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(3) {
		x, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 1)), 0)
		if err != nil || x[0] != 59 || x[1] != 59 || x[2] != 59 || x[3] != 0 {
			t.Errorf("seed %d: %v, %v; want 59 59 59 0", seed, x, err)
		}
	}
}

// TestFeasibleStateContinuous: hard factors over continuous variables are
// checked for each run's draw, and a failure there proves nothing.
func TestFeasibleStateContinuous(t *testing.T) {
	b := NewBuilder()
	b.AddVariable(Interval(0, 1))
	b.AddVariables(2, Discrete(2))
	b.AddFactor(hardFunc([]int{0, 1}, func(x []float64) bool { return (x[0] < 0.5) == (x[1] == 1) }))
	b.AddFactor(hardFunc([]int{1, 2}, func(x []float64) bool { return x[1] != x[2] }))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(4) {
		x, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 1)), 0)
		if err != nil || math.IsInf(logProb(g, x), -1) {
			t.Errorf("seed %d: %v, %v; want a state of positive probability", seed, x, err)
		}
	}
	// x0 < 0.001 is rarely drawn; x0 > 2 never.
	b.AddFactor(hardFunc([]int{0}, func(x []float64) bool { return x[0] > 2 }))
	if g, err = b.Build(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(1, 1)), 1000); err == nil || errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("continuous variable out of reach: %v, want a give-up error", err)
	}
}

// TestFeasibleStateCancel: a cancelled context stops the search.
func TestFeasibleStateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pigeons(t, 10, 9).FeasibleState(ctx, rand.New(rand.NewPCG(1, 1)), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestLuby(t *testing.T) {
	want := []int{1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1}
	for k, w := range want {
		if got := luby(k + 1); got != w {
			t.Errorf("luby(%d) = %d, want %d", k+1, got, w)
		}
	}
}

// TestArcConsistentDomains: the root propagation removes the values no
// state of positive probability has — through a chain of equalities from
// the evidence — and keeps the others; contradictory evidence is
// ErrNoFeasibleState.
func TestArcConsistentDomains(t *testing.T) {
	eq := func(i, j int) Factor {
		return NewProbTable([]int{i, j}, []int{3, 3}, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	}
	b := NewBuilder()
	b.AddVariables(4, Discrete(3))
	b.AddFactor(eq(0, 1))
	b.AddFactor(eq(1, 2))
	b.Observe(0, 2)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	doms, err := g.ArcConsistentDomains(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := [][]bool{nil, {false, false, true}, {false, false, true}, {true, true, true}}
	for i := range want {
		if fmt.Sprint(doms[i]) != fmt.Sprint(want[i]) {
			t.Errorf("variable %d: %v, want %v", i, doms[i], want[i])
		}
	}
	b.Observe(2, 0)
	if g, err = b.Build(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ArcConsistentDomains(context.Background()); !errors.Is(err, ErrNoFeasibleState) {
		t.Errorf("contradictory evidence: %v, want ErrNoFeasibleState", err)
	}
}
