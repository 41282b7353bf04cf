package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pgibbs/pgibbs/bench"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "regenerate the papers' figures and tables (CSV, PNG, SVG): " + strings.Join(reproduceNames, "|"),
		example: "pgibbs reproduce fig1a -quick -out results",
		run:     runReproduce,
	})
}

// reproduceNames are the figures and tables `pgibbs reproduce` knows.
var reproduceNames = []string{"fig1a", "fig1b", "fig1c", "fig2", "fig3", "tunamh-table1", "tunamh-rlr", "crossover", "all"}

const reproduceUsage = `Regenerates a figure or table of the papers and writes CSV data and PNG + SVG plots to -out:
  fig1a          marginal error vs iterations on the Potts model: Gibbs, Poisson-Gibbs, DoubleMIN-Gibbs (λ2 = L², 10⁴L²)
  fig1b          Poisson-Gibbs at λ = 0.1, 1, 5·L² on the Potts model (with Gibbs)
  fig1c          symmetric KL vs iterations on the continuous spin model: PGITS, PGDA, Gibbs-ITS, Gibbs-DA, rejection
  fig2           fig1a, fig1b and fig1c against wall time (fig2a, fig2b, fig2c; the same runs)
  fig3           density estimates of PGITS, PGDA and PG-rejection on the truncated Gaussian mixture, next to the truth
  tunamh-table1  TunaMH paper, Table 1: average batch sizes of TFMH, FlyMC, Poisson-MH, TunaMH on the mixture
  tunamh-rlr     robust linear regression (N = 10⁵, d = 10): ESS per second of MH, TunaMH, MH-SS, SMH, TFMH, FlyMC
  crossover      ns/update of Gibbs, Poisson-Gibbs and hand-written heat-bath loops as Δ grows, and the Δ from which
                 Poisson-Gibbs is faster (a timing study on one core: run it alone on a quiet machine; -runs sets
                 its repetitions, -workers is not used; not part of all)
  all            every figure and table of the papers above (fig1a … tunamh-rlr), each run once
Full runs take minutes each (see docs/RESULTS.md); -quick finishes each figure in under a minute with
shorter runs (which it states). Figures average -runs independent runs, in parallel.`

// The experiments' settings (quick or full); tests replace them with tiny
// ones.
var (
	pottsSettings     = bench.PottsPaper
	spinSettings      = bench.SpinPaper
	tgmSettings       = bench.TGMPaper
	table1Settings    = bench.Table1Paper
	rlrSettings       = bench.RLRPaper
	crossoverSettings = bench.CrossoverPaper
)

// reproducer runs the experiments one invocation asks for, sharing runs
// between figures.
type reproducer struct {
	e       *env
	out     string
	quick   bool
	cfg     bench.Config
	bar     *progress
	potts   *bench.PottsResult
	spin    *bench.SpinResult
	written []string
	// allPotts says several figures share the Potts run: run every sampler.
	allPotts bool
}

func runReproduce(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "reproduce <name>", reproduceUsage)
	quick := fs.Bool("quick", false, "short runs: each figure in under a minute")
	out := fs.String("out", "results", "directory for the CSV and plot files (created if needed)")
	seed := fs.Uint64("seed", 1, "random seed")
	runs := fs.Int("runs", 3, "independent runs averaged per curve (the papers average 3)")
	workers := fs.Int("workers", 0, "runs in parallel (default: the number of CPUs)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	// The name may come before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return &usageError{msg: err.Error(), printed: true}
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	switch {
	case name == "":
		return usagef("which figure? want one of %s", strings.Join(reproduceNames, ", "))
	case !slices.Contains(reproduceNames, name):
		return usagef("unknown figure %q: want one of %s", name, strings.Join(reproduceNames, ", "))
	case len(rest) > 0:
		return usagef("unexpected argument %q", rest[0])
	case *runs < 1 || *runs > 100:
		return usagef("-runs %d: need 1 to 100", *runs)
	case *workers < 0 || *workers > 4096:
		return usagef("-workers %d: need 0 to 4096", *workers)
	case *out == "":
		return usagef("-out: need a directory")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	bar := newProgress(e.stderr, *quiet)
	r := &reproducer{e: e, out: *out, quick: *quick, bar: bar,
		cfg:      bench.Config{Seed: *seed, Runs: *runs, Workers: *workers, Progress: bar, Dir: *out},
		allPotts: name == "all" || name == "fig2"}
	mode := "full"
	if *quick {
		mode = "quick"
	}
	fmt.Fprintf(e.stdout, "pgibbs reproduce %s (%s mode, seed %d, %d runs a curve) → %s\n", name, mode, *seed, *runs, *out)
	steps := map[string][]func(context.Context) error{
		"fig1a":         {r.fig1a},
		"fig1b":         {r.fig1b},
		"fig1c":         {r.fig1c},
		"fig2":          {r.fig2},
		"fig3":          {r.fig3},
		"tunamh-table1": {r.table1},
		"tunamh-rlr":    {r.rlr},
		"crossover":     {r.crossover},
		"all":           {r.fig1a, r.fig1b, r.fig1c, r.fig2, r.fig3, r.table1, r.rlr},
	}
	start := time.Now()
	for _, step := range steps[name] {
		if err := step(ctx); err != nil {
			bar.Done()
			return err
		}
	}
	bar.Done()
	fmt.Fprintf(e.stdout, "\n%d files written in %.1f s\n", len(r.written), time.Since(start).Seconds())
	return nil
}

// wrote records and prints written files.
func (r *reproducer) wrote(paths ...string) {
	for _, p := range paths {
		fmt.Fprintf(r.e.stdout, "wrote %s\n", p)
	}
	r.written = append(r.written, paths...)
}

// summary prints a result's summary table and writes it with write.
func (r *reproducer) summary(markdown string, write func(dir string) (string, error)) error {
	r.bar.Done()
	fmt.Fprintf(r.e.stdout, "\n%s", markdown)
	p, err := write(r.out)
	if err != nil {
		return err
	}
	r.wrote(p)
	return nil
}

// figure records and prints the files a result's writer wrote.
func (r *reproducer) figure(paths []string, err error) error {
	r.wrote(paths...)
	return err
}

func (r *reproducer) say(format string, args ...any) {
	r.bar.Done()
	fmt.Fprintf(r.e.stdout, format+"\n", args...)
}

// pottsRun runs the Potts samplers with the given keys, or all six when
// several figures share the run ("all", "fig2"); later calls reuse it.
func (r *reproducer) pottsRun(ctx context.Context, keys []string) (*bench.PottsResult, error) {
	if r.potts != nil {
		return r.potts, nil
	}
	s := pottsSettings(r.quick)
	if !r.allPotts {
		s = s.Only(keys...)
	}
	r.say("\nPotts model (%d×%d, D = %d, β = %g): %s; %d updates a run, from every site in state %d",
		s.Params.Width, s.Params.Width, s.Params.States, s.Params.Beta, labels(s.Samplers), s.Iters, s.Init)
	for _, sp := range s.Samplers {
		if sp.Iters > 0 && sp.Iters < s.Iters {
			r.say("  %s: only %d updates a run (its updates are slow: see docs/RESULTS.md)", sp.Label, sp.Iters)
		}
	}
	res, err := bench.Potts(ctx, s, r.cfg)
	if err != nil {
		return nil, err
	}
	r.say("L = %.4f, Δ = %d, %d factors", res.L, res.Delta, res.Factors)
	if err := r.summary(res.Markdown(), res.WriteSummary); err != nil {
		return nil, err
	}
	r.potts = res
	return res, nil
}

func labels(ss []bench.Sampler) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Label)
	}
	return strings.Join(out, ", ")
}

func (r *reproducer) fig1a(ctx context.Context) error {
	res, err := r.pottsRun(ctx, bench.Fig1aKeys)
	if err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.out, "fig1a"))
}

func (r *reproducer) fig1b(ctx context.Context) error {
	res, err := r.pottsRun(ctx, bench.Fig1bKeys)
	if err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.out, "fig1b"))
}

func (r *reproducer) spinRun(ctx context.Context) (*bench.SpinResult, error) {
	if r.spin != nil {
		return r.spin, nil
	}
	s := spinSettings(r.quick)
	r.say("\nContinuous spin model (%d×%d, β = %g, γ = %.6g): %s; up to %d updates a run (rejection: %d), at most %v of sampling a run",
		s.Params.Width, s.Params.Width, s.Params.Beta, s.Params.Gamma, labels(s.Samplers), s.Iters, s.Samplers[len(s.Samplers)-1].Iters, s.Budget)
	r.say("symmetric KL of the %d-bin histogram of all spins to the truth (smoothing eps = %g); truth: %d %s chains × %d updates after %d",
		s.Bins, s.Eps, s.Truth.Chains, s.Truth.Sampler, s.Truth.Iters, s.Truth.Burn)
	res, err := bench.Spin(ctx, s, r.cfg)
	if err != nil {
		return nil, err
	}
	how := "computed and cached in"
	if res.TruthCached {
		how = "read from"
	}
	r.say("L = %.4f, Δ = %d; truth %s %s; its halves differ by symmetric KL %.3g (curves below about a quarter of that are not resolved)",
		res.L, res.Delta, how, res.TruthFile, res.TruthSelfKL)
	if err := r.summary(res.Markdown(), res.WriteSummary); err != nil {
		return nil, err
	}
	r.spin = res
	return res, nil
}

func (r *reproducer) fig1c(ctx context.Context) error {
	res, err := r.spinRun(ctx)
	if err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.out, "fig1c"))
}

func (r *reproducer) fig2(ctx context.Context) error {
	res, err := r.pottsRun(ctx, nil)
	if err != nil {
		return err
	}
	for _, fig := range []string{"fig2a", "fig2b"} {
		if err := r.figure(res.WriteFigure(r.out, fig)); err != nil {
			return err
		}
	}
	sr, err := r.spinRun(ctx)
	if err != nil {
		return err
	}
	return r.figure(sr.WriteFigure(r.out, "fig2c"))
}

func (r *reproducer) fig3(ctx context.Context) error {
	s := tgmSettings(r.quick)
	c := s.Config
	r.say("\nTruncated Gaussian mixture (N = %d, β = %g, box [%g, %g]², data seed %d): %s, %d chains × %d updates after %d",
		c.N, c.Beta, c.Box.Lo1, c.Box.Hi1, s.DataSeed, labels(s.Samplers), r.cfg.Runs, s.Iters, s.Burn)
	r.say("(the paper draws 10⁶ samples a method; a minibatch update costs about 10 ms here, see docs/RESULTS.md)")
	res, err := bench.TGM(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("L = %.2f (paper: 1581.14); mode of the truth at (%.3f, %.3f); mass outside the window %.2g; binned-data error of log-density ≤ %.2g",
		res.L, res.Mode[0], res.Mode[1], res.TruthOutside, res.TruthLogErr)
	r.say("Gibbs-rejection (exact envelope) would need about 10^%.1f proposals an update at the mode", res.RejectionLog10Tries)
	if err := r.summary(res.Markdown(), res.WriteSummary); err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.out))
}

func (r *reproducer) table1(ctx context.Context) error {
	s := table1Settings(r.quick)
	r.say("\nTunaMH paper, Table 1: mixture N = %d, β = %g, box [%g, %g]², flat prior; %d runs (data set and chain) a sampler, chains from (0, 1)",
		s.Config.N, s.Config.Beta, s.Config.Box.Lo1, s.Config.Box.Hi1, r.cfg.Runs)
	if r.quick {
		r.say("quick mode: a tenth of the full steps per run")
	}
	res, err := bench.TunaMHTable1(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("first data set: C = Σc_i = %.2f, L = Σ(hi_i − lo_i) = %.2f", res.C, res.L)
	return r.summary(res.Markdown(), res.WriteSummary)
}

func (r *reproducer) rlr(ctx context.Context) error {
	s := rlrSettings(r.quick)
	r.say("\nRobust linear regression (N = %d, d = %d, ν = %g), chains from the mode, %v each", s.N, s.D, s.Nu, s.Budget)
	res, err := bench.RLR(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	return r.summary(res.Markdown(), res.WriteSummary)
}

func (r *reproducer) crossover(ctx context.Context) error {
	s := crossoverSettings(r.quick)
	reps := s.Reps
	if reps == 0 {
		reps = r.cfg.Runs
	}
	scale := s.LambdaScale
	if scale == 0 {
		scale = 1
	}
	r.say("\nCrossover: ns per single-site update of the hand-written heat-bath loops (stencil; CSR on the Gaussian graphs), Gibbs and Poisson-Gibbs (λ = %g·L²) as Δ grows", scale)
	r.say("Gaussian-kernel Potts graphs (potts.New, D = %d, β = %g, γ = %g) at widths %v; power-law lattices (lattice.New, 2-D torus, r^−%g, Potts q = %d, β set so that L = %.5g) at sides %v",
		s.Gauss.States, s.Gauss.Beta, s.Gauss.Gamma, s.GaussWidths, 2+s.PowerSigma, s.PowerStates, s.PowerL, s.PowerSides)
	r.say("each point and sampler: %v warm-up, median of %d repetitions of about %v, samplers taking turns, one goroutine (run it on a quiet machine)", s.Warm, reps, s.Target)
	res, err := bench.Crossover(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("\n%s", res.Markdown())
	return r.figure(res.WriteFigure(r.out))
}
