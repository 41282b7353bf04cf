package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// job is a sampling run: chains independent chains in parallel, each steps
// updates long (or budget long), each with the observers obs(c) returns.
type job struct {
	model   factorgraph.Model
	sampler string
	opts    gibbs.Options
	steps   int64         // variable updates per chain
	burn    int64         // updates per chain before observers start
	budget  time.Duration // if > 0, each chain runs this long instead of steps
	chains  int
	seed    uint64
	obs     func(chain int) []gibbs.Observer
	// trace records every free variable once a sweep (every |free|
	// updates) for R̂ and ESS across chains.
	trace bool
}

// jobResult is what a job measured.
type jobResult struct {
	samplers []gibbs.Sampler
	stats    gibbs.Stats // summed over chains
	lambda   float64     // λ of a minibatch sampler, 0 otherwise
	seconds  float64
	traces   []*gibbs.Trace // one a chain when job.trace
}

// convergence returns R̂ and ESS over the traced variables.
func (r *jobResult) convergence() (convergence, error) {
	if len(r.traces) == 0 {
		return convergence{}, nil
	}
	nv := len(r.traces[0].Vars())
	q := make([][][]float64, nv)
	for j := range q {
		q[j] = make([][]float64, len(r.traces))
		for c, t := range r.traces {
			q[j][c] = t.Draws()[j]
		}
	}
	// Chains of unequal length (time budgets) are cut to the shortest.
	shortest := math.MaxInt
	for _, t := range r.traces {
		shortest = min(shortest, len(t.Draws()[0]))
	}
	for j := range q {
		for c := range q[j] {
			q[j][c] = q[j][c][:shortest]
		}
	}
	return summarize(q)
}

func (j *job) validate() error {
	switch {
	case j.chains < 1 || j.chains > 4096:
		return usagef("-chains %d: need 1 to 4096", j.chains)
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
func (j *job) run(ctx context.Context) (*jobResult, error) {
	if err := j.validate(); err != nil {
		return nil, err
	}
	samplers := make([]gibbs.Sampler, j.chains)
	obs := make([][]gibbs.Observer, j.chains)
	var traces []*gibbs.Trace
	for c, r := range gibbs.Streams(j.seed, j.chains) {
		s, err := gibbs.New(j.sampler, j.model, r, &j.opts)
		if err != nil {
			return nil, err
		}
		samplers[c] = s
		if j.obs != nil {
			obs[c] = j.obs(c)
		}
		if j.trace {
			t, err := gibbs.NewTrace(j.model, nil, int64(len(j.model.Free())), traceDraws)
			if err != nil {
				return nil, err
			}
			traces = append(traces, t)
			obs[c] = append(obs[c], t)
		}
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
	res := &jobResult{samplers: samplers, seconds: elapsed.Seconds(), traces: traces}
	for _, s := range samplers {
		st := s.Stats()
		res.stats.Steps += st.Steps
		res.stats.Factors += st.Factors
		res.stats.Picks += st.Picks
		res.stats.Proposals += st.Proposals
		res.stats.Accepted += st.Accepted
		res.stats.Tries += st.Tries
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
func (r *jobResult) stepsPerSecond(chains int) float64 {
	if r.seconds == 0 {
		return 0
	}
	return float64(r.stats.Steps) / float64(chains) / r.seconds
}

// discreteJob is a job on a discrete model that pools run-average
// marginals over its chains.
type discreteJob struct {
	model   factorgraph.Model
	sampler string
	opts    gibbs.Options
	steps   int64         // variable updates per chain
	burn    int64         // updates per chain before counting
	budget  time.Duration // if > 0, each chain runs this long instead of steps
	chains  int
	seed    uint64
	trace   bool // record traces for R̂ and ESS
}

// discreteResult is what a discreteJob measured.
type discreteResult struct {
	marginals [][]float64 // pooled run-average marginals
	stats     gibbs.Stats // summed over chains
	lambda    float64     // λ of a minibatch sampler, 0 otherwise
	seconds   float64
	conv      convergence
}

// run performs the job.
func (j *discreteJob) run(ctx context.Context) (*discreteResult, error) {
	margs := make([]*gibbs.Marginals, max(j.chains, 0))
	jb := &job{model: j.model, sampler: j.sampler, opts: j.opts, steps: j.steps, burn: j.burn,
		budget: j.budget, chains: j.chains, seed: j.seed, trace: j.trace,
		obs: func(c int) []gibbs.Observer {
			margs[c] = gibbs.NewMarginals(j.model)
			return []gibbs.Observer{margs[c]}
		}}
	res, err := jb.run(ctx)
	if err != nil {
		return nil, err
	}
	conv, err := res.convergence()
	if err != nil {
		return nil, err
	}
	return &discreteResult{marginals: gibbs.Pool(margs...), stats: res.stats, lambda: res.lambda, seconds: res.seconds, conv: conv}, nil
}

// stepsPerSecond returns the update rate of one chain.
func (r *discreteResult) stepsPerSecond(chains int) float64 {
	if r.seconds == 0 {
		return 0
	}
	return float64(r.stats.Steps) / float64(chains) / r.seconds
}

// validate checks the job's run parameters.
func (j *discreteJob) validate() error {
	return (&job{steps: j.steps, burn: j.burn, budget: j.budget, chains: j.chains}).validate()
}
