package papers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/potts"
)

// PottsSettings configures the Potts experiment behind Figs. 1a, 1b, 2a and
// 2b of the Poisson-Gibbs paper (§4.1): run-average marginals of random-scan
// chains, and their mean ℓ2 distance to the exact (uniform) marginals at
// log-spaced checkpoints.
type PottsSettings struct {
	// Params is the model (the paper's: potts.Paper()).
	Params potts.Params
	// Iters is the number of variable updates of each run (the paper: 10⁶);
	// a Sampler's own Iters overrides it.
	Iters int64
	// Init is the value every site starts in. The authors' code starts
	// every site in its first state, so that the error starts near its
	// maximum, √(1 − 1/D).
	Init int
	// PerDecade is the number of checkpoints a decade (0 means 10); the
	// first is at 10 updates.
	PerDecade int
	// Samplers are the curves.
	Samplers []Sampler
}

// Keys of the Potts curves in PottsPaper's settings.
const (
	KeyGibbs         = "gibbs"
	KeyPGibbs01      = "pgibbs-0.1"
	KeyPGibbs1       = "pgibbs-1"
	KeyPGibbs5       = "pgibbs-5"
	KeyDoubleMIN1    = "doublemin-1"
	KeyDoubleMIN10k  = "doublemin-1e4"
	doubleMINQuickIt = 300
	doubleMINFullIt  = 10_000
)

// Fig1aKeys and Fig1bKeys are the curves of Figs. 1a/2a (Poisson-Gibbs
// against plain Gibbs and DoubleMIN-Gibbs) and 1b/2b (Poisson-Gibbs at
// three values of λ, with plain Gibbs for reference).
var (
	Fig1aKeys = []string{KeyGibbs, KeyPGibbs1, KeyDoubleMIN1, KeyDoubleMIN10k}
	Fig1bKeys = []string{KeyGibbs, KeyPGibbs01, KeyPGibbs1, KeyPGibbs5}
)

// PottsPaper returns the paper's Potts setting (20×20, D = 10, β = 4.6,
// γ = 1.5) with all six curves of Figs. 1a and 1b: plain Gibbs,
// Poisson-Gibbs with λ = 0.1, 1 and 5·L², and DoubleMIN-Gibbs with λ1 = L²
// and λ2 = L² and 10⁴·L². Full runs take the paper's 10⁶ updates, except
// DoubleMIN-Gibbs with λ2 = 10⁴·L², whose steps draw about 2.6·10⁵ factors
// each (about 9 ms): it runs 10⁴ updates. Quick runs take 2·10⁵ updates
// (DoubleMIN with λ2 = 10⁴·L²: 300).
func PottsPaper(quick bool) PottsSettings {
	iters, dm := int64(1_000_000), int64(doubleMINFullIt)
	if quick {
		iters, dm = 200_000, doubleMINQuickIt
	}
	return PottsSettings{
		Params: potts.Paper(),
		Iters:  iters,
		Samplers: []Sampler{
			{Key: KeyGibbs, Label: "Gibbs", Name: "gibbs"},
			{Key: KeyPGibbs01, Label: "Poisson-Gibbs λ=0.1L²", Name: "pgibbs", Options: gibbs.Options{LambdaScale: 0.1}},
			{Key: KeyPGibbs1, Label: "Poisson-Gibbs λ=L²", Name: "pgibbs", Options: gibbs.Options{LambdaScale: 1}},
			{Key: KeyPGibbs5, Label: "Poisson-Gibbs λ=5L²", Name: "pgibbs", Options: gibbs.Options{LambdaScale: 5}},
			{Key: KeyDoubleMIN1, Label: "DoubleMIN λ2=L²", Name: "doublemin", Options: gibbs.Options{LambdaScale: 1, Lambda2Scale: 1}},
			{Key: KeyDoubleMIN10k, Label: "DoubleMIN λ2=1e4·L²", Name: "doublemin", Options: gibbs.Options{LambdaScale: 1, Lambda2Scale: 1e4}, Iters: dm},
		},
	}
}

// Only returns the settings with only the samplers whose keys are listed
// (in the settings' order).
func (s PottsSettings) Only(keys ...string) PottsSettings {
	out := s
	out.Samplers = nil
	for _, sp := range s.Samplers {
		if slices.Contains(keys, sp.Key) {
			out.Samplers = append(out.Samplers, sp)
		}
	}
	return out
}

// PottsResult is what Potts measured.
type PottsResult struct {
	Settings PottsSettings
	// L, Delta and Factors describe the model: L = max_i Σ_{φ∈A[i]} M_φ,
	// the largest degree Δ and the number of factors.
	L       float64
	Delta   int
	Factors int
	// Curves hold the mean marginal ℓ2 error against updates and seconds,
	// one per sampler, in the settings' order.
	Curves []Curve
}

// Select returns the curves with the given keys, in that order, skipping
// keys that were not run.
func (r *PottsResult) Select(keys ...string) []Curve {
	return selectCurves(r.Curves, keys)
}

func selectCurves(cs []Curve, keys []string) []Curve {
	var out []Curve
	for _, k := range keys {
		for _, c := range cs {
			if c.Key == k {
				out = append(out, c)
			}
		}
	}
	return out
}

func checkSamplers(specs []Sampler, defIters int64) error {
	if len(specs) == 0 {
		return errors.New("no samplers")
	}
	seen := map[string]bool{}
	for _, sp := range specs {
		switch {
		case sp.Key == "":
			return fmt.Errorf("sampler %q has no key", sp.Name)
		case seen[sp.Key]:
			return fmt.Errorf("sampler key %q used twice", sp.Key)
		case !slices.Contains(samplers.Names(), sp.Name):
			return fmt.Errorf("%s: unknown sampler %q", sp.Key, sp.Name)
		case sp.Iters < 0 || (sp.Iters == 0 && defIters < 1):
			return fmt.Errorf("%s: %d updates: need at least 1", sp.Key, max(sp.Iters, defIters))
		}
		seen[sp.Key] = true
	}
	return nil
}

func itersOf(sp Sampler, def int64) int64 {
	if sp.Iters > 0 {
		return sp.Iters
	}
	return def
}

// Potts runs the Potts experiment: for each sampler, cfg.Runs independent
// random-scan chains from the all-equal state s.Init, with run-average
// marginals (chain.Marginals) and their mean ℓ2 error
// diag.MarginalL2 to the uniform marginals 1/D at checkpoints. It is
// deterministic in the errors for a given cfg.Seed; the seconds are wall
// time.
func Potts(ctx context.Context, s PottsSettings, cfg harness.Config) (*PottsResult, error) {
	if err := s.Params.Validate(); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	if err := checkSamplers(s.Samplers, s.Iters); err != nil {
		return nil, fmt.Errorf("experiments: potts: %w", err)
	}
	if s.Init < 0 || s.Init >= s.Params.States {
		return nil, fmt.Errorf("experiments: potts: initial value %d outside 0..%d", s.Init, s.Params.States-1)
	}
	g, err := potts.New(s.Params)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	n := g.NumVars()
	init := make([]float64, n)
	uniform := make([][]float64, n)
	for i := range n {
		init[i] = float64(s.Init)
		uniform[i] = make([]float64, s.Params.States)
		for v := range uniform[i] {
			uniform[i][v] = 1 / float64(s.Params.States)
		}
	}
	curves, err := runCurves(ctx, cfg, "potts", func(_ int, sp Sampler) *metricRun {
		return &metricRun{model: g, spec: sp, init: init, iters: itersOf(sp, s.Iters), first: 10, perDec: perDecade(s.PerDecade),
			observe: marginalError(g, uniform)}
	}, s.Samplers)
	if err != nil {
		return nil, err
	}
	return &PottsResult{Settings: s, L: g.L(), Delta: g.MaxDegree(), Factors: g.NumFactors(), Curves: curves}, nil
}

func perDecade(p int) int {
	if p <= 0 {
		return 10
	}
	return p
}

// marginalError returns the observer factory of the Fig. 1 metric.
func marginalError(g factorgraph.Model, exact [][]float64) func() (chain.Observer, func() (float64, error)) {
	return func() (chain.Observer, func() (float64, error)) {
		m := chain.NewMarginals(factorgraph.Sizes(g))
		return m, func() (float64, error) { return diag.MarginalL2(m.Probs(), exact) }
	}
}
