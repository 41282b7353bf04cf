package experiments

import (
	"context"
	"encoding/csv"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/models/potts"
	"github.com/pgibbs/pgibbs/models/spin"
)

// tinyExperiments replaces the papers' settings by small ones for the
// duration of a test.
func tinyExperiments(t *testing.T) {
	t.Helper()
	p, s, g, t1, r, c, cl, fs, sc := pottsSettings, spinSettings, tgmSettings, table1Settings, rlrSettings, crossoverSettings, clustersSettings, fssSettings, scaleSettings
	t.Cleanup(func() {
		pottsSettings, spinSettings, tgmSettings, table1Settings, rlrSettings, crossoverSettings, clustersSettings, fssSettings, scaleSettings = p, s, g, t1, r, c, cl, fs, sc
	})
	pottsSettings = func(quick bool) PottsSettings {
		s := PottsPaper(quick)
		s.Params = potts.Params{Width: 3, States: 3, Beta: 1, Gamma: 1.5}
		s.Iters = 2000
		for k := range s.Samplers {
			s.Samplers[k].Iters = min(s.Samplers[k].Iters, 200)
		}
		return s
	}
	spinSettings = func(quick bool) SpinSettings {
		s := SpinPaper(quick)
		s.Params = spin.Params{Width: 3, Beta: 1, Gamma: 1}
		s.Iters, s.Bins = 2000, 10
		for k := range s.Samplers {
			s.Samplers[k].Iters = min(s.Samplers[k].Iters, 500)
		}
		s.Truth.Iters, s.Truth.Burn = 5000, 10
		return s
	}
	tgmSettings = func(quick bool) TGMSettings {
		s := TGMPaper(quick)
		s.Config.N, s.Config.Beta = 500, 0.01
		s.Iters, s.Burn, s.NX, s.NY, s.DataBins = 50, 5, 8, 12, 50
		for k := range s.Samplers {
			s.Samplers[k].Options = gibbs.Options{Lambda: 20, M: 6, K: 8, MaxTries: 100}
		}
		return s
	}
	table1Settings = func(quick bool) Table1Settings {
		s := Table1Paper(quick)
		s.Config.N = 500
		for k := range s.Rows {
			s.Rows[k].Steps = 50
		}
		return s
	}
	rlrSettings = func(quick bool) RLRSettings {
		s := RLRPaper(quick)
		s.N, s.D, s.Budget, s.MaxDraws = 300, 2, 30*time.Millisecond, 100
		s.Rows = s.Rows[:2]
		s.Rows[0].Options = mh.Options{Step: 0.05}
		return s
	}
	crossoverSettings = func(bool) CrossoverSettings { return tinyCrossover() }
	clustersSettings = func(bool) ClustersSettings { return tinyClusters() }
	fssSettings = func(bool) FSSSettings { return tinyFSS() }
	scaleSettings = func(bool) ScaleSettings {
		s := ScalePaper(true)
		s.Widths, s.PGUpdates, s.GibbsUpdates, s.Reps = []int{4, 6}, 2000, 200, 1
		return s
	}
}

// lineProgress is a Progress drawn on a terminal: Start and Add draw its
// line, Done erases it.
type lineProgress struct {
	countingProgress
	mu    sync.Mutex
	drawn bool
	dones int
}

func (p *lineProgress) Start(label string, total int64) {
	p.countingProgress.Start(label, total)
	p.set(true)
}

func (p *lineProgress) Add(n int64) {
	p.countingProgress.Add(n)
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
func reproduce(t *testing.T, name string, quick bool, dir string, cfg Config) (string, []string) {
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
	if p.total == 0 || p.done.Load() != p.total {
		t.Errorf("%s: progress %d of %d units", name, p.done.Load(), p.total)
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
		checkFile(t, p)
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
	out, files := reproduce(t, "all", true, dir, Config{Seed: 1, Runs: 2})
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
	out, files = reproduce(t, "fig1c", true, dir, Config{Seed: 1, Runs: 2, Dir: dir})
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
	out, files := reproduce(t, "fig1b", false, dir, Config{Seed: 5, Runs: 1})
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
	out, files := reproduce(t, "fig2", true, dir, Config{Seed: 2, Runs: 1})
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
	out, files := reproduce(t, "crossover", true, dir, Config{Seed: 1})
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
	out, files := reproduce(t, "fss", true, dir, Config{Seed: 1})
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
// Reproduce, and checks its figures against the graphs themselves and a
// width over the memory budget skipped.
func TestReproduceScale(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	out, files := reproduce(t, "scale", true, dir, Config{Seed: 1})
	for _, s := range []string{"\nScale: the Gaussian-kernel Potts model", "| width | pair factors |", "| 6 | 630 |"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if len(files) != 3 || files[0] != filepath.Join(dir, "scale.csv") {
		t.Errorf("wrote %v", files)
	}
	s := ScalePaper(true)
	s.Widths, s.PGUpdates, s.GibbsUpdates, s.Reps, s.MaxBytes = []int{5, 60}, 1000, 100, 1, 1e6
	res, err := Scale(context.Background(), s, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 || !slices.Equal(res.Skipped, []int{60}) {
		t.Fatalf("points %+v, skipped %v: want width 5 measured, 60 skipped", res.Points, res.Skipped)
	}
	p5 := potts.Paper()
	p5.Width = 5
	g, err := potts.New(p5)
	if err != nil {
		t.Fatal(err)
	}
	pt := res.Points[0]
	if pt.Pairs != g.NumFactors() || pt.GraphBytes != float64(g.Bytes()) || !(pt.HeapBytes >= pt.GraphBytes) || !(pt.PGNs > 0) || !(pt.GibbsNs > 0) {
		t.Errorf("width 5: %+v; the graph has %d pairs and %d bytes", pt, g.NumFactors(), g.Bytes())
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
		files, err := Reproduce(context.Background(), tc.name, true, tc.dir, Config{}, &out)
		if err == nil || files != nil {
			t.Errorf("%q into %s: files %v, error %v", tc.name, tc.dir, files, err)
		}
	}
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Reproduce(context.Background(), "fig1a", true, f, Config{}, &out); err == nil {
		t.Error("a file as the directory: no error")
	}
	if out.Len() != 0 {
		t.Errorf("invalid calls printed %q", out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &lineProgress{}
	files, err := Reproduce(ctx, "fig3", true, dir, Config{Progress: p}, nil)
	if !errors.Is(err, context.Canceled) || len(files) != 0 || p.drawn || len(p.phases) == 0 {
		t.Errorf("canceled: files %v, error %v, progress phases %v, line left drawn: %v", files, err, p.phases, p.drawn)
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
	// clusters, uai, fss and scale are studies (timing, physics, the
	// default answer, finite-size scaling, memory) and not part of it.
	if n := len(r.steps("all")); n != len(names)-6 {
		t.Errorf("all runs %d steps, want %d", n, len(names)-6)
	}
}

// checkFile checks that a CSV has a header and rows, a PNG decodes and is
// small, an SVG is one.
func checkFile(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	switch filepath.Ext(p) {
	case ".csv":
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Errorf("%s: %d records, %v", p, len(recs), err)
		}
	case ".png":
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if st, _ := f.Stat(); st.Size() > 200<<10 {
			t.Errorf("%s: %d bytes", p, st.Size())
		}
	case ".svg":
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), "<svg") {
			t.Errorf("%s is not an SVG", p)
		}
	default:
		t.Errorf("unexpected file %s", p)
	}
}

// TestUAIScores: the UAI study scores a model it answers exactly at 100,
// runs the sampled path within its budget, and writes its table.
func TestUAIScores(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "uai")
	if _, err := os.Stat(filepath.Join(dir, "Grids_12.uai")); err != nil {
		t.Skip("the shared UAI models are not here")
	}
	res, err := UAIScores(context.Background(), UAISettings{Dir: dir, Models: []string{"Grids_12", "Promedus_13"}, Seconds: 1, Seed: 1}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Rows {
		if row.Method != "exact" || row.Score < 99.99 || row.Seconds > 1.5 {
			t.Errorf("%+v, want an exact answer scoring 100 within the second", row)
		}
	}
	if md := res.Markdown(); !strings.Contains(md, "| Grids_12 | ") || !strings.Contains(md, "ibia-mar") {
		t.Errorf("table:\n%s", md)
	}
	p, err := res.WriteCSV(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, p)
}
