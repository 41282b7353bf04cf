package modeltest_test

import (
	"fmt"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/modeltest"
)

// A model of one's own is checked before a sampler runs on it; here a
// built graph, which passes.
func ExampleCheck() {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1.5))
	b.AddFactor(factorgraph.NewPotts(1, 2, 0.5))
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(modeltest.Check(g, 1))
	// Output: <nil>
}
