package papers

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// RLRRow is one sampler of the robust-regression ESS comparison.
type RLRRow struct {
	MHRow
	// Precondition, if positive, replaces the isotropic random walk by
	// q = N(θ, (Precondition²/d)·V), V the inverse of the negative Hessian
	// of the log-likelihood at the mode (MH-SS's recommendation).
	Precondition float64
	// Thin keeps every Thin-th state for the ESS.
	Thin int
}

// RLRSettings configures the ESS-per-second comparison on robust linear
// regression (TunaMH paper §5.1, App. J.2.1: Student-t likelihood, ν = 4,
// flat prior, y_i = Σ_j x_ij + ε_i): one data set, chains started at the
// posterior mode, each sampler run for Budget of wall time.
type RLRSettings struct {
	N, D   int
	Nu     float64
	Budget time.Duration
	// MaxDraws bounds the stored draws per coordinate: when full, every
	// other draw is dropped and the thinning doubled. It must be large
	// enough that the final thinning stays below the chains' integrated
	// autocorrelation time: the ESS of a thinned chain of nearly
	// independent draws is capped by their number, which would understate
	// the fastest samplers (MH-SS-2 and SMH-2 run 10⁶ steps a second here).
	MaxDraws int
	Rows     []RLRRow
}

// RLRPaper returns the setting of App. J.2.1 of the TunaMH paper
// (N = 10⁵, d = 10) with the samplers and steps of mh/RESULTS.md §3: MH
// (step 2.5·10⁻³), TunaMH (5·10⁻⁵, χ = 10⁻⁵), MH-SS-1 and MH-SS-2 (λ = 1.5),
// SMH-2 (λ = 2), TFMH (10⁻⁵) and FlyMC at the mode (10⁻³), each for 20 s
// (quick: 3 s), keeping up to 10⁶ draws a coordinate (80 MB a chain). The
// paper's ESS/s for d = 10 are given where it has them.
func RLRPaper(quick bool) RLRSettings {
	s := RLRSettings{N: 100_000, D: 10, Nu: 4, Budget: 20 * time.Second, MaxDraws: 1_000_000, Rows: []RLRRow{
		{MHRow: MHRow{Key: "mh", Label: "MH, step 2.5e-3", Name: "mh", Options: mh.Options{Step: 2.5e-3}, Paper: "—"}, Thin: 1},
		{MHRow: MHRow{Key: "tunamh", Label: "TunaMH, step 5e-5, χ=1e-5", Name: "tunamh", Options: mh.Options{Step: 5e-5, Chi: 1e-5}, Paper: "1.7 (730.1 from the MAP)"}, Thin: 20},
		{MHRow: MHRow{Key: "mhss1", Label: "MH-SS-1, λ=1.5", Name: "mhss1", Paper: "—"}, Precondition: 1.5, Thin: 1},
		{MHRow: MHRow{Key: "mhss2", Label: "MH-SS-2, λ=1.5", Name: "mhss2", Paper: "—"}, Precondition: 1.5, Thin: 5},
		{MHRow: MHRow{Key: "smh2", Label: "SMH-2, λ=2", Name: "smh2", Paper: "5969.5"}, Precondition: 2, Thin: 5},
		{MHRow: MHRow{Key: "tfmh", Label: "TFMH, step 1e-5", Name: "tfmh", Options: mh.Options{Step: 1e-5}, Paper: "0.02"}, Thin: 100},
		{MHRow: MHRow{Key: "flymc-map", Label: "FlyMC-MAP, step 1e-3", Name: "flymc", Options: mh.Options{Step: 1e-3, QDarkToBright: 0.01}, Paper: "730.8"}, Thin: 2},
	}}
	if quick {
		s.Budget = 3 * time.Second
	}
	return s
}

// RLRResultRow is a measured row of the ESS comparison.
type RLRResultRow struct {
	RLRRow
	Steps     int64
	Accept    float64
	MeanBatch float64
	// UsPerStep is the time per step in µs.
	UsPerStep float64
	// ESSMin and ESSMean are the minimum and the mean over coordinates of
	// diag.ESS (Stan's split-chain ESS of the mean) of the kept draws;
	// ESSPerSec the minimum divided by the run's seconds.
	ESSMin, ESSMean, ESSPerSec float64
	Seconds                    float64
	// Note flags an ESS that the stored draws may limit: thinned to fit
	// MaxDraws, the kept draws are nearly independent, so the ESS is a
	// lower bound.
	Note string
}

// RLRResult is what RLR measured.
type RLRResult struct {
	Settings RLRSettings
	Rows     []RLRResultRow
}

// RLR runs the robust-regression ESS comparison. The data and chains are
// seeded from cfg.Seed; the ESS depends on how many steps fit in the
// budget, so it is not reproducible bit for bit.
func RLR(ctx context.Context, s RLRSettings, cfg harness.Config) (*RLRResult, error) {
	if s.Budget <= 0 || s.MaxDraws < 20 || len(s.Rows) == 0 {
		return nil, fmt.Errorf("experiments: rlr: budget %v, %d draws, %d samplers", s.Budget, s.MaxDraws, len(s.Rows))
	}
	reg, err := targets.GenerateRobustLinear(s.N, s.D, s.Nu, harness.RandStream(cfg.Seed, 0x71f))
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	mode := make([]float64, s.D)
	if err := reg.Mode(mode); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	cov, err := rlrCovariance(reg, mode)
	if err != nil {
		return nil, err
	}
	prog := cfg.ProgressOrNone()
	prog.Start("rlr", int64(len(s.Rows))*s.Budget.Milliseconds())
	out := make([]RLRResultRow, len(s.Rows))
	err = chain.Parallel(ctx, len(s.Rows), cfg.NumWorkers(), func(ctx context.Context, k int) error {
		stop := clockProgress(prog, s.Budget)
		defer stop()
		smp, err := newRLRSampler(s, s.Rows[k], reg, mode, cov, harness.RandStream(cfg.Seed, uint64(k)))
		if err != nil {
			return fmt.Errorf("experiments: %s: %w", s.Rows[k].Key, err)
		}
		out[k], err = runRLR(ctx, s, s.Rows[k], smp)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &RLRResult{Settings: s, Rows: out}, nil
}

// newRLRSampler returns row's sampler of reg, started at the mode (also its
// reference point), preconditioned by cov if the row asks for it.
func newRLRSampler(s RLRSettings, row RLRRow, reg *targets.RobustLinear, mode, cov []float64, r *rand.Rand) (mh.Sampler, error) {
	o := row.Options
	o.Init, o.Ref = mode, mode
	if row.Precondition > 0 {
		p, err := mh.NewGaussianRW(row.Precondition/math.Sqrt(float64(s.D)), cov, s.D)
		if err != nil {
			return nil, err
		}
		o.Proposal = p
	}
	return mh.New(row.Name, reg, r, &o)
}

// runRLR runs smp for s.Budget, tracing every coordinate (chain.Trace,
// thinned by row.Thin and at most s.MaxDraws draws), and measures the ESS.
func runRLR(ctx context.Context, s RLRSettings, row RLRRow, smp mh.Sampler) (RLRResultRow, error) {
	thin := max(row.Thin, 1)
	vars := make([]int, s.D)
	for j := range vars {
		vars[j] = j
	}
	tr, err := chain.NewTrace(vars, int64(thin), s.MaxDraws)
	if err != nil {
		return RLRResultRow{}, err
	}
	start := time.Now()
	run := chain.Runner{Duration: s.Budget}
	if err := run.Run(ctx, []*chain.Chain{{Kernel: smp, Observers: []chain.Observer{tr}}}); err != nil {
		if ctx.Err() != nil {
			return RLRResultRow{}, ctx.Err()
		}
		return RLRResultRow{}, fmt.Errorf("experiments: %s: %w", row.Key, err)
	}
	sec := time.Since(start).Seconds()
	st := smp.Stats()
	r := RLRResultRow{RLRRow: row, Steps: st.Steps, Accept: st.AcceptanceRate(), MeanBatch: st.MeanBatch(),
		UsPerStep: sec / float64(st.Steps) * 1e6, Seconds: sec, ESSMin: math.Inf(1)}
	for _, d := range tr.Draws() {
		e, err := diag.ESS([][]float64{d})
		if err != nil {
			return r, fmt.Errorf("experiments: %s: ESS: %w", row.Key, err)
		}
		if math.IsNaN(e) { // a chain that never moved
			e = 0
		}
		r.ESSMin = min(r.ESSMin, e)
		r.ESSMean += e / float64(s.D)
	}
	r.ESSPerSec = r.ESSMin / sec
	if kept := len(tr.Draws()[0]); tr.Every() > int64(thin) && r.ESSMin > 0.5*float64(kept) {
		r.Note = fmt.Sprintf("ESS limited by the %d kept draws (thinned 1 in %d): a lower bound", kept, tr.Every())
	}
	return r, nil
}

// clockProgress reports a phase of wall time d as d's milliseconds, from a
// ticker that leaves the chain alone, until stop, which adds what remains.
func clockProgress(prog harness.Progress, d time.Duration) (stop func()) {
	rp := &runProgress{prog: prog, total: d.Milliseconds(), budget: d}
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				rp.report(0, time.Since(start))
			}
		}
	}()
	return func() {
		tick.Stop()
		close(done)
		<-finished
		rp.finish()
	}
}

// rlrCovariance returns V = (−Σ_i ∇²ℓ_i(mode))⁻¹, symmetrised, row-major.
func rlrCovariance(reg *targets.RobustLinear, mode []float64) ([]float64, error) {
	d := len(mode)
	h := make([]float64, d*d)
	hi := make([]float64, d*d)
	for i := range reg.N() {
		reg.HessLogLik(hi, i, mode)
		for j := range h {
			h[j] -= hi[j]
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(mat.NewDense(d, d, h)); err != nil {
		return nil, fmt.Errorf("experiments: rlr: Hessian at the mode: %w", err)
	}
	cov := make([]float64, d*d)
	for a := range d {
		for b := range d {
			cov[a*d+b] = 0.5 * (inv.At(a, b) + inv.At(b, a))
		}
	}
	return cov, nil
}
