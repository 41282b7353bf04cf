package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs"
)

func init() {
	register(&command{
		name:    "uai",
		summary: "a UAI model (.uai, with .evid evidence), marginals compared with a .MAR file",
		example: "pgibbs uai -model CSP_11.uai -mar CSP_11.uai.MAR -sampler pgibbs -iters 2000000 -chains 2 -json",
		run:     runUAI,
	})
}

// uaiOutput is the JSON object of `pgibbs uai -json`.
type uaiOutput struct {
	Model          string   `json:"model"`
	Type           string   `json:"type"`
	Variables      int      `json:"variables"`
	Factors        int      `json:"factors"`
	HardFactors    int      `json:"hard_factors"`
	Evidence       int      `json:"evidence"`
	Free           int      `json:"free"`
	Sampler        string   `json:"sampler"`
	Seed           uint64   `json:"seed"`
	Chains         int      `json:"chains"`
	L              float64  `json:"L"`
	Delta          int      `json:"delta"`
	Psi            float64  `json:"psi"`
	Lambda         float64  `json:"lambda"`
	Lambda2        float64  `json:"lambda2,omitempty"`
	Iterations     int64    `json:"iterations"`
	Burn           int64    `json:"burn"`
	Seconds        float64  `json:"seconds"`
	StepsPerSecond float64  `json:"steps_per_second"`
	FactorsPerStep float64  `json:"factors_per_step"`
	DrawsPerStep   float64  `json:"draws_per_step"`
	AcceptanceRate *float64 `json:"acceptance_rate,omitempty"`
	MeanAbsError   *float64 `json:"mean_abs_error,omitempty"`
	MaxAbsError    *float64 `json:"max_abs_error,omitempty"`
	Out            string   `json:"out,omitempty"`
	StateSHA256    string   `json:"state_sha256"`
	convergence
}

func runUAI(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "uai", "Samples a discrete graphical model in the UAI format (MARKOV or BAYES) with any sampler of\n"+
		"package gibbs, evidence variables clamped. With -mar it reports the mean and maximum absolute\n"+
		"error of the run-average marginals of the free (non-evidence) variables over all variable-value\n"+
		"pairs (the UAI convention); -out writes the estimated marginals of all variables as a .MAR file.\n"+
		"Chains run in parallel from independent random states; their marginals are pooled.")
	model := fs.String("model", "", "model file F.uai (required)")
	evid := fs.String("evidence", "", "evidence file F.evid (default: no evidence)")
	marFile := fs.String("mar", "", "exact marginals F.MAR to compare with")
	out := fs.String("out", "", "write the estimated marginals to this file in the UAI .MAR format")
	sampler := fs.String("sampler", "pgibbs", "sampler: one of "+strings.Join(gibbs.Names(), ", "))
	lambdaScale := fs.Float64("lambda-scale", 0, "λ as a multiple of L² (default 1 when -lambda is not set)")
	lambda := fs.Float64("lambda", 0, "λ, the Poisson-minibatch size parameter (default L²)")
	lambda2 := fs.Float64("lambda2", 0, "DoubleMIN-Gibbs: λ2, the batch of the global energy estimate (default L²)")
	lambda2Scale := fs.Float64("lambda2-scale", 0, "DoubleMIN-Gibbs: λ2 as a multiple of L² (default 1; the paper also runs 10⁴)")
	perVar := fs.Bool("per-variable", false, "Poisson-Gibbs: use per-variable L_i and λ_i = (λ/L²)·L_i²")
	iters := fs.Int64("iters", 1000000, "variable updates per chain")
	seconds := fs.Float64("seconds", 0, "run each chain this long (wall clock) instead of -iters; not reproducible")
	burn := fs.Int64("burn", 0, "updates per chain before marginals are counted")
	chains := fs.Int("chains", 1, "independent chains, run in parallel")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object")
	ctl := addControlFlags(fs, "uai")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := ctl.setup(fs); err != nil {
		return err
	}
	if *model == "" {
		return usagef("-model is required")
	}
	if !slices.Contains(gibbs.Names(), *sampler) {
		return usagef("-sampler %q: want one of %s", *sampler, strings.Join(gibbs.Names(), ", "))
	}
	if err := checkLambdaFlags(*lambda, *lambdaScale); err != nil {
		return err
	}
	switch {
	case !(*lambda2 >= 0) || math.IsInf(*lambda2, 0):
		return usagef("-lambda2 %v: need a finite λ2 > 0", *lambda2)
	case !(*lambda2Scale >= 0) || math.IsInf(*lambda2Scale, 0):
		return usagef("-lambda2-scale %v: need a finite scale > 0", *lambda2Scale)
	case *lambda2 > 0 && *lambda2Scale > 0:
		return usagef("-lambda2 and -lambda2-scale both set: choose one")
	case (*lambda2 > 0 || *lambda2Scale > 0) && *sampler != "doublemin":
		return usagef("-lambda2 and -lambda2-scale are DoubleMIN-Gibbs's: they need -sampler doublemin, not %s", *sampler)
	}
	if *seconds != 0 && !(*seconds > 0 && *seconds <= 86400) {
		return usagef("-seconds %v: need a budget in (0, 86400]", *seconds)
	}
	var (
		g     *factorgraph.Graph // set once the files are read
		margs []*gibbs.Marginals // one per chain, pooled at the end
	)
	jb := &job{sampler: *sampler, steps: *iters, burn: *burn, chains: *chains, seed: *seed, trace: true, ctl: ctl,
		budget: time.Duration(*seconds * float64(time.Second)),
		opts: gibbs.Options{Lambda: *lambda, LambdaScale: *lambdaScale, PerVariable: *perVar,
			Lambda2: *lambda2, Lambda2Scale: *lambda2Scale},
		obs: func(c int) []gibbs.Observer {
			margs[c] = gibbs.NewMarginals(g)
			return []gibbs.Observer{margs[c]}
		}}
	if err := jb.validate(); err != nil {
		return err
	}

	m, err := uai.ReadFile(*model)
	if err != nil {
		return err
	}
	var ev uai.Evidence
	if *evid != "" {
		if ev, err = uai.ReadEvidenceFile(*evid); err != nil {
			return err
		}
		if err := m.CheckEvidence(ev); err != nil {
			return fmt.Errorf("%s: %w", *evid, err)
		}
	}
	var mar [][]float64
	if *marFile != "" {
		if mar, err = uai.ReadMarginalsFile(*marFile); err != nil {
			return err
		}
		if err := m.CheckMarginals(mar); err != nil {
			return fmt.Errorf("%s: %w", *marFile, err)
		}
	}
	if g, err = m.Graph(ev); err != nil {
		return fmt.Errorf("%s: %w", *model, err)
	}
	jb.model, margs = g, make([]*gibbs.Marginals, *chains)
	res, err := jb.run(ctx)
	if err != nil {
		return err
	}
	marginals := gibbs.Pool(margs...)

	o := uaiOutput{
		Model: *model, Type: m.Type, Variables: m.NumVars(), Factors: len(m.Scopes), HardFactors: m.HardFactors(),
		Evidence: len(ev), Free: len(g.Free()), Sampler: *sampler, Seed: *seed, Chains: *chains,
		L: g.L(), Delta: g.MaxDegree(), Psi: g.Psi(), Lambda: res.lambda,
		Iterations: res.stats.Steps, Burn: *burn, Seconds: res.seconds, StepsPerSecond: res.stepsPerSecond(*chains),
		FactorsPerStep: res.stats.FactorsPerStep(), DrawsPerStep: res.stats.PicksPerStep(), Out: *out, StateSHA256: res.stateHash,
	}
	if o.convergence, err = res.convergence(); err != nil {
		return err
	}
	if l2, ok := res.samplers[0].(interface{ Lambda2() float64 }); ok {
		o.Lambda2 = l2.Lambda2()
	}
	if res.stats.Proposals > 0 {
		a := res.stats.AcceptanceRate()
		o.AcceptanceRate = &a
	}
	if mar != nil {
		mean, mx, err := diag.MarginalAbsVars(marginals, mar, g.Free())
		if err != nil {
			return fmt.Errorf("comparing with %s: %w", *marFile, err)
		}
		o.MeanAbsError, o.MaxAbsError = &mean, &mx
	}
	if *out != "" {
		if err := uai.WriteMarginalsFile(*out, marginals); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(e, o)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%s): %d variables (%d free, %d observed), %d factors (%d hard)\n",
		o.Model, o.Type, o.Variables, o.Free, o.Evidence, o.Factors, o.HardFactors)
	fmt.Fprintf(tw, "L, Δ, Ψ\t%.4g, %d, %.4g\n", o.L, o.Delta, o.Psi)
	fmt.Fprintf(tw, "sampler\t%s (λ = %.4g", o.Sampler, o.Lambda)
	if o.Lambda2 > 0 {
		fmt.Fprintf(tw, ", λ2 = %.4g", o.Lambda2)
	}
	fmt.Fprintf(tw, ")\n")
	fmt.Fprintf(tw, "iterations\t%d in %d chain(s), %.2f s, %.0f steps/s a chain\n", o.Iterations, o.Chains, o.Seconds, o.StepsPerSecond)
	fmt.Fprintf(tw, "factors/step, draws/step\t%.2f, %.2f\n", o.FactorsPerStep, o.DrawsPerStep)
	if o.AcceptanceRate != nil {
		fmt.Fprintf(tw, "acceptance rate\t%.4f\n", *o.AcceptanceRate)
	}
	if o.MeanAbsError != nil {
		fmt.Fprintf(tw, "marginal abs error\tmean %.5f, max %.5f (free variables vs %s)\n", *o.MeanAbsError, *o.MaxAbsError, *marFile)
	}
	if o.Out != "" {
		fmt.Fprintf(tw, "marginals written to\t%s\n", o.Out)
	}
	printConvergence(tw, o.convergence)
	return tw.Flush()
}
