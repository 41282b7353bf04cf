package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/chain"
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
	Model     string  `json:"model"`
	N         int     `json:"n"`
	Beta      float64 `json:"beta"`
	Box       float64 `json:"box"`
	DataSeed  uint64  `json:"data_seed"`
	L         float64 `json:"L"`
	MeanX1    float64 `json:"mean_x1"`
	MeanX2    float64 `json:"mean_x2"`
	Histogram string  `json:"histogram_csv,omitempty"`
	continuousOutput
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
	f := addContinuousFlags(fs, "tgm", 20, 25, 100000)
	bins := fs.Int("bins", 60, "bins per axis of the 2-D density histogram")
	hist := fs.String("hist", "", "write the 2-D density histogram of (x1, x2) to this CSV file")
	f.outputs = []string{"hist"}
	if err := f.parse(e, args); err != nil {
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
	if err := f.check(); err != nil {
		return err
	}
	opts := f.options()
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
	var js []*chain.Joint2D
	co, err := f.answer(ctx, g, opts, func(int) []chain.Observer {
		j, _ := chain.NewJoint2D(0, 1, -*box, *box, -*box, *box, *bins, *bins) // arguments checked above
		js = append(js, j)
		return []chain.Observer{j}
	})
	if err != nil {
		return err
	}
	joint, err := chain.PoolJoint2D(js...)
	if err != nil {
		return err
	}
	m1, m2 := joint.Means()
	out := tgmOutput{Model: "tgm", N: *n, Beta: *beta, Box: *box, DataSeed: *dataSeed, L: g.L(), MeanX1: m1, MeanX2: m2, continuousOutput: co}
	if *hist != "" {
		if err := writeJoint(*hist, joint); err != nil {
			return err
		}
		out.Histogram = *hist
	}
	if f.asJSON {
		return writeJSON(e, out)
	}
	return out.print(e)
}

func (out *tgmOutput) print(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\ttruncated Gaussian mixture, N = %d, β = %g, box [−%g, %g]², data seed %d\n", out.N, out.Beta, out.Box, out.Box, out.DataSeed)
	fmt.Fprintf(tw, "L\t%.4f (paper: 1581.14 for its data)\n", out.L)
	out.continuousOutput.print(tw)
	fmt.Fprintf(tw, "mean (x1, x2)\t(%.4f, %.4f)\n", out.MeanX1, out.MeanX2)
	if out.Histogram != "" {
		fmt.Fprintf(tw, "density histogram\t%s\n", out.Histogram)
	}
	printConvergence(tw, out.convergence)
	return tw.Flush()
}

// writeJoint writes x1,x2,density rows (cell centres, density per unit area).
func writeJoint(path string, j *chain.Joint2D) error {
	_, ny, loA, wA, loB, wB := j.Bins()
	rows := [][]string{{"x1", "x2", "density"}}
	for c, p := range j.Probs() {
		a, b := c/ny, c%ny
		rows = append(rows, []string{fmtFloat(loA + (float64(a)+0.5)*wA), fmtFloat(loB + (float64(b)+0.5)*wB), fmtFloat(p / (wA * wB))})
	}
	return writeCSV(path, rows)
}
