package gibbstest

import (
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/potts"
)

// PottsChain is a chain of n binary variables with Potts pairs of weight w
// between neighbours and a field h on every variable (h·x_i).
func PottsChain(t testing.TB, n int, w, h float64) *factorgraph.Graph {
	return binaryPotts(t, n, w, h, func(i, j int) bool { return j == i+1 })
}

// DenseWeak is a complete graph of n binary variables with a Potts pair of
// weight w between every two and a field h on each.
func DenseWeak(t testing.TB, n int, w, h float64) *factorgraph.Graph {
	return binaryPotts(t, n, w, h, func(i, j int) bool { return true })
}

// binaryPotts is n binary variables, each with a field h and, after it, a
// Potts pair of weight w to every later variable j that linked(i, j) says.
func binaryPotts(t testing.TB, n int, w, h float64, linked func(i, j int) bool) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	for i := range n {
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{0, h}))
		for j := i + 1; j < n; j++ {
			if linked(i, j) {
				b.AddFactor(factorgraph.NewPotts(i, j, w))
			}
		}
	}
	return Build(t, b)
}

// GridPotts is a side×side grid of binary Potts pairs of weight w.
func GridPotts(t testing.TB, side int, w float64) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(side*side, factorgraph.Discrete(2))
	for r := range side {
		for c := range side {
			i := r*side + c
			if c+1 < side {
				b.AddFactor(factorgraph.NewPotts(i, i+1, w))
			}
			if r+1 < side {
				b.AddFactor(factorgraph.NewPotts(i, i+side, w))
			}
		}
	}
	return Build(t, b)
}

// SmallPotts is the 4×4 three-state Gaussian-kernel Potts model (β = 1,
// γ = 0.5) of package potts.
func SmallPotts(t testing.TB) *factorgraph.Graph {
	t.Helper()
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Build builds b, failing t on an error.
func Build(t testing.TB, b *factorgraph.Builder) *factorgraph.Graph {
	t.Helper()
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
