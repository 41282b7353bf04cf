package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pgibbs/pgibbs/cmd/pgibbs/internal/progress"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/experiments"
	"github.com/pgibbs/pgibbs/experiments/harness"
)

// reproduceCall is what the CLI passed to experiments.Reproduce.
type reproduceCall struct {
	name  string
	quick bool
	dir   string
	cfg   harness.Config
}

// fakeReproduce replaces experiments.Reproduce for the duration of a test
// (package experiments' own tests run the experiments): it records its arguments, uses the
// progress bar as a driver would, prints a note and returns files, or err.
func fakeReproduce(t *testing.T, err error) *[]reproduceCall {
	t.Helper()
	saved := reproduce
	t.Cleanup(func() { reproduce = saved })
	var calls []reproduceCall
	reproduce = func(ctx context.Context, name string, quick bool, dir string, cfg harness.Config, w io.Writer) ([]string, error) {
		calls = append(calls, reproduceCall{name, quick, dir, cfg})
		if _, statErr := os.Stat(dir); statErr != nil {
			t.Errorf("output directory not created: %v", statErr)
		}
		cfg.Progress.Start("phase", 10)
		cfg.Progress.Add(10)
		fmt.Fprintf(w, "note on %s\n", name)
		files := []string{filepath.Join(dir, name+".csv"), filepath.Join(dir, name+".png")}
		if err != nil {
			return files[:1], err
		}
		return files, nil
	}
	return &calls
}

func TestReproduceFlags(t *testing.T) {
	calls := fakeReproduce(t, nil)
	dir := filepath.Join(t.TempDir(), "a", "b")
	for _, tc := range []struct {
		args []string
		want reproduceCall
	}{
		{[]string{"reproduce", "fig1b", "-out", dir, "-runs", "1", "-seed", "5"},
			reproduceCall{"fig1b", false, dir, harness.Config{Seed: 5, Runs: 1, Dir: dir}}},
		{[]string{"reproduce", "-quick", "-out", dir, "-runs", "2", "-workers", "7", "-quiet", "all"},
			reproduceCall{"all", true, dir, harness.Config{Seed: 1, Runs: 2, Workers: 7, Dir: dir}}},
	} {
		*calls = nil
		code, out, stderr := runCLI(t, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s\n%s", tc.args, code, stderr, out)
		}
		if stderr != "" {
			t.Errorf("%v: stderr is not a terminal, yet: %q", tc.args, stderr)
		}
		if len(*calls) != 1 {
			t.Fatalf("%v: %d calls of experiments.Reproduce", tc.args, len(*calls))
		}
		got := (*calls)[0]
		bar, ok := got.cfg.Progress.(*progress.Bar)
		if !ok || bar == nil || bar.Enabled() {
			t.Errorf("%v: progress %#v, want the CLI's bar, disabled off a terminal", tc.args, got.cfg.Progress)
		}
		got.cfg.Progress = nil
		if got != tc.want {
			t.Errorf("%v: experiments.Reproduce%+v, want %+v", tc.args, got, tc.want)
		}
		re := regexp.MustCompile(`^note on ` + tc.want.name + `\n\n2 files written in [0-9]+\.[0-9] s\n$`)
		if !re.MatchString(out) {
			t.Errorf("%v: stdout %q", tc.args, out)
		}
	}
}

func TestReproduceError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{errors.New("boom"), 1},
		{context.Canceled, 130},
	} {
		fakeReproduce(t, tc.err)
		code, out, stderr := runCLI(t, "reproduce", "fig3", "-out", t.TempDir())
		if code != tc.code || !strings.Contains(stderr, "pgibbs reproduce: "+tc.err.Error()) {
			t.Errorf("%v: exit %d, stderr %q; want %d with the error", tc.err, code, stderr, tc.code)
		}
		if strings.Contains(out, "files written") {
			t.Errorf("%v: the run failed, yet: %q", tc.err, out)
		}
	}
}

// TestReproduceCanceled runs the real experiments.Reproduce with a canceled
// context: it prints its header and stops at the first experiment.
func TestReproduceCanceled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr strings.Builder
	code := run(ctx, &env{stdout: &stdout, stderr: &stderr}, []string{"reproduce", "fig1a", "-quick", "-seed", "4", "-runs", "2", "-out", dir})
	if code != 130 || !strings.Contains(stderr.String(), context.Canceled.Error()) {
		t.Errorf("exit %d, stderr %q; want 130, canceled", code, stderr.String())
	}
	head := fmt.Sprintf("pgibbs reproduce fig1a (quick mode, seed 4, 2 runs a curve) → %s\n", dir)
	if out := stdout.String(); !strings.HasPrefix(out, head) || strings.Contains(out, "files written") {
		t.Errorf("stdout %q, want it to start with %q", out, head)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("output directory not created: %v", err)
	}
}

func TestReproduceUsage(t *testing.T) {
	calls := fakeReproduce(t, nil)
	for _, args := range [][]string{
		{"reproduce"},
		{"reproduce", "fig9"},
		{"reproduce", "fig1a", "fig1b"},
		{"reproduce", "fig1a", "-runs", "0"},
		{"reproduce", "fig1a", "-runs", "101"},
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
	if len(*calls) != 0 {
		t.Errorf("experiments.Reproduce called %d times on bad usage", len(*calls))
	}
	// Every name the usage text describes is one experiments.Reproduce knows.
	for _, name := range experiments.Figures() {
		if !strings.Contains(reproduceUsage(), "\n  "+name+" ") {
			t.Errorf("usage does not describe %q", name)
		}
	}
}
