package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"text/tabwriter"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/potts"
)

func init() {
	register(&command{
		name:    "potts",
		summary: "the Poisson-Gibbs paper's Gaussian-kernel Potts model with one sampler",
		example: "pgibbs potts -sampler pgibbs -lambda-scale 1 -iters 2000000 -json",
		run:     runPotts,
	})
}

// discreteSamplers names the registry's samplers of discrete models.
func discreteSamplers() string {
	return samplerNames(func(e samplers.Entry) bool { return !e.Continuous })
}

// pottsOutput is the JSON object of `pgibbs potts -json`.
type pottsOutput struct {
	Model           string  `json:"model"`
	Width           int     `json:"width"`
	States          int     `json:"states"`
	Beta            float64 `json:"beta"`
	Gamma           float64 `json:"gamma"`
	L               float64 `json:"L"`
	Delta           int     `json:"delta"`
	MarginalL2Error float64 `json:"marginal_l2_error"`
	gibbsOutput
}

func runPotts(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "potts", "Samples the Gaussian-kernel Potts model of Zhang & De Sa (2019, §4.1): an N×N lattice,\n"+
		"every pair of sites coupled by β·exp(−γ·d²)·δ(x_i, x_j). Exact marginals are uniform, 1/states;\n"+
		"the marginal ℓ2 error is the mean over sites of the ℓ2 distance of the run-average marginal to them.")
	p := potts.Paper()
	fs.IntVar(&p.Width, "width", p.Width, "lattice side N (N×N sites)")
	fs.IntVar(&p.States, "states", p.States, "number of states D of each site")
	fs.Float64Var(&p.Beta, "beta", p.Beta, "inverse temperature β")
	fs.Float64Var(&p.Gamma, "gamma", p.Gamma, "kernel width γ of exp(−γ·d²)")
	perVar := fs.Bool("per-variable", false, "use per-variable L_i and λ_i = (λ/L²)·L_i²")
	f := addRunFlags(fs, "potts", runDefaults{scan: true, sampler: "pgibbs", samplers: discreteSamplers() + " (for sw and wolff -iters counts sweeps; a Wolff sweep is -clusters single clusters)",
		iters: 1000000, clusters: true, estimator: true})
	if err := f.parse(e, args); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return usagef("%v", err)
	}
	if e, err := samplers.Lookup(f.sampler); err != nil || e.Continuous {
		return usagef("-sampler %q: want one of %s", f.sampler, discreteSamplers())
	}
	// Every pair within the kernel's reach is a stored factor: refuse a
	// lattice too large for the memory before building it.
	model, perChain := pottsBytes(p, f.sampler)
	if err := f.checkMemory(model, perChain); err != nil {
		return err
	}
	g, err := potts.New(p)
	if err != nil {
		return err
	}
	so := f.options()
	so.PerVariable = *perVar
	_, rec, l2, err := f.pottsAnswer(ctx, g, &infer.Spec{Name: f.sampler, Clusters: f.clusterCount()}, so, p.States)
	if err != nil {
		return err
	}
	out := pottsOutput{Model: "potts", Width: p.Width, States: p.States, Beta: p.Beta, Gamma: p.Gamma,
		L: g.L(), Delta: g.MaxDegree(), MarginalL2Error: l2, gibbsOutput: *rec}
	if f.asJSON {
		return writeJSON(e, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\tPotts %d×%d, D = %d, β = %g, γ = %g\n", p.Width, p.Width, p.States, p.Beta, p.Gamma)
	fmt.Fprintf(tw, "L, Δ\t%.4f, %d\n", out.L, out.Delta)
	if out.Lambda > 0 {
		fmt.Fprintf(tw, "sampler\t%s (λ = %.4g)\n", out.Sampler, out.Lambda)
	} else {
		fmt.Fprintf(tw, "sampler\t%s\n", out.Sampler)
	}
	out.gibbsOutput.print(tw)
	fmt.Fprintf(tw, "marginal ℓ2 error\t%.5f\n", out.MarginalL2Error)
	printConvergence(tw, out.convergence)
	return tw.Flush()
}

// pottsAnswer runs spec on the Potts model g of the given states through
// infer (runFlags.answer) and returns the answer, its run record, and the
// marginals' mean ℓ2 distance to the uniform marginals, which are exact by
// symmetry.
func (f *runFlags) pottsAnswer(ctx context.Context, g *factorgraph.Graph, spec *infer.Spec, so gibbs.Options, states int) (*infer.Answer, *gibbsOutput, float64, error) {
	opt, err := f.inferOptions(spec, so)
	if err != nil {
		return nil, nil, 0, err
	}
	a, rec, err := f.answer(ctx, g, opt)
	switch {
	case err != nil:
		return nil, nil, 0, err
	case rec == nil:
		return nil, nil, 0, errNothingSampled(a)
	}
	l2, err := diag.MarginalL2(a.Marginals, uniform(g.NumVars(), states))
	return a, rec, l2, err
}

// checkLambdaFlags rejects impossible λ flags with a usage error.
func checkLambdaFlags(lambda, scale float64) error {
	switch {
	case lambda < 0 || lambda != lambda:
		return usagef("-lambda %v: need λ > 0", lambda)
	case scale < 0 || scale != scale:
		return usagef("-lambda-scale %v: need a scale > 0", scale)
	case lambda > 0 && scale > 0:
		return usagef("-lambda and -lambda-scale both set: choose one")
	}
	return nil
}

// pottsBytes estimates the memory of `pgibbs potts` on the lattice p with
// sampler: the graph's (factorgraph.PairGraphBytes; about 40 bytes a pair
// within the kernel's reach) and one chain's (infer.ChainBytes; Swendsen–Wang
// and Wolff add their bond tables, 16 bytes an entry, 32 a pair).
func pottsBytes(p potts.Params, sampler string) (model, perChain float64) {
	n, pairs := p.Width*p.Width, p.NumPairs()
	model = float64(factorgraph.PairGraphBytes(n, pairs))
	perChain = infer.ChainBytes(n, n, n*p.States)
	if entry(sampler).Sweep { // a cluster move's bonds
		perChain += 32 * float64(pairs)
	}
	return model, perChain
}

// uniform returns n uniform marginals over d values.
func uniform(n, d int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
		for v := range out[i] {
			out[i][v] = 1 / float64(d)
		}
	}
	return out
}

func writeJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
