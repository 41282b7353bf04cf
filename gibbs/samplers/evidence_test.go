package samplers

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// TestZeroEvidenceRefused: every sampler refuses a model whose evidence has
// probability zero at a factor whose variables are all observed (issue
// 32's model: x0 observed at 1, its own table zero there), with or
// without an initial state, naming the factor and wrapping elim.ErrNoMass.
// (The factor is in A[0] of the observed variable: without the check of
// the evidence, the search for an initial state, or the check of the one
// given, would refuse the model too, but without naming the evidence.)
func TestZeroEvidenceRefused(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, math.Inf(-1)}))
	b.AddFactor(factorgraph.NewTable([]int{1}, []int{2}, []float64{0, 0}))
	b.Observe(0, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		for _, init := range [][]float64{nil, {1, 0}} {
			_, err := New(name, g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{Init: init})
			if !errors.Is(err, elim.ErrNoMass) || !strings.Contains(err.Error(), "factor 0 (vars 0) is zero at the evidence x0=1") {
				t.Errorf("%s, initial state %v: error %v; want elim.ErrNoMass naming factor 0", name, init, err)
			}
		}
	}
}
