package gibbstest

import (
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/models/potts"
)

func SmallPotts(t testing.TB) *factorgraph.Graph {
	t.Helper()
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
