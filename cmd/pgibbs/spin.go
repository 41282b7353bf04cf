package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"io"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/infer"
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

// continuousSamplers names the registry's samplers of continuous models.
func continuousSamplers() string {
	return samplerNames(func(e samplers.Entry) bool { return e.Continuous })
}

// spinOutput is the JSON object of `pgibbs spin -json`.
type spinOutput struct {
	Model     string  `json:"model"`
	Width     int     `json:"width"`
	Beta      float64 `json:"beta"`
	Gamma     float64 `json:"gamma"`
	L         float64 `json:"L"`
	Delta     int     `json:"delta"`
	MeanSpin  float64 `json:"mean_spin"`
	Histogram string  `json:"histogram_csv,omitempty"`
	continuousOutput
}

// continuousOutput is the part of the output of spin and tgm that
// describes the sampler and the run.
type continuousOutput struct {
	M int `json:"m"`
	K int `json:"k"`
	gibbsOutput
}

// continuousFlags are the sampler flags shared by spin and tgm.
type continuousFlags struct {
	*runFlags
	m, k int
}

func addContinuousFlags(fs *flag.FlagSet, command string, m, k int, iters int64) *continuousFlags {
	f := &continuousFlags{runFlags: addRunFlags(fs, command, runDefaults{scan: true, sampler: "pgda",
		samplers: continuousSamplers(), iters: iters})}
	fs.IntVar(&f.m, "m", m, "degree m of the energy (DA) or density (ITS) interpolant")
	fs.IntVar(&f.k, "k", k, "degree k of the density interpolant of gibbs-da and pgda")
	return f
}

func (f *continuousFlags) check() error {
	if !entry(f.sampler).Continuous {
		return usagef("-sampler %q: want one of %s", f.sampler, continuousSamplers())
	}
	if f.m < 1 || f.m > 4096 {
		return usagef("-m %d: need 1 ≤ m ≤ 4096", f.m)
	}
	if f.k < 1 || f.k > 4096 {
		return usagef("-k %d: need 1 ≤ k ≤ 4096", f.k)
	}
	return nil
}

// answer samples g with -sampler (runFlags.answer, no marginals), obs
// observing chain k, and returns the sampler and run part of the output.
func (f *continuousFlags) answer(ctx context.Context, g *factorgraph.Graph, so gibbs.Options, obs func(k int) []chain.Observer) (continuousOutput, error) {
	so.M, so.K = f.m, f.k
	opt, err := f.inferOptions(&infer.Spec{Name: f.sampler, Clusters: f.clusterCount()}, so)
	if err != nil {
		return continuousOutput{}, err
	}
	opt.Run.NoMarginals, opt.Run.Observe = true, obs
	a, rec, err := f.runFlags.answer(ctx, g, opt)
	switch {
	case err != nil:
		return continuousOutput{}, err
	case rec == nil:
		return continuousOutput{}, errNothingSampled(a)
	}
	return continuousOutput{M: f.m, K: f.k, gibbsOutput: *rec}, nil
}

// print adds the sampler and run lines to a text table.
func (out continuousOutput) print(tw io.Writer) {
	fmt.Fprintf(tw, "sampler\t%s (m = %d, k = %d, λ = %.4g)\n", out.Sampler, out.M, out.K, out.Lambda)
	out.gibbsOutput.print(tw)
}

func runSpin(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "spin", "Samples the continuous spin model of Zhang & De Sa (2019, §4.2): an N×N lattice of spins in [0, 1],\n"+
		"every pair coupled by β·exp(−γ·d²)·(x_i x_j + 1); γ defaults to the width giving the paper's L = 13.71.")
	p := spin.Paper()
	fs.IntVar(&p.Width, "width", p.Width, "lattice side N (N×N sites)")
	fs.Float64Var(&p.Beta, "beta", p.Beta, "inverse temperature β")
	fs.Float64Var(&p.Gamma, "gamma", p.Gamma, "kernel width γ of exp(−γ·d²)")
	f := addContinuousFlags(fs, "spin", 3, 10, 200000)
	bins := fs.Int("bins", 50, "bins of the spin histogram")
	hist := fs.String("hist", "", "write the histogram of all spins (pooled over sites and chains) to this CSV file")
	f.outputs = []string{"hist"}
	if err := f.parse(e, args); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return usagef("%v", err)
	}
	if p.Width > maxSpinWidth {
		return usagef("-width %d: at most %d (every pair is a stored factor); use `pgibbs lattice` for larger implicit lattices", p.Width, maxSpinWidth)
	}
	if err := f.check(); err != nil {
		return err
	}
	if *bins < 1 || *bins > 1<<20 {
		return usagef("-bins %d: need 1 to 2²⁰", *bins)
	}
	g, err := spin.New(p)
	if err != nil {
		return err
	}
	var hs []*chain.Histograms
	lo, hi := factorgraph.Intervals(g)
	co, err := f.answer(ctx, g, f.options(), func(int) []chain.Observer {
		h, _ := chain.NewHistograms(lo, hi, *bins) // bins ≥ 1 checked above
		hs = append(hs, h)
		return []chain.Observer{h}
	})
	if err != nil {
		return err
	}
	h, err := chain.PoolHistograms(hs...)
	if err != nil {
		return err
	}
	mean := 0.0
	for i := range g.NumVars() {
		mean += h.Mean(i)
	}
	out := spinOutput{Model: "spin", Width: p.Width, Beta: p.Beta, Gamma: p.Gamma, L: g.L(), Delta: g.MaxDegree(),
		MeanSpin: mean / float64(g.NumVars()), continuousOutput: co}
	if *hist != "" {
		if err := writeHistogram(*hist, h.Pooled(), 0, 1); err != nil {
			return err
		}
		out.Histogram = *hist
	}
	if f.asJSON {
		return writeJSON(e, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\tcontinuous spin %d×%d, β = %g, γ = %.6g\n", p.Width, p.Width, p.Beta, p.Gamma)
	fmt.Fprintf(tw, "L, Δ\t%.4f, %d\n", out.L, out.Delta)
	out.continuousOutput.print(tw)
	fmt.Fprintf(tw, "mean spin\t%.5f\n", out.MeanSpin)
	if out.Histogram != "" {
		fmt.Fprintf(tw, "histogram\t%s\n", out.Histogram)
	}
	printConvergence(tw, out.convergence)
	return tw.Flush()
}

// writeHistogram writes bin,lo,hi,probability rows to path.
func writeHistogram(path string, probs []float64, lo, hi float64) error {
	width := (hi - lo) / float64(len(probs))
	rows := [][]string{{"bin", "lo", "hi", "probability"}}
	for b, p := range probs {
		rows = append(rows, []string{strconv.Itoa(b), fmtFloat(lo + float64(b)*width), fmtFloat(lo + float64(b+1)*width), fmtFloat(p)})
	}
	return writeCSV(path, rows)
}

// writeCSV writes rows to a new file at path.
func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.WriteAll(rows) // the error is w.Error's
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// maxSpinWidth is the largest lattice side of the spin model, whose pair
// factors are stored as values (spin.Pair, a generic factor in each of its
// two rows): 100×100 sites hold about 8·10⁶ pairs within the kernel's reach.
const maxSpinWidth = 100
