package gibbstest

import (
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// DenseWeak is a complete graph of n binary variables with a Potts pair of
// weight w between every two and a field h on each.
func DenseWeak(t testing.TB, n int, w, h float64) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	for i := range n {
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{0, h}))
		for j := i + 1; j < n; j++ {
			b.AddFactor(factorgraph.NewPotts(i, j, w))
		}
	}
	return Build(t, b)
}
