package main

import (
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/bench"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/potts"
	"github.com/pgibbs/pgibbs/spin"
)

// tinyExperiments replaces the papers' settings by small ones for the
// duration of a test.
func tinyExperiments(t *testing.T) {
	t.Helper()
	saved := []any{pottsSettings, spinSettings, tgmSettings, table1Settings, rlrSettings}
	t.Cleanup(func() {
		pottsSettings = saved[0].(func(bool) bench.PottsSettings)
		spinSettings = saved[1].(func(bool) bench.SpinSettings)
		tgmSettings = saved[2].(func(bool) bench.TGMSettings)
		table1Settings = saved[3].(func(bool) bench.Table1Settings)
		rlrSettings = saved[4].(func(bool) bench.RLRSettings)
	})
	pottsSettings = func(quick bool) bench.PottsSettings {
		s := bench.PottsPaper(quick)
		s.Params = potts.Params{Width: 3, States: 3, Beta: 1, Gamma: 1.5}
		s.Iters = 2000
		for k := range s.Samplers {
			s.Samplers[k].Iters = min(s.Samplers[k].Iters, 200)
		}
		return s
	}
	spinSettings = func(quick bool) bench.SpinSettings {
		s := bench.SpinPaper(quick)
		s.Params = spin.Params{Width: 3, Beta: 1, Gamma: 1}
		s.Iters, s.Bins = 2000, 10
		for k := range s.Samplers {
			s.Samplers[k].Iters = min(s.Samplers[k].Iters, 500)
		}
		s.Truth.Iters, s.Truth.Burn = 5000, 10
		return s
	}
	tgmSettings = func(quick bool) bench.TGMSettings {
		s := bench.TGMPaper(quick)
		s.Config.N, s.Config.Beta = 500, 0.01
		s.Iters, s.Burn, s.NX, s.NY, s.DataBins = 50, 5, 8, 12, 50
		for k := range s.Samplers {
			s.Samplers[k].Options = gibbs.Options{Lambda: 20, M: 6, K: 8, MaxTries: 100}
		}
		return s
	}
	table1Settings = func(quick bool) bench.Table1Settings {
		s := bench.Table1Paper(quick)
		s.Config.N = 500
		for k := range s.Rows {
			s.Rows[k].Steps = 50
		}
		return s
	}
	rlrSettings = func(quick bool) bench.RLRSettings {
		s := bench.RLRPaper(quick)
		s.N, s.D, s.Budget, s.MaxDraws = 300, 2, 30*time.Millisecond, 100
		s.Rows = s.Rows[:2]
		s.Rows[0].Options = mh.Options{Step: 0.05}
		return s
	}
}

func TestReproduceAll(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "reproduce", "all", "-quick", "-out", dir, "-runs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	if stderr != "" {
		t.Errorf("stderr is not a terminal, yet: %q", stderr)
	}
	want := []string{"fig1a", "fig1b", "fig1c", "fig2a", "fig2b", "fig2c", "fig3"}
	for _, name := range want {
		for _, ext := range []string{".csv", ".png", ".svg"} {
			p := filepath.Join(dir, name+ext)
			if !strings.Contains(out, "wrote "+p+"\n") {
				t.Errorf("%s not reported", p)
			}
			checkFile(t, p)
		}
	}
	for _, name := range []string{"fig1-potts-summary", "fig1c-spin-summary", "fig3-summary", "tunamh-table1", "tunamh-rlr"} {
		checkFile(t, filepath.Join(dir, name+".csv"))
	}
	// One Potts and one spin run serve every figure.
	if n := strings.Count(out, "Potts model ("); n != 1 {
		t.Errorf("%d Potts runs, want 1", n)
	}
	if n := strings.Count(out, "Continuous spin model ("); n != 1 {
		t.Errorf("%d spin runs, want 1", n)
	}
	for _, s := range []string{"computed and cached in", "| TunaMH χ=1e-4 |", "| Gibbs |", "| PGDA |"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	// The truth is reused by a later run with the same settings.
	code, out, _ = runCLI(t, "reproduce", "-quick", "-out", dir, "-runs", "2", "-quiet", "fig1c")
	if code != 0 || !strings.Contains(out, "read from") {
		t.Errorf("second fig1c: exit %d, truth not read from the cache:\n%s", code, out)
	}
}

func TestReproduceOne(t *testing.T) {
	tinyExperiments(t)
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "reproduce", "fig1b", "-out", dir, "-runs", "1", "-seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Only fig1b's samplers run.
	if strings.Contains(out, "DoubleMIN") || !strings.Contains(out, "Poisson-Gibbs λ=5L²") {
		t.Errorf("fig1b ran the wrong samplers:\n%s", out)
	}
	checkFile(t, filepath.Join(dir, "fig1b.png"))
	if _, err := os.Stat(filepath.Join(dir, "fig1a.png")); err == nil {
		t.Error("fig1b wrote fig1a")
	}
}

func TestReproduceUsage(t *testing.T) {
	for _, args := range [][]string{
		{"reproduce"},
		{"reproduce", "fig9"},
		{"reproduce", "fig1a", "fig1b"},
		{"reproduce", "fig1a", "-runs", "0"},
		{"reproduce", "fig1a", "-workers", "-1"},
		{"reproduce", "fig1a", "-bogus"},
		{"reproduce", "fig1a", "-out", ""},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, stderr)
		}
	}
	if code, _, _ := runCLI(t, "reproduce", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
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
	}
}
