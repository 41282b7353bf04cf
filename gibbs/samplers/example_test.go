package samplers_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// On a chain of 12 binary variables with strong Potts couplings (weight 6:
// neighbours disagree with probability 1/(e⁶ + 1)) and a field on x0, a
// single-site chain barely moves: flipping a variable inside an aligned
// stretch costs e⁻¹². The registry's auto sees the strong links and runs
// blocked Gibbs; the chain is a tree, so one block holds it whole, and the
// Rao–Blackwellised marginals of a block update are the exact marginals
// (P(x0 = 1) = e/(e + 1), P(x11 = 1) = 0.7188 by the transfer matrix).
func ExampleNewAuto() {
	b := factorgraph.NewBuilder()
	b.AddVariables(12, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 1}))
	for i := 0; i+1 < 12; i++ {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 6))
	}
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := samplers.NewAuto(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	blocked := s.(*blocked.Blocked)
	info := blocked.Blocks()
	fmt.Printf("%d block of %d variables, elimination width %d\n", len(info), len(info[0].Vars), info[0].Width)
	mg := chain.NewMarginals(factorgraph.Sizes(g))
	mg.RaoBlackwellise(blocked)
	if err := (&chain.Chain{Kernel: s, Observers: []chain.Observer{mg}}).Advance(context.Background(), 3); err != nil {
		fmt.Println(err)
		return
	}
	p := mg.Probs()
	fmt.Printf("P(x0 = 1) = %.4f, P(x11 = 1) = %.4f\n", p[0][1], p[11][1])
	// Output:
	// 1 block of 12 variables, elimination width 1
	// P(x0 = 1) = 0.7311, P(x11 = 1) = 0.7188
}
