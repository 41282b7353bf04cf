package elim_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// chain builds x0 – x1 – x2 – x3, binary, each pair rewarded by 1 for
// agreeing, a field of 0.5 on x0, and x2 observed at 1: the evidence cuts
// the chain into the components {0, 1} and {3}.
func chain() *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(4, factorgraph.Discrete(2))
	for i := range 3 {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 1))
	}
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 0.5}))
	b.Observe(2, 1)
	g, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	return g
}

func ExamplePlan() {
	comps, err := elim.Plan(context.Background(), chain(), elim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range comps {
		fmt.Printf("variables %v: order %v, width %d, largest table %g entries, %g in all\n",
			c.Vars, c.Order, c.Width, c.MaxTable, c.Entries)
	}
	// Output:
	// variables [0 1]: order [0 1], width 1, largest table 4 entries, 6 in all
	// variables [3]: order [3], width 0, largest table 2 entries, 2 in all
}

func ExampleComponent_Solve() {
	g := chain()
	comps, err := elim.Plan(context.Background(), g, elim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	logZ := elim.ClampedLogPotential(g) // no factor reads observed variables only
	for _, c := range comps {
		res, err := c.Solve(context.Background())
		if err != nil {
			log.Fatal(err)
		}
		for k, v := range res.Vars {
			fmt.Printf("π(x%d = 1 | x2 = 1) = %.4f\n", v, res.Marginals[k][1])
		}
		logZ += res.LogZ
	}
	// Z = Σ over x0, x1, x3 of exp(field + agreements), by hand:
	z := 0.0
	for x0 := range 2 {
		for x1 := range 2 {
			for x3 := range 2 {
				s := 0.5 * float64(x0)
				for _, agree := range []bool{x0 == x1, x1 == 1, x3 == 1} {
					if agree {
						s++
					}
				}
				z += math.Exp(s)
			}
		}
	}
	fmt.Printf("log Z = %.6f (by hand %.6f)\n", logZ, math.Log(z))
	// Output:
	// π(x0 = 1 | x2 = 1) = 0.7178
	// π(x1 = 1 | x2 = 1) = 0.7734
	// π(x3 = 1 | x2 = 1) = 0.7311
	// log Z = 4.271696 (by hand 4.271696)
}
