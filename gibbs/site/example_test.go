package site_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/potts"
)

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

func ExampleGibbs() {
	g := line3()
	s, err := site.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A sampler is a step kernel of package chain: a step resamples one
	// random variable.
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 1000}
	if err := c.Advance(context.Background(), 300000); err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range m.Probs() {
		fmt.Printf("P(x%d = 1) ≈ %.2f\n", i, p[1])
	}
	// Exact (by enumeration): 0.731, 0.647, 0.593.

	// Output:
	// P(x0 = 1) ≈ 0.73
	// P(x1 = 1) ≈ 0.64
	// P(x2 = 1) ≈ 0.59
}

func ExamplePoissonGibbs() {
	g := line3()
	s, err := site.NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{LambdaScale: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("L = %.1f, λ = L² = %.2f\n", g.L(), s.Lambda())
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 1000}
	if err := c.Advance(context.Background(), 2000000); err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range m.Probs() {
		fmt.Printf("P(x%d = 1) ≈ %.2f\n", i, p[1])
	}
	// Exact (by enumeration): 0.731, 0.647, 0.593.

	// Output:
	// L = 3.0, λ = L² = 9.00
	// P(x0 = 1) ≈ 0.73
	// P(x1 = 1) ≈ 0.65
	// P(x2 = 1) ≈ 0.59
}

// Auto updates each variable by plain Gibbs or Poisson-Gibbs, whichever is
// cheaper for it: on a small chain every variable has fewer factors than a
// minibatch would draw; on the paper's Potts model (399 factors a site,
// L = 5.09) a minibatch draws about 31.
func ExampleMixed() {
	pottsModel, err := potts.New(potts.Paper())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range []*factorgraph.Graph{line3(), pottsModel} {
		s, err := site.NewMixed(g, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		exact, pg := s.Kinds()
		fmt.Printf("%d variables by Gibbs, %d by Poisson-Gibbs\n", exact, pg)
	}
	// Output:
	// 3 variables by Gibbs, 0 by Poisson-Gibbs
	// 0 variables by Gibbs, 400 by Poisson-Gibbs
}

// Rao–Blackwellised marginals: the average of the conditionals the sampler
// draws from, instead of the fraction of steps in each value; the same
// answer with less variance.
func ExampleGibbs_Conditional() {
	g := line3()
	s, err := site.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	counts, rb := chain.NewMarginals(factorgraph.Sizes(g)), chain.NewMarginals(factorgraph.Sizes(g))
	rb.RaoBlackwellise(s)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{counts, rb}, Burn: 1000}
	if err := c.Advance(context.Background(), 30000); err != nil {
		fmt.Println(err)
		return
	}
	// Exact (by enumeration): 0.731, 0.647, 0.593.
	for i := range 3 {
		fmt.Printf("P(x%d = 1): counts %.3f, Rao–Blackwellised %.3f\n", i, counts.Probs()[i][1], rb.Probs()[i][1])
	}
	// Output:
	// P(x0 = 1): counts 0.722, Rao–Blackwellised 0.725
	// P(x1 = 1): counts 0.636, Rao–Blackwellised 0.640
	// P(x2 = 1): counts 0.585, Rao–Blackwellised 0.587
}
