package bp_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/pgibbs/pgibbs/bp"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// A chain of three binary variables, x0 — x1 — x2, with a field on x0:
// a tree, where the beliefs are the exact marginals.
func ExampleRun() {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	agree := []float64{1, 0, 0, 1} // log-potential 1 where the two agree
	b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{2, 2}, agree))
	b.AddFactor(factorgraph.NewTable([]int{1, 2}, []int{2, 2}, agree))
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 2}))
	g, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	res, err := bp.Run(context.Background(), g, bp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// By hand: P(x0 = 1) = e²/(1 + e²); each link keeps the value with
	// probability e/(1 + e).
	p0, keep := math.Exp(2)/(1+math.Exp(2)), math.E/(1+math.E)
	p1 := p0*keep + (1-p0)*(1-keep)
	p2 := p1*keep + (1-p1)*(1-keep)
	fmt.Printf("converged %v after %d sweeps\n", res.Converged, res.Iterations)
	for i, want := range []float64{p0, p1, p2} {
		fmt.Printf("P(x%d = 1) = %.6f (by hand %.6f)\n", i, res.Beliefs[i][1], want)
	}
	// Output:
	// converged true after 2 sweeps
	// P(x0 = 1) = 0.880797 (by hand 0.880797)
	// P(x1 = 1) = 0.675973 (by hand 0.675973)
	// P(x2 = 1) = 0.581320 (by hand 0.581320)
}
