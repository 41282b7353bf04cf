package blocked_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
)

// On a complete graph of 100 weakly coupled binary variables, in blocks of
// 4, each block touches 390 factors, 384 of them crossing its boundary
// (L_B = 384·0.005 = 1.92). With Poisson-minibatched boundaries an update
// evaluates the 6 inner factors and the boundary factors with s_φ > 0, at
// most λ_B + L_B = L_B² + L_B ≈ 5.6 of them on average: exact, at a
// thirty-fifth of the work.
func ExampleBoundary() {
	const n = 100
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	for i := range n {
		for j := i + 1; j < n; j++ {
			b.AddFactor(factorgraph.NewPotts(i, j, 0.005))
		}
	}
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	var blocks [][]int
	for i := 0; i < n; i += 4 {
		blocks = append(blocks, []int{i, i + 1, i + 2, i + 3})
	}
	for _, mode := range []blocked.Boundary{blocked.BoundaryExact, blocked.BoundaryPoisson} {
		s, err := blocked.NewWith(g, rand.New(rand.NewPCG(1, 2)), nil, blocks, blocked.Config{Boundary: mode})
		if err != nil {
			fmt.Println(err)
			return
		}
		for range 10000 {
			s.Step()
		}
		updates := float64(s.Stats().Steps) / 4
		fmt.Printf("%s: %.0f factors an update\n", mode, float64(s.Stats().Factors)/updates)
	}
	// Output:
	// exact: 390 factors an update
	// poisson: 11 factors an update
}

// A chain of 10 coupled binary variables (Potts weight 3, a field on the
// first) split into two blocks of five: a half flips only against the
// other, and the two halves cross between their ordered states together,
// now and then. With Regions the sampler sees them move together in its
// sweeps 20 to 40 and adds a block of the whole chain.
func ExampleConfig_regions() {
	const n = 10
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	for i := range n - 1 {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 3))
	}
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 0.2}))
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	halves := [][]int{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}
	s, err := blocked.NewWith(g, rand.New(rand.NewPCG(1, 2)), nil, halves, blocked.Config{Regions: 40})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 100 {
		s.Sweep()
	}
	fmt.Println(s.Sets())
	// Output:
	// [[0 1 2 3 4] [5 6 7 8 9] [0 1 2 3 4 5 6 7 8 9]]
}
