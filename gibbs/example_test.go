package gibbs_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// chain builds x0 – x1 – x2, three binary variables that like to agree,
// with a field on x0.
func chain() *factorgraph.Graph {
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
	g := chain()
	s, err := gibbs.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := gibbs.NewMarginals(g)
	err = gibbs.Runner{Steps: 300000, Burn: 1000, Observers: []gibbs.Observer{m}}.Run(context.Background(), s)
	if err != nil {
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
	g := chain()
	s, err := gibbs.NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{LambdaScale: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("L = %.1f, λ = L² = %.2f\n", g.L(), s.Lambda())
	m := gibbs.NewMarginals(g)
	if err := (gibbs.Runner{Steps: 300000, Burn: 1000, Observers: []gibbs.Observer{m}}).Run(context.Background(), s); err != nil {
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
	// P(x2 = 1) ≈ 0.60
}

// Independent chains run in parallel, each with its own RNG stream.
func ExampleRunner_RunChains() {
	g := chain()
	const k = 4
	var chains []gibbs.Sampler
	var obs [][]gibbs.Observer
	var ms []*gibbs.Marginals
	for _, r := range gibbs.Streams(42, k) {
		s, err := gibbs.NewPoissonGibbs(g, r, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		m := gibbs.NewMarginals(g)
		chains, obs, ms = append(chains, s), append(obs, []gibbs.Observer{m}), append(ms, m)
	}
	if err := (gibbs.Runner{Steps: 100000, Burn: 1000}).RunChains(context.Background(), chains, obs); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pooled P(x0 = 1) ≈ %.2f\n", gibbs.Pool(ms...)[0][1])
	// Output:
	// pooled P(x0 = 1) ≈ 0.73
}
