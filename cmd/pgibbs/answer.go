package main

import (
	"cmp"
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/infer"
)

// The subcommands that run samplers of package gibbs on a factor graph
// (uai, potts, spin, tgm, default) are flags, one call of infer.Marginals
// and output: the run layer's features reach the chains as infer.Run's
// hooks, so that the chains are built, burnt in, run, judged and pooled by
// package infer alone, as a program calling it gets them.

// inferOptions returns the infer.Options of the shared flags with spec
// (nil: infer's choice, -iters counting variable updates) and the
// samplers' options so: -seconds, -seed, -chains or -chain k -of K, the
// verdict's criteria, -iters and -burn, -estimator, the memory limit,
// checkpoints, progress and -until-rhat.
func (f *runFlags) inferOptions(spec *infer.Spec, so gibbs.Options) (infer.Options, error) {
	limit, err := f.readLimit()
	if err != nil {
		return infer.Options{}, err
	}
	if f.merged != nil {
		if err := chain.VerifyFiles(f.merged[0].Inputs); err != nil {
			return infer.Options{}, err
		}
	}
	run := &infer.Run{Spec: spec, Burn: f.burn, Updates: spec == nil, Indices: f.indices(), Counts: f.estimator == "counts",
		MaxBytes: limit, Runner: *f.template(), Started: f.watch, Until: f.untilRhat > 0, Start: f.started}
	if f.seconds == 0 {
		run.Steps = f.iters
	} else if !f.set["burn"] {
		run.Burn = -1 // the library's rule: a tenth of the sweeps expected, at most 1000
	}
	return infer.Options{Time: time.Duration(f.seconds * float64(time.Second)), Seed: f.seed,
		Chains: len(run.Indices), Criteria: f.criteria(), Sampler: so, Run: run}, nil
}

// answer calls infer.Marginals with the hooks of the run layer that need
// the chains (trace files, -resume, merged parts) and returns its answer
// and, if chains ran, their record (conclude: the runner's error, the
// burn-in, -plot, the part record; merged parts are loaded as they
// ended). A nil record and error: nothing was sampled (an exact answer, or
// the answer's Incomplete says why); a context.Canceled error with the
// answer: interrupted within the burn-in.
func (f *runFlags) answer(ctx context.Context, g *factorgraph.Graph, opt infer.Options) (*infer.Answer, *gibbsOutput, error) {
	out := &outcome{Session: f.session(nil)}
	var hookErr error // the run layer's: a checkpoint that does not restore
	defer out.Close()
	opt.Run.Built = func(chains []*chain.Chain) (run bool, err error) {
		defer func() { hookErr = err }()
		out.Trace = func(c *chain.Chain) (string, int64, chain.RowFunc, error) {
			sps := gibbs.StepsPerSweep(c.Kernel.(gibbs.Sampler))
			return chain.StateHeader(g.Free()), max(1, int64(math.Round(sps))), chain.StateRow(g.Free()), nil
		}
		for i, k := range opt.Run.Indices {
			if err := out.Add(chains[i], k); err != nil {
				return false, err
			}
		}
		return out.Attach()
	}
	a, err := infer.Marginals(ctx, g, opt)
	switch {
	case a == nil || hookErr != nil:
		return nil, nil, cmp.Or(hookErr, err)
	case a.Run == nil && err != nil && ctx.Err() == nil && (a.Choice != nil || opt.Run.Spec != nil): // building the chains
		return nil, nil, f.memoryError(constructionError(err))
	case a.Run == nil:
		return a, nil, err
	}
	rec, err := f.sampled(ctx, g, a.Run, out)
	if bie := (*chain.BurnInError)(nil); errors.As(err, &bie) && a.Incomplete != "" {
		return a, nil, nil // -seconds spent within the burn-in: a.Incomplete says so
	}
	return a, rec, err
}

// sampled finishes the run layer's part of the chains s ran and returns
// their record.
func (f *runFlags) sampled(ctx context.Context, g *factorgraph.Graph, s *infer.Sampled, out *outcome) (*gibbsOutput, error) {
	if f.merged == nil {
		if f.seconds > 0 && !f.set["burn"] && len(s.Samplers) > 0 {
			// The library's rule set the burn-in: recorded in -burn's
			// units (variable updates where infer chose the sampler).
			b := float64(s.Burn)
			if f.sampler == inferSampler {
				b *= float64(len(g.Free())) / gibbs.StepsPerSweep(s.Samplers[0])
			}
			f.burn = int64(math.Round(b))
		}
		out.Seconds = s.Seconds
		if f.untilRhat > 0 {
			out.stop = &stopping{StoppedBy: "ceiling", Checks: s.Checks}
			if s.Converged {
				out.stop.StoppedBy = "converged"
			}
			out.stop.LastToConverge = s.Last.LastToConverge()
		}
		if err := f.conclude(ctx, s.Err, f.seconds > 0 || s.Converged, s.Steps, s.Burn, out, s.Monitor.Quantities); err != nil {
			return nil, err
		}
	}
	conv := f.judgedVars(s.Verdict, s.Monitor.NumQuantities(), len(g.Free()))
	rec := f.samplerOutput(s, conv, out)
	return &rec, nil
}

// clusterCount returns -clusters as samplers.Config.Clusters: 0 without
// the flag, TuneClusters for auto, else the count (checked by
// checkClusters).
func (f *runFlags) clusterCount() int {
	switch f.clusters {
	case "":
		return 0
	case "auto":
		return samplers.TuneClusters
	}
	k, _ := strconv.Atoi(f.clusters)
	return k
}

// errNothingSampled is the error of a subcommand whose answer sampled
// nothing (a: why).
func errNothingSampled(a *infer.Answer) error { return errors.New(a.Incomplete) }
