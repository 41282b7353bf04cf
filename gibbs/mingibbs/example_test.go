package mingibbs_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
)

// The MIN-Gibbs family needs a *factorgraph.Graph (global factor access).
// Here with its defaults: λ = Ψ² for MIN-Gibbs; λ = L² for MGPMH; λ1 = λ2 = L²
// for DoubleMIN-Gibbs.
func ExampleMINGibbs() {
	g := line3()
	s, err := mingibbs.NewMINGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Ψ = %.1f, λ = Ψ² = %.2f\n", g.Psi(), s.Lambda())
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 1000}
	if err := c.Advance(context.Background(), 100000); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P(x0 = 1) ≈ %.2f (exact 0.731)\n", m.Probs()[0][1])
	// Output:
	// Ψ = 4.0, λ = Ψ² = 16.00
	// P(x0 = 1) ≈ 0.73 (exact 0.731)
}

func ExampleMGPMH() {
	g := line3()
	s, err := mingibbs.NewMGPMH(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 1000}
	if err := c.Advance(context.Background(), 300000); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P(x0 = 1) ≈ %.2f (exact 0.731), acceptance %.2f\n", m.Probs()[0][1], s.Stats().AcceptanceRate())
	// Output:
	// P(x0 = 1) ≈ 0.73 (exact 0.731), acceptance 0.92
}

func ExampleDoubleMINGibbs() {
	g := line3()
	s, err := mingibbs.NewDoubleMINGibbs(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{Lambda2Scale: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ1 = %.0f, λ2 = %.0f\n", s.Lambda(), s.Lambda2())
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 1000}
	if err := c.Advance(context.Background(), 300000); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P(x0 = 1) ≈ %.2f (exact 0.731)\n", m.Probs()[0][1])
	// Output:
	// λ1 = 9, λ2 = 90
	// P(x0 = 1) ≈ 0.74 (exact 0.731)
}

// line3 builds x0 – x1 – x2, three binary variables that like to agree,
// with a field on x0.
func line3() *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1.5))
	b.AddFactor(factorgraph.NewPotts(1, 2, 1.5))
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 1}))
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}
