package papers

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/tgm"
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
func TunaMHTable1(ctx context.Context, s Table1Settings, cfg harness.Config) (*Table1Result, error) {
	if len(s.Rows) == 0 {
		return nil, fmt.Errorf("experiments: table 1: no samplers")
	}
	for _, r := range s.Rows {
		if !slices.Contains(mh.Names(), r.Name) || r.Steps < 1 {
			return nil, fmt.Errorf("experiments: table 1: %s: sampler %q, %d steps", r.Key, r.Name, r.Steps)
		}
	}
	runs := cfg.NumRuns()
	models := make([]*tgm.Model, runs)
	if err := chain.Parallel(ctx, runs, cfg.NumWorkers(), func(_ context.Context, r int) error {
		var err error
		models[r], err = tgm.Generate(s.Config, harness.RandStream(cfg.Seed, 0xda7a0000+uint64(r)))
		return err
	}); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
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
	prog := cfg.ProgressOrNone()
	prog.Start("tunamh table 1", total)
	err := chain.Parallel(ctx, len(outs), cfg.NumWorkers(), func(ctx context.Context, j int) error {
		var err error
		outs[j], err = runTable1(ctx, s.Rows[j/runs], s.Init, models[j%runs], harness.RandStream(cfg.Seed, uint64(j)), prog)
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
func runTable1(ctx context.Context, row MHRow, init []float64, model *tgm.Model, r *rand.Rand, prog harness.Progress) (table1Run, error) {
	o := row.Options
	o.Init = init
	smp, err := mh.New(row.Name, model.Target(), r, &o)
	if err != nil {
		return table1Run{}, fmt.Errorf("experiments: %s: %w", row.Key, err)
	}
	c := &chain.Chain{Kernel: smp}
	if err := advanceBy(ctx, c, int64(row.Steps/10), 64, prog); err != nil {
		return table1Run{}, fmt.Errorf("experiments: %s: %w", row.Key, err)
	}
	before := smp.Stats()
	start := time.Now()
	if err := advanceBy(ctx, c, int64(row.Steps), 64, prog); err != nil {
		return table1Run{}, fmt.Errorf("experiments: %s: %w", row.Key, err)
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
