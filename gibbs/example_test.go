package gibbs_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// Independent chains run in parallel under a chain.Runner, each with its
// own RNG stream; their marginals pool.
func Example_parallelChains() {
	g := line3()
	const k = 4
	var chains []*chain.Chain
	var ms []*chain.Marginals
	for c := range k {
		src := chain.Source(42, c)
		s, err := site.NewPoissonGibbs(g, rand.New(src), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		m := chain.NewMarginals(factorgraph.Sizes(g))
		chains = append(chains, &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{m}, Burn: 1000})
		ms = append(ms, m)
	}
	if err := (&chain.Runner{Steps: 100000}).Run(context.Background(), chains); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pooled P(x0 = 1) ≈ %.2f\n", chain.PoolMarginals(ms...)[0][1])
	// Output:
	// pooled P(x0 = 1) ≈ 0.73
}

// A Sweeper runs a sampler by systematic scan: a step of the chain is a
// sweep over every free variable, so steps count sweeps.
func ExampleSweeper() {
	g := line3()
	s, err := site.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: gibbs.Sweeper{Sampler: s}, Observers: []chain.Observer{m}, Burn: 100}
	if err := c.Advance(context.Background(), 100000); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d sweeps, %d updates, P(x0 = 1) ≈ %.2f\n", c.Done(), s.Stats().Steps, m.Probs()[0][1])
	// Output:
	// 100000 sweeps, 300000 updates, P(x0 = 1) ≈ 0.73
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
