package gibbs_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/models/potts"
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
	s, err := gibbs.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
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
	s, err := gibbs.NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{LambdaScale: 1})
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
	// P(x1 = 1) ≈ 0.64
	// P(x2 = 1) ≈ 0.59
}

// Independent chains run in parallel under a chain.Runner, each with its
// own RNG stream; their marginals pool.
func Example_parallelChains() {
	g := line3()
	const k = 4
	var chains []*chain.Chain
	var ms []*chain.Marginals
	for c := range k {
		src := chain.Source(42, c)
		s, err := gibbs.NewPoissonGibbs(g, rand.New(src), nil)
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
	// pooled P(x0 = 1) ≈ 0.74
}

// A Sweeper runs a sampler by systematic scan: a step of the chain is a
// sweep over every free variable, so steps count sweeps.
func ExampleSweeper() {
	g := line3()
	s, err := gibbs.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
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

// The MIN-Gibbs family needs a *factorgraph.Graph (global factor access).
// Here with its defaults: λ = Ψ² for MIN-Gibbs; λ = L² for MGPMH; λ1 = λ2 = L²
// for DoubleMIN-Gibbs.
func ExampleMINGibbs() {
	g := line3()
	s, err := gibbs.NewMINGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
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
	s, err := gibbs.NewMGPMH(g, rand.New(rand.NewPCG(1, 2)), nil)
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
	s, err := gibbs.NewDoubleMINGibbs(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{Lambda2Scale: 10})
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
		s, err := gibbs.NewMixed(g, rand.New(rand.NewPCG(1, 2)), nil)
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
	s, err := gibbs.NewPGDA(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8, K: 16})
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
	s, err := gibbs.NewPGITS(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8})
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
	s, err := gibbs.NewGibbsITS(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8})
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
	s, err := gibbs.NewGibbsDA(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{M: 8, K: 16})
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
	s, err := gibbs.NewGibbsRejection(g, rand.New(rand.NewPCG(1, 2)), nil)
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
	s, err := gibbs.NewPGRejection(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("E[x0] ≈ %.2f\n", meanOf(g, s, 100000))
	// Output:
	// E[x0] ≈ 0.41
}

// Chromatic sweeps update the colour classes of a nearest-neighbour
// lattice in parallel, one worker per RNG stream.
func ExampleChromatic() {
	g, err := potts.Ising(16, 0.3)
	if err != nil {
		fmt.Println(err)
		return
	}
	classes := g.Colouring()
	f, err := gibbs.FactoryOf("gibbs")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := gibbs.NewChromatic(f, g, classes, chain.Streams(1, 2), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 100 {
		c.Sweep()
	}
	fmt.Printf("%d colour classes, %d updates\n", len(classes), c.Stats().Steps)
	// Output:
	// 2 colour classes, 25600 updates
}

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
	s, err := gibbs.NewAuto(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	blocked := s.(*gibbs.Blocked)
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
	for _, mode := range []gibbs.Boundary{gibbs.BoundaryExact, gibbs.BoundaryPoisson} {
		s, err := gibbs.NewBlockedWith(g, rand.New(rand.NewPCG(1, 2)), nil, blocks, gibbs.BlockConfig{Boundary: mode})
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
