package mh_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
	"github.com/pgibbs/pgibbs/tgm"
)

// robust returns Student-t (ν = 4) linear regression with n data points in
// dimension 2 (true θ = (1, 1)) and its posterior mode (Newton's method).
func robust(n int) (*targets.RobustLinear, []float64) {
	reg, err := targets.GenerateRobustLinear(n, 2, 4, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	mode := make([]float64, 2)
	if err := reg.Mode(mode); err != nil {
		panic(err)
	}
	return reg, mode
}

// mixture returns the truncated Gaussian mixture of the TunaMH paper (flat
// prior on [−3, 3]², β = 10⁻⁴) with 10⁵ data points instead of 10⁶. At both
// of its modes, (0, 1) and (1, −1), x1 + x2/2 is the mean of the data
// (0.50), so E[x1 + x2/2] ≈ 0.5 is a check.
func mixture() *tgm.Model {
	cfg := tgm.MHConfig()
	cfg.N = 100_000
	m, err := tgm.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	return m
}

// Standard MH evaluates all N likelihood terms per step: the reference the
// minibatch samplers are measured against, and the right choice when N is
// small or no bounds are available.
func ExampleNewMH() {
	reg, mode := robust(1000)
	s, err := mh.NewMH(reg, rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.05, Init: mode})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(2)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 500}
	if err := c.Advance(context.Background(), 4000); err != nil {
		fmt.Println(err)
		return
	}
	st, m := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean batch %.0f\n", st.AcceptanceRate(), st.MeanBatch())
	fmt.Printf("mode (%.2f, %.2f), E[θ] ≈ (%.2f, %.2f)\n", mode[0], mode[1], m[0], m[1])
	// Output:
	// acceptance 0.42, mean batch 1000
	// mode (1.05, 0.92), E[θ] ≈ (1.05, 0.92)
}

// Poisson-MH is exact and needs global ranges lo_i ≤ ℓ_i ≤ hi_i
// (mh.Ranger), so it suits bounded, tempered targets such as the truncated
// mixture. Its batch is Poisson(λ + L), L = Σ_i (hi_i − lo_i), whatever the
// state (proposals outside the box touch no data); a larger Lambda brings
// its acceptance closer to MH's at the cost of more evaluations.
func ExampleNewPoissonMH() {
	m := mixture()
	var chains []*chain.Chain
	var means []*chain.Means
	for c := range 2 {
		src := chain.Source(1, c)
		s, err := mh.NewPoissonMH(m.Target(), rand.New(src), &mh.Options{Step: 0.1, Lambda: 50, Init: []float64{0, 1}})
		if err != nil {
			fmt.Println(err)
			return
		}
		means = append(means, chain.NewMeans(2))
		chains = append(chains, &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{means[c]}, Burn: 300})
	}
	if err := (&chain.Runner{Steps: 3000}).Run(context.Background(), chains); err != nil {
		fmt.Println(err)
		return
	}
	var st mh.Stats
	for _, c := range chains {
		st.Add(c.Kernel.(mh.Sampler).Stats())
	}
	mean := chain.PoolMeans(means...)
	fmt.Printf("acceptance %.2f, mean batch %.0f (λ + L = %.0f)\n", st.AcceptanceRate(), st.MeanBatch(), 50+m.SumRanges())
	fmt.Printf("E[x1 + x2/2] ≈ %.1f\n", mean[0]+mean[1]/2)
	// Output:
	// acceptance 0.91, mean batch 105 (λ + L = 105)
	// E[x1 + x2/2] ≈ 0.5
}

// TunaMH is exact with only local bounds |ℓ_i(θ) − ℓ_i(θ')| ≤ c_i·M
// (mh.LocalBounder), and its expected batch χC²M² + CM (C = Σ_i c_i) is
// asymptotically optimal among stateless exact methods: use it where CM is
// small at useful steps, as on this tempered mixture (8 data per step where
// Poisson-MH needs 105). On robust regression its steps must be tiny and
// MH-SS is far better (mh/RESULTS.md). Chi sets χ (Algorithm 2); Chi 0 with
// Lambda > 0 runs Algorithm 4 with a constant λ.
func ExampleNewTunaMH() {
	m := mixture()
	var chains []*chain.Chain
	var means []*chain.Means
	for c := range 2 {
		src := chain.Source(1, c)
		s, err := mh.NewTunaMH(m.Target(), rand.New(src), &mh.Options{Step: 0.1, Chi: 1e-4, Init: []float64{0, 1}})
		if err != nil {
			fmt.Println(err)
			return
		}
		means = append(means, chain.NewMeans(2))
		chains = append(chains, &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{means[c]}, Burn: 1000})
	}
	if err := (&chain.Runner{Steps: 10000}).Run(context.Background(), chains); err != nil {
		fmt.Println(err)
		return
	}
	var st mh.Stats
	for _, c := range chains {
		st.Add(c.Kernel.(mh.Sampler).Stats())
	}
	mean := chain.PoolMeans(means...)
	fmt.Printf("acceptance %.2f, mean batch %.1f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), m.N())
	fmt.Printf("E[x1 + x2/2] ≈ %.1f\n", mean[0]+mean[1]/2)
	// Output:
	// acceptance 0.87, mean batch 8.5 of N = 100000
	// E[x1 + x2/2] ≈ 0.5
}

// TFMH is exact: it factorises the acceptance test over the data and stops
// at the first rejecting factor, so it evaluates the fewest data per step,
// but like TunaMH it needs local bounds and steps of order 1/C, and it mixes
// slowly; with control variates (SMH) it is far better on regression.
func ExampleNewTFMH() {
	reg, mode := robust(1000)
	s, err := mh.NewTFMH(reg, rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.002, Init: mode})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(2)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 500}
	if err := c.Advance(context.Background(), 5000); err != nil {
		fmt.Println(err)
		return
	}
	st, m := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean batch %.1f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), reg.N())
	fmt.Printf("mode (%.2f, %.2f), E[θ] ≈ (%.2f, %.2f)\n", mode[0], mode[1], m[0], m[1])
	// Output:
	// acceptance 0.52, mean batch 2.7 of N = 1000
	// mode (1.05, 0.92), E[θ] ≈ (1.04, 0.92)
}

// SMH is TFMH with Taylor control variates (mh.ControlVariates) of order
// Order around the reference point Ref, best the posterior mode: on a
// unimodal posterior, SMH-2 takes steps of the posterior's own scale while
// touching well under one datum per step. Not for multimodal targets.
func ExampleNewSMH() {
	lr, _, err := targets.GenerateLogistic(10_000, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	mode := make([]float64, 3)
	if err := lr.Mode(mode); err != nil {
		fmt.Println(err)
		return
	}
	s, err := mh.NewSMH(lr, rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.02, Order: 2, Ref: mode, Init: mode})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(3)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 500}
	if err := c.Advance(context.Background(), 5000); err != nil {
		fmt.Println(err)
		return
	}
	st, m := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean batch %.2f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), lr.N())
	fmt.Printf("mode (%.2f, %.2f, %.2f), E[θ] ≈ (%.2f, %.2f, %.2f)\n", mode[0], mode[1], mode[2], m[0], m[1], m[2])
	// Output:
	// acceptance 0.46, mean batch 0.07 of N = 10000
	// mode (0.23, 0.04, 0.16), E[θ] ≈ (0.23, 0.04, 0.16)
}

// MH-SS is exact delayed acceptance: the control-variate surrogate
// (Order 1 or 2, expanded at Ref) in stage 1, Poisson minibatches in stage
// 2. With Order 2 and Ref at the mode it is, with SMH-2, the fastest
// sampler of mh/RESULTS.md on robust regression (over 1000 times MH's ESS
// per second); use it on unimodal posteriors with gradients (and, for
// Order 2, Hessians).
func ExampleNewMHSS() {
	reg, mode := robust(10_000)
	s, err := mh.NewMHSS(reg, rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.01, Order: 2, Ref: mode, Init: mode})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(2)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 500}
	if err := c.Advance(context.Background(), 5000); err != nil {
		fmt.Println(err)
		return
	}
	st, m := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean batch %.2f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), reg.N())
	fmt.Printf("mode (%.3f, %.3f), E[θ] ≈ (%.3f, %.3f)\n", mode[0], mode[1], m[0], m[1])
	// Output:
	// acceptance 0.60, mean batch 0.16 of N = 10000
	// mode (0.990, 0.979), E[θ] ≈ (0.989, 0.979)
}

// FlyMC is exact: it evaluates only a "bright" set of data and replaces
// the others by lower bounds (mh.LowerBounder, or a Taylor bound expanded
// at Ref from mh.ControlVariates). With the bound at the mode the bright
// set is tiny, but each step also proposes QDarkToBright·N dark points to
// brighten, which dominates its cost (mh/RESULTS.md).
func ExampleNewFlyMC() {
	reg, mode := robust(10_000)
	s, err := mh.NewFlyMC(reg, rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.005, QDarkToBright: 0.01, Ref: mode, Init: mode})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(2)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 200}
	if err := c.Advance(context.Background(), 2000); err != nil {
		fmt.Println(err)
		return
	}
	st, m := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean bright points %.1f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), reg.N())
	fmt.Printf("mode (%.3f, %.3f), E[θ] ≈ (%.3f, %.3f)\n", mode[0], mode[1], m[0], m[1])
	// Output:
	// acceptance 0.55, mean bright points 4.6 of N = 10000
	// mode (0.990, 0.979), E[θ] ≈ (0.988, 0.980)
}

// The minibatch Barker test is approximate: its chain is biased (the bias
// example of mh/RESULTS.md), so use it for comparison or where a small bias
// is acceptable. Its minibatch grows by BatchSize until the variance of the
// estimated log ratio is below 1 and, with Delta > 0, its CLT error bound
// below δ (Delta 0, the default, checks the variance only); small per-datum
// log ratios, as on this tempered mixture, keep it far below N.
func ExampleNewBarker() {
	m := mixture()
	s, err := mh.NewBarker(m.Target(), rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.4, BatchSize: 30, Delta: 1, Init: []float64{0, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(2)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 300}
	if err := c.Advance(context.Background(), 3000); err != nil {
		fmt.Println(err)
		return
	}
	st, mean := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean batch %.0f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), m.N())
	fmt.Printf("E[x1 + x2/2] ≈ %.1f\n", mean[0]+mean[1]/2)
	// Output:
	// acceptance 0.40, mean batch 212 of N = 100000
	// E[x1 + x2/2] ≈ 0.5
}

// AustereMH is approximate: a sequential t-test decides from a minibatch
// growing by BatchSize once its error probability is below Epsilon, which
// biases the chain (the bias example of mh/RESULTS.md); use it for
// comparison. A larger Epsilon means smaller batches and more bias.
func ExampleNewAustere() {
	m := mixture()
	s, err := mh.NewAustere(m.Target(), rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.4, BatchSize: 30, Epsilon: 0.05, Init: []float64{0, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	means := chain.NewMeans(2)
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{means}, Burn: 300}
	if err := c.Advance(context.Background(), 3000); err != nil {
		fmt.Println(err)
		return
	}
	st, mean := s.Stats(), means.Mean()
	fmt.Printf("acceptance %.2f, mean batch %.0f of N = %d\n", st.AcceptanceRate(), st.MeanBatch(), m.N())
	fmt.Printf("E[x1 + x2/2] ≈ %.1f\n", mean[0]+mean[1]/2)
	// Output:
	// acceptance 0.71, mean batch 303 of N = 100000
	// E[x1 + x2/2] ≈ 0.5
}
