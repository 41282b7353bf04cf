package factorgraph

import (
	"context"
	"errors"
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
