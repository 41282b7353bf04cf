package gibbstest

import (
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// LinkModel is a model of n variables with d values, the hard factors
// hard adds, and a weak soft pair on each consecutive pair (so that π is
// not uniform).
func LinkModel(t testing.TB, n, d int, hard func(b *factorgraph.Builder)) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(d))
	for i := 0; i+1 < n; i++ {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 0.3+0.1*float64(i)))
	}
	hard(b)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Relation is a hard factor over scope (domain size d each) that allows
// the assignments ok accepts.
func Relation(scope []int, d int, ok func(v []int) bool) factorgraph.Factor {
	sizes, vals := Cube(len(scope), d)
	v := make([]int, len(scope))
	for e := range vals {
		for k, rest := len(scope)-1, e; k >= 0; k-- {
			v[k], rest = rest%d, rest/d
		}
		if !ok(v) {
			vals[e] = math.Inf(-1)
		}
	}
	return factorgraph.NewTable(scope, sizes, vals)
}

// Cube returns the sizes of a table over k variables of d values each, and
// its d^k entries (zero).
func Cube(k, d int) ([]int, []float64) {
	sizes := make([]int, k)
	total := 1
	for j := range sizes {
		sizes[j] = d
		total *= d
	}
	return sizes, make([]float64, total)
}

// Equal accepts the assignments of two variables that agree.
func Equal(v []int) bool { return v[0] == v[1] }
