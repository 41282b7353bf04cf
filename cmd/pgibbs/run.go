package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgibbs/pgibbs/cmd/pgibbs/internal/progress"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag/convplot"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/internal/phase"
)

// The run layer every sampling subcommand shares: its flags (runFlags),
// the part of its JSON record they describe (record), and its features —
// checkpoints, resume, traces, progress, -chain k -of K and `pgibbs merge`
// (a chain.Session: session, conclude; watch) — on either path from flags to
// finished chains: infer.Marginals for the samplers of package gibbs on a
// factor graph (runFlags.answer, answer.go: uai, potts, spin, tgm,
// default), runFlags.execute through package chain for the others
// (lattice, mh). A subcommand reads as parse → build the model → answer
// or execute → report.

// runFlags are the flags every sampling subcommand shares.
type runFlags struct {
	command     string
	sampler     string
	lambda      float64
	lambdaScale float64
	iters       int64
	seconds     float64
	burn        int64
	chains      int
	seed        uint64
	asJSON      bool
	checkpoint  string
	every       time.Duration
	resume      string
	trace       string
	quiet       bool
	chain, of   int // -chain k -of K: run chain k of a K-chain run (of = 0: all here)

	maxMemory string    // -max-memory
	maxDraws  float64   // -max-draws
	clusters  string    // -clusters of -sampler wolff: "auto" or a count
	plot      string    // -plot DIR: convergence pictures
	plotted   []string  // the files -plot wrote
	untilRhat float64   // -until-rhat (0: no stopping rule)
	minESS    float64   // -min-ess
	estimator string    // -estimator of the marginals: "rb" or "counts"
	scan      string    // -scan of single-site samplers: "random" or "systematic"
	started   time.Time // when the command started: -seconds counts from then
	// buildCtx bounds the construction of the chains' samplers: the run's
	// context, ending at the -seconds deadline (gibbs.Options.Context).
	buildCtx context.Context

	// inputs and outputs name the subcommand's flags that name files: they
	// are made absolute, so that a resumed or merged run reads and writes
	// the files the run started with wherever it is resumed; a checkpoint
	// records the inputs' sizes and SHA-256 and resume refuses changed ones.
	inputs, outputs []string

	env     *env
	fs      *flag.FlagSet
	set     map[string]bool // flags given on the command line
	args    []string        // the run's flags, canonical, for checkpoints and parts
	resumed *chain.Checkpoint
	merged  []*chain.Part // the chains' parts, when `pgibbs merge` runs the command
	bar     *progress.Bar
}

// runDefaults are a subcommand's defaults for the shared flags.
type runDefaults struct {
	sampler, samplers string // default and the list for the help text
	iters             int64
	itersName         string // "iters" (default) or "sweeps"
	itersUsage        string
	noLambdaScale     bool // the sampler family has no λ = scale·L²
	lambdaUsage       string
	clusters          bool // the subcommand offers -sampler wolff and its -clusters
	estimator         bool // the subcommand estimates marginals: -estimator
	scan              bool // the subcommand offers -scan for its single-site samplers
}

// controlFlags may differ between a run and its resumption.
var controlFlags = map[string]bool{"checkpoint": true, "checkpoint-every": true, "resume": true, "trace": true, "quiet": true}

// addRunFlags defines the shared flags on fs.
func addRunFlags(fs *flag.FlagSet, command string, d runDefaults) *runFlags {
	f := &runFlags{command: command, fs: fs}
	fs.StringVar(&f.sampler, "sampler", d.sampler, "sampler: "+d.samplers)
	if d.lambdaUsage == "" {
		d.lambdaUsage = "λ, the Poisson-minibatch size parameter (default L²)"
	}
	fs.Float64Var(&f.lambda, "lambda", 0, d.lambdaUsage)
	if !d.noLambdaScale {
		fs.Float64Var(&f.lambdaScale, "lambda-scale", 0, "λ as a multiple of L² (default 1 when -lambda is not set)")
	}
	if d.itersName == "" {
		d.itersName, d.itersUsage = "iters", "steps per chain (variable updates), burn-in included"
	}
	fs.Int64Var(&f.iters, d.itersName, d.iters, d.itersUsage)
	fs.Float64Var(&f.seconds, "seconds", 0, "the whole run's wall-clock budget instead of -"+d.itersName+": reading, building and\n"+
		"sampling end within it (the chains sample for what is left); not reproducible, no checkpoints")
	fs.Int64Var(&f.burn, "burn", 0, "steps per chain before statistics are collected (with -seconds, by default the\n"+
		"library's rule: a tenth of the sweeps the run expects, at most 1000, less what a pilot ran)")
	fs.IntVar(&f.chains, "chains", 1, "independent chains, run in parallel")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "write a checkpoint to this file periodically and on SIGINT/SIGTERM")
	fs.DurationVar(&f.every, "checkpoint-every", time.Minute, "interval between checkpoints")
	fs.StringVar(&f.resume, "resume", "", "continue the run saved in this checkpoint (its flags are reused)")
	fs.StringVar(&f.trace, "trace", "", "stream the chains' states to this CSV file (one file a chain: FILE, or FILE with .cK before the extension for K chains), flushed at each checkpoint")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar (it is drawn on stderr only when stderr is a terminal and the run lasts over a second)")
	fs.IntVar(&f.chain, "chain", 0, "with -of K: run only chain `k` of a K-chain run, with the stream it has in-process (pool the parts with pgibbs merge)")
	fs.IntVar(&f.of, "of", 0, "the number K of chains of the run that -chain belongs to")
	fs.Float64Var(&f.maxDraws, "max-draws", 0, "refuse a sampler whose expected work a step exceeds this many factor draws or evaluations\n(likelihood terms for mh; default 1e7; a hopeless step would otherwise run for hours)")
	fs.StringVar(&f.maxMemory, "max-memory", "", "refuse runs estimated to need more memory than this (e.g. 8G, 500M; default: the memory this machine or container has)")
	f.untilFlags(fs)
	fs.StringVar(&f.plot, "plot", "", "write convergence pictures (PNG and SVG) into this existing directory: trace and rank plots of\n"+
		"the tracked quantities with the largest R̂ (at most 6) and the running split-R̂")
	if d.estimator {
		fs.StringVar(&f.estimator, "estimator", "rb", "marginal estimator: rb (Rao–Blackwellised: the average of the conditionals the sampler draws from;\n"+
			"gibbs, pgibbs and auto; block averages each block variable's marginal given the rest, from the block's\n"+
			"elimination; the other samplers count visits: MH steps such as mgpmh and doublemin keep values not drawn from a\n"+
			"conditional) or counts (the fraction of steps in each value)")
	}
	if d.scan {
		fs.StringVar(&f.scan, "scan", "random", "the order of a single-site sampler's updates (gibbs, pgibbs, auto, the MIN-Gibbs family, the\n"+
			"continuous samplers): random (the papers' random scan) or systematic (the variables in turn: on a graph far\n"+
			"larger than the cache its rows stream: 2.3–3.4× fewer ns an update on a random graph of 10⁶ variables)")
	}
	if d.clusters {
		fs.StringVar(&f.clusters, "clusters", "auto", "single-cluster updates a step of -sampler wolff: a number, or auto: as many as update about one\n"+
			"sweep's worth of sites, tuned per chain before its burn-in (rounds of 5 sweeps' worth of clusters until the count\n"+
			"settles, at most 20), then fixed (tuning ends at a stopping time: the burn-in that follows washes it out)")
	}
	return f
}

// parse parses args and finishes flag handling: on -resume it loads the
// checkpoint, checks that flags given on the command line agree with it and
// re-parses its flags; it then checks the shared flags and records the
// canonical flags.
func (f *runFlags) parse(e *env, args []string) error {
	f.env, f.started = e, time.Now()
	if err := parse(f.fs, args); err != nil {
		return err
	}
	f.set = map[string]bool{}
	if e.merged == nil { // the parts' flags passed these checks when they ran
		f.fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	}
	if f.resume != "" {
		if err := f.loadResume(); err != nil {
			return err
		}
	}
	if f.merged = e.merged; f.merged != nil {
		// `pgibbs merge`: the parts' run with all its chains here.
		f.chains, f.chain, f.of = len(f.merged), 0, 0
	}
	if err := f.check(); err != nil {
		return err
	}
	if err := f.absolute(); err != nil {
		return err
	}
	f.bar = progress.New(e.stderr, f.quiet || f.merged != nil)
	f.args = nil
	f.fs.VisitAll(func(fl *flag.Flag) {
		if !controlFlags[fl.Name] {
			f.args = append(f.args, "-"+fl.Name+"="+fl.Value.String())
		}
	})
	return nil
}

// loadResume reads the checkpoint of -resume and takes its flags: flags
// given on the command line must agree with them, but for controlFlags.
func (f *runFlags) loadResume() error {
	ck, m, err := chain.ReadRun(f.resume, f.command)
	if err != nil {
		return err
	}
	stored := m.Settings()
	var conflict error
	f.fs.Visit(func(fl *flag.Flag) {
		if v, ok := stored[fl.Name]; !controlFlags[fl.Name] && conflict == nil && (!ok || v != fl.Value.String()) {
			conflict = usagef("-%s %s differs from the checkpoint's -%s %s: a resumed run keeps its flags", fl.Name, fl.Value, fl.Name, v)
		}
	})
	if conflict != nil {
		return conflict
	}
	if err := f.fs.Parse(m.Args); err != nil {
		return fmt.Errorf("%s: the checkpoint's flags do not parse: %v", f.resume, err)
	}
	if f.trace != "" {
		if abs, err := filepath.Abs(f.trace); err != nil || abs != m.Trace {
			return usagef("-trace %s differs from the checkpoint's trace file %q", f.trace, m.Trace)
		}
	}
	f.trace = m.Trace
	if f.checkpoint == "" {
		f.checkpoint = f.resume // keep checkpointing where the run was
	}
	f.resumed = ck
	return nil
}

// check validates the shared flags.
func (f *runFlags) check() error {
	sweeps := f.itersFlag() == "sweeps" // -sweeps counts the steps after the burn-in
	if sweeps && f.burn == -1 && !f.set["burn"] {
		f.burn = f.iters / 10
	}
	if err := zeroFlags(f.set, f.fs, "lambda", "lambda-scale", "seconds", "max-draws"); err != nil {
		return err
	}
	switch {
	case f.chains < 1 || f.chains > 4096:
		return usagef("-chains %d: need 1 to 4096", f.chains)
	case f.of < 0 || f.of > 4096 || (f.of > 0 && (f.chain < 0 || f.chain >= f.of)):
		return usagef("-chain %d -of %d: need 0 ≤ k < K ≤ 4096", f.chain, f.of)
	case f.set["chain"] && f.of == 0:
		return usagef("-chain needs -of")
	case f.of > 0 && f.set["chains"]:
		return usagef("-chains and -of both set: -chain k -of K runs one chain of K")
	case f.seconds != 0 && !(f.seconds > 0 && f.seconds <= 86400):
		return usagef("-seconds %v: need a budget in (0, 86400]", f.seconds)
	case f.seconds == 0 && f.iters < 1:
		return usagef("-%s %d: need at least 1", f.itersFlag(), f.iters)
	case f.burn < 0:
		return usagef("-burn %d: need at least 0", f.burn)
	case f.seconds == 0 && !sweeps && f.burn >= f.iters:
		return usagef("-burn %d leaves none of -%s %d", f.burn, f.itersFlag(), f.iters)
	case f.seconds > 0 && (f.checkpoint != "" || f.resume != ""):
		return usagef("checkpoints need -%s: a time budget is not reproducible", f.itersFlag())
	case f.checkpoint != "" && f.every <= 0:
		return usagef("-checkpoint-every %v: need a positive interval", f.every)
	}
	if err := f.checkClusters(); err != nil {
		return err
	}
	if err := f.checkScan(); err != nil {
		return err
	}
	if err := f.checkEstimator(); err != nil {
		return err
	}
	if err := f.checkUntil(); err != nil {
		return err
	}
	return checkLambdaFlags(f.lambda, f.lambdaScale)
}

// checkScan validates -scan: random or systematic, systematic only with a
// sampler that updates one variable a step (the others have their own
// order and would ignore it).
func (f *runFlags) checkScan() error {
	switch {
	case f.fs.Lookup("scan") == nil || f.scan == "random":
		return nil
	case f.scan != "systematic":
		return usagef("-scan %q: want random or systematic", f.scan)
	}
	switch f.sampler {
	case "block", "sw", "wolff", "exchange", inferSampler:
		return usagef("-scan systematic: -sampler %s has its own order of updates; the scan is for the single-site samplers (gibbs, pgibbs, auto, …)", f.sampler)
	}
	return nil
}

// checkEstimator validates -estimator: rb (with a sampler that reports its
// conditionals, when given explicitly) or counts.
func (f *runFlags) checkEstimator() error {
	switch {
	case f.fs.Lookup("estimator") == nil || f.estimator == "counts":
		return nil
	case f.estimator != "rb":
		return usagef("-estimator %q: want rb or counts", f.estimator)
	case f.set["estimator"] && !entry(f.sampler).Conditioner:
		return usagef("-estimator rb: %s does not report the conditionals it draws from (%s do); use -estimator counts",
			f.sampler, samplerNames(func(e samplers.Entry) bool { return e.Conditioner }))
	}
	return nil
}

// checkClusters validates -clusters: auto or 1 to 2³⁰, with -sampler wolff.
func (f *runFlags) checkClusters() error {
	if f.set["clusters"] && f.sampler != "wolff" {
		return usagef("-clusters applies to -sampler wolff only")
	}
	if f.clusters == "" || f.clusters == "auto" {
		return nil
	}
	if k, err := strconv.Atoi(f.clusters); err != nil || k < 1 || k > 1<<30 {
		return usagef("-clusters %q: want auto or a number of clusters from 1 to 2³⁰", f.clusters)
	}
	return nil
}

func (f *runFlags) itersFlag() string {
	if f.fs.Lookup("sweeps") != nil {
		return "sweeps"
	}
	return "iters"
}

// writePlots draws the convergence pictures of -plot (diag/convplot) from
// the run's tracked quantities.
func (f *runFlags) writePlots(quantities series) error {
	if f.plot == "" {
		return nil
	}
	if quantities == nil {
		return usagef("-plot is not available for pgibbs %s", f.command)
	}
	qs, name := quantities()
	var cq []convplot.Quantity
	for q, chains := range qs {
		if len(chains) > 0 && len(chains[0]) >= convplot.MinDraws {
			cq = append(cq, convplot.Quantity{Name: name(q), Chains: chains})
		}
	}
	if len(cq) == 0 {
		return fmt.Errorf("-plot %s: too few draws to plot (at least %d a chain)", f.plot, convplot.MinDraws)
	}
	files, err := convplot.Write(f.plot, cq, nil)
	f.plotted = files
	return err
}

// indices returns the global indices of the chains this process runs.
func (f *runFlags) indices() []int { return chain.Indices(f.chain, f.of, f.chains) }

// runOf is the number of chains of the whole run.
func (f *runFlags) runOf() int {
	if f.of > 0 {
		return f.of
	}
	return f.chains
}

// experiment is a library run of chains (a lattice
// simulation.Simulation, an mhrun.Experiment) as the run layer executes
// it: each chain's steps and burn-in, one chain's bytes, chain k (k, the
// global index, picks its random streams), a built chain's CSV trace, the
// quantities of the verdict and of -until-rhat, and the steps between two
// of its checks.
type experiment interface {
	Steps() (steps, burn int64)
	Memory() float64
	Chain(k int) (*chain.Chain, error)
	Trace(c *chain.Chain) (header string, every int64, row chain.RowFunc, err error)
	Series(chains []*chain.Chain) ([][][]float64, func(q int) string, error)
	CheckEvery() int64
}

// series returns the tracked quantities now and their names.
type series func() ([][][]float64, func(q int) string)

// outcome is what execute ran: its session's chains, sampling time and
// final states' hash.
type outcome struct {
	*chain.Session
	parts []*chain.Part // with -chain k -of K: the part to print
	stop  *stopping     // with -until-rhat: why the run stopped
	// interrupted is the error of a run a signal stopped after its
	// burn-in (nil otherwise), why says so in words: the results are
	// those so far.
	interrupted error
	why         string
}

// budget returns the run's time budget: -seconds from the command's
// start (no Time without -seconds).
func (f *runFlags) budget() infer.Budget {
	return infer.Budget{Start: f.started, Time: time.Duration(f.seconds * float64(time.Second))}
}

// verdictReserve is the part of -seconds kept for the convergence verdict
// after sampling (infer.VerdictShare; the traces are cut to fit it:
// chain.Monitor.Budget).
func (f *runFlags) verdictReserve() time.Duration {
	return time.Duration(infer.VerdictShare * f.seconds * float64(time.Second))
}

// execute builds the chains, restores them from a checkpoint or merged
// parts, runs them and returns them with the wall time and state hash. An
// interrupted run (ctx cancelled: a signal) that has sampled past its
// burn-in returns its chains as they stand, out.interrupted saying so: the
// subcommand reports the results so far, and the command then exits with
// the interruption's status.
func (f *runFlags) execute(ctx context.Context, x experiment, buildErr func(error) error) (*outcome, error) {
	if err := f.checkMemory(0, x.Memory()); err != nil {
		return nil, err
	}
	steps, burn := x.Steps()
	out := &outcome{Session: f.session(x.Trace)}
	defer out.Close()
	bctx, cancel := context.WithCancel(ctx)
	if d, ok := f.budget().Deadline(); ok {
		bctx, cancel = context.WithDeadline(ctx, d)
	}
	defer cancel()
	f.buildCtx = bctx
	phase.Enter("build")
	build := func(k int) (*chain.Chain, error) {
		c, err := x.Chain(k)
		if err != nil {
			return nil, buildErr(err)
		}
		return c, nil
	}
	if err := out.Build(f.indices(), burn, build); err != nil {
		return nil, err
	}
	if run, err := out.Attach(); err != nil || !run {
		return out, err
	}
	quantities := func() ([][][]float64, func(int) string) { qs, name, _ := x.Series(out.Chains); return qs, name }
	r, err := f.runner(steps, quantities, x.CheckEvery(), out)
	if err != nil {
		return nil, err
	}
	stop := f.watch(out.Chains, steps)
	start := time.Now()
	phase.Enter("sample")
	err = r.Run(ctx, out.Chains)
	stop()
	out.Seconds = time.Since(start).Seconds()
	if r.Converged() {
		out.stop.StoppedBy = "converged"
	}
	return out, f.conclude(ctx, err, r.Duration > 0 || r.Converged(), steps, burn, out, quantities)
}

// session returns the chain.Session of the run: the -trace files (trace:
// each chain's header, interval and row), -resume, the merged parts of
// `pgibbs merge` and the part of -chain k -of K.
func (f *runFlags) session(trace func(*chain.Chain) (string, int64, chain.RowFunc, error)) *chain.Session {
	return &chain.Session{Meta: f.meta(), Inputs: f.inputPaths(), Of: f.runOf(), Trace: trace,
		Resume: f.resumed, ResumePath: f.resume, Parts: f.merged}
}

// conclude turns the runner's error into the command's (chain.Session.End,
// with how to resume an interrupted run; complete: a time budget or the
// stopping rule completed it) and finishes a run that sampled past its
// burn-in: an interrupted one keeps its results, out.interrupted saying
// so; a complete one whose final checkpoint failed reports its results and
// the command then fails.
func (f *runFlags) conclude(ctx context.Context, err error, complete bool, steps, burn int64, out *outcome, quantities series) error {
	end, err := out.End(f.resumeHint(err), complete, steps, burn)
	if end.Unsaved != nil && f.env != nil {
		f.env.failure = fmt.Errorf("the results above are complete, but %w", end.Unsaved)
	}
	if end.Interrupted != nil {
		out.interrupted, out.why = end.Interrupted, interruption(ctx)
	}
	if err != nil {
		return err
	}
	return f.finish(quantities, out)
}

// runner returns the runner of the chains: its steps or duration, its
// checkpoints and the -until-rhat stopping rule on quantities, checked
// every checkEvery steps (out.stop records what stopped the run).
func (f *runFlags) runner(steps int64, quantities series, checkEvery int64, out *outcome) (*chain.Runner, error) {
	r := f.template()
	r.Steps = steps
	if f.seconds > 0 {
		// -seconds is the whole run's: the chains sample for what is left
		// but the verdict's share.
		r.Steps, r.Duration = 0, max(f.budget().Left()-f.verdictReserve(), time.Millisecond)
	}
	if f.untilRhat > 0 {
		out.stop = &stopping{StoppedBy: "ceiling"}
		r.Until, r.CheckEvery = f.until(quantities, out.stop), checkEvery
	}
	return r, nil
}

// template returns the runner of the run's checkpoints.
func (f *runFlags) template() *chain.Runner {
	return &chain.Runner{Checkpoint: f.checkpoint, Every: f.every, Meta: f.meta(), Inputs: f.inputPaths()}
}

// meta returns the run's description for checkpoints and parts.
func (f *runFlags) meta() chain.Meta {
	return chain.Meta{Command: f.command, Args: f.args, Trace: f.trace}
}

// finish flushes the trace files after a complete run, records the final
// states' hash, writes the -plot pictures and, for -chain k -of K, the
// part record.
func (f *runFlags) finish(quantities series, out *outcome) error {
	if err := out.Flush(); err != nil {
		return err
	}
	if err := f.writePlots(quantities); err != nil {
		return err
	}
	if f.of > 0 && out.interrupted == nil {
		p, err := out.Part()
		if err != nil {
			return err
		}
		out.parts = []*chain.Part{p}
	}
	return nil
}

// inputPaths returns the subcommand's input files.
func (f *runFlags) inputPaths() []string {
	var out []string
	for _, name := range f.inputs {
		if v := f.fs.Lookup(name).Value.String(); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// resumeHint adds to the error of a run interrupted with a checkpoint how
// to continue it.
func (f *runFlags) resumeHint(err error) error {
	var intr *chain.Interrupted
	if errors.As(err, &intr) && intr.Checkpoint != "" {
		return fmt.Errorf("%w; continue with: pgibbs %s -resume %s", err, f.command, intr.Checkpoint)
	}
	return err
}

// watch draws the chains' progress until the returned stop is called
// (progress.Bar.Watch).
func (f *runFlags) watch(chains []*chain.Chain, steps int64) (stop func()) {
	total := steps * int64(len(chains))
	if f.seconds > 0 {
		total = 0
	}
	return f.bar.Watch(f.command, total, func() int64 {
		var sum int64
		for _, c := range chains {
			sum += c.Done()
		}
		return sum
	})
}

// record is the part of every sampling subcommand's JSON object that the
// run layer fills.
type record struct {
	Sampler     string  `json:"sampler"`
	Seed        uint64  `json:"seed"`
	Chains      int     `json:"chains,omitempty"`
	Burn        int64   `json:"burn"`
	Seconds     float64 `json:"seconds,omitempty"`
	StateSHA256 string  `json:"state_sha256,omitempty"`
	// ClustersPerStep is each chain's single-cluster updates a step
	// (-sampler wolff).
	ClustersPerStep []int `json:"clusters_per_step,omitempty"`
	// Stopping says why a run with -until-rhat stopped.
	*stopping
	// Plots are the files -plot wrote.
	Plots []string `json:"plots,omitempty"`
	convergence
	// Parts holds, with -chain k -of K, what `pgibbs merge` pools.
	Parts []*chain.Part `json:"parts,omitempty"`
}

// record returns the shared part of the output. An interrupted run is not
// converged, whatever its diagnostics say, and the command fails after
// printing it (exit status 130 or 143).
func (f *runFlags) record(o *outcome, conv convergence) record {
	if o.interrupted != nil {
		conv.Converged = false
		conv.Note = strings.TrimSuffix(fmt.Sprintf("%s after %.3g s of sampling: the results so far; ", o.why, o.Seconds)+conv.Note, "; ")
		if f.env != nil {
			f.env.failure = o.interrupted
		}
	}
	f.warn(conv)
	return record{Sampler: f.sampler, Seed: f.seed, Chains: len(o.Chains), Burn: f.burn, Seconds: o.Seconds,
		StateSHA256: o.Hash, convergence: conv, Parts: o.parts, stopping: o.stop, Plots: f.plotted}
}

// absolute makes -trace, -plot and the subcommand's file flags absolute
// paths.
func (f *runFlags) absolute() error {
	if f.plot != "" {
		abs, err := filepath.Abs(f.plot)
		if err != nil {
			return usagef("-plot %s: %v", f.plot, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return usagef("-plot %s: not an existing directory", f.plot)
		}
		f.plot = abs
	}
	if f.trace != "" {
		abs, err := filepath.Abs(f.trace)
		if err != nil {
			return usagef("-trace %s: %v", f.trace, err)
		}
		f.trace = abs
	}
	for _, name := range append(f.inputs, f.outputs...) {
		fl := f.fs.Lookup(name)
		if v := fl.Value.String(); v != "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return usagef("-%s %s: %v", name, v, err)
			}
			fl.Value.Set(abs)
		}
	}
	return nil
}

// zeroFlags refuses flags set explicitly to 0 where 0 stands for "the
// default": a user who types -lambda 0 means something, and it is not L².
func zeroFlags(set map[string]bool, fs *flag.FlagSet, names ...string) error {
	for _, name := range names {
		if fl := fs.Lookup(name); fl != nil && set[name] {
			if v, err := strconv.ParseFloat(fl.Value.String(), 64); err == nil && v == 0 {
				return usagef("-%s 0: need a value > 0 (leave -%s out for its default: %s)", name, name, fl.Usage)
			}
		}
	}
	return nil
}
