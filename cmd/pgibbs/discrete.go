package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// discreteJob is a sampling run on a discrete model: chains independent
// chains in parallel, each steps updates long (or budget long).
type discreteJob struct {
	model   factorgraph.Model
	sampler string
	opts    gibbs.Options
	steps   int64         // variable updates per chain
	burn    int64         // updates per chain before counting
	budget  time.Duration // if > 0, each chain runs this long instead of steps
	chains  int
	seed    uint64
}

// discreteResult is what a discreteJob measured.
type discreteResult struct {
	marginals [][]float64 // pooled run-average marginals
	stats     gibbs.Stats // summed over chains
	lambda    float64     // λ of a minibatch sampler, 0 otherwise
	seconds   float64
}

func (j *discreteJob) validate() error {
	switch {
	case j.chains < 1:
		return usagef("-chains %d: need at least 1", j.chains)
	case j.steps < 1 && j.budget <= 0:
		return usagef("-iters %d: need at least 1", j.steps)
	case j.burn < 0:
		return usagef("-burn %d: need at least 0", j.burn)
	case j.budget <= 0 && j.burn >= j.steps:
		return usagef("-burn %d leaves none of -iters %d", j.burn, j.steps)
	}
	return nil
}

// run performs the job.
func (j *discreteJob) run(ctx context.Context) (*discreteResult, error) {
	if err := j.validate(); err != nil {
		return nil, err
	}
	samplers := make([]gibbs.Sampler, j.chains)
	obs := make([][]gibbs.Observer, j.chains)
	margs := make([]*gibbs.Marginals, j.chains)
	for c, r := range gibbs.Streams(j.seed, j.chains) {
		s, err := gibbs.New(j.sampler, j.model, r, &j.opts)
		if err != nil {
			return nil, err
		}
		samplers[c] = s
		margs[c] = gibbs.NewMarginals(j.model)
		obs[c] = []gibbs.Observer{margs[c]}
	}
	runner := gibbs.Runner{Steps: j.steps, Burn: j.burn}
	runCtx := ctx
	if j.budget > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, j.budget)
		defer cancel()
		runner.Steps = 1 << 62
	}
	start := time.Now()
	err := runner.RunChains(runCtx, samplers, obs)
	elapsed := time.Since(start)
	if err != nil && !(j.budget > 0 && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil) {
		return nil, err
	}
	res := &discreteResult{marginals: gibbs.Pool(margs...), seconds: elapsed.Seconds()}
	for _, s := range samplers {
		st := s.Stats()
		res.stats.Steps += st.Steps
		res.stats.Factors += st.Factors
		res.stats.Picks += st.Picks
		res.stats.Proposals += st.Proposals
		res.stats.Accepted += st.Accepted
	}
	if l, ok := samplers[0].(interface{ Lambda() float64 }); ok {
		res.lambda = l.Lambda()
	}
	if res.stats.Steps <= int64(j.chains)*j.burn {
		return nil, fmt.Errorf("the run ended after %d updates, within the burn-in", res.stats.Steps)
	}
	return res, nil
}

// stepsPerSecond returns the update rate of one chain.
func (r *discreteResult) stepsPerSecond(chains int) float64 {
	if r.seconds == 0 {
		return 0
	}
	return float64(r.stats.Steps) / float64(chains) / r.seconds
}
