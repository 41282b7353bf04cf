package experiments

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/papers"
	"github.com/pgibbs/pgibbs/experiments/studies"
	lat "github.com/pgibbs/pgibbs/lattice"
)

// figures are the names Reproduce knows, in the order of Figures.
var figures = []string{"fig1a", "fig1b", "fig1c", "fig2", "fig3", "tunamh-table1", "tunamh-rlr", "crossover", "clusters", "uai", "uai-hard", "dense", "fss", "scale", "glass", "all"}

// Figures returns the names [Reproduce] knows, in order: "fig1a", "fig1b",
// "fig1c", "fig2", "fig3", "tunamh-table1", "tunamh-rlr", "crossover",
// "clusters", "uai", "uai-hard", "dense", "fss", "scale", "glass" and,
// last, "all" (every figure and table of the papers: all of them but the
// studies "crossover", "clusters", "uai", "uai-hard", "dense", "fss",
// "scale" and "glass").
// The slice is the caller's.
func Figures() []string { return slices.Clone(figures) }

// The experiments' settings (quick or full); the tests replace them with
// tiny ones.
var (
	pottsSettings     = papers.PottsPaper
	spinSettings      = papers.SpinPaper
	tgmSettings       = papers.TGMPaper
	table1Settings    = papers.Table1Paper
	rlrSettings       = papers.RLRPaper
	crossoverSettings = studies.CrossoverPaper
	clustersSettings  = studies.ClustersPaper
	uaiSettings       = studies.UAIPaper
	uaiHardSettings   = studies.UAIHard
	denseSettings     = studies.Dense
	fssSettings       = studies.FSSPaper
	scaleSettings     = studies.ScalePaper
	glassSettings     = studies.GlassPaper
)

// Reproduce regenerates the named figure or table (one of [Figures]) into
// dir with the papers' settings (XxxPaper(quick); quick runs are shorter,
// and the notes say so), printing its progress notes and the results'
// Markdown tables to w, and returns the files written, in order:
//
//	fig1a          papers.Potts (Fig1aKeys): fig1-potts-summary.csv; fig1a.csv, .png, .svg
//	fig1b          papers.Potts (Fig1bKeys): fig1-potts-summary.csv; fig1b.csv, .png, .svg
//	fig1c          papers.Spin: fig1c-spin-summary.csv; fig1c.csv, .png, .svg
//	fig2           papers.Potts (all six samplers) and papers.Spin: their summaries; fig2a, fig2b, fig2c (against wall time)
//	fig3           papers.TGM: fig3-summary.csv; fig3.csv, .png, .svg
//	tunamh-table1  papers.TunaMHTable1: tunamh-table1.csv
//	tunamh-rlr     papers.RLR: tunamh-rlr.csv
//	crossover      studies.Crossover, a timing study (run it alone on a quiet machine): crossover.csv, its summary, its plots
//	clusters       studies.Clusters, τ against L at the Ising critical point and seconds per sweep (run it alone): clusters-tau.csv, .png, .svg; clusters-cost.csv, .png, .svg
//	uai            studies.UAIScores, the MAR task on the shared UAI models at 20 s a model on one core (run it alone): uai-scores.csv
//	uai-hard       studies.UAIScores on the shared models beyond exact elimination (../shared/data/uai-hard), 20 s a model, beside the peers of its PEERS.md: uai-hard-scores.csv
//	dense          studies.DenseRBM, the MAR task on restricted Boltzmann machines K₂₅₀,₂₅₀, drawn and written with reference marginals (2 chains of plain Gibbs) into dir/dense, 20 s a model: dense-scores.csv
//	fss            studies.FSS, finite-size scaling of 2-D Ising models by reweighting (γ/ν, Binder crossings): fss.csv, fss-crossings.csv, fss-fits.csv, fss-curves.csv; fss-chi.png, .svg; fss-binder.png, .svg
//	scale          studies.Scale, memory, build time and ns per update against the number of pair factors, on the lattice and on graphs without locality (run it alone): scale.csv; scale.png, .svg
//	glass          studies.Glass, Gibbs, replica exchange (with and without Houdayer moves) and the default answer on 2-D ±J glasses, 10 s a run on one core (run it alone): glass.csv; glass.png, .svg
//	all            fig1a to tunamh-rlr (not the studies crossover, clusters, uai, uai-hard, dense, fss, scale, glass), one Potts and one Spin run serving every figure
//
// cfg goes to every driver; if cfg.Dir is empty, ground truths are cached
// in dir. dir must exist ("" is the current directory); w may be nil. If
// cfg.Progress also has a Done() method (a progress line on a terminal),
// Reproduce calls it before it prints and before it returns, so that the
// line never mixes with the text.
//
// On an error, Reproduce returns it with the files written so far. It is
// what `pgibbs reproduce` runs, and its first line names that command.
func Reproduce(ctx context.Context, name string, quick bool, dir string, cfg harness.Config, w io.Writer) ([]string, error) {
	if !slices.Contains(figures, name) {
		return nil, fmt.Errorf("experiments: unknown figure %q: want one of %s", name, strings.Join(figures, ", "))
	}
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("experiments: %s is not a directory", dir)
	}
	if cfg.Dir == "" {
		cfg.Dir = dir
	}
	if w == nil {
		w = io.Discard
	}
	r := &reproducer{w: w, dir: dir, quick: quick, cfg: cfg, done: func() {},
		allPotts: name == "all" || name == "fig2"}
	if d, ok := cfg.Progress.(harness.ProgressDone); ok {
		r.done = d.Done
	}
	defer r.done()
	mode := "full"
	if quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "pgibbs reproduce %s (%s mode, seed %d, %d runs a curve) → %s\n", name, mode, cfg.Seed, cfg.NumRuns(), dir)
	for _, step := range r.steps(name) {
		if err := step(ctx); err != nil {
			return r.written, err
		}
	}
	return r.written, nil
}

// reproducer runs the experiments one call of Reproduce asks for, sharing
// runs between figures.
type reproducer struct {
	w       io.Writer
	dir     string
	quick   bool
	cfg     harness.Config
	done    func() // erases the progress line
	potts   *papers.PottsResult
	spin    *papers.SpinResult
	written []string
	// allPotts says several figures share the Potts run: run every sampler.
	allPotts bool
}

// steps returns what the named figure runs, in order.
func (r *reproducer) steps(name string) []func(context.Context) error {
	return map[string][]func(context.Context) error{
		"fig1a":         {r.fig1a},
		"fig1b":         {r.fig1b},
		"fig1c":         {r.fig1c},
		"fig2":          {r.fig2},
		"fig3":          {r.fig3},
		"tunamh-table1": {r.table1},
		"tunamh-rlr":    {r.rlr},
		"crossover":     {r.crossover},
		"clusters":      {r.clusters},
		"uai":           {r.uai},
		"uai-hard":      {r.uaiHard},
		"dense":         {r.dense},
		"fss":           {r.fss},
		"scale":         {r.scale},
		"glass":         {r.glass},
		"all":           {r.fig1a, r.fig1b, r.fig1c, r.fig2, r.fig3, r.table1, r.rlr},
	}[name]
}

// fss runs the finite-size-scaling study.
func (r *reproducer) fss(ctx context.Context) error {
	s := fssSettings(r.quick)
	chains := s.Chains
	if chains == 0 {
		chains = r.cfg.NumRuns()
	}
	r.say("\nFinite-size scaling of 2-D Ising models (Swendsen–Wang, single-histogram reweighting, blocked-jackknife errors)")
	for _, m := range s.Models {
		r.say("  %s (%s): sides %v from β₀ = %.7g; measured sweeps a stage and size %v, shared by %d chains", m.Key, m.Kernel, m.Sizes, m.Beta, m.Sweeps, chains)
	}
	r.say("each chain: %d sweeps from a random state, then a measurement a sweep; stage 2 runs at the χ peak stage 1's reweighting finds (up to %d stages while the peak sits at a window's edge); windows: effective fraction of the weights ≥ %g",
		s.Burn, s.Stages, cmp.Or(s.MinFraction, lat.DefaultMinFraction))
	res, err := studies.FSS(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("%.1f s", res.Seconds)
	r.say("\n%s", res.Markdown())
	return r.figure(res.WriteFigure(r.dir))
}

// scale runs the scale study.
func (r *reproducer) scale(ctx context.Context) error {
	s := scaleSettings(r.quick)
	r.say("\nScale: the Gaussian-kernel Potts model (potts.New, D = %d, β = %g, γ = %g) built through its bulk path at widths %v", s.Model.States, s.Model.Beta, s.Model.Gamma, s.Widths)
	var shapes []string
	for _, sh := range s.Shapes {
		shapes = append(shapes, sh.Name)
	}
	r.say("then graphs without locality (package potts, q = 4, pairs of one weight): %s, at %v pair factors", strings.Join(shapes, ", "), s.Shapes[0].Pairs)
	r.say("each graph: the build timed, the live heap of the graph and a Poisson-Gibbs sampler after a collection (all in, per pair factor), median of %d runs of %d Poisson-Gibbs (λ_i = L_i² on the shapes) and %d Gibbs random-scan updates (a tenth of Poisson-Gibbs's on the shapes), and auto's; one goroutine (run it alone)", s.Reps, s.PGUpdates, s.GibbsUpdates)
	res, err := studies.Scale(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("%.1f s", res.Seconds)
	r.say("\n%s", res.Markdown())
	return r.figure(res.WriteFigure(r.dir))
}

// glass runs the replica-exchange study on 2-D spin glasses.
func (r *reproducer) glass(ctx context.Context) error {
	s := glassSettings(r.quick)
	r.say("\n2-D ±J Edwards–Anderson glasses (free boundaries, random fields σ = %g): L = %v, β = %v, instance seeds %v", s.FieldSD, s.Sizes, s.Betas, s.Seeds)
	var names []string
	for _, k := range s.Samplers {
		names = append(names, studies.GlassName(k))
	}
	r.say("%s: %g s a run on one core (GOMAXPROCS = 1), the first %g of it burn-in; Rao–Blackwellised marginals scored against exact elimination (UAI 2022 score); the default answer with exact elimination forbidden (%g bytes)",
		strings.Join(names, ", "), s.Seconds, s.Burn, s.MaxBytes)
	res, err := studies.Glass(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("%.1f s", res.Seconds)
	r.say("\n%s", res.Markdown())
	return r.figure(res.WriteFigure(r.dir))
}

// uai runs the UAI MAR task on the shared models.
func (r *reproducer) uai(ctx context.Context) error { return r.uaiTask(ctx, uaiSettings(r.quick)) }

// uaiHard runs it on the shared models beyond exact elimination, beside
// the peers' scores.
func (r *reproducer) uaiHard(ctx context.Context) error {
	return r.uaiTask(ctx, uaiHardSettings(r.quick))
}

// dense runs the UAI MAR task on generated restricted Boltzmann machines.
func (r *reproducer) dense(ctx context.Context) error {
	s := denseSettings(r.quick)
	s.UAI.Seed = r.cfg.Seed
	dir := filepath.Join(r.dir, "dense")
	r.say("\nUAI MAR task on %d restricted Boltzmann machines K_{%d,%d} (rbm_w<σ>_s<seed>: couplings N(0, σ²), fields N(0, %g²)), written to %s with reference marginals (2 chains of plain Gibbs, %g s each), %g s a model on one core, one chain: package infer's default answer",
		len(s.Models), s.N, s.N, s.SdB, dir, s.RefSeconds, s.UAI.Seconds)
	res, err := studies.DenseRBM(ctx, s, dir, r.cfg)
	if err != nil {
		return err
	}
	for _, m := range s.Models {
		p := filepath.Join(dir, m.Name()+".uai")
		r.wrote(p, p+".MAR")
	}
	return r.summary(res.Markdown(), res.WriteCSV) // dense-scores.csv
}

// uaiTask runs the UAI MAR task of settings s.
func (r *reproducer) uaiTask(ctx context.Context, s studies.UAISettings) error {
	s.Seed = r.cfg.Seed
	r.say("\nUAI MAR task: every model of %s with a .MAR file, %g s a model on one core (GOMAXPROCS = 1), one chain: package infer's default answer", s.Dir, s.Seconds)
	res, err := studies.UAIScores(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	return r.summary(res.Markdown(), res.WriteCSV)
}

// wrote records and prints written files.
func (r *reproducer) wrote(paths ...string) {
	for _, p := range paths {
		fmt.Fprintf(r.w, "wrote %s\n", p)
	}
	r.written = append(r.written, paths...)
}

// summary prints a result's summary table and writes it with write.
func (r *reproducer) summary(markdown string, write func(dir string) (string, error)) error {
	r.done()
	fmt.Fprintf(r.w, "\n%s", markdown)
	p, err := write(r.dir)
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

// say prints a note on a line of its own.
func (r *reproducer) say(format string, args ...any) {
	r.done()
	fmt.Fprintf(r.w, format+"\n", args...)
}

// labels joins the samplers' labels.
func labels(ss []papers.Sampler) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Label)
	}
	return strings.Join(out, ", ")
}

// pottsRun runs the Potts samplers with the given keys, or all six when
// several figures share the run ("all", "fig2"); later calls reuse it.
func (r *reproducer) pottsRun(ctx context.Context, keys []string) (*papers.PottsResult, error) {
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
	res, err := papers.Potts(ctx, s, r.cfg)
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

func (r *reproducer) fig1a(ctx context.Context) error {
	res, err := r.pottsRun(ctx, papers.Fig1aKeys)
	if err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.dir, "fig1a"))
}

func (r *reproducer) fig1b(ctx context.Context) error {
	res, err := r.pottsRun(ctx, papers.Fig1bKeys)
	if err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.dir, "fig1b"))
}

// spinRun runs the spin model's samplers; later calls reuse the run.
func (r *reproducer) spinRun(ctx context.Context) (*papers.SpinResult, error) {
	if r.spin != nil {
		return r.spin, nil
	}
	s := spinSettings(r.quick)
	r.say("\nContinuous spin model (%d×%d, β = %g, γ = %.6g): %s; up to %d updates a run (rejection: %d), at most %v of sampling a run",
		s.Params.Width, s.Params.Width, s.Params.Beta, s.Params.Gamma, labels(s.Samplers), s.Iters, s.Samplers[len(s.Samplers)-1].Iters, s.Budget)
	r.say("symmetric KL of the %d-bin histogram of all spins to the truth (smoothing eps = %g); truth: %d %s chains × %d updates after %d",
		s.Bins, s.Eps, s.Truth.Chains, s.Truth.Sampler, s.Truth.Iters, s.Truth.Burn)
	res, err := papers.Spin(ctx, s, r.cfg)
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
	return r.figure(res.WriteFigure(r.dir, "fig1c"))
}

func (r *reproducer) fig2(ctx context.Context) error {
	res, err := r.pottsRun(ctx, nil)
	if err != nil {
		return err
	}
	for _, fig := range []string{"fig2a", "fig2b"} {
		if err := r.figure(res.WriteFigure(r.dir, fig)); err != nil {
			return err
		}
	}
	sr, err := r.spinRun(ctx)
	if err != nil {
		return err
	}
	return r.figure(sr.WriteFigure(r.dir, "fig2c"))
}

func (r *reproducer) fig3(ctx context.Context) error {
	s := tgmSettings(r.quick)
	c := s.Config
	r.say("\nTruncated Gaussian mixture (N = %d, β = %g, box [%g, %g]², data seed %d): %s, %d chains × %d updates after %d",
		c.N, c.Beta, c.Box.Lo1, c.Box.Hi1, s.DataSeed, labels(s.Samplers), r.cfg.NumRuns(), s.Iters, s.Burn)
	r.say("(the paper draws 10⁶ samples a method; a minibatch update costs about 10 ms here, see docs/RESULTS.md)")
	res, err := papers.TGM(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("L = %.2f (paper: 1581.14); mode of the truth at (%.3f, %.3f); mass outside the window %.2g; binned-data error of log-density ≤ %.2g",
		res.L, res.Mode[0], res.Mode[1], res.TruthOutside, res.TruthLogErr)
	r.say("Gibbs-rejection (exact envelope) would need about 10^%.1f proposals an update at the mode", res.RejectionLog10Tries)
	if err := r.summary(res.Markdown(), res.WriteSummary); err != nil {
		return err
	}
	return r.figure(res.WriteFigure(r.dir))
}

func (r *reproducer) table1(ctx context.Context) error {
	s := table1Settings(r.quick)
	r.say("\nTunaMH paper, Table 1: mixture N = %d, β = %g, box [%g, %g]², flat prior; %d runs (data set and chain) a sampler, chains from (0, 1)",
		s.Config.N, s.Config.Beta, s.Config.Box.Lo1, s.Config.Box.Hi1, r.cfg.NumRuns())
	if r.quick {
		r.say("quick mode: a tenth of the full steps per run")
	}
	res, err := papers.TunaMHTable1(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("first data set: C = Σc_i = %.2f, L = Σ(hi_i − lo_i) = %.2f", res.C, res.L)
	return r.summary(res.Markdown(), res.WriteSummary)
}

func (r *reproducer) rlr(ctx context.Context) error {
	s := rlrSettings(r.quick)
	r.say("\nRobust linear regression (N = %d, d = %d, ν = %g), chains from the mode, %v each", s.N, s.D, s.Nu, s.Budget)
	res, err := papers.RLR(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	return r.summary(res.Markdown(), res.WriteSummary)
}

func (r *reproducer) crossover(ctx context.Context) error {
	s := crossoverSettings(r.quick)
	reps := s.Reps
	if reps == 0 {
		reps = r.cfg.NumRuns()
	}
	scale := s.LambdaScale
	if scale == 0 {
		scale = 1
	}
	r.say("\nCrossover: ns per single-site update of the hand-written heat-bath loops (stencil; CSR on the Gaussian graphs), Gibbs and Poisson-Gibbs (λ = %g·L²) as Δ grows", scale)
	r.say("Gaussian-kernel Potts graphs (potts.New, D = %d, β = %g, γ = %g) at widths %v; power-law lattices (lattice.New, 2-D torus, r^−%g, Potts q = %d, β set so that L = %.5g) at sides %v",
		s.Gauss.States, s.Gauss.Beta, s.Gauss.Gamma, s.GaussWidths, 2+s.PowerSigma, s.PowerStates, s.PowerL, s.PowerSides)
	r.say("each point and sampler: %v warm-up, median of %d repetitions of about %v, samplers taking turns, one goroutine (run it on a quiet machine)", s.Warm, reps, s.Target)
	res, err := studies.Crossover(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("\n%s", res.Markdown())
	return r.figure(res.WriteFigure(r.dir))
}

func (r *reproducer) clusters(ctx context.Context) error {
	s := clustersSettings(r.quick)
	chains := s.Chains
	if chains == 0 {
		chains = r.cfg.NumRuns()
	}
	if len(s.Tau) > 0 {
		r.say("\nCluster samplers against single-site updates: τ of |m| on L×L nearest-neighbour Ising tori at β = %.6g (β_c), sizes %v", s.Beta, s.Sizes)
		for _, sp := range s.Tau {
			r.say("  %s: sweeps %v (in all, shared by %d chains)", studies.ClustersName(sp.Key), sp.Sweeps, chains)
		}
		r.say("each chain: %d Swendsen–Wang sweeps from a random state, then its sampler (burn-in %g of its sweeps), |m| after every sweep; τ = 1 + 2Σρ over Sokal's window W ≥ %g·τ/2, error by Madras–Sokal; z by weighted least squares of log τ on log L",
			s.Equilibrate, s.Burn, s.WindowC)
	}
	if len(s.CostSides) > 0 {
		var ks []string
		for _, k := range s.Kernels {
			ks = append(ks, fmt.Sprintf("%s (%s, β = %.4g)", k.Key, k.Kernel, k.Beta))
		}
		var names []string
		for _, k := range s.CostSamplers {
			names = append(names, studies.ClustersCostName(k))
		}
		r.say("seconds per sweep of %s on 2-D Ising tori of sides %v: %s; %d Swendsen–Wang sweeps first, then the median of up to %d timed sweeps (%v at most), one goroutine",
			strings.Join(names, ", "), s.CostSides, strings.Join(ks, ", "), s.CostEquilibrate, s.CostReps, s.CostBudget)
	}
	res, err := studies.Clusters(ctx, s, r.cfg)
	if err != nil {
		return err
	}
	r.say("τ study %.1f s, cost study %.1f s", res.TauSeconds, res.CostSeconds)
	r.say("\n%s", res.Markdown())
	return r.figure(res.WriteFigure(r.dir))
}

// Describe says in a few lines what the experiment name regenerates (one
// of Figures; "" for another name): the command line's help lists them.
func Describe(name string) string { return descriptions[name] }

// descriptions are the experiments' descriptions (Describe).
var descriptions = map[string]string{
	"fig1a":         "marginal error vs iterations on the Potts model: Gibbs, Poisson-Gibbs, DoubleMIN-Gibbs (λ2 = L², 10⁴L²)",
	"fig1b":         "Poisson-Gibbs at λ = 0.1, 1, 5·L² on the Potts model (with Gibbs)",
	"fig1c":         "symmetric KL vs iterations on the continuous spin model: PGITS, PGDA, Gibbs-ITS, Gibbs-DA, rejection",
	"fig2":          "fig1a, fig1b and fig1c against wall time (fig2a, fig2b, fig2c; the same runs)",
	"fig3":          "density estimates of PGITS, PGDA and PG-rejection on the truncated Gaussian mixture, next to the truth",
	"tunamh-table1": "TunaMH paper, Table 1: average batch sizes of TFMH, FlyMC, Poisson-MH, TunaMH on the mixture",
	"tunamh-rlr":    "robust linear regression (N = 10⁵, d = 10): ESS per second of MH, TunaMH, MH-SS, SMH, TFMH, FlyMC",
	"crossover": "ns/update of Gibbs, Poisson-Gibbs and hand-written heat-bath loops as Δ grows, and the Δ from which\n" +
		"Poisson-Gibbs is faster (a timing study on one core: run it alone on a quiet machine; -runs sets\n" +
		"its repetitions, -workers is not used; not part of all)",
	"clusters": "τ of |m| against L at the 2-D Ising critical point (heat bath, Poisson-Gibbs, Swendsen–Wang, Wolff;\n" +
		"fitted dynamic exponents z) and seconds per Swendsen–Wang / Poisson-Gibbs sweep up to 10⁶ sites and\n" +
		"long range (a study: run it alone; -runs sets the chains; not part of all)",
	"uai": "the UAI competitions' MAR task on every shared model (../shared/data/uai) with its .MAR file: the\n" +
		"default answer (exact where an elimination fits, else the sampler its pilots choose) at 20 s a model\n" +
		"on one core, scored as UAI 2022 scores (-quick: 2 s a model; a study: run it alone; not part of all)",
	"uai-hard": "the same task on the shared models beyond exact elimination (../shared/data/uai-hard: linkage\n" +
		"pedigrees, a DBN, a 20×20 grid) beside libDAI's and Merlin's scores of its PEERS.md (-quick: 4 s a\n" +
		"model; a study: run it alone; not part of all)",
	"dense": "the same task on four restricted Boltzmann machines K₂₅₀,₂₅₀ (pair tables [1 1 1 e^W], W ~\n" +
		"N(0, 0.05²) on three and N(0, 0.15²) on one, fields N(0, 0.5²); the shape of a UAI 2014 instance loopy\n" +
		"BP answers at 99.7), written to dense/ with reference marginals from 2 chains of plain Gibbs, 120 s\n" +
		"each on two cores, then 20 s a model on one core (about 9 minutes; -quick: 20-s references, 4 s a\n" +
		"model; a study: run it alone; not part of all)",
	"fss": "finite-size scaling of the 2-D Ising model (nearest neighbour, sides 16–128) and of the σ = 1\n" +
		"power law (16–96) with Swendsen–Wang and single-histogram reweighting: χ peaks and the fitted γ/ν,\n" +
		"Binder crossings against β_c, reweighted against direct runs (3 minutes on 2 cores, -quick 20 s;\n" +
		"a study: -runs sets the chains; not part of all)",
	"scale": "bytes and build time per pair factor and ns per Poisson-Gibbs, Gibbs and auto update on the\n" +
		"Gaussian-kernel Potts model from 10⁵ to 2·10⁸ pair factors (widths 22–516), then on random sparse graphs\n" +
		"of degree 10 and 20, a power-law one, a complete bipartite one and a random geometric one as drawn and in\n" +
		"its locality order from 10⁵ to 10⁸ (a graph that would not fit half the memory is skipped; about 9 GB and\n" +
		"25 minutes in all; -quick: up to width 80 and 10⁶ pairs;\n" +
		"a timing study: run it alone; not part of all)",
	"glass": "plain Gibbs, replica exchange over Gibbs replicas with and without Houdayer moves, and the default\n" +
		"answer (exact elimination forbidden) on 2-D ±J glasses in random fields, L = 8–20, β = 2 and 3, 10 s a\n" +
		"run on one core: UAI scores against exact marginals, τ of the energy, round trips, log Z against the\n" +
		"exact one (about 6 minutes, -quick 1 s a run; a study: run it alone; not part of all)",
	"all": "every figure and table of the papers above (fig1a … tunamh-rlr), each run once",
}
