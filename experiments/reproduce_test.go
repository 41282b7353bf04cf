package experiments

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
	"github.com/pgibbs/pgibbs/experiments/papers"
	"github.com/pgibbs/pgibbs/experiments/studies"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/potts"
	"github.com/pgibbs/pgibbs/spin"
)

// tinyExperiments replaces the papers' settings by small ones for the
// duration of a test.
func tinyExperiments(t *testing.T) {
	t.Helper()
	p, s, g, t1, r, c, cl, fs, sc, gl, de := pottsSettings, spinSettings, tgmSettings, table1Settings, rlrSettings, crossoverSettings, clustersSettings, fssSettings, scaleSettings, glassSettings, denseSettings
	t.Cleanup(func() {
		pottsSettings, spinSettings, tgmSettings, table1Settings, rlrSettings, crossoverSettings, clustersSettings, fssSettings, scaleSettings, glassSettings, denseSettings = p, s, g, t1, r, c, cl, fs, sc, gl, de
	})
	denseSettings = func(bool) studies.DenseSettings {
		s := studies.Dense(true)
		s.N, s.Models, s.RefSeconds, s.UAI.Seconds = 4, s.Models[:1], 0.1, 0.2
		return s
	}
	pottsSettings = func(quick bool) papers.PottsSettings {
		s := papers.PottsPaper(quick)
		s.Params = potts.Params{Width: 3, States: 3, Beta: 1, Gamma: 1.5}
		s.Iters = 2000
		for k := range s.Samplers {
			s.Samplers[k].Iters = min(s.Samplers[k].Iters, 200)
		}
		return s
	}
	spinSettings = func(quick bool) papers.SpinSettings {
		s := papers.SpinPaper(quick)
		s.Params = spin.Params{Width: 3, Beta: 1, Gamma: 1}
		s.Iters, s.Bins = 2000, 10
		for k := range s.Samplers {
			s.Samplers[k].Iters = min(s.Samplers[k].Iters, 500)
		}
		s.Truth.Iters, s.Truth.Burn = 5000, 10
		return s
	}
	tgmSettings = func(quick bool) papers.TGMSettings {
		s := papers.TGMPaper(quick)
		s.Config.N, s.Config.Beta = 500, 0.01
		s.Iters, s.Burn, s.NX, s.NY, s.DataBins = 50, 5, 8, 12, 50
		for k := range s.Samplers {
			s.Samplers[k].Options = gibbs.Options{Lambda: 20, M: 6, K: 8, MaxTries: 100}
		}
		return s
	}
	table1Settings = func(quick bool) papers.Table1Settings {
		s := papers.Table1Paper(quick)
		s.Config.N = 500
		for k := range s.Rows {
			s.Rows[k].Steps = 50
		}
		return s
	}
	rlrSettings = func(quick bool) papers.RLRSettings {
		s := papers.RLRPaper(quick)
		s.N, s.D, s.Budget, s.MaxDraws = 300, 2, 30*time.Millisecond, 100
		s.Rows = s.Rows[:2]
		s.Rows[0].Options = mh.Options{Step: 0.05}
		return s
	}
	crossoverSettings = tinyCrossover
	clustersSettings = tinyClusters
	fssSettings = tinyFSS
	scaleSettings = func(bool) studies.ScaleSettings {
		s := studies.ScalePaper(true)
		s.Widths, s.PGUpdates, s.GibbsUpdates, s.Reps = []int{4, 6}, 2000, 200, 1
		for k := range s.Shapes {
			s.Shapes[k].Pairs = []int{1000}
		}
		return s
	}
	glassSettings = func(bool) studies.GlassSettings {
		s := studies.GlassPaper(true)
		s.Sizes, s.Betas, s.Seconds, s.MaxBytes = []int{4}, []float64{2}, 0.1, 64
		return s
	}
}

// tinyCrossover, tinyClusters and tinyFSS are the studies' settings of
// their own tests (package studies), which run in a fraction of a second.
func tinyCrossover(bool) studies.CrossoverSettings {
	s := studies.CrossoverPaper(true)
	s.Gauss = potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5}
	s.GaussWidths = []int{5, 4}
	s.PowerSides = []int{4, 6, 8}
	s.PowerStates = 3
	s.Warm, s.Target, s.Reps = time.Millisecond, 2*time.Millisecond, 3
	return s
}

func tinyClusters(bool) studies.ClustersSettings {
	s := studies.ClustersPaper(true)
	s.Sizes = []int{4, 8}
	s.Tau = []studies.ClustersTauSampler{
		{Key: studies.ClustersGibbs, Sweeps: []int64{600, 600}},
		{Key: studies.ClustersPGibbs, Sweeps: []int64{0, 600}},
		{Key: studies.ClustersSW, Sweeps: []int64{600, 600}},
		{Key: studies.ClustersWolff, Sweeps: []int64{600, 600}},
	}
	s.Chains, s.Equilibrate, s.Burn, s.WolffTune = 2, 20, 0.1, 2
	s.CostSides = []int{6, 8}
	s.CostEquilibrate, s.CostWarm, s.CostReps, s.CostBudget = 2, time.Millisecond, 2, 10*time.Millisecond
	return s
}

func tinyFSS(bool) studies.FSSSettings {
	s := studies.FSSPaper(true)
	s.Models[0].Sizes, s.Models[0].Sweeps = []int{6, 8, 12}, []int64{1200, 1200, 1200}
	s.Models[1].Sizes, s.Models[1].Sweeps = []int{6, 8}, []int64{1200, 1200}
	s.Chains, s.Burn, s.CurvePoints = 2, 50, 9
	return s
}

// lineProgress is a Progress drawn on a terminal: Start and Add draw its
// line, Done erases it.
type lineProgress struct {
	exptest.Progress
	mu    sync.Mutex
	drawn bool
	dones int
}

func (p *lineProgress) Start(label string, total int64) {
	p.Progress.Start(label, total)
	p.set(true)
}

func (p *lineProgress) Add(n int64) {
	p.Progress.Add(n)
	p.set(true)
}

func (p *lineProgress) Done() {
	p.set(false)
	p.mu.Lock()
	p.dones++
	p.mu.Unlock()
}

func (p *lineProgress) set(drawn bool) {
	p.mu.Lock()
	p.drawn = drawn
	p.mu.Unlock()
}

// screen collects Reproduce's output and fails the test if it would print
// over the progress line.
type screen struct {
	t    *testing.T
	p    *lineProgress
	text strings.Builder
}

func (s *screen) Write(b []byte) (int, error) {
	s.p.mu.Lock()
	drawn := s.p.drawn
	s.p.mu.Unlock()
	if drawn {
		s.t.Errorf("%q printed over the progress line", b)
	}
	return s.text.Write(b)
}

// reproduce runs Reproduce with a lineProgress, checks the progress and
// the reported files, and returns the output and the files.
func reproduce(t *testing.T, name string, quick bool, dir string, cfg harness.Config) (string, []string) {
	t.Helper()
	p := &lineProgress{}
	cfg.Progress = p
	w := &screen{t: t, p: p}
	files, err := Reproduce(context.Background(), name, quick, dir, cfg, w)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, w.text.String())
	}
	out := w.text.String()
	if p.drawn || p.dones == 0 {
		t.Errorf("%s: progress line left drawn (%d calls of Done)", name, p.dones)
	}
	if p.Total() == 0 || p.Added() != p.Total() {
		t.Errorf("%s: progress %d of %d units", name, p.Added(), p.Total())
	}
	var reported []string
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "wrote "); ok {
			reported = append(reported, p)
		}
	}
	if !slices.Equal(reported, files) {
		t.Errorf("%s: reported %v, returned %v", name, reported, files)
	}
	for _, p := range files {
		if filepath.Dir(p) != dir {
			t.Errorf("%s: wrote %s outside %s", name, p, dir)
		}
		exptest.CheckFile(t, p)
	}
	return out, files
}

// figFiles names a figure's data and plots, after the summaries.
func figFiles(dir string, summaries []string, figs ...string) []string {
	var out []string
	for _, s := range summaries {
		out = append(out, filepath.Join(dir, s+".csv"))
	}
	for _, f := range figs {
		for _, ext := range []string{".csv", ".png", ".svg"} {
			out = append(out, filepath.Join(dir, f+ext))
		}
	}
	return out
}

// dirFiles lists dir's files but the cached ground truths.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "spin-truth_") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func TestReproduceAll(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "all", true, dir, harness.Config{Seed: 1, Runs: 2})
	if head := "pgibbs reproduce all (quick mode, seed 1, 2 runs a curve) → " + dir + "\n"; !strings.HasPrefix(out, head) {
		t.Errorf("output starts %q, want %q", out[:min(len(out), 200)], head)
	}
	var want []string
	want = append(want, figFiles(dir, []string{"fig1-potts-summary"}, "fig1a", "fig1b")...)
	want = append(want, figFiles(dir, []string{"fig1c-spin-summary"}, "fig1c", "fig2a", "fig2b", "fig2c")...)
	want = append(want, figFiles(dir, []string{"fig3-summary"}, "fig3")...)
	want = append(want, figFiles(dir, []string{"tunamh-table1", "tunamh-rlr"})...)
	if !slices.Equal(files, want) {
		t.Errorf("wrote\n%v\nwant\n%v", files, want)
	}
	slices.Sort(want)
	if got := dirFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
	// One Potts and one spin run serve every figure.
	if n := strings.Count(out, "Potts model ("); n != 1 {
		t.Errorf("%d Potts runs, want 1", n)
	}
	if n := strings.Count(out, "Continuous spin model ("); n != 1 {
		t.Errorf("%d spin runs, want 1", n)
	}
	for _, s := range []string{"computed and cached in " + filepath.Join(dir, "spin-truth_"), "| TunaMH χ=1e-4 |", "| Gibbs |", "| PGDA |",
		"quick mode: a tenth of the full steps per run", "DoubleMIN λ2=1e4·L²: only 200 updates a run", "\nRobust linear regression (N = 300"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	// The truth is reused by a later run with the same settings.
	out, files = reproduce(t, "fig1c", true, dir, harness.Config{Seed: 1, Runs: 2, Dir: dir})
	if !strings.Contains(out, "read from") {
		t.Errorf("second fig1c: truth not read from the cache:\n%s", out)
	}
	if want := figFiles(dir, []string{"fig1c-spin-summary"}, "fig1c"); !slices.Equal(files, want) {
		t.Errorf("fig1c wrote %v, want %v", files, want)
	}
}

func TestReproduceOne(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "fig1b", false, dir, harness.Config{Seed: 5, Runs: 1})
	if head := "pgibbs reproduce fig1b (full mode, seed 5, 1 runs a curve) → " + dir + "\n"; !strings.HasPrefix(out, head) {
		t.Errorf("output starts %q, want %q", out[:min(len(out), 200)], head)
	}
	// Only fig1b's samplers run.
	if strings.Contains(out, "DoubleMIN") || !strings.Contains(out, "Poisson-Gibbs λ=5L²") {
		t.Errorf("fig1b ran the wrong samplers:\n%s", out)
	}
	want := figFiles(dir, []string{"fig1-potts-summary"}, "fig1b")
	if !slices.Equal(files, want) {
		t.Errorf("wrote %v, want %v", files, want)
	}
	if got := dirFiles(t, dir); len(got) != len(want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
}

// TestReproduceFig2 checks that fig2 runs every Potts sampler once for
// fig2a and fig2b, and the spin model for fig2c.
func TestReproduceFig2(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "fig2", true, dir, harness.Config{Seed: 2, Runs: 1})
	want := figFiles(dir, []string{"fig1-potts-summary"}, "fig2a", "fig2b")
	want = append(want, figFiles(dir, []string{"fig1c-spin-summary"}, "fig2c")...)
	if !slices.Equal(files, want) {
		t.Errorf("wrote %v, want %v", files, want)
	}
	if n := strings.Count(out, "Potts model ("); n != 1 || !strings.Contains(out, "DoubleMIN λ2=L²") || !strings.Contains(out, "Poisson-Gibbs λ=0.1L²") {
		t.Errorf("%d Potts runs, not of every sampler:\n%s", n, out)
	}
}

func TestReproduceCrossover(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "crossover", true, dir, harness.Config{Seed: 1})
	for _, s := range []string{"\nCrossover: ns per single-site update", "median of 3 repetitions", "| Δ |"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if len(files) == 0 || files[0] != filepath.Join(dir, "crossover.csv") {
		t.Errorf("wrote %v", files)
	}
	if got := dirFiles(t, dir); len(got) != len(files) {
		t.Errorf("directory holds %v, reported %v", got, files)
	}
}

// TestReproduceFSS runs the finite-size-scaling study with tiny settings
// through Reproduce: its notes, tables and files.
func TestReproduceFSS(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "fss", true, dir, harness.Config{Seed: 1})
	for _, s := range []string{"\nFinite-size scaling of 2-D Ising models", "nn (nn): sides [6 8 12]", "shared by 2 chains",
		"| model | L | stage β₀ (window) |", "| model | L₁ × L₂ |", "γ/ν"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if len(files) != 8 || files[0] != filepath.Join(dir, "fss.csv") {
		t.Errorf("wrote %v", files)
	}
	if got := dirFiles(t, dir); len(got) != len(files) {
		t.Errorf("directory holds %v, reported %v", got, files)
	}
}

// TestReproduceScale runs the scale study with tiny settings through
// Reproduce: its notes, its table and its files. (TestScale in package
// studies checks the figures against the graphs themselves.)
func TestReproduceScale(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "scale", true, dir, harness.Config{Seed: 1})
	for _, s := range []string{"\nScale: the Gaussian-kernel Potts model", "| shape | variables | pair factors |", "| lattice 6² | 36 | 630 |", "| sparse deg 20 | 100 | 1000 |", "| bipartite |"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if len(files) != 3 || files[0] != filepath.Join(dir, "scale.csv") {
		t.Errorf("wrote %v", files)
	}
}

func TestReproduceClusters(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "clusters", true, dir, harness.Config{Seed: 1})
	for _, s := range []string{"\nCluster samplers against single-site updates", "| sampler | L |", "| kernel | β |", "τ study"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if len(files) != 6 || files[0] != filepath.Join(dir, "clusters-tau.csv") {
		t.Errorf("wrote %v", files)
	}
	if got := dirFiles(t, dir); len(got) != len(files) {
		t.Errorf("directory holds %v, reported %v", got, files)
	}
}

// TestReproduceGlass runs the glass study with tiny settings through
// Reproduce: its notes, its table and its files.
func TestReproduceGlass(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "glass", true, dir, harness.Config{Seed: 1})
	for _, s := range []string{"\n2-D ±J Edwards–Anderson glasses", "| L | β | sampler |", "| 4 | 2 | exchange + Houdayer |"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if len(files) != 3 || files[0] != filepath.Join(dir, "glass.csv") {
		t.Errorf("wrote %v", files)
	}
	if got := dirFiles(t, dir); len(got) != len(files) {
		t.Errorf("directory holds %v, reported %v", got, files)
	}
}

func TestReproduceErrors(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	var out strings.Builder
	for _, tc := range []struct{ name, dir string }{
		{"fig9", dir},
		{"", dir},
		{"fig1a", filepath.Join(dir, "missing")},
	} {
		files, err := Reproduce(context.Background(), tc.name, true, tc.dir, harness.Config{}, &out)
		if err == nil || files != nil {
			t.Errorf("%q into %s: files %v, error %v", tc.name, tc.dir, files, err)
		}
	}
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Reproduce(context.Background(), "fig1a", true, f, harness.Config{}, &out); err == nil {
		t.Error("a file as the directory: no error")
	}
	if out.Len() != 0 {
		t.Errorf("invalid calls printed %q", out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &lineProgress{}
	files, err := Reproduce(ctx, "fig3", true, dir, harness.Config{Progress: p}, nil)
	if !errors.Is(err, context.Canceled) || len(files) != 0 || p.drawn || len(p.Phases()) == 0 {
		t.Errorf("canceled: files %v, error %v, progress phases %v, line left drawn: %v", files, err, p.Phases(), p.drawn)
	}
}

func TestFigures(t *testing.T) {
	names := Figures()
	if len(names) == 0 || names[len(names)-1] != "all" {
		t.Fatalf("Figures() = %v, want all last", names)
	}
	names[0] = "changed"
	if Figures()[0] == "changed" {
		t.Error("Figures returns its own slice")
	}
	r := &reproducer{}
	for _, name := range Figures() {
		if len(r.steps(name)) == 0 {
			t.Errorf("%s: nothing to run", name)
		}
	}
	// "all" is every figure and table of the papers, each once; crossover,
	// clusters, uai, uai-hard, dense, fss, scale and glass are studies
	// (timing, physics, the default answer, finite-size scaling, memory,
	// replica exchange) and not part of it.
	if n := len(r.steps("all")); n != len(names)-9 {
		t.Errorf("all runs %d steps, want %d", n, len(names)-9)
	}
}
