package papers

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/spin"
)

// SpinSettings configures the continuous spin experiment behind Figs. 1c
// and 2c of the Poisson-Gibbs paper (§4.2): the histogram of all spins
// (pooled over sites, run-averaged) against a ground-truth histogram from a
// long exact run, compared by the symmetric KL divergence at log-spaced
// checkpoints.
type SpinSettings struct {
	// Params is the model (the paper's: spin.Paper(), L = 13.71).
	Params spin.Params
	// Bins is the number of equal bins of the spin interval.
	Bins int
	// Eps is the additive smoothing of diag.SymmetricKL.
	Eps float64
	// Iters caps the updates of each run; a Sampler's own Iters overrides
	// it (the rejection samplers get fewer, as in the paper).
	Iters int64
	// Budget, if positive, is the sampling time each run may take: a run
	// stops at its cap or its budget, whichever comes first, so that the
	// wall-time figure gives every sampler the same time.
	Budget time.Duration
	// PerDecade is the number of checkpoints a decade (0 means 10).
	PerDecade int
	// Samplers are the curves.
	Samplers []Sampler
	// Truth is the ground-truth run.
	Truth TruthSettings
}

// TruthSettings describes a ground-truth run: Chains independent chains of
// Sampler, each Burn + Iters updates long, histograms pooled.
type TruthSettings struct {
	Sampler string
	Options gibbs.Options
	Chains  int
	Iters   int64
	Burn    int64
}

// SpinPaper returns the paper's spin setting: 20×20 sites, β = 1, the
// kernel width giving L = 13.71, λ = L², m = 3, k = 10, 50 bins, smoothing
// 10⁻¹⁰; curves PGITS, PGDA, Gibbs-ITS, Gibbs-DA (each up to 10⁶ updates in
// full mode, 10⁵ in quick mode) and Gibbs-rejection and PG-rejection (10⁵,
// quick 10⁴; the paper ran 10⁴), every run within the same time budget
// (full 30 s, quick 2 s). The truth pools 2 Gibbs-ITS chains of 2·10⁶
// updates after 2·10⁴ of burn-in (quick: 2·10⁵); the paper used one
// Gibbs-ITS run of 10⁷.
func SpinPaper(quick bool) SpinSettings {
	s := SpinSettings{
		Params: spin.Paper(), Bins: 50, Eps: 1e-10, Iters: 1_000_000, Budget: 30 * time.Second,
		Truth: TruthSettings{Sampler: "gibbs-its", Chains: 2, Iters: 2_000_000, Burn: 20_000},
	}
	rej := int64(100_000)
	if quick {
		s.Iters, s.Budget, s.Truth.Iters, rej = 100_000, 2*time.Second, 200_000, 10_000
	}
	s.Samplers = []Sampler{
		{Key: "pgits", Label: "PGITS", Name: "pgits"},
		{Key: "pgda", Label: "PGDA", Name: "pgda"},
		{Key: "gibbs-its", Label: "Gibbs-ITS", Name: "gibbs-its"},
		{Key: "gibbs-da", Label: "Gibbs-DA", Name: "gibbs-da"},
		{Key: "gibbs-rejection", Label: "Gibbs-rejection", Name: "gibbs-rejection", Iters: rej},
		{Key: "pg-rejection", Label: "PG-rejection", Name: "pg-rejection", Iters: rej},
	}
	return s
}

// SpinResult is what Spin measured.
type SpinResult struct {
	Settings SpinSettings
	// L and Delta describe the model.
	L     float64
	Delta int
	// Truth is the ground-truth histogram (probabilities of the bins).
	Truth []float64
	// TruthFile is the cache file the truth was read from or written to
	// ("" without harness.Config.Dir); TruthCached says it was read.
	TruthFile   string
	TruthCached bool
	// TruthSelfKL is the symmetric KL between the two halves of the truth's
	// chains (first half of the chains against the second), a measure of
	// its own noise: curves below it are not resolved.
	TruthSelfKL float64
	// Curves hold the symmetric KL against updates and seconds.
	Curves []Curve
}

func (s SpinSettings) validate() error {
	if err := s.Params.Validate(); err != nil {
		return err
	}
	t := s.Truth
	switch {
	case s.Bins < 1 || s.Bins > 1<<20:
		return fmt.Errorf("spin: %d bins: need 1 to 2²⁰", s.Bins)
	case !(s.Eps >= 0) || math.IsInf(s.Eps, 0):
		return fmt.Errorf("spin: smoothing %v: need a finite eps ≥ 0", s.Eps)
	case s.Budget < 0:
		return fmt.Errorf("spin: negative budget %v", s.Budget)
	case !slices.Contains(samplers.Names(), t.Sampler):
		return fmt.Errorf("spin: unknown truth sampler %q", t.Sampler)
	case t.Chains < 2 || t.Iters < 2 || t.Burn < 0:
		return fmt.Errorf("spin: truth of %d chains × %d updates (burn %d): need ≥ 2 chains, ≥ 2 updates", t.Chains, t.Iters, t.Burn)
	}
	return checkSamplers(s.Samplers, s.Iters)
}

// Spin runs the continuous spin experiment: the truth (from the cache in
// cfg.Dir when a file with the same settings and seed exists), then, for
// each sampler, cfg.Runs chains from uniformly random states, each with a
// pooled run-average histogram (chain.Histograms) compared with the truth
// by diag.SymmetricKL at checkpoints.
func Spin(ctx context.Context, s SpinSettings, cfg harness.Config) (*SpinResult, error) {
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	g, err := spin.New(s.Params)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	res := &SpinResult{Settings: s, L: g.L(), Delta: g.MaxDegree()}
	if err := res.truth(ctx, g, cfg); err != nil {
		return nil, err
	}
	res.Curves, err = runCurves(ctx, cfg, "spin", func(_ int, sp Sampler) *metricRun {
		return &metricRun{model: g, spec: sp, iters: itersOf(sp, s.Iters), budget: s.Budget, first: 10,
			perDec: perDecade(s.PerDecade), observe: histogramKL(g, s.Bins, res.Truth, s.Eps)}
	}, s.Samplers)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// histogramKL returns the observer factory of the Fig. 1c metric.
func histogramKL(g factorgraph.Model, bins int, truth []float64, eps float64) func() (chain.Observer, func() (float64, error)) {
	lo, hi := factorgraph.Intervals(g)
	return func() (chain.Observer, func() (float64, error)) {
		h, _ := chain.NewHistograms(lo, hi, bins) // bins ≥ 1 validated
		return h, func() (float64, error) { return diag.SymmetricKL(h.Pooled(), truth, eps) }
	}
}

// truthStream offsets the truth chains' RNG streams from the curves'.
const truthStream = 1 << 30

// truthName is the cache file of the truth for these settings and seed.
func (s SpinSettings) truthName(seed uint64) string {
	p := s.Params
	t := s.Truth
	return fmt.Sprintf("spin-truth_w%d_beta%g_gamma%.9g_bins%d_%s_m%d_k%d_chains%d_iters%d_burn%d_seed%d.csv",
		p.Width, p.Beta, p.Gamma, s.Bins, t.Sampler, t.Options.M, t.Options.K, t.Chains, t.Iters, t.Burn, seed)
}

// truth fills r.Truth and r.TruthSelfKL, from the cache if possible.
func (r *SpinResult) truth(ctx context.Context, g factorgraph.Model, cfg harness.Config) error {
	s := r.Settings
	if cfg.Dir != "" {
		r.TruthFile = filepath.Join(cfg.Dir, s.truthName(cfg.Seed))
		a, b, err := readTruth(r.TruthFile, s.Bins)
		switch {
		case err == nil:
			r.Truth, r.TruthCached = pool(a, b), true
			r.TruthSelfKL, err = diag.SymmetricKL(a, b, s.Eps)
			return err
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("experiments: truth cache: %w", err)
		}
	}
	a, b, err := runTruth(ctx, g, s, cfg)
	if err != nil {
		return fmt.Errorf("experiments: truth: %w", err)
	}
	r.Truth = pool(a, b)
	if r.TruthSelfKL, err = diag.SymmetricKL(a, b, s.Eps); err != nil {
		return err
	}
	if r.TruthFile != "" {
		if err := writeTruth(r.TruthFile, a, b); err != nil {
			return fmt.Errorf("experiments: truth cache: %w", err)
		}
	}
	return nil
}

// runTruth runs the truth's chains in parallel and returns the pooled
// histograms of its two halves of chains.
func runTruth(ctx context.Context, g factorgraph.Model, s SpinSettings, cfg harness.Config) (a, b []float64, err error) {
	t := s.Truth
	lo, hi := factorgraph.Intervals(g)
	hs := make([]*chain.Histograms, t.Chains)
	chains := make([]*chain.Chain, t.Chains)
	for c := range chains {
		opts := t.Options
		smp, err := samplers.New(t.Sampler, g, harness.RandStream(cfg.Seed, truthStream+uint64(c)), &opts)
		if err != nil {
			return nil, nil, err
		}
		if hs[c], err = chain.NewHistograms(lo, hi, s.Bins); err != nil {
			return nil, nil, err
		}
		chains[c] = &chain.Chain{Kernel: smp, Observers: []chain.Observer{hs[c]}, Burn: t.Burn}
	}
	prog := cfg.ProgressOrNone()
	prog.Start("spin truth", int64(t.Chains)*t.Iters)
	err = chain.Parallel(ctx, t.Chains, cfg.NumWorkers(), func(ctx context.Context, c int) error {
		if err := chains[c].Advance(ctx, t.Burn); err != nil {
			return err
		}
		return advanceBy(ctx, chains[c], t.Iters, 4096, prog)
	})
	if err != nil {
		return nil, nil, err
	}
	half := t.Chains / 2
	ha, err := chain.PoolHistograms(hs[:half]...)
	if err != nil {
		return nil, nil, err
	}
	hb, err := chain.PoolHistograms(hs[half:]...)
	if err != nil {
		return nil, nil, err
	}
	return ha.Pooled(), hb.Pooled(), nil
}

// pool returns the average of two probability vectors.
func pool(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for k := range a {
		out[k] = (a[k] + b[k]) / 2
	}
	return out
}

// writeTruth writes the two half-truths as bin,half_a,half_b.
func writeTruth(path string, a, b []float64) error {
	rows := make([][]string, len(a))
	for k := range a {
		rows[k] = []string{strconv.Itoa(k), harness.Ftoa(a[k]), harness.Ftoa(b[k])}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return harness.WriteCSV(path, []string{"bin", "half_a", "half_b"}, rows)
}

// readTruth reads a file of writeTruth with bins rows.
func readTruth(path string, bins int) (a, b []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) != bins+1 || len(recs[0]) != 3 {
		return nil, nil, fmt.Errorf("%s: want a header and %d rows of 3 fields", path, bins)
	}
	for k, rec := range recs[1:] {
		x, err1 := strconv.ParseFloat(rec[1], 64)
		y, err2 := strconv.ParseFloat(rec[2], 64)
		if err := errors.Join(err1, err2); err != nil || !(x >= 0) || !(y >= 0) {
			return nil, nil, fmt.Errorf("%s: row %d: bad probabilities %q, %q", path, k+1, rec[1], rec[2])
		}
		a, b = append(a, x), append(b, y)
	}
	return a, b, nil
}

// Select returns the curves with the given keys, in that order.
func (r *SpinResult) Select(keys ...string) []Curve { return selectCurves(r.Curves, keys) }
