package factorgraph_test

import (
	"fmt"
	"log"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// A restricted Boltzmann machine of two visible and two hidden units,
// its pair tables exp(W·v·h) split into Potts pairs and fields as they
// are added: the same π, compiled as the rows a plain Gibbs update sums
// inline.
func ExamplePairSplitter() {
	b := factorgraph.NewBuilder()
	b.AddVariables(4, factorgraph.Discrete(2))
	sp := factorgraph.NewPairSplitter(4)
	for _, v := range []int{0, 1} {
		for _, h := range []int{2, 3} {
			t := []float64{0, 0, 0, 0.5} // log-potentials: W·v·h, W = 0.5
			sp.Split([]int{v, h}, []int{2, 2}, t)
			b.AddFactor(factorgraph.NewTable([]int{v, h}, []int{2, 2}, t))
		}
	}
	sp.AddFields(b)
	g, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	all1 := []float64{1, 1, 1, 1}
	fmt.Printf("%d tables split, %d factors, pairs and fields: %v\n", sp.Splits(), g.NumFactors(), g.PairsAndFields())
	fmt.Printf("log-potential of all ones: %.3f (4 × 0.5)\n", g.LogPotential(all1)-g.LogPotential(make([]float64, 4)))
	// Output:
	// 4 tables split, 8 factors, pairs and fields: true
	// log-potential of all ones: 2.000 (4 × 0.5)
}
