package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/models/targets"
	"github.com/pgibbs/pgibbs/models/tgm"
)

// MHRow is one sampler of a minibatch-MH comparison.
type MHRow struct {
	Key, Label string
	// Name and Options are passed to mh.New.
	Name    string
	Options mh.Options
	// Steps is the number of measured steps of each run (Table 1).
	Steps int
	// Paper is the paper's value for the row, as printed ("" if none).
	Paper string
}

// Table1Settings configures the average-batch-size comparison of Table 1
// of the TunaMH paper (Zhang, Cooper & De Sa, NeurIPS 2020) on the
// truncated Gaussian mixture.
type Table1Settings struct {
	// Config is the mixture (the paper's: tgm.MHConfig(), N = 10⁶,
	// β = 10⁻⁴, [−3, 3]², flat prior).
	Config tgm.Config
	// Rows are the samplers; each run starts at Init, takes Steps/10
	// steps of burn-in, then Steps measured steps.
	Rows []MHRow
	Init []float64
}

// Table1Paper returns the paper's setting with its step sizes (its Tables
// 2–3): TFMH 2.2·10⁻², FlyMC 10⁻² (θ⁰ = 0 and θ⁰ = the mode (0, 1),
// q_{d→b} = 0.01), TunaMH 0.1 with χ = 10⁻⁴, Poisson-MH 0.1 with λ = 3424
// (the value for which λ + L matches the paper's 3969.67; the paper states
// neither λ nor its bounds) and λ = 500, and full-data MH 0.3. Chains
// start at the mode (0, 1). Full: the step counts of mh/RESULTS.md (MH 300,
// FlyMC and Poisson-MH 3000, Poisson-MH λ = 500 10⁴, TFMH and TunaMH 2·10⁵);
// quick: a tenth of them.
func Table1Paper(quick bool) Table1Settings {
	init := []float64{0, 1}
	rows := []MHRow{
		{Key: "mh", Label: "MH", Name: "mh", Options: mh.Options{Step: 0.3}, Steps: 300, Paper: "—"},
		{Key: "tfmh", Label: "TFMH", Name: "tfmh", Options: mh.Options{Step: 2.2e-2}, Steps: 200_000, Paper: "13.91 ± 0.016"},
		{Key: "flymc", Label: "FlyMC θ⁰=0", Name: "flymc", Options: mh.Options{Step: 1e-2, Ref: []float64{0, 0}, QDarkToBright: 0.01}, Steps: 3000, Paper: "811.52 ± 234.16"},
		{Key: "flymc-map", Label: "FlyMC θ⁰=(0,1)", Name: "flymc", Options: mh.Options{Step: 1e-2, Ref: init, QDarkToBright: 0.01}, Steps: 3000, Paper: "—"},
		{Key: "poissonmh-3424", Label: "PoissonMH λ=3424", Name: "poissonmh", Options: mh.Options{Step: 0.1, Lambda: 3424}, Steps: 3000, Paper: "3969.67 ± 327.26"},
		{Key: "poissonmh-500", Label: "PoissonMH λ=500", Name: "poissonmh", Options: mh.Options{Step: 0.1, Lambda: 500}, Steps: 10_000, Paper: "—"},
		{Key: "tunamh", Label: "TunaMH χ=1e-4", Name: "tunamh", Options: mh.Options{Step: 0.1, Chi: 1e-4}, Steps: 200_000, Paper: "86.45 ± 0.04"},
	}
	if quick {
		for k := range rows {
			rows[k].Steps /= 10
		}
	}
	return Table1Settings{Config: tgm.MHConfig(), Rows: rows, Init: init}
}

// Table1Row is a measured row of Table 1.
type Table1Row struct {
	MHRow
	// Batch is the mean batch size of each run (as the sampler's paper
	// defines it; see mh.Stats), MeanBatch their mean and SE its standard
	// error.
	Batch         []float64
	MeanBatch, SE float64
	// Accept is the acceptance rate and NsPerStep the time per step,
	// averaged over runs.
	Accept, NsPerStep float64
}

// Table1Result is what TunaMHTable1 measured.
type Table1Result struct {
	Settings Table1Settings
	// C = Σ_i c_i and L = Σ_i (hi_i − lo_i) of the first data set.
	C, L float64
	Rows []Table1Row
}

// TunaMHTable1 measures Table 1 of the TunaMH paper: for each row, cfg.Runs
// runs, run r on its own data set and chain (both seeded from cfg.Seed and
// r), the average batch size after burn-in.
func TunaMHTable1(ctx context.Context, s Table1Settings, cfg Config) (*Table1Result, error) {
	if len(s.Rows) == 0 {
		return nil, fmt.Errorf("bench: table 1: no samplers")
	}
	for _, r := range s.Rows {
		if !slices.Contains(mh.Names(), r.Name) || r.Steps < 1 {
			return nil, fmt.Errorf("bench: table 1: %s: sampler %q, %d steps", r.Key, r.Name, r.Steps)
		}
	}
	runs := cfg.runs()
	models := make([]*tgm.Model, runs)
	if err := chain.Parallel(ctx, runs, cfg.workers(), func(_ context.Context, r int) error {
		var err error
		models[r], err = tgm.Generate(s.Config, randStream(cfg.Seed, 0xda7a0000+uint64(r)))
		return err
	}); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	res := &Table1Result{Settings: s, L: models[0].SumRanges()}
	for i := range models[0].N() {
		res.C += models[0].LocalBound(i)
	}
	outs := make([]table1Run, len(s.Rows)*runs)
	var total int64
	for _, r := range s.Rows {
		total += int64(runs) * int64(r.Steps+r.Steps/10)
	}
	prog := cfg.progress()
	prog.Start("tunamh table 1", total)
	err := chain.Parallel(ctx, len(outs), cfg.workers(), func(ctx context.Context, j int) error {
		var err error
		outs[j], err = runTable1(ctx, s.Rows[j/runs], s.Init, models[j%runs], randStream(cfg.Seed, uint64(j)), prog)
		return err
	})
	if err != nil {
		return nil, err
	}
	for k, row := range s.Rows {
		res.Rows = append(res.Rows, table1Row(row, outs[k*runs:(k+1)*runs]))
	}
	return res, nil
}

// table1Run is what one run of a row of Table 1 measured, per step after
// the burn-in.
type table1Run struct{ batch, accept, ns float64 }

// runTable1 runs a chain of row on model from init: row.Steps/10 steps of
// burn-in, then row.Steps measured steps, reporting progress every 64 steps.
func runTable1(ctx context.Context, row MHRow, init []float64, model *tgm.Model, r *rand.Rand, prog Progress) (table1Run, error) {
	o := row.Options
	o.Init = init
	smp, err := mh.New(row.Name, model.Target(), r, &o)
	if err != nil {
		return table1Run{}, fmt.Errorf("bench: %s: %w", row.Key, err)
	}
	c := &chain.Chain{Kernel: smp}
	if err := advanceBy(ctx, c, int64(row.Steps/10), 64, prog); err != nil {
		return table1Run{}, fmt.Errorf("bench: %s: %w", row.Key, err)
	}
	before := smp.Stats()
	start := time.Now()
	if err := advanceBy(ctx, c, int64(row.Steps), 64, prog); err != nil {
		return table1Run{}, fmt.Errorf("bench: %s: %w", row.Key, err)
	}
	el := time.Since(start)
	st := smp.Stats()
	n := float64(st.Steps - before.Steps)
	return table1Run{(st.Batch - before.Batch) / n, float64(st.Accepted-before.Accepted) / n, float64(el.Nanoseconds()) / n}, nil
}

// table1Row averages the runs of a row.
func table1Row(row MHRow, runs []table1Run) Table1Row {
	tr := Table1Row{MHRow: row}
	n := float64(len(runs))
	for _, o := range runs {
		tr.Batch = append(tr.Batch, o.batch)
		tr.MeanBatch += o.batch / n
		tr.Accept += o.accept / n
		tr.NsPerStep += o.ns / n
	}
	if len(runs) > 1 {
		v := 0.0
		for _, b := range tr.Batch {
			v += (b - tr.MeanBatch) * (b - tr.MeanBatch)
		}
		tr.SE = math.Sqrt(v/(n-1)) / math.Sqrt(n)
	}
	return tr
}

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
func RLR(ctx context.Context, s RLRSettings, cfg Config) (*RLRResult, error) {
	if s.Budget <= 0 || s.MaxDraws < 20 || len(s.Rows) == 0 {
		return nil, fmt.Errorf("bench: rlr: budget %v, %d draws, %d samplers", s.Budget, s.MaxDraws, len(s.Rows))
	}
	reg, err := targets.GenerateRobustLinear(s.N, s.D, s.Nu, randStream(cfg.Seed, 0x71f))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	mode := make([]float64, s.D)
	if err := reg.Mode(mode); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	cov, err := rlrCovariance(reg, mode)
	if err != nil {
		return nil, err
	}
	prog := cfg.progress()
	prog.Start("rlr", int64(len(s.Rows))*s.Budget.Milliseconds())
	out := make([]RLRResultRow, len(s.Rows))
	err = chain.Parallel(ctx, len(s.Rows), cfg.workers(), func(ctx context.Context, k int) error {
		stop := clockProgress(prog, s.Budget)
		defer stop()
		smp, err := newRLRSampler(s, s.Rows[k], reg, mode, cov, randStream(cfg.Seed, uint64(k)))
		if err != nil {
			return fmt.Errorf("bench: %s: %w", s.Rows[k].Key, err)
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
		return RLRResultRow{}, fmt.Errorf("bench: %s: %w", row.Key, err)
	}
	sec := time.Since(start).Seconds()
	st := smp.Stats()
	r := RLRResultRow{RLRRow: row, Steps: st.Steps, Accept: st.AcceptanceRate(), MeanBatch: st.MeanBatch(),
		UsPerStep: sec / float64(st.Steps) * 1e6, Seconds: sec, ESSMin: math.Inf(1)}
	for _, d := range tr.Draws() {
		e, err := diag.ESS([][]float64{d})
		if err != nil {
			return r, fmt.Errorf("bench: %s: ESS: %w", row.Key, err)
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
func clockProgress(prog Progress, d time.Duration) (stop func()) {
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
		return nil, fmt.Errorf("bench: rlr: Hessian at the mode: %w", err)
	}
	cov := make([]float64, d*d)
	for a := range d {
		for b := range d {
			cov[a*d+b] = 0.5 * (inv.At(a, b) + inv.At(b, a))
		}
	}
	return cov, nil
}
