package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
	mhrun "github.com/pgibbs/pgibbs/mh/run"
	"github.com/pgibbs/pgibbs/mh/targets"
)

func init() {
	register(&command{
		name:    "mh",
		summary: "exact (and approximate) minibatch Metropolis–Hastings on the MH papers' targets",
		example: "pgibbs mh -model tgm -sampler tunamh -step 0.1 -chi 1e-4 -iters 100000 -json",
		run:     runMH,
	})
}

// mhOutput is the JSON object of `pgibbs mh -json`.
type mhOutput struct {
	Model          string    `json:"model"`
	N              int       `json:"n"`
	Dim            int       `json:"dim"`
	Step           float64   `json:"step"`
	Chi            float64   `json:"chi,omitempty"`
	Lambda         float64   `json:"lambda,omitempty"`
	Iterations     int64     `json:"iterations"`
	AcceptanceRate float64   `json:"acceptance_rate"`
	AvgBatchSize   float64   `json:"avg_batch_size"`
	EvalsPerStep   float64   `json:"evals_per_step"`
	FullSteps      int64     `json:"full_steps"`
	Mean           []float64 `json:"mean"`
	ESSPerSecond   float64   `json:"ess_per_second"`
	TV             *float64  `json:"tv,omitempty"`
	record
}

func runMH(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "mh", "Runs a minibatch Metropolis–Hastings sampler on a target of the TunaMH paper:\n"+
		"  tgm       the truncated Gaussian mixture on [−3, 3]², β = 10⁻⁴, flat prior (N = 10⁶)\n"+
		"  rlr       robust linear regression, Student-t ν = 4 (N = 10⁵, d = 10)\n"+
		"  logistic  logistic regression on synthetic data (N = 10⁴, d = 10)\n"+
		"  bias      the random walk on {0, …, K−1} whose exact target is uniform (N = 6000)\n"+
		"Step sizes, χ and λ default to the paper's settings where it gives them.")
	model := fs.String("model", "tgm", "target: tgm, rlr, logistic or bias")
	step := fs.Float64("step", 0, "random-walk step size (default: the paper's for the model and sampler, else 0.1)")
	chi := fs.Float64("chi", 0, "TunaMH's χ (default 1e-4 for tgm, 1e-5 otherwise)")
	n := fs.Int("n", 0, "number of data points (default per model)")
	dim := fs.Int("d", 10, "dimension of the regression models")
	k := fs.Int("K", 200, "number of states of the bias example")
	mapStart := fs.Bool("map", false, "start at the posterior mode and expand control variates and bounds there")
	f := addRunFlags(fs, "mh", runDefaults{sampler: "tunamh", samplers: strings.Join(mh.Names(), ", "), iters: 100000,
		noLambdaScale: true, lambdaUsage: "Poisson-MH's λ (default 500)", itersName: "iters", itersUsage: "steps per chain, burn-in included"})
	if err := f.parse(e, args); err != nil {
		return err
	}
	if err := zeroFlags(f.set, fs, "step", "chi", "n"); err != nil {
		return err
	}
	switch _, err := mh.Lookup(f.sampler); {
	case err != nil: // before the target's data are drawn
		return usagef("-sampler %q: want one of %v", f.sampler, mh.Names())
	case *n < 0 || *n > 10_000_000:
		return usagef("-n %d: need 1 to 10⁷", *n)
	case *dim < 1 || *dim > 10000:
		return usagef("-d %d: need 1 to 10⁴", *dim)
	case *k < 2 || *k > 1_000_000:
		return usagef("-K %d: need 2 to 10⁶", *k)
	}
	target, opts, err := targets.Paper(targets.Setup{Model: *model, Sampler: f.sampler, N: *n, Dim: *dim, K: *k, MapStart: *mapStart, Seed: f.seed},
		mh.Options{Step: *step, Chi: *chi, Lambda: f.lambda, MaxDraws: f.maxDraws})
	if err != nil {
		if !slices.Contains(targets.Models, *model) {
			return usagef("-model %q: want tgm, rlr, logistic or bias", *model)
		}
		return err
	}
	x, err := mhrun.New(mhrun.Config{Target: target, Sampler: f.sampler, Options: opts, Chains: f.chains, Seed: f.seed,
		Steps: f.iters, Burn: f.burn, Criteria: f.criteria()})
	if err != nil {
		return mhConfigError(err)
	}
	o, err := f.execute(ctx, x, mhConfigError)
	if err != nil {
		return err
	}
	res, err := x.Result(o.Chains)
	if err != nil {
		return err
	}
	out := mhRecord(f, *model, x.Config(), res, o)
	if f.asJSON {
		return writeJSON(e, out)
	}
	return printMH(e, out)
}

// mhRecord returns the run's JSON record: the experiment's setup, its
// pooled result and the run layer's record.
func mhRecord(f *runFlags, model string, cfg mhrun.Config, res *mhrun.Result, o *outcome) mhOutput {
	st, opts := res.Stats, cfg.Options
	out := mhOutput{Model: model, N: cfg.Target.N(), Dim: cfg.Target.Dim(), Step: opts.Step, Iterations: st.Steps,
		AcceptanceRate: st.AcceptanceRate(), AvgBatchSize: st.MeanBatch(), EvalsPerStep: st.EvalsPerStep(),
		FullSteps: st.FullSteps, Mean: res.Mean, TV: res.TV,
		record: f.record(o, judged(res.Verdict, cfg.Criteria, len(res.Quantities), ""))}
	switch cfg.Sampler {
	case "tunamh":
		out.Chi = opts.Chi
	case "poissonmh":
		out.Lambda = opts.Lambda
	}
	if o.Seconds > 0 && out.ESSBulkMin != nil {
		out.ESSPerSecond = *out.ESSBulkMin / o.Seconds
	}
	return out
}

// mhConfigError returns mhrun.New's or Experiment.Chain's refusal as the
// command's usage error (-sampler's naming the flag).
func mhConfigError(err error) error {
	var ce *chain.ConfigError
	switch {
	case !errors.As(err, &ce):
		return err
	case ce.Field == "Sampler":
		return usagef("-sampler %v", ce.Err)
	}
	return usagef("%v", ce.Err)
}

func printMH(e *env, out mhOutput) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "target\t%s, N = %d, dimension %d\n", out.Model, out.N, out.Dim)
	fmt.Fprintf(tw, "sampler\t%s (step %g", out.Sampler, out.Step)
	if out.Chi > 0 {
		fmt.Fprintf(tw, ", χ = %g", out.Chi)
	}
	if out.Lambda > 0 {
		fmt.Fprintf(tw, ", λ = %g", out.Lambda)
	}
	fmt.Fprintf(tw, ")\n")
	fmt.Fprintf(tw, "iterations\t%d in %d chain(s), %.2f s\n", out.Iterations, out.Chains, out.Seconds)
	fmt.Fprintf(tw, "acceptance\t%.4f\n", out.AcceptanceRate)
	fmt.Fprintf(tw, "average batch size\t%.2f (%.2f ℓ_i evaluations a step)\n", out.AvgBatchSize, out.EvalsPerStep)
	fmt.Fprintf(tw, "mean\t%.4g\n", out.Mean)
	fmt.Fprintf(tw, "ESS a second\t%.2f\n", out.ESSPerSecond)
	out.stopping.print(tw)
	printConvergence(tw, out.convergence)
	if out.TV != nil {
		fmt.Fprintf(tw, "TV to the exact (uniform) target\t%.4f\n", *out.TV)
	}
	return tw.Flush()
}
