package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/pgibbs/pgibbs/chain"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/internal/phase"
	"github.com/pgibbs/pgibbs/internal/sysmem"
)

func init() {
	register(&command{
		name:    "uai",
		summary: "a UAI model (.uai, with .evid evidence), marginals compared with a .MAR file",
		example: "pgibbs uai -model CSP_11.uai -mar CSP_11.uai.MAR -iters 2000000 -chains 2 -json",
		run:     runUAI,
	})
}

// uaiOutput is the JSON object of `pgibbs uai -json`.
type uaiOutput struct {
	Model        string   `json:"model"`
	Type         string   `json:"type"`
	Variables    int      `json:"variables"`
	Factors      int      `json:"factors"`
	HardFactors  int      `json:"hard_factors"`
	Evidence     int      `json:"evidence"`
	Free         int      `json:"free"`
	L            float64  `json:"L"`
	Delta        int      `json:"delta"`
	Psi          float64  `json:"psi"`
	Lambda2      float64  `json:"lambda2,omitempty"`
	MeanAbsError *float64 `json:"mean_abs_error,omitempty"`
	MaxAbsError  *float64 `json:"max_abs_error,omitempty"`
	// MeanHellinger and MaxHellinger are the UAI competition's MAR score:
	// the Hellinger distance of each free variable's marginal, mean and max.
	MeanHellinger *float64 `json:"mean_hellinger,omitempty"`
	MaxHellinger  *float64 `json:"max_hellinger,omitempty"`
	// Score is the UAI 2022 competition's MAR score: max(0, 100·(1 −
	// HErr/HErr_u)), HErr the mean Hellinger error and HErr_u that of
	// uniform marginals (100: exact).
	Score *float64 `json:"score,omitempty"`
	Out   string   `json:"out,omitempty"`
	// Anytime is the -anytime file and Solutions the solutions written to it.
	Anytime   string `json:"anytime,omitempty"`
	Solutions int    `json:"anytime_solutions,omitempty"`
	// Infer is what -sampler infer solved exactly and chose to sample
	// with.
	Infer *infer.Report `json:"infer,omitempty"`
	// SameChain, where the default sampled with a sampler flags can
	// name, is those flags: with them, chain 0 is the default's chain
	// (sameChain).
	SameChain string `json:"same_chain,omitempty"`
	// Method is how the answer was found, whatever the sampler
	// (infer.Answer.Method): exact, mixed or sampled; TotalSeconds its
	// wall time from the command's start (reading the model included) to
	// the answer (infer.Answer.Seconds).
	Method       string  `json:"method,omitempty"`
	TotalSeconds float64 `json:"total_seconds,omitempty"`
	// LogZ is infer.Answer.LogZ: exact, or estimated (replica exchange)
	// with its standard error LogZError; absent when neither.
	LogZ      *float64 `json:"log_z,omitempty"`
	LogZError *float64 `json:"log_z_error,omitempty"`
	// Order is what -order locality did (infer.Answer.OrderNote):
	// renumbered for locality, or why the numbering was kept.
	Order string `json:"order,omitempty"`
	gibbsOutput
}

// uaiFlags are the flags of `pgibbs uai` besides the shared ones.
type uaiFlags struct {
	model, evid, marFile, out, anytime, exactMemory, order *string
	lambda2, lambda2Scale                                  *float64
	perVar, houdayer, shrink                               *bool
	block                                                  blocked.Config // -width, -forests, -boundary
	flips                                                  bool           // -flips
	f                                                      *runFlags
}

func runUAI(ctx context.Context, e *env, args []string) error {
	u, err := parseUAI(e, args)
	if err != nil {
		return err
	}
	f := u.f
	// The model is streamed into its graph: no Model (scopes and tables
	// as one slice a factor) is held, only what the output reports of it.
	phase.Enter("read")
	limit, err := f.readLimit()
	if err != nil {
		return err
	}
	pr, err := uai.Options{MaxBytes: limit, Context: ctx}.ReadGraphProblem(*u.model, *u.evid, *u.marFile)
	if err != nil {
		return f.memoryError(err)
	}
	g, m, ev, mar := pr.Graph, pr.Info, pr.Evidence, pr.Exact
	var any *uai.AnytimeMAR
	if *u.anytime != "" {
		if any, err = uai.CreateAnytimeMAR(*u.anytime); err != nil {
			return fmt.Errorf("-anytime: %w", err)
		}
		defer any.Close()
	}
	if f.set["exact-memory"] && f.sampler != inferSampler {
		return usagef("-exact-memory applies to -sampler infer only")
	}
	if f.set["shrink"] && f.sampler != inferSampler {
		return usagef("-shrink applies to -sampler infer only")
	}
	o := uaiOutput{
		Model: *u.model, Type: m.Type, Variables: m.NumVars(), Factors: m.NumFactors, HardFactors: m.HardFactors,
		Evidence: len(ev), Free: len(g.Free()), L: g.L(), Delta: g.MaxDegree(), Psi: g.Psi(), Out: *u.out,
	}
	marginals, err := u.marginals(ctx, &o, g, any)
	if err != nil {
		return err
	}
	if mar != nil {
		if err := o.compare(marginals, mar, g.Free(), *u.marFile); err != nil {
			return err
		}
	}
	phase.Enter("write")
	if err := u.write(&o, marginals, any); err != nil {
		return err
	}
	if f.asJSON {
		return writeJSON(e, o)
	}
	return o.print(e, *u.marFile)
}

// parseUAI defines and parses the flags of `pgibbs uai` and checks what
// can be checked before the model is read.
func parseUAI(e *env, args []string) (*uaiFlags, error) {
	fs := newFlags(e, "uai", "Samples a discrete graphical model in the UAI format (MARKOV or BAYES) with any sampler of\n"+
		"package gibbs, evidence variables clamped. With -mar it reports the mean and maximum absolute\n"+
		"error of the run-average marginals of the free (non-evidence) variables over all variable-value\n"+
		"pairs (the UAI convention); -out writes the estimated marginals of all variables as a .MAR file.\n"+
		"Chains run in parallel from independent random states; their marginals are pooled.")
	u := &uaiFlags{
		model:   fs.String("model", "", "model file F.uai (required)"),
		evid:    fs.String("evidence", "", "evidence file F.evid (default: no evidence)"),
		marFile: fs.String("mar", "", "exact marginals F.MAR to compare with"),
		out:     fs.String("out", "", "write the estimated marginals to this file in the UAI .MAR format"),
		anytime: fs.String("anytime", "", "write a solution (the marginals so far, pooled) to this .MAR file at check points of growing\n"+
			"interval and at the end, as the UAI competitions' anytime format (-BEGIN- between solutions; the last complete one counts)"),
		lambda2:      fs.Float64("lambda2", 0, "DoubleMIN-Gibbs: λ2, the batch of the global energy estimate (default L²)"),
		lambda2Scale: fs.Float64("lambda2-scale", 0, "DoubleMIN-Gibbs: λ2 as a multiple of L² (default 1; the paper also runs 10⁴)"),
		perVar:       fs.Bool("per-variable", false, "Poisson-Gibbs: use per-variable L_i and λ_i = (λ/L²)·L_i²"),
		houdayer: fs.Bool("houdayer", false, "-sampler exchange: a twin replica at every rung and Houdayer's cluster moves between twins where\n"+
			"their clusters stay small (gibbs/exchange Options.Houdayer; the default's replica exchange has them)"),
		order: fs.String("order", "input", "the order the graph is stored in: input (the file's numbering) or locality (a reverse Cuthill–McKee\n"+
			"order where the file's numbering hides the locality it finds, on 2¹⁵ free variables and more: a scan in\n"+
			"storage order, -scan systematic, then reads a variable's neighbours from cache; output in the file's numbering)"),
		exactMemory: fs.String("exact-memory", "", "-sampler infer: the memory one component's exact elimination may take (e.g. 8G; default half of\n"+
			"-max-memory, or of this machine's memory)"),
		shrink: fs.Bool("shrink", true, "-sampler infer: shrink the sampled marginals toward loopy belief propagation's beliefs by the weight\n"+
			"the run measures (James–Stein: none where the samples contradict them); false: the chains' marginals as they are"),
	}
	bf := addBlockFlags(fs)
	f := addRunFlags(fs, "uai", runDefaults{scan: true, sampler: inferSampler, samplers: inferSampler + " or one of " + strings.Join(samplers.Names(), ", ") + inferHelp, iters: 1000000, estimator: true})
	f.inputs, f.outputs = []string{"model", "evidence", "mar"}, []string{"out", "anytime"}
	u.f = f
	err := f.parse(e, args)
	if err != nil {
		return nil, err
	}
	if *u.model == "" {
		return nil, usagef("-model is required")
	}
	if f.sampler != inferSampler && !slices.Contains(samplers.Names(), f.sampler) {
		return nil, usagef("-sampler %q: want %s or one of %s", f.sampler, inferSampler, strings.Join(samplers.Names(), ", "))
	}
	u.flips = *bf.flips
	if u.block, err = bf.config(f); err != nil {
		return nil, err
	}
	switch {
	case *u.order != "input" && *u.order != "locality":
		return nil, usagef("-order %q: want input or locality", *u.order)
	case *u.order == "locality" && f.trace != "":
		return nil, usagef("-order locality with -trace: the chains run on the renumbered graph, whose states a trace would hold; trace with -order input")
	case *u.order == "locality" && f.of > 0:
		return nil, usagef("-order locality with -chain and -of: the parts of a split run are merged in the file's numbering; run them with -order input")
	}
	if f.set["houdayer"] && f.sampler != "exchange" {
		return nil, usagef("-houdayer applies to -sampler exchange only")
	}
	if (f.set["lambda2"] || f.set["lambda2-scale"]) && f.sampler != "doublemin" {
		return nil, usagef("-lambda2 and -lambda2-scale are DoubleMIN-Gibbs's: they need -sampler doublemin, not %s", f.sampler)
	}
	return u, nil
}

// marginals answers through infer.Marginals (runFlags.answer) — for
// -sampler infer exact components and the sampler the pilots choose, else
// the sampler named on every free variable — and fills o's run record.
// Where the budget or a signal leaves nothing sampled, the answer is the
// exact components and uniform marginals elsewhere, not converged, saying
// why (partial); an interrupted run then fails after printing it.
func (u *uaiFlags) marginals(ctx context.Context, o *uaiOutput, g *factorgraph.Graph, any *uai.AnytimeMAR) ([][]float64, error) {
	f := u.f
	opt, err := u.options(any)
	if err != nil {
		return nil, err
	}
	a, rec, err := f.answer(ctx, g, opt)
	if a == nil {
		return nil, err
	}
	if f.sampler == inferSampler {
		o.Infer = a.Report(g)
		if a.Choice != nil && a.Run != nil {
			if o.SameChain = sameChain(a.Choice.Spec, f.seed); o.SameChain != "" && *u.order == "locality" {
				o.SameChain += " -order locality"
			}
		}
	}
	o.Method, o.TotalSeconds, o.Order = a.Method, a.Seconds, a.OrderNote
	if z, se := a.LogZ, a.LogZError; !math.IsNaN(z) {
		o.LogZ, o.LogZError = &z, &se
	}
	switch {
	case rec != nil:
		o.gibbsOutput = *rec
		if l2, ok := a.Run.Samplers[0].(interface{ Lambda2() float64 }); ok {
			o.Lambda2 = l2.Lambda2()
		}
		return a.Marginals, nil
	case errors.Is(err, context.Canceled) && a.Run != nil: // within the burn-in
	case err != nil && ctx.Err() == nil || a.Run != nil && a.Incomplete == "":
		return nil, err
	case a.ExactPart != nil && a.ExactPart.All():
		// Every component exact: nothing to sample. A part of a -chain k
		// -of K run says so in its part record, and their merge answers
		// exactly again.
		o.gibbsOutput = gibbsOutput{record: record{Sampler: f.sampler, Seed: f.seed,
			convergence: convergence{Converged: true, Note: "exact: every component eliminated"}}}
		if f.of > 0 {
			p, err := f.exactPart(a.ExactPart.Seconds)
			if err != nil {
				return nil, err
			}
			o.Parts = []*chain.Part{p}
		}
		return a.Marginals, nil
	}
	why := a.Incomplete
	switch {
	case ctx.Err() != nil && a.Choice == nil && opt.Run.Spec == nil:
		why = interruption(ctx) + " before sampling"
	case ctx.Err() != nil && a.Run == nil && a.Sweeps > 0:
		why = interruption(ctx) + " during the race of the pilots' choice"
	case ctx.Err() != nil:
		why = interruption(ctx) + " before the chains had sampled"
	}
	u.partial(o, why, a.Sweeps, err)
	return a.Marginals, nil
}

// options returns the infer.Options of the flags (runFlags.inferOptions,
// a fixed sampler unless -sampler infer) with -exact-memory, the
// samplers' options of `pgibbs uai` and -anytime.
func (u *uaiFlags) options(any *uai.AnytimeMAR) (infer.Options, error) {
	f := u.f
	so := f.options()
	so.PerVariable, so.Lambda2, so.Lambda2Scale = *u.perVar, *u.lambda2, *u.lambda2Scale
	var spec *infer.Spec
	if f.sampler != inferSampler {
		spec = &infer.Spec{Name: f.sampler, Block: u.block, Flips: u.flips, Houdayer: *u.houdayer}
	}
	opt, err := f.inferOptions(spec, so)
	if err != nil {
		return opt, err
	}
	opt.MaxBytes = infer.DefaultMaxBytes()
	if limit := opt.Run.MaxBytes; limit > 0 && f.maxMemory != "" {
		opt.MaxBytes = limit / 2
	}
	if *u.exactMemory != "" {
		if opt.MaxBytes, err = sysmem.Parse(*u.exactMemory); err != nil {
			return opt, usagef("-exact-memory %s: %v", *u.exactMemory, err)
		}
	}
	if any != nil {
		opt.Run.AtCheck = any.Write
	}
	opt.Locality = *u.order == "locality"
	// A part of a run split across processes shrinks its own marginals;
	// its chains keep their batch records in the part, so that the merge
	// shrinks the pooled marginals as one run of all the chains would.
	opt.NoShrink = !*u.shrink
	return opt, nil
}

// partial records an answer whose chains did not run (why says why): the
// exact components' marginals, point masses for the evidence and, where
// a race was interrupted, the marginals of the chosen chain's race so far
// (sweeps of it), uniform marginals elsewhere; not converged. err, if not
// nil, is the interruption the command fails with after printing it.
func (u *uaiFlags) partial(o *uaiOutput, why string, sweeps float64, err error) {
	f := u.f
	conv := convergence{Note: why + ": nothing was sampled; the variables not solved exactly have uniform marginals"}
	if sweeps > 0 {
		conv.Note = fmt.Sprintf("%s: the marginals of the variables not solved exactly are the chosen chain's race so far (%.3g sweep-equivalents)", why, sweeps)
	}
	o.gibbsOutput = gibbsOutput{record: record{Sampler: f.sampler, Seed: f.seed, convergence: conv}}
	f.warn(conv)
	if err != nil && f.env != nil {
		f.env.failure = err
	}
}

// compare fills o's errors of marginals against the exact marginals mar
// (read from marFile) over the free variables.
func (o *uaiOutput) compare(marginals, mar [][]float64, free []int, marFile string) error {
	mean, mx, err := diag.MarginalAbsVars(marginals, mar, free)
	if err != nil {
		return fmt.Errorf("comparing with %s: %w", marFile, err)
	}
	o.MeanAbsError, o.MaxAbsError = &mean, &mx
	hmean, hmax, err := diag.MarginalHellingerVars(marginals, mar, free)
	if err != nil {
		return fmt.Errorf("comparing with %s: %w", marFile, err)
	}
	o.MeanHellinger, o.MaxHellinger = &hmean, &hmax
	score, _, err := diag.MARScore(marginals, mar, free)
	if err != nil {
		return fmt.Errorf("comparing with %s: %w", marFile, err)
	}
	o.Score = &score
	return nil
}

// write writes the last anytime solution and the -out file.
func (u *uaiFlags) write(o *uaiOutput, marginals [][]float64, any *uai.AnytimeMAR) error {
	if any != nil {
		if err := any.Write(marginals); err != nil {
			return err
		}
		o.Anytime, o.Solutions = *u.anytime, any.Solutions()
		if err := any.Close(); err != nil {
			return err
		}
	}
	if *u.out != "" {
		if err := uai.WriteMarginalsFile(*u.out, marginals); err != nil {
			return err
		}
	}
	return nil
}

func (o *uaiOutput) print(e *env, marFile string) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%s): %d variables (%d free, %d observed), %d factors (%d hard)\n",
		o.Model, o.Type, o.Variables, o.Free, o.Evidence, o.Factors, o.HardFactors)
	fmt.Fprintf(tw, "L, Δ, Ψ\t%.4g, %d, %.4g\n", o.L, o.Delta, o.Psi)
	fmt.Fprintf(tw, "sampler\t%s", o.Sampler)
	if o.Lambda > 0 {
		fmt.Fprintf(tw, " (λ = %.4g", o.Lambda)
		if o.Lambda2 > 0 {
			fmt.Fprintf(tw, ", λ2 = %.4g", o.Lambda2)
		}
		fmt.Fprintf(tw, ")")
	}
	fmt.Fprintf(tw, "\n")
	printReport(tw, o.Infer)
	if o.SameChain != "" {
		fmt.Fprintf(tw, "same chain as\t%s (its chain 0 is this answer's chain, run on from its start)\n", o.SameChain)
	}
	if o.Order != "" {
		fmt.Fprintf(tw, "order\t%s\n", o.Order)
	}
	if o.Method != "" {
		fmt.Fprintf(tw, "answer\t%s, %.2f s in all\n", o.Method, o.TotalSeconds)
	}
	if o.LogZ != nil {
		fmt.Fprintf(tw, "log Z\t%.8g ± %.2g (0: exact; else replica exchange's bridge estimate)\n", *o.LogZ, *o.LogZError)
	}
	if o.Method != infer.MethodExact {
		o.gibbsOutput.print(tw)
	}
	if o.MeanAbsError != nil {
		fmt.Fprintf(tw, "marginal abs error\tmean %.5f, max %.5f (free variables vs %s)\n", *o.MeanAbsError, *o.MaxAbsError, marFile)
		fmt.Fprintf(tw, "Hellinger error\tmean %.5f, max %.5f; score %.2f (UAI 2022: 100·(1 − error/uniform's error), 100 exact)\n",
			*o.MeanHellinger, *o.MaxHellinger, *o.Score)
	}
	if o.Anytime != "" {
		fmt.Fprintf(tw, "anytime solutions\t%d written to %s\n", o.Solutions, o.Anytime)
	}
	if o.Out != "" {
		fmt.Fprintf(tw, "marginals written to\t%s\n", o.Out)
	}
	if o.Method == infer.MethodExact {
		fmt.Fprintf(tw, "convergence\texact: every component eliminated, nothing sampled\n")
	} else {
		printConvergence(tw, o.convergence)
	}
	return tw.Flush()
}

// inferSampler is the default of `pgibbs uai`: not a sampler of the
// registry but infer.Marginals' answer, exact where elimination fits and
// sampled elsewhere by the sampler its pilots choose. (-sampler auto is
// the registry's auto, as in every subcommand.)
const inferSampler = "infer"

// inferHelp says what -sampler infer does on a UAI model.
const inferHelp = ";\ninfer: exact marginals by variable elimination for every connected component that fits -exact-memory and three\n" +
	"quarters of -seconds (by its estimate), and for the others the sampler a short pilot of each candidate measures best (single-site,\n" +
	"blocks of widths 4 to 16, spanning forests, Swendsen–Wang, Wolff: the most effective samples a second of the\n" +
	"worst-mixing marginal), run for the rest of the budget"

// blockFlags are the flags of -sampler block.
type blockFlags struct {
	width    *int
	forests  *bool
	boundary *string
	flips    *bool
	regions  *int
}

// addBlockFlags defines -width, -forests, -boundary and -flips on fs.
func addBlockFlags(fs *flag.FlagSet) blockFlags {
	return blockFlags{
		width: fs.Int("width", 0, "-sampler block: the largest elimination width of a block (default: on a model with deterministic links\n"+
			"the widest of 12, 8 and 4 whose updates cost at most 80 single-site updates a variable, otherwise 4; tables of at\n"+
			"most 2¹⁶ entries)"),
		forests: fs.Bool("forests", false, "-sampler block: two interleaved spanning forests (tree blocks; Hamze & de Freitas 2004) instead of\n"+
			"blocks of bounded width: for grid-like models with strong pairwise couplings"),
		boundary: fs.String("boundary", "auto", "-sampler block: the soft factors crossing a block's boundary: exact (all tabulated), poisson\n"+
			"(Poisson-minibatched: O(λ_B + L_B) of them an update, exact by the augmentation of Algorithm 2), or auto:\n"+
			"poisson where that is cheaper"),
		flips: fs.Bool("flips", false, "-sampler block: phase flips on a pedigree, a founder's alleles swapped at every locus with its meioses'\n"+
			"selectors flipped, and couple swaps, two founders of full siblings exchanged with each child's two alleles and\n"+
			"meioses, accepted by Metropolis–Hastings (gibbs/flip; the default sampler adds them where it finds founders);\n"+
			"nothing where the model has none"),
		regions: fs.Int("regions", 0, "-sampler block: add blocks over the regions the chain moves together, learned from windows of its\n"+
			"sweeps [K/2, K), [K, 2K), … (K the value given; 0: none): a metastable region that every block splits"),
	}
}

// config returns the blocked.Config of the flags, a usage error if they are
// set for another sampler than block, out of range or contradictory.
func (b blockFlags) config(f *runFlags) (blocked.Config, error) {
	for _, name := range []string{"width", "forests", "boundary", "flips", "regions"} {
		if f.set[name] && f.sampler != "block" {
			return blocked.Config{}, usagef("-%s applies to -sampler block only", name)
		}
	}
	if f.set["width"] && (*b.width < 1 || *b.width > 30) {
		return blocked.Config{}, usagef("-width %d: the elimination width of -sampler block, 1 to 30", *b.width)
	}
	if *b.forests && f.set["width"] {
		return blocked.Config{}, usagef("-forests and -width: choose one (forests are trees, of width 1)")
	}
	if *b.regions < 0 {
		return blocked.Config{}, usagef("-regions %d: want 0 (none) or the sweeps of the first window's end", *b.regions)
	}
	bnd, err := blocked.ParseBoundary(*b.boundary)
	if err != nil {
		return blocked.Config{}, usagef("-boundary: %v", err)
	}
	c := blocked.Config{Boundary: bnd, Regions: *b.regions}
	c.MaxWidth, c.Forests = *b.width, *b.forests
	return c, nil
}
