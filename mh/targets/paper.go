package targets

import (
	"cmp"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/tgm"
)

// Setup describes one of the TunaMH paper's experiments (Zhang, Cooper &
// De Sa, NeurIPS 2020, §6 and App. J): which target, its size, the sampler
// that will run on it, and whether to start at the posterior mode.
type Setup struct {
	// Model is "tgm" (the truncated Gaussian mixture on [−3, 3]², β =
	// 10⁻⁴, N = 10⁶), "rlr" (robust linear regression, Student-t ν = 4, N
	// = 10⁵), "logistic" (N = 10⁴) or "bias" (the random walk on {0, …,
	// K−1} whose posterior is uniform).
	Model string
	// Sampler is the mh registry name that will run (mh.Lookup): samplers
	// with control variates start, and expand, at the mode.
	Sampler string
	// N overrides the model's number of data points (0: the paper's);
	// Dim is the regression models' dimension (0: 10); K the bias
	// example's number of states (0: 200).
	N, Dim, K int
	// MapStart starts at the posterior mode (and expands control variates
	// and bounds there) whatever the sampler.
	MapStart bool
	// Seed seeds the data (its own stream, so that chains share it).
	Seed uint64
}

// Models are the models Paper knows.
var Models = []string{"tgm", "rlr", "logistic", "bias"}

// paperSteps are the TunaMH paper's random-walk step sizes (its Tables 2
// and 3) by model and sampler.
var paperSteps = map[string]map[string]float64{
	"tgm":      {"mh": 0.3, "tfmh": 2.2e-2, "flymc": 1e-2, "tunamh": 0.1, "poissonmh": 0.1, "smh1": 0.1, "mhss1": 0.1},
	"rlr":      {"mh": 4e-3, "tfmh": 1e-4, "flymc": 2.7e-3, "tunamh": 8e-4, "smh1": 4e-3, "smh2": 4e-3, "mhss1": 4e-3, "mhss2": 4e-3},
	"logistic": {"mh": 5e-3, "tfmh": 1e-4, "flymc": 2e-3, "tunamh": 1e-3},
}

// Paper builds the target of s, its data drawn from stream (s.Seed,
// 0xda7a), and returns opt completed as the paper runs it: the start (and
// control variates' reference point), the proposal, and where opt leaves
// them zero χ (10⁻⁴ for tgm and bias, 10⁻⁵ otherwise), Poisson-MH's λ
// (500) and the step size (the paper's for the model and sampler, else
// 0.1).
func Paper(s Setup, opt mh.Options) (mh.Target, mh.Options, error) {
	data := rand.New(rand.NewPCG(s.Seed, 0xda7a))
	var target mh.Target
	switch s.Model {
	case "tgm":
		cfg := tgm.MHConfig()
		cfg.N = cmp.Or(s.N, cfg.N)
		m, err := tgm.Generate(cfg, data)
		if err != nil {
			return nil, opt, err
		}
		target = m.Target()
		opt.Init = []float64{0, 1} // the mode the paper starts from
		opt.Chi = cmp.Or(opt.Chi, 1e-4)
	case "rlr", "logistic":
		dim := cmp.Or(s.Dim, 10)
		var withMode interface{ Mode([]float64) error }
		if s.Model == "rlr" {
			m, err := GenerateRobustLinear(cmp.Or(s.N, 100_000), dim, 4, data)
			if err != nil {
				return nil, opt, err
			}
			target, withMode = m, m
		} else {
			m, _, err := GenerateLogistic(cmp.Or(s.N, 10_000), dim, data)
			if err != nil {
				return nil, opt, err
			}
			target, withMode = m, m
		}
		if e, _ := mh.Lookup(s.Sampler); s.MapStart || e.ControlVariates {
			mode := make([]float64, dim)
			if err := withMode.Mode(mode); err != nil {
				return nil, opt, err
			}
			opt.Init, opt.Ref = mode, mode
		}
		opt.Chi = cmp.Or(opt.Chi, 1e-5)
	case "bias":
		k := cmp.Or(s.K, 200)
		b, err := NewBias(k)
		if err != nil {
			return nil, opt, err
		}
		target = b
		opt.Proposal = LazyWalk{K: k}
		opt.Init = []float64{float64(k / 2)}
		opt.Chi = cmp.Or(opt.Chi, 1e-4)
	default:
		return nil, opt, fmt.Errorf("targets: model %q: want one of %v", s.Model, Models)
	}
	opt.Step = cmp.Or(opt.Step, paperSteps[s.Model][s.Sampler], 0.1)
	opt.Lambda = cmp.Or(opt.Lambda, 500)
	return target, opt, nil
}
