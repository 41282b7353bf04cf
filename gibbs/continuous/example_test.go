package continuous_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/continuous"
)

// A continuous variable on [0, 1] with density ∝ exp(3x + 2 sin(6x)): the
// continuous samplers draw it by Chebyshev interpolation and inverse
// transform sampling, made exact by a Metropolis–Hastings correction.
func continuousExample() *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(factorgraph.NewFunc([]int{0}, 0, 3, func(x []float64) float64 { return 3 * x[0] }))
	b.AddFactor(factorgraph.NewFunc([]int{0}, -2, 2, func(x []float64) float64 { return 2 * math.Sin(6*x[0]) }))
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// meanOf runs s for n updates and returns the run-average of x0.
func meanOf(g *factorgraph.Graph, s gibbs.Sampler, n int64) float64 {
	m := chain.NewMeans(g.NumVars())
	if err := (&chain.Chain{Kernel: s, Observers: []chain.Observer{m}}).Advance(context.Background(), n); err != nil {
		panic(err)
	}
	return m.Mean()[0]
}

// The exact mean of x0 is 0.4107 (by quadrature).
func ExampleNewPGDA() {
	g := continuousExample()
	s, err := continuous.NewPGDA(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8, K: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: E[x0] ≈ %.2f, MH acceptance %.2f\n", s.Name(), meanOf(g, s, 100000), s.Stats().AcceptanceRate())
	// Output:
	// pgda: E[x0] ≈ 0.41, MH acceptance 1.00
}

func ExampleNewPGITS() {
	g := continuousExample()
	s, err := continuous.NewPGITS(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("E[x0] ≈ %.2f\n", meanOf(g, s, 100000))
	// Output:
	// E[x0] ≈ 0.41
}

func ExampleNewGibbsITS() {
	g := continuousExample()
	s, err := continuous.NewGibbsITS(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("E[x0] ≈ %.2f\n", meanOf(g, s, 100000))
	// Output:
	// E[x0] ≈ 0.41
}

func ExampleNewGibbsDA() {
	g := continuousExample()
	s, err := continuous.NewGibbsDA(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8, K: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("E[x0] ≈ %.2f\n", meanOf(g, s, 100000))
	// Output:
	// E[x0] ≈ 0.41
}

// Rejection samplers count their proposals: the exact envelope e^{L_i}, with
// L_i = 3 + 4 the factors' ranges, gives e^{L_i}/∫e^U = 22.6 tries a draw
// on average (by quadrature).
func ExampleNewGibbsRejection() {
	g := continuousExample()
	s, err := continuous.NewGibbsRejection(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("E[x0] ≈ %.2f, %.1f tries a draw\n", meanOf(g, s, 100000), s.Stats().TriesPerStep())
	// Output:
	// E[x0] ≈ 0.41, 22.6 tries a draw
}

func ExampleNewPGRejection() {
	g := continuousExample()
	s, err := continuous.NewPGRejection(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("E[x0] ≈ %.2f\n", meanOf(g, s, 100000))
	// Output:
	// E[x0] ≈ 0.41
}
