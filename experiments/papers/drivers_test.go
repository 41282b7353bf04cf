package papers

import (
	"context"
	"encoding/csv"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/potts"
	"github.com/pgibbs/pgibbs/spin"
	"github.com/pgibbs/pgibbs/tgm"
)

func TestLogCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		first, last int64
		per         int
	}{{10, 1_000_000, 10}, {10, 10, 10}, {10, 7, 10}, {1, 1000, 3}, {10, 123457, 10}} {
		c := logCheckpoints(tc.first, tc.last, tc.per)
		if len(c) == 0 || c[len(c)-1] != tc.last || c[0] != min(tc.first, tc.last) {
			t.Errorf("%v: checkpoints %v", tc, c)
		}
		for k := 1; k < len(c); k++ {
			if c[k] <= c[k-1] {
				t.Errorf("%v: not increasing at %d: %v", tc, k, c)
			}
		}
		if tc.first == 10 && tc.last == 1_000_000 && len(c) != 51 {
			t.Errorf("10 to 10⁶ at 10 a decade: %d checkpoints, want 51", len(c))
		}
	}
}

// checkCurve asserts a well-formed series: increasing iterations, non-
// decreasing finite seconds, finite values.
func checkCurve(t *testing.T, c Curve) {
	t.Helper()
	if len(c.Iters) == 0 || len(c.Seconds) != len(c.Iters) || len(c.Value) != len(c.Iters) {
		t.Fatalf("%s: %d iterations, %d seconds, %d values", c.Key, len(c.Iters), len(c.Seconds), len(c.Value))
	}
	for k := range c.Iters {
		if k > 0 && (c.Iters[k] <= c.Iters[k-1] || c.Seconds[k] < c.Seconds[k-1]) {
			t.Errorf("%s: checkpoint %d not increasing: %v after %v", c.Key, k, c.Iters[k], c.Iters[k-1])
		}
		if math.IsNaN(c.Value[k]) || math.IsInf(c.Value[k], 0) || c.Value[k] < 0 || math.IsNaN(c.Seconds[k]) {
			t.Errorf("%s: checkpoint %d: value %v, seconds %v", c.Key, k, c.Value[k], c.Seconds[k])
		}
	}
}

func tinyPotts() PottsSettings {
	return PottsSettings{
		Params: potts.Params{Width: 3, States: 3, Beta: 1, Gamma: 1.5},
		Iters:  30_000,
		Samplers: []Sampler{
			{Key: "gibbs", Label: "Gibbs", Name: "gibbs"},
			{Key: "pgibbs", Label: "Poisson-Gibbs", Name: "pgibbs"},
			{Key: "doublemin", Label: "DoubleMIN", Name: "doublemin", Options: gibbs.Options{Lambda2Scale: 1}, Iters: 3000},
		},
	}
}

// TestPotts: the Fig. 1 metric of exact samplers falls from its starting
// value √(1 − 1/D) towards 0 on a small model whose exact marginals are
// uniform; runs are reproducible; progress adds up.
func TestPotts(t *testing.T) {
	s := tinyPotts()
	prog := &exptest.Progress{}
	cfg := harness.Config{Seed: 7, Runs: 2, Workers: 2, Progress: prog}
	r, err := Potts(context.Background(), s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() || prog.Total() != 2*(30_000+30_000+3000) {
		t.Errorf("progress: %d of %d added, want %d", prog.Added(), prog.Total(), 2*63_000)
	}
	if len(r.Curves) != 3 {
		t.Fatalf("%d curves", len(r.Curves))
	}
	start := math.Sqrt(1 - 1.0/3)
	for _, c := range r.Curves {
		checkCurve(t, c)
		if c.Runs != 2 || c.Stats.Steps != 2*int64(itersOf(c.Sampler, s.Iters)) {
			t.Errorf("%s: %d runs, %d steps", c.Key, c.Runs, c.Stats.Steps)
		}
		if c.Value[0] > start+1e-12 || c.Value[0] < 0.5*start {
			t.Errorf("%s: error %v after 10 updates, want near √(1−1/D) = %v", c.Key, c.Value[0], start)
		}
	}
	for _, c := range r.Select("gibbs", "pgibbs") {
		if last := c.Value[len(c.Value)-1]; last > 0.06 {
			t.Errorf("%s: error %v after %v updates, want < 0.06", c.Key, last, c.Iters[len(c.Iters)-1])
		}
	}
	again, err := Potts(context.Background(), s, harness.Config{Seed: 7, Runs: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range again.Curves {
		if !slices.Equal(c.Value, r.Curves[k].Value) || !slices.Equal(c.Iters, r.Curves[k].Iters) {
			t.Errorf("%s: same seed, different errors", c.Key)
		}
	}
	other, err := Potts(context.Background(), s.Only("gibbs"), harness.Config{Seed: 8, Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other.Curves[0].Value, r.Curves[0].Value) {
		t.Error("different seeds gave the same errors")
	}
}

// TestMarginalErrorCatchesWrongTarget: the metric that falls to 0 against
// the right marginals stays away from 0 when the chain targets something
// else (here: compared with marginals the model does not have).
func TestMarginalErrorCatchesWrongTarget(t *testing.T) {
	s := tinyPotts()
	g, err := potts.New(s.Params)
	if err != nil {
		t.Fatal(err)
	}
	right := make([][]float64, g.NumVars())
	wrong := make([][]float64, g.NumVars())
	for i := range right {
		right[i] = []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
		wrong[i] = []float64{0.45, 0.3, 0.25}
	}
	final := func(exact [][]float64) float64 {
		run := &metricRun{model: g, spec: Sampler{Key: "gibbs", Name: "gibbs"}, iters: 30_000, first: 10, perDec: 5,
			observe: marginalError(g, exact)}
		tr, err := run.run(context.Background(), 3, &exptest.Progress{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.values[len(tr.values)-1]
	}
	if e := final(right); e > 0.06 {
		t.Errorf("error to the exact marginals %v, want < 0.06", e)
	}
	if e := final(wrong); e < 0.1 {
		t.Errorf("error to wrong marginals %v, want ≥ 0.1 (the metric would not catch a wrong sampler)", e)
	}
}

func tinySpin() SpinSettings {
	return SpinSettings{
		Params: spin.Params{Width: 3, Beta: 1, Gamma: 1},
		Bins:   10, Eps: 1e-10, Iters: 4000,
		Samplers: []Sampler{
			{Key: "pgda", Label: "PGDA", Name: "pgda"},
			{Key: "gibbs-rejection", Label: "Gibbs-rejection", Name: "gibbs-rejection", Iters: 1000},
		},
		Truth: TruthSettings{Sampler: "gibbs-its", Chains: 2, Iters: 30_000, Burn: 100},
	}
}

// TestSpin: KL curves are well formed and fall; the truth is cached and
// reused; a corrupted cache is an error, not a silent wrong truth.
func TestSpin(t *testing.T) {
	dir := t.TempDir()
	s := tinySpin()
	prog := &exptest.Progress{}
	r, err := Spin(context.Background(), s, harness.Config{Seed: 3, Runs: 2, Dir: dir, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() {
		t.Errorf("progress: %d of %d added", prog.Added(), prog.Total())
	}
	if r.TruthCached || r.TruthFile == "" {
		t.Fatalf("first run: cached %v, file %q", r.TruthCached, r.TruthFile)
	}
	sum := 0.0
	for _, p := range r.Truth {
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 || !(r.TruthSelfKL >= 0) || r.TruthSelfKL > 0.05 {
		t.Errorf("truth sums to %v, self-KL %v", sum, r.TruthSelfKL)
	}
	for _, c := range r.Curves {
		checkCurve(t, c)
		if first, last := c.Value[0], c.Value[len(c.Value)-1]; !(last < first/4) {
			t.Errorf("%s: KL %v after %v updates, %v at first: not falling", c.Key, last, c.Iters[len(c.Iters)-1], first)
		}
	}
	if c := r.Select("gibbs-rejection"); len(c) != 1 || c[0].Stats.Tries <= c[0].Stats.Steps {
		t.Errorf("rejection curve: %+v", c)
	}
	again, err := Spin(context.Background(), s, harness.Config{Seed: 3, Runs: 2, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !again.TruthCached || !slices.Equal(again.Truth, r.Truth) || again.TruthSelfKL != r.TruthSelfKL {
		t.Errorf("second run: cached %v, truth equal %v", again.TruthCached, slices.Equal(again.Truth, r.Truth))
	}
	for k := range again.Curves {
		if !slices.Equal(again.Curves[k].Value, r.Curves[k].Value) {
			t.Errorf("%s: same seed, different KL", again.Curves[k].Key)
		}
	}
	// Another seed is another truth file.
	if s.truthName(3) == s.truthName(4) {
		t.Error("truth file name ignores the seed")
	}
	if err := os.WriteFile(r.TruthFile, []byte("bin,half_a,half_b\n0,0.5,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Spin(context.Background(), s, harness.Config{Seed: 3, Runs: 1, Dir: dir}); err == nil {
		t.Error("corrupted truth cache accepted")
	}
}

func TestTGM(t *testing.T) {
	cfg := tgm.GibbsConfig()
	cfg.N, cfg.Beta = 2000, 0.005
	opts := gibbs.Options{Lambda: 50, M: 8, K: 10}
	rej := opts
	rej.MaxTries = 50
	s := TGMSettings{Config: cfg, DataSeed: 1, Iters: 400, Burn: 20,
		X0: -6, X1: 6, Y0: -6, Y1: 6, NX: 12, NY: 16, Sub: 2, DataBins: 100,
		Samplers: []Sampler{
			{Key: "pgda", Label: "PGDA", Name: "pgda", Options: opts},
			{Key: "pg-rejection", Label: "PG-rejection", Name: "pg-rejection", Options: rej},
		}}
	prog := &exptest.Progress{}
	r, err := TGM(context.Background(), s, harness.Config{Seed: 1, Runs: 2, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() {
		t.Errorf("progress: %d of %d added", prog.Added(), prog.Total())
	}
	sum := r.TruthOutside
	for _, p := range r.Truth.P {
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 || r.TruthOutside != 0 {
		t.Errorf("truth mass %v, outside %v (the window is the box)", sum, r.TruthOutside)
	}
	pg := r.Estimates[0]
	if pg.Samples != 800 || !(pg.TV >= 0 && pg.TV < 0.5) || pg.Err != "" {
		t.Errorf("PGDA: %d samples, TV %v, err %q", pg.Samples, pg.TV, pg.Err)
	}
	if !(r.RejectionLog10Tries > 0) || math.IsInf(r.RejectionLog10Tries, 0) {
		t.Errorf("log10 tries %v", r.RejectionLog10Tries)
	}
	// A rejection sampler that runs out of tries is reported, not fatal.
	if rj := r.Estimates[1]; rj.Err == "" && rj.Samples != 800 {
		t.Errorf("PG-rejection: %d samples without error", rj.Samples)
	}
	dir := t.TempDir()
	paths, err := r.WriteFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, paths, 12*16, 2+1+2)
	p, err := r.WriteSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, []string{p}, 2, 9)
	if md := r.Markdown(); !strings.Contains(md, "| PGDA |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestBinnedLogLik: the binned Σ_i ℓ_i is within its stated bound of the
// exact sum, and the bound is not vacuous; a coarser binning is further off.
func TestBinnedLogLik(t *testing.T) {
	cfg := tgm.GibbsConfig()
	cfg.N = 5000
	m, err := tgm.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	exact := func(x1, x2 float64) float64 {
		v := m.LogPrior(x1, x2)
		for i := range m.N() {
			v += m.LogLik(i, x1, x2)
		}
		return v
	}
	fine, err := newBinnedLogLik(m, 1000)
	if err != nil {
		t.Fatal(err)
	}
	coarse, err := newBinnedLogLik(m, 10)
	if err != nil {
		t.Fatal(err)
	}
	worstFine, worstCoarse := 0.0, 0.0
	for _, p := range [][2]float64{{0, 1}, {1, -1}, {-5, 5.9}, {6, -6}, {0.3, 0.2}, {-6, 0}} {
		e := exact(p[0], p[1])
		worstFine = max(worstFine, math.Abs(fine.logDensity(p[0], p[1])-e))
		worstCoarse = max(worstCoarse, math.Abs(coarse.logDensity(p[0], p[1])-e))
	}
	if worstFine > fine.errBnd {
		t.Errorf("1000 bins: error %v above the bound %v", worstFine, fine.errBnd)
	}
	if worstCoarse > coarse.errBnd {
		t.Errorf("10 bins: error %v above the bound %v", worstCoarse, coarse.errBnd)
	}
	if !(worstCoarse > 10*worstFine) || fine.errBnd > 1e-4 {
		t.Errorf("errors %v (10 bins) vs %v (1000 bins), bound %v", worstCoarse, worstFine, fine.errBnd)
	}
}

func TestTable1(t *testing.T) {
	cfg := tgm.MHConfig()
	cfg.N = 2000
	s := Table1Settings{Config: cfg, Init: []float64{0, 1}, Rows: []MHRow{
		{Key: "tunamh", Label: "TunaMH", Name: "tunamh", Options: mh.Options{Step: 0.1, Chi: 1e-4}, Steps: 500},
		{Key: "poissonmh", Label: "PoissonMH", Name: "poissonmh", Options: mh.Options{Step: 0.1, Lambda: 50}, Steps: 500},
	}}
	prog := &exptest.Progress{}
	r, err := TunaMHTable1(context.Background(), s, harness.Config{Seed: 1, Runs: 3, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() {
		t.Errorf("progress: %d of %d added", prog.Added(), prog.Total())
	}
	for _, row := range r.Rows {
		if len(row.Batch) != 3 || !(row.MeanBatch > 0) || !(row.SE >= 0) || !(row.Accept > 0 && row.Accept < 1) {
			t.Errorf("%s: %+v", row.Key, row)
		}
	}
	// Poisson-MH's batch is Poisson(λ + L) whatever the state (mh/RESULTS.md).
	if pm := r.Rows[1]; math.Abs(pm.MeanBatch-(50+r.L)) > 5*math.Sqrt((50+r.L)/500) {
		t.Errorf("Poisson-MH batch %v, want λ + L = %v", pm.MeanBatch, 50+r.L)
	}
	tab := r.table()
	if len(tab.Rows) != 2 || !strings.Contains(r.Markdown(), "| TunaMH |") {
		t.Errorf("table:\n%s", r.Markdown())
	}
	p, err := r.WriteSummary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, []string{p}, 2, len(tab.Header))
}

func TestRLR(t *testing.T) {
	s := RLRSettings{N: 500, D: 2, Nu: 4, Budget: 150 * time.Millisecond, MaxDraws: 200, Rows: []RLRRow{
		{MHRow: MHRow{Key: "mh", Label: "MH", Name: "mh", Options: mh.Options{Step: 0.02}}, Thin: 1},
		{MHRow: MHRow{Key: "mhss2", Label: "MH-SS-2", Name: "mhss2"}, Precondition: 1.5, Thin: 3},
	}}
	r, err := RLR(context.Background(), s, harness.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		if row.Steps < 100 || !(row.ESSMin > 0) || row.ESSMin > row.ESSMean || !(row.ESSPerSec > 0) || !(row.Seconds >= 0.15) {
			t.Errorf("%s: %+v", row.Key, row)
		}
	}
	// MH-SS-2 mixes in a few steps and runs 10⁵ steps in 150 ms: thinned
	// to 200 draws its ESS is capped by them, and the row must say so.
	if r.Rows[1].Note == "" {
		t.Errorf("MH-SS-2: ESS %v of at most 200 kept draws not flagged", r.Rows[1].ESSMin)
	}
}

// TestValidation: impossible settings are errors naming the problem.
func TestValidation(t *testing.T) {
	ctx := context.Background()
	cfg := harness.Config{Runs: 1}
	p := tinyPotts()
	badInit := p
	badInit.Init = 5
	dup := p
	dup.Samplers = []Sampler{p.Samplers[0], p.Samplers[0]}
	unknown := p
	unknown.Samplers = []Sampler{{Key: "x", Name: "metropolis"}}
	zero := p
	zero.Iters = 0
	for name, s := range map[string]PottsSettings{"init": badInit, "duplicate key": dup, "unknown": unknown, "zero iters": zero, "no samplers": p.Only()} {
		if _, err := Potts(ctx, s, cfg); err == nil || !strings.HasPrefix(err.Error(), "experiments: ") {
			t.Errorf("%s: err %v", name, err)
		}
	}
	sp := tinySpin()
	sp.Bins = 0
	if _, err := Spin(ctx, sp, cfg); err == nil {
		t.Error("spin with 0 bins accepted")
	}
	sp = tinySpin()
	sp.Truth.Chains = 1
	if _, err := Spin(ctx, sp, cfg); err == nil {
		t.Error("spin truth with one chain accepted")
	}
	tg := TGMPaper(true)
	tg.X1 = 7
	if _, err := TGM(ctx, tg, cfg); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("window outside the box: %v", err)
	}
	if _, err := TunaMHTable1(ctx, Table1Settings{Rows: []MHRow{{Key: "x", Name: "nope", Steps: 1}}}, cfg); err == nil {
		t.Error("unknown MH sampler accepted")
	}
	if _, err := RLR(ctx, RLRSettings{Budget: 0}, cfg); err == nil {
		t.Error("RLR without budget accepted")
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := Potts(ctx, PottsPaper(false).Only(KeyGibbs), harness.Config{Runs: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("cancelled run took %v", time.Since(start))
	}
}

func TestWriteCurves(t *testing.T) {
	r, err := Potts(context.Background(), tinyPotts(), harness.Config{Seed: 1, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, axis := range []axis{byIters, bySeconds} {
		paths, err := writeCurves(dir, "curves", curvePlot{title: "t", ylabel: "err", axis: axis, logY: true, curves: r.Curves})
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, c := range r.Curves {
			rows += len(c.Iters)
		}
		checkFiles(t, paths, rows, 5)
	}
	tab := curveTable(r.Curves)
	p, err := r.WriteSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, []string{p}, len(r.Curves), len(tab.Header))
	if filepath.Base(p) != "fig1-potts-summary.csv" || !strings.Contains(r.Markdown(), "| Poisson-Gibbs |") {
		t.Errorf("summary %s, markdown:\n%s", p, r.Markdown())
	}
	// A figure draws the curves of its keys that were run.
	paths, err := r.WriteFigure(dir, "fig1b")
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, paths, len(r.Select(Fig1bKeys...)[0].Iters), 5)
	if _, err := r.WriteFigure(dir, "fig1c"); err == nil {
		t.Error("a Potts run drew fig1c")
	}
}

// checkFiles checks that each path exists and parses: a CSV with a header
// and rows×cols fields, a PNG that decodes (and is under 200 KB), an SVG.
func checkFiles(t *testing.T, paths []string, rows, cols int) {
	t.Helper()
	exts := map[string]bool{}
	for _, p := range paths {
		exts[filepath.Ext(p)] = true
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		switch filepath.Ext(p) {
		case ".csv":
			recs, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if len(recs) != rows+1 || len(recs[0]) != cols {
				t.Errorf("%s: %d records of %d fields, want %d of %d", p, len(recs), len(recs[0]), rows+1, cols)
			}
		case ".png":
			if _, err := png.Decode(f); err != nil {
				t.Errorf("%s: %v", p, err)
			}
			if st, _ := f.Stat(); st.Size() > 200<<10 {
				t.Errorf("%s: %d bytes", p, st.Size())
			}
		case ".svg":
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), "<svg") {
				t.Errorf("%s: not an SVG (%v)", p, err)
			}
		default:
			t.Errorf("unexpected file %s", p)
		}
	}
	if len(paths) > 1 && !(exts[".png"] && exts[".svg"] && exts[".csv"]) {
		t.Errorf("files %v: want CSV, PNG and SVG", paths)
	}
}
