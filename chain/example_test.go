package chain_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/mh"
)

// line3 builds x0 – x1 – x2, three binary variables that like to agree,
// with a field on x0 (exact P(x_i = 1): 0.731, 0.647, 0.593).
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

// Four Poisson-Gibbs chains run in parallel, each on its own stream of the
// seed, and their run-average marginals pool.
func ExampleRunner() {
	g := line3()
	const k = 4
	var chains []*chain.Chain
	var margs []*chain.Marginals
	for c := range k {
		src := chain.Source(42, c) // chain c's stream: the same whatever k is
		s, err := site.NewPoissonGibbs(g, rand.New(src), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		m := chain.NewMarginals(factorgraph.Sizes(g))
		chains = append(chains, &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{m}, Burn: 1000})
		margs = append(margs, m)
	}
	if err := (&chain.Runner{Steps: 200000}).Run(context.Background(), chains); err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range chain.PoolMarginals(margs...) {
		fmt.Printf("P(x%d = 1) ≈ %.2f\n", i, p[1])
	}
	// Output:
	// P(x0 = 1) ≈ 0.73
	// P(x1 = 1) ≈ 0.65
	// P(x2 = 1) ≈ 0.59
}

// gaussian is a one-dimensional target with a flat prior and one Gaussian
// log-likelihood term per data point: the posterior is N(mean(y), 1/len(y)).
type gaussian struct{ y []float64 }

func (g gaussian) Dim() int                   { return 1 }
func (g gaussian) N() int                     { return len(g.y) }
func (g gaussian) LogPrior([]float64) float64 { return 0 }
func (g gaussian) LogLik(i int, theta []float64) float64 {
	d := theta[0] - g.y[i]
	return -d * d / 2
}

// A Metropolis–Hastings sampler is a kernel too (each step may move every
// coordinate); Means averages the states after the burn-in, and a chain
// advanced again continues where it stopped.
func ExampleChain_Advance() {
	target := gaussian{y: []float64{1, 2, 3, 6}} // posterior N(3, 1/4)
	s, err := mh.NewMH(target, rand.New(rand.NewPCG(1, 2)), &mh.Options{Step: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(1)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 1000}
	for _, to := range []int64{100000, 200000} {
		if err := c.Advance(context.Background(), to); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d steps: E[θ] ≈ %.2f over %d states\n", c.Done(), means.Mean()[0], means.N())
	}
	// Output:
	// 100000 steps: E[θ] ≈ 3.00 over 99000 states
	// 200000 steps: E[θ] ≈ 3.00 over 199000 states
}

// A run checkpointed halfway and resumed from the file, as another process
// would (building the same chains, then restoring them), ends in the very
// states of an uninterrupted run.
func ExampleReadCheckpoint() {
	dir, err := os.MkdirTemp("", "checkpoint")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.ckpt")

	g := line3()
	build := func() []*chain.Chain {
		var chains []*chain.Chain
		for c := range 2 {
			src := chain.Source(7, c)
			s, err := site.NewGibbs(g, rand.New(src), nil)
			if err != nil {
				panic(err)
			}
			m := chain.NewMarginals(factorgraph.Sizes(g))
			chains = append(chains, &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{m}})
		}
		return chains
	}
	ctx := context.Background()

	whole := build()
	if err := (&chain.Runner{Steps: 100000}).Run(ctx, whole); err != nil {
		fmt.Println(err)
		return
	}

	// Half the run, checkpointed (also every Every while it runs).
	meta := map[string]string{"model": "line3", "sampler": "gibbs"}
	if err := (&chain.Runner{Steps: 50000, Checkpoint: path, Meta: meta}).Run(ctx, build()); err != nil {
		fmt.Println(err)
		return
	}
	// The rest, from the file.
	ck, err := chain.ReadCheckpoint(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	resumed := build()
	if err := ck.Restore(resumed); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("meta %s, resumed at step %d\n", ck.Meta, resumed[0].Done())
	if err := (&chain.Runner{Steps: 100000, Checkpoint: path, Meta: meta}).Run(ctx, resumed); err != nil {
		fmt.Println(err)
		return
	}
	same := chain.StateHash(chain.States(resumed)...) == chain.StateHash(chain.States(whole)...)
	fmt.Println("same states as the uninterrupted run:", same)
	fmt.Println("same marginals:", fmt.Sprint(resumed[1].Observers[0].(*chain.Marginals).Probs()) == fmt.Sprint(whole[1].Observers[0].(*chain.Marginals).Probs()))
	// Output:
	// meta {"model":"line3","sampler":"gibbs"}, resumed at step 50000
	// same states as the uninterrupted run: true
	// same marginals: true
}

// A run that stops when its chains have converged, and says whether they
// did: Monitor.Run traces each chain once a sweep-equivalent (a blocked or
// cluster sampler's step updates many variables; the trace counts
// variable updates, not steps), checks rank-normalised split-R̂ and ESS of
// every value of every variable at growing check points, and returns the
// verdict. One chain is judged too: R̂ compares its halves.
func ExampleMonitor_Run() {
	g := line3()
	s, err := samplers.NewAuto(g, rand.New(chain.Source(7, 0)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	mg := chain.NewMarginals(factorgraph.Sizes(g))
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{mg}, Burn: 1000}
	mon, err := chain.NewMonitor(g.Free(), factorgraph.Sizes(g), 2000)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &chain.Runner{Steps: 10_000_000} // the ceiling
	v, err := mon.Run(context.Background(), r, []*chain.Chain{c}, chain.Criteria{RHat: 1.01, MinESS: 400})
	if err != nil {
		fmt.Println(err)
		return
	}
	sweeps, _ := chain.Sweeps(s)
	fmt.Printf("converged: %v, long before the ceiling: %v\n", v.Converged, sweeps < 1e6)
	fmt.Printf("P(x0 = 1) ≈ %.2f\n", mg.Probs()[0][1])
	// Output:
	// converged: true, long before the ceiling: true
	// P(x0 = 1) ≈ 0.73
}
