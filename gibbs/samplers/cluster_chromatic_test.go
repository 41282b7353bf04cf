package samplers

import (
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/lattice"
)

// TestClusterChromatic: a Chromatic cannot run cluster updates.
func TestClusterChromatic(t *testing.T) {
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.3})
	classes, err := l.Colouring()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sw", "wolff"} {
		if _, err := chromatic.New(factoryOf(t, name), l, classes, chain.Streams(1, 2), nil); err == nil {
			t.Errorf("Chromatic ran %s workers", name)
		}
	}
}
