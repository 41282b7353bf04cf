package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
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
	// ctl holds the checkpoint, resume and trace-file settings (nil:
	// none).
	ctl *control
}

// jobResult is what a job measured.
type jobResult struct {
	samplers []gibbs.Sampler
	stats    gibbs.Stats // summed over chains
	lambda   float64     // λ of a minibatch sampler, 0 otherwise
	seconds  float64
	traces   []*gibbs.Trace // one a chain when job.trace
	// stateHash is the SHA-256 of the final states of all chains.
	stateHash string
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
	ctl := j.ctl
	if ctl == nil {
		ctl = &control{command: "run"}
	}
	if j.budget > 0 && (ctl.file != "" || ctl.resumed != nil) {
		return nil, usagef("checkpoints need -iters: a time budget is not reproducible")
	}
	samplers := make([]gibbs.Sampler, j.chains)
	units := make([]unit, j.chains)
	obs := make([][]gibbs.Observer, j.chains)
	var traces []*gibbs.Trace
	var files []*traceFile
	defer func() {
		for _, f := range files {
			f.close()
		}
	}()
	sweep := int64(len(j.model.Free()))
	for c := range j.chains {
		src := gibbs.StreamSource(j.seed, c)
		s, err := gibbs.New(j.sampler, j.model, rand.New(src), &j.opts)
		if err != nil {
			return nil, err
		}
		samplers[c] = s
		if j.obs != nil {
			obs[c] = j.obs(c)
		}
		if j.trace {
			t, err := gibbs.NewTrace(j.model, nil, sweep, traceDraws)
			if err != nil {
				return nil, err
			}
			traces = append(traces, t)
			obs[c] = append(obs[c], t)
		}
		u := &gibbsUnit{s: s, src: src, runner: gibbs.Runner{Steps: j.steps, Burn: j.burn}}
		if ctl.trace != "" {
			var size int64
			if ctl.resumed != nil && c < len(ctl.resumed.Chains) {
				size = ctl.resumed.Chains[c].TraceBytes
			}
			f, err := openTrace(tracePath(ctl.trace, c, j.chains), j.model.Free(), sweep, ctl.resumed != nil, size)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
			u.file = f
			obs[c] = append(obs[c], f)
		}
		u.runner.Observers = obs[c]
		units[c] = u
	}
	start := time.Now()
	if j.budget > 0 {
		runCtx, cancel := context.WithTimeout(ctx, j.budget)
		defer cancel()
		counts := make([]*atomic.Int64, len(samplers))
		for c := range samplers {
			counts[c] = new(atomic.Int64)
		}
		stop := ctl.watch(j.sampler, 0, counts)
		var wg sync.WaitGroup
		errs := make([]error, len(samplers))
		for c, s := range samplers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := gibbs.Runner{Steps: 1 << 62, Burn: j.burn, Observers: obs[c], Progress: counts[c]}
				if _, errs[c] = r.RunFrom(runCtx, s, 0); errs[c] != nil && !stopped(errs[c]) {
					cancel() // a failing chain stops the others
				}
			}()
		}
		wg.Wait()
		stop()
		for c, err := range errs { // a chain's own failure first, then an interrupt
			if err != nil && !stopped(err) {
				return nil, fmt.Errorf("chain %d: %w", c, err)
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	} else if _, err := ctl.runUnits(ctx, units, j.steps); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	res := &jobResult{samplers: samplers, seconds: elapsed.Seconds(), traces: traces}
	for _, s := range samplers {
		res.stats.Add(s.Stats())
	}
	if l, ok := samplers[0].(interface{ Lambda() float64 }); ok {
		res.lambda = l.Lambda()
	}
	if res.stats.Steps <= int64(j.chains)*j.burn {
		return nil, fmt.Errorf("the run ended after %d updates, within the burn-in", res.stats.Steps)
	}
	res.stateHash = stateHash(samplers)
	return res, nil
}

// gibbsUnit is a chain of a job as the checkpointing loop drives it.
type gibbsUnit struct {
	s      gibbs.Sampler
	src    *rand.PCG
	runner gibbs.Runner
	done   int64
	file   *traceFile // nil without -trace
	count  atomic.Int64
}

func (u *gibbsUnit) progressCounter() *atomic.Int64 { return &u.count }

func (u *gibbsUnit) advance(ctx context.Context, to int64) (int64, error) {
	r := u.runner
	r.Steps = to
	r.Progress = &u.count
	n, err := r.RunFrom(ctx, u.s, u.done)
	u.done = n
	return n, err
}

func (u *gibbsUnit) save() (chainCheck, error) {
	var cc chainCheck
	var err error
	if cc.RNG, err = u.src.MarshalBinary(); err != nil {
		return cc, err
	}
	sn, ok := u.s.(gibbs.Snapshotter)
	if !ok {
		return cc, fmt.Errorf("sampler %T cannot be checkpointed", u.s)
	}
	if cc.Sampler, err = sn.Snapshot(); err != nil {
		return cc, err
	}
	for _, o := range u.runner.Observers {
		so, ok := o.(gibbs.Snapshotter)
		if !ok {
			return cc, fmt.Errorf("observer %T cannot be checkpointed", o)
		}
		b, err := so.Snapshot()
		if err != nil {
			return cc, err
		}
		cc.Observers = append(cc.Observers, b)
	}
	if u.file != nil {
		if cc.TraceBytes, err = u.file.flush(); err != nil {
			return cc, err
		}
	}
	return cc, nil
}

func (u *gibbsUnit) load(cc chainCheck) error {
	if err := u.src.UnmarshalBinary(cc.RNG); err != nil {
		return fmt.Errorf("random number generator: %w", err)
	}
	if err := u.s.(gibbs.Snapshotter).Restore(cc.Sampler); err != nil {
		return err
	}
	if len(cc.Observers) != len(u.runner.Observers) {
		return fmt.Errorf("the checkpoint has %d observers, the run %d", len(cc.Observers), len(u.runner.Observers))
	}
	for k, o := range u.runner.Observers {
		if err := o.(gibbs.Snapshotter).Restore(cc.Observers[k]); err != nil {
			return err
		}
	}
	u.done = cc.Steps
	return nil
}

// stateHash returns the SHA-256 of the chains' final states, for checking
// that a resumed run ended where an uninterrupted one does.
func stateHash(samplers []gibbs.Sampler) string {
	h := sha256.New()
	var b [8]byte
	for _, s := range samplers {
		for _, v := range s.State() {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
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
	ctl     *control
}

// discreteResult is what a discreteJob measured.
type discreteResult struct {
	marginals [][]float64 // pooled run-average marginals
	stats     gibbs.Stats // summed over chains
	lambda    float64     // λ of a minibatch sampler, 0 otherwise
	seconds   float64
	conv      convergence
	stateHash string
}

// run performs the job.
func (j *discreteJob) run(ctx context.Context) (*discreteResult, error) {
	margs := make([]*gibbs.Marginals, max(j.chains, 0))
	jb := &job{model: j.model, sampler: j.sampler, opts: j.opts, steps: j.steps, burn: j.burn,
		budget: j.budget, chains: j.chains, seed: j.seed, trace: j.trace, ctl: j.ctl,
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
	return &discreteResult{marginals: gibbs.Pool(margs...), stats: res.stats, lambda: res.lambda, seconds: res.seconds,
		conv: conv, stateHash: res.stateHash}, nil
}

// stepsPerSecond returns the update rate of one chain.
func (r *discreteResult) stepsPerSecond(chains int) float64 {
	if r.seconds == 0 {
		return 0
	}
	return float64(r.stats.Steps) / float64(chains) / r.seconds
}
