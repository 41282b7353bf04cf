package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/tgm"
)

func init() {
	register(&command{
		name:    "tgm",
		summary: "the paper's truncated Gaussian mixture (§4.3) with a continuous sampler",
		example: "pgibbs tgm -sampler pgda -lambda 500 -m 20 -k 25 -iters 100000 -hist density.csv -json",
		run:     runTGM,
	})
}

// tgmOutput is the JSON object of `pgibbs tgm -json`.
type tgmOutput struct {
	Model          string  `json:"model"`
	N              int     `json:"n"`
	Beta           float64 `json:"beta"`
	Box            float64 `json:"box"`
	DataSeed       uint64  `json:"data_seed"`
	Sampler        string  `json:"sampler"`
	M              int     `json:"m"`
	K              int     `json:"k"`
	Seed           uint64  `json:"seed"`
	Chains         int     `json:"chains"`
	L              float64 `json:"L"`
	Lambda         float64 `json:"lambda"`
	Iterations     int64   `json:"iterations"`
	Burn           int64   `json:"burn"`
	FactorsPerStep float64 `json:"factors_per_step"`
	DrawsPerStep   float64 `json:"draws_per_step"`
	AcceptanceRate float64 `json:"acceptance_rate,omitempty"`
	TriesPerStep   float64 `json:"tries_per_step,omitempty"`
	MeanX1         float64 `json:"mean_x1"`
	MeanX2         float64 `json:"mean_x2"`
	Seconds        float64 `json:"seconds"`
	StepsPerSecond float64 `json:"steps_per_second"`
	Histogram      string  `json:"histogram_csv,omitempty"`
	StateSHA256    string  `json:"state_sha256"`
	convergence
}

func runTGM(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tgm", "Samples the tempered truncated Gaussian mixture of Zhang & De Sa (2019, §4.3): y_i ~ ½N(x1, 2) + ½N(x1+x2, 2),\n"+
		"data generated with (x1, x2) = (0, 1), priors x1 ~ N(0, 10), x2 ~ N(0, 1), the box [−b, b]², likelihood tempered by β;\n"+
		"one factor per datum with its exact range over the box. Defaults are the paper's: N = 10⁶, β = 10⁻⁴, b = 6,\n"+
		"λ = 500, m = 20, k = 25 (building the model with N = 10⁶ takes a few seconds).")
	n := fs.Int("n", 1_000_000, "number of data points N")
	beta := fs.Float64("beta", 1e-4, "tempering β of the likelihood, in (0, 1]")
	box := fs.Float64("box", 6, "half-width b of the box [−b, b]²")
	dataSeed := fs.Uint64("data-seed", 1, "random seed of the data")
	cf := addContinuousFlags(fs, "pgda", 20, 25, 100000)
	bins := fs.Int("bins", 60, "bins per axis of the 2-D density histogram")
	hist := fs.String("hist", "", "write the 2-D density histogram of (x1, x2) to this CSV file")
	ctl := addControlFlags(fs, "tgm")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := ctl.setup(fs); err != nil {
		return err
	}
	switch {
	case *n < 1 || *n > 10_000_000:
		return usagef("-n %d: need 1 to 10⁷ data points", *n)
	case !(*beta > 0 && *beta <= 1):
		return usagef("-beta %v: need 0 < β ≤ 1", *beta)
	case !(*box > 0) || math.IsInf(*box, 0):
		return usagef("-box %v: need a finite half-width > 0", *box)
	case *bins < 1 || *bins > 4096:
		return usagef("-bins %d: need 1 to 4096", *bins)
	}
	if err := cf.check(); err != nil {
		return err
	}
	opts := cf.options()
	if opts.Lambda == 0 && opts.LambdaScale == 0 {
		opts.Lambda = 500 // the paper's setting for this model
	}
	cfg := tgm.GibbsConfig()
	cfg.N, cfg.Beta, cfg.Box = *n, *beta, tgm.Box{Lo1: -*box, Hi1: *box, Lo2: -*box, Hi2: *box}
	model, err := tgm.Generate(cfg, rand.New(rand.NewPCG(*dataSeed, 0x7e5a)))
	if err != nil {
		return err
	}
	g, err := model.Graph()
	if err != nil {
		return err
	}
	js := make([]*gibbs.Joint2D, *cf.chains)
	jb := &job{model: g, sampler: *cf.sampler, opts: opts, steps: *cf.iters, burn: *cf.burn,
		chains: *cf.chains, seed: *cf.seed, trace: true, ctl: ctl,
		obs: func(c int) []gibbs.Observer {
			js[c], _ = gibbs.NewJoint2D(g, 0, 1, *bins, *bins) // arguments checked above
			return []gibbs.Observer{js[c]}
		}}
	res, err := jb.run(ctx)
	if err != nil {
		return err
	}
	joint, err := gibbs.PoolJoint2D(js...)
	if err != nil {
		return err
	}
	m1, m2 := joint.Means()
	out := tgmOutput{Model: "tgm", N: *n, Beta: *beta, Box: *box, DataSeed: *dataSeed, Sampler: *cf.sampler,
		M: *cf.m, K: *cf.k, Seed: *cf.seed, Chains: *cf.chains, L: g.L(), Lambda: res.lambda,
		Iterations: res.stats.Steps, Burn: *cf.burn, FactorsPerStep: res.stats.FactorsPerStep(),
		DrawsPerStep: res.stats.PicksPerStep(), TriesPerStep: res.stats.TriesPerStep(), MeanX1: m1, MeanX2: m2,
		Seconds: res.seconds, StepsPerSecond: res.stepsPerSecond(*cf.chains), StateSHA256: res.stateHash}
	if out.convergence, err = res.convergence(); err != nil {
		return err
	}
	if res.stats.Proposals > 0 {
		out.AcceptanceRate = res.stats.AcceptanceRate()
	}
	if *hist != "" {
		if err := writeJoint(*hist, joint); err != nil {
			return err
		}
		out.Histogram = *hist
	}
	if *cf.asJSON {
		return writeJSON(e, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\ttruncated Gaussian mixture, N = %d, β = %g, box [−%g, %g]², data seed %d\n", *n, *beta, *box, *box, *dataSeed)
	fmt.Fprintf(tw, "L\t%.4f (paper: 1581.14 for its data)\n", out.L)
	fmt.Fprintf(tw, "sampler\t%s (m = %d, k = %d, λ = %.4g)\n", out.Sampler, out.M, out.K, out.Lambda)
	fmt.Fprintf(tw, "iterations\t%d in %d chain(s), %.2f s, %.1f steps/s a chain\n", out.Iterations, out.Chains, out.Seconds, out.StepsPerSecond)
	fmt.Fprintf(tw, "factors/step, draws/step\t%.1f, %.1f\n", out.FactorsPerStep, out.DrawsPerStep)
	if out.AcceptanceRate > 0 {
		fmt.Fprintf(tw, "MH acceptance\t%.4f\n", out.AcceptanceRate)
	}
	if out.TriesPerStep > 0 {
		fmt.Fprintf(tw, "rejection tries/step\t%.2f\n", out.TriesPerStep)
	}
	fmt.Fprintf(tw, "mean (x1, x2)\t(%.4f, %.4f)\n", out.MeanX1, out.MeanX2)
	if out.Histogram != "" {
		fmt.Fprintf(tw, "density histogram\t%s\n", out.Histogram)
	}
	printConvergence(tw, out.convergence)
	return tw.Flush()
}

// writeJoint writes x1,x2,density rows (cell centres, density per unit area).
func writeJoint(path string, j *gibbs.Joint2D) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_, ny, loA, wA, loB, wB := j.Bins()
	_ = w.Write([]string{"x1", "x2", "density"})
	for c, p := range j.Probs() {
		a, b := c/ny, c%ny
		_ = w.Write([]string{fmtFloat(loA + (float64(a)+0.5)*wA), fmtFloat(loB + (float64(b)+0.5)*wB), fmtFloat(p / (wA * wB))})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
