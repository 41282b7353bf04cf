package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/mh"
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
	if !slices.Contains(mh.Names(), f.sampler) {
		return usagef("-sampler %q: want one of %v", f.sampler, mh.Names())
	}
	switch {
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
	run := &mhRun{f: f, target: target, opts: opts}
	o, err := f.execute(ctx, run.job())
	if err != nil {
		return err
	}
	qs, name := run.monitor.Quantities()
	out := run.output(*model, opts, o, f.judge(qs, name))
	if *model == "bias" {
		tv := biasTV(run.monitor.Traces(), *k)
		out.TV = &tv
	}
	if f.asJSON {
		return writeJSON(e, out)
	}
	return printMH(e, out)
}

// output returns the run's JSON record.
func (run *mhRun) output(model string, opts mh.Options, o *outcome, conv convergence) mhOutput {
	var st mh.Stats
	for _, s := range run.samplers {
		st.Add(s.Stats())
	}
	f, target := run.f, run.target
	out := mhOutput{Model: model, N: target.N(), Dim: target.Dim(), Step: opts.Step, Iterations: st.Steps,
		AcceptanceRate: st.AcceptanceRate(), AvgBatchSize: st.Batch / float64(st.Steps),
		EvalsPerStep: float64(st.Evals) / float64(st.Steps), FullSteps: st.FullSteps,
		Mean: chain.PoolMeans(run.means...), record: f.record(o, conv)}
	switch f.sampler {
	case "tunamh":
		out.Chi = opts.Chi
	case "poissonmh":
		out.Lambda = opts.Lambda
	}
	if o.seconds > 0 && out.ESSBulkMin != nil {
		out.ESSPerSecond = *out.ESSBulkMin / o.seconds
	}
	return out
}

// mhRun runs samplers of package mh: chain k runs f.sampler from stream k
// with running means and a thinned trace of every coordinate.
type mhRun struct {
	f        *runFlags
	target   mh.Target
	opts     mh.Options
	samplers []mh.Sampler
	means    []*chain.Means
	monitor  *chain.Monitor // a trace of every coordinate a chain
}

// maxDraws bounds the stored draws of a chain (the trace is thinned).
const maxDraws = 20000

func (m *mhRun) job() job {
	d := m.target.Dim()
	vars := make([]int, d)
	for j := range vars {
		vars[j] = j
	}
	return job{steps: m.f.iters, burn: m.f.burn,
		build: func(k int) (*chain.Chain, error) {
			src := chain.Source(m.f.seed, k)
			s, err := mh.New(m.f.sampler, m.target, rand.New(src), &m.opts)
			if err != nil {
				return nil, usagef("%v", err)
			}
			if m.monitor == nil {
				// θ's coordinates are continuous (size 0): their draws are
				// the tracked quantities.
				if m.monitor, err = chain.NewMonitor(vars, make([]int, d), maxDraws); err != nil {
					return nil, err
				}
			}
			tr, err := m.monitor.Trace(s)
			if err != nil {
				return nil, err
			}
			mean := chain.NewMeans(d)
			m.samplers, m.means = append(m.samplers, s), append(m.means, mean)
			return &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{mean, tr}}, nil
		},
		trace: func(int) (string, int64, chain.RowFunc) { return chain.StateHeader(vars), 1, chain.StateRow(vars) },
		// The sampler's per-datum state (FlyMC's bright set, memos) and the
		// thinned trace of every coordinate.
		memory:     func() float64 { return 32*float64(m.target.N()) + 8*maxDraws*float64(d) },
		quantities: func() ([][][]float64, func(q int) string) { return m.monitor.Quantities() },
		checkEvery: func() int64 { return 1000 },
	}
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

// biasTV returns the total variation between the chains' histogram of θ
// and the uniform target of the bias example.
func biasTV(traces []*chain.Trace, k int) float64 {
	h := make([]float64, k)
	for _, t := range traces {
		for _, v := range t.Draws()[0] {
			if i := int(v); i >= 0 && i < k {
				h[i]++
			}
		}
	}
	u := make([]float64, k)
	for i := range u {
		u[i] = 1
	}
	tv, _ := diag.TotalVariation(h, u)
	return tv
}
