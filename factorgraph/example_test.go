package factorgraph_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// The README's quick start: a three-variable chain, Poisson-Gibbs, and the
// run-average marginals (exact: 0.731, 0.647, 0.593 for value 1).
func Example_quickStart() {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1.5)) // 1.5·δ(x0, x1)
	b.AddFactor(factorgraph.NewPotts(1, 2, 1.5))
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 1})) // log-potentials
	// Build checks every input and returns an error naming the factor.
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}

	s, err := site.NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 2)), nil) // λ = L² by default
	if err != nil {
		fmt.Println(err)
		return
	}
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 1000}
	if err := c.Advance(context.Background(), 2000000); err != nil { // a step resamples one variable
		fmt.Println(err)
		return
	}
	for i, p := range m.Probs() { // run-average marginals
		fmt.Printf("P(x%d = 1) ≈ %.2f\n", i, p[1]) // 0.73, 0.65, 0.59 (exact 0.731, 0.647, 0.593)
	}
	// Output:
	// P(x0 = 1) ≈ 0.73
	// P(x1 = 1) ≈ 0.65
	// P(x2 = 1) ≈ 0.59
}

// A path of five variables numbered out of order, stored in its locality
// order: neighbours become adjacent, and values of the renumbered graph
// (a state, marginals) map back to the caller's numbering.
func ExampleRenumber() {
	b := factorgraph.NewBuilder()
	b.AddVariables(5, factorgraph.Discrete(2))
	b.AddPottsPairs([]int32{0, 3, 1, 4}, []int32{3, 1, 4, 2}, []float64{1, 1, 1, 1}) // the path 0–3–1–4–2
	b.Observe(2, 1)
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	order, err := factorgraph.LocalityOrder(context.Background(), g)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := factorgraph.Renumber(g, order) // variable k of h is variable order[k] of g
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("order:", order)
	fmt.Printf("neighbours within 1 place: %.0f%% as numbered, %.0f%% renumbered\n",
		100*factorgraph.Locality(g, nil, 1), 100*factorgraph.Locality(h, nil, 1))
	x := []float64{0, 0, 0, 0, 0}
	for k := range x {
		if v, ok := h.Observed(k); ok {
			x[k] = v
		}
	}
	fmt.Println("h's state in g's numbering:", factorgraph.OriginalOrder(nil, x, order))
	// Output:
	// order: [0 3 1 4 2]
	// neighbours within 1 place: 0% as numbered, 100% renumbered
	// h's state in g's numbering: [0 0 1 0 0]
}
