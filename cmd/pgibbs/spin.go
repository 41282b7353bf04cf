package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/spin"
)

func init() {
	register(&command{
		name:    "spin",
		summary: "the paper's continuous spin model (§4.2) with a continuous sampler",
		example: "pgibbs spin -sampler pgda -m 3 -k 10 -iters 200000 -json",
		run:     runSpin,
	})
}

// continuousSamplers are the samplers of continuous models.
var continuousSamplers = []string{"gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection"}

func isContinuousSampler(name string) bool {
	for _, n := range continuousSamplers {
		if n == name {
			return true
		}
	}
	return false
}

// spinOutput is the JSON object of `pgibbs spin -json`.
type spinOutput struct {
	Model          string  `json:"model"`
	Width          int     `json:"width"`
	Beta           float64 `json:"beta"`
	Gamma          float64 `json:"gamma"`
	Sampler        string  `json:"sampler"`
	M              int     `json:"m"`
	K              int     `json:"k"`
	Seed           uint64  `json:"seed"`
	Chains         int     `json:"chains"`
	L              float64 `json:"L"`
	Delta          int     `json:"delta"`
	Lambda         float64 `json:"lambda"`
	Iterations     int64   `json:"iterations"`
	Burn           int64   `json:"burn"`
	FactorsPerStep float64 `json:"factors_per_step"`
	DrawsPerStep   float64 `json:"draws_per_step"`
	AcceptanceRate float64 `json:"acceptance_rate,omitempty"`
	TriesPerStep   float64 `json:"tries_per_step,omitempty"`
	MeanSpin       float64 `json:"mean_spin"`
	Seconds        float64 `json:"seconds"`
	StepsPerSecond float64 `json:"steps_per_second"`
	Histogram      string  `json:"histogram_csv,omitempty"`
	StateSHA256    string  `json:"state_sha256"`
	convergence
}

// continuousFlags are the sampler flags shared by spin and tgm.
type continuousFlags struct {
	sampler             *string
	m, k                *int
	lambda, lambdaScale *float64
	iters, burn         *int64
	chains              *int
	seed                *uint64
	asJSON              *bool
}

func addContinuousFlags(fs interface {
	String(string, string, string) *string
	Int(string, int, string) *int
	Float64(string, float64, string) *float64
	Int64(string, int64, string) *int64
	Uint64(string, uint64, string) *uint64
	Bool(string, bool, string) *bool
}, sampler string, m, k int, iters int64) continuousFlags {
	return continuousFlags{
		sampler:     fs.String("sampler", sampler, "sampler: gibbs-its, gibbs-da, pgits, pgda, gibbs-rejection or pg-rejection"),
		m:           fs.Int("m", m, "degree m of the energy (DA) or density (ITS) interpolant"),
		k:           fs.Int("k", k, "degree k of the density interpolant of gibbs-da and pgda"),
		lambda:      fs.Float64("lambda", 0, "λ, the Poisson-minibatch size parameter (default L²)"),
		lambdaScale: fs.Float64("lambda-scale", 0, "λ as a multiple of L² (default 1 when -lambda is not set)"),
		iters:       fs.Int64("iters", iters, "variable updates per chain"),
		burn:        fs.Int64("burn", 0, "updates per chain before statistics are collected"),
		chains:      fs.Int("chains", 1, "independent chains, run in parallel"),
		seed:        fs.Uint64("seed", 1, "random seed"),
		asJSON:      fs.Bool("json", false, "print one JSON object"),
	}
}

func (f continuousFlags) check() error {
	if !isContinuousSampler(*f.sampler) {
		return usagef("-sampler %q: want one of %v", *f.sampler, continuousSamplers)
	}
	if *f.m < 1 || *f.m > 4096 {
		return usagef("-m %d: need 1 ≤ m ≤ 4096", *f.m)
	}
	if *f.k < 1 || *f.k > 4096 {
		return usagef("-k %d: need 1 ≤ k ≤ 4096", *f.k)
	}
	return checkLambdaFlags(*f.lambda, *f.lambdaScale)
}

func (f continuousFlags) options() gibbs.Options {
	return gibbs.Options{M: *f.m, K: *f.k, Lambda: *f.lambda, LambdaScale: *f.lambdaScale}
}

func runSpin(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "spin", "Samples the continuous spin model of Zhang & De Sa (2019, §4.2): an N×N lattice of spins in [0, 1],\n"+
		"every pair coupled by β·exp(−γ·d²)·(x_i x_j + 1); γ defaults to the width giving the paper's L = 13.71.")
	p := spin.Paper()
	fs.IntVar(&p.Width, "width", p.Width, "lattice side N (N×N sites)")
	fs.Float64Var(&p.Beta, "beta", p.Beta, "inverse temperature β")
	fs.Float64Var(&p.Gamma, "gamma", p.Gamma, "kernel width γ of exp(−γ·d²)")
	cf := addContinuousFlags(fs, "pgda", 3, 10, 200000)
	bins := fs.Int("bins", 50, "bins of the spin histogram")
	hist := fs.String("hist", "", "write the histogram of all spins (pooled over sites and chains) to this CSV file")
	ctl := addControlFlags(fs, "spin")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := ctl.setup(fs); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return usagef("%v", err)
	}
	if p.Width > maxMaterialised {
		return usagef("-width %d: at most %d (every pair is a stored factor); use `pgibbs lattice` for larger implicit lattices", p.Width, maxMaterialised)
	}
	if err := cf.check(); err != nil {
		return err
	}
	if *bins < 1 || *bins > 1<<20 {
		return usagef("-bins %d: need 1 to 2²⁰", *bins)
	}
	g, err := spin.New(p)
	if err != nil {
		return err
	}
	hs := make([]*gibbs.Histograms, *cf.chains)
	jb := &job{model: g, sampler: *cf.sampler, opts: cf.options(), steps: *cf.iters, burn: *cf.burn,
		chains: *cf.chains, seed: *cf.seed, trace: true, ctl: ctl,
		obs: func(c int) []gibbs.Observer {
			hs[c], _ = gibbs.NewHistograms(g, *bins) // bins ≥ 1 checked above
			return []gibbs.Observer{hs[c]}
		}}
	res, err := jb.run(ctx)
	if err != nil {
		return err
	}
	h, err := gibbs.PoolHistograms(hs...)
	if err != nil {
		return err
	}
	mean := 0.0
	for i := range g.NumVars() {
		mean += h.Mean(i)
	}
	out := spinOutput{Model: "spin", Width: p.Width, Beta: p.Beta, Gamma: p.Gamma, Sampler: *cf.sampler, M: *cf.m, K: *cf.k,
		Seed: *cf.seed, Chains: *cf.chains, L: g.L(), Delta: g.MaxDegree(), Lambda: res.lambda, Iterations: res.stats.Steps,
		Burn: *cf.burn, FactorsPerStep: res.stats.FactorsPerStep(), DrawsPerStep: res.stats.PicksPerStep(),
		TriesPerStep: res.stats.TriesPerStep(), MeanSpin: mean / float64(g.NumVars()), Seconds: res.seconds,
		StepsPerSecond: res.stepsPerSecond(*cf.chains), StateSHA256: res.stateHash}
	if out.convergence, err = res.convergence(); err != nil {
		return err
	}
	if res.stats.Proposals > 0 {
		out.AcceptanceRate = res.stats.AcceptanceRate()
	}
	if *hist != "" {
		if err := writeHistogram(*hist, h.Pooled(), 0, 1); err != nil {
			return err
		}
		out.Histogram = *hist
	}
	if *cf.asJSON {
		return writeJSON(e, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\tcontinuous spin %d×%d, β = %g, γ = %.6g\n", p.Width, p.Width, p.Beta, p.Gamma)
	fmt.Fprintf(tw, "L, Δ\t%.4f, %d\n", out.L, out.Delta)
	fmt.Fprintf(tw, "sampler\t%s (m = %d, k = %d, λ = %.4g)\n", out.Sampler, out.M, out.K, out.Lambda)
	fmt.Fprintf(tw, "iterations\t%d in %d chain(s), %.2f s, %.0f steps/s a chain\n", out.Iterations, out.Chains, out.Seconds, out.StepsPerSecond)
	fmt.Fprintf(tw, "factors/step, draws/step\t%.2f, %.2f\n", out.FactorsPerStep, out.DrawsPerStep)
	if out.AcceptanceRate > 0 {
		fmt.Fprintf(tw, "MH acceptance\t%.4f\n", out.AcceptanceRate)
	}
	if out.TriesPerStep > 0 {
		fmt.Fprintf(tw, "rejection tries/step\t%.2f\n", out.TriesPerStep)
	}
	fmt.Fprintf(tw, "mean spin\t%.5f\n", out.MeanSpin)
	if out.Histogram != "" {
		fmt.Fprintf(tw, "histogram\t%s\n", out.Histogram)
	}
	printConvergence(tw, out.convergence)
	return tw.Flush()
}

// writeHistogram writes bin,lo,hi,probability rows to path.
func writeHistogram(path string, probs []float64, lo, hi float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	width := (hi - lo) / float64(len(probs))
	_ = w.Write([]string{"bin", "lo", "hi", "probability"})
	for b, p := range probs {
		_ = w.Write([]string{strconv.Itoa(b), fmtFloat(lo + float64(b)*width), fmtFloat(lo + float64(b+1)*width), fmtFloat(p)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
