package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
)

// tracePath is the trace file of chain k of n (chain.TracePath).
var tracePath = chain.TracePath

// TestMain lets the test binary run as pgibbs itself (for the subprocess
// tests): PGIBBS_TEST_MAIN=1 makes it call main with its arguments, and
// PGIBBS_TEST_HWM=file then writes its peak resident memory to file
// (peakRSS).
func TestMain(m *testing.M) {
	if os.Getenv("PGIBBS_TEST_MAIN") == "1" {
		signalAt(os.Getenv("PGIBBS_TEST_SIGNAL_AT"))
		if file := os.Getenv("PGIBBS_TEST_HWM"); file != "" {
			code := run(context.Background(), &env{stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])
			writeHWM(file)
			os.Exit(code)
		}
		main()
		return
	}
	os.Exit(m.Run())
}

func fileHash(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// deterministic drops the timing fields of a JSON result.
func deterministic(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	delete(m, "seconds")
	delete(m, "total_seconds")
	delete(m, "steps_per_second")
	delete(m, "ess_per_second")
	delete(m, "setup_seconds")
	if a, ok := m["infer"].(map[string]any); ok {
		delete(a, "exact_seconds")
		delete(a, "seconds")
		if c, ok := a["choice"].(map[string]any); ok {
			delete(c, "pilot_seconds")
		}
		if c, ok := a["shrink"].(map[string]any); ok {
			delete(c, "bp_seconds")
		}
	}
	return m
}

// runCtx runs the CLI in-process with a context cancelled after d, as a
// SIGINT would.
func runCtx(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(d, cancel)
	var out, errb bytes.Buffer
	code := run(ctx, &env{stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// TestCheckpointResume: for each kind of subcommand, a run interrupted
// (several times) and resumed ends with the state, outputs and trace files
// of an uninterrupted run.
func TestCheckpointResume(t *testing.T) {
	// A 4-cycle of soft pairs, for blocks of width 1 with minibatched
	// boundaries and Rao–Blackwellised marginals.
	cycle := filepath.Join(t.TempDir(), "cycle.uai")
	if err := os.WriteFile(cycle, []byte("MARKOV\n4\n2 2 2 2\n4\n2 0 1\n2 1 2\n2 2 3\n2 3 0\n"+
		strings.Repeat("\n4\n2 1\n1 2\n", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"uai-block", []string{"uai", "-model", cycle, "-sampler", "block", "-width", "1", "-boundary", "poisson", "-iters", "300000", "-chains", "2"}},
		// Blocks added as the chains run (their windows end at sweeps
		// 20, 40, …): checkpoints within the windows and after.
		{"uai-block-regions", []string{"uai", "-model", cycle, "-sampler", "block", "-width", "1", "-regions", "20", "-iters", "300000", "-chains", "2"}},
		// The default: the run continues the chosen pilot's chain, and a
		// resumed run its own, chosen again.
		{"uai-default", []string{"uai", "-model", cycle, "-exact-memory", "1K", "-iters", "3000000"}},
		{"potts", []string{"potts", "-width", "5", "-states", "3", "-beta", "0.8", "-sampler", "pgibbs", "-iters", "400000", "-chains", "2"}},
		{"potts-systematic", []string{"potts", "-width", "5", "-states", "3", "-beta", "0.8", "-sampler", "gibbs", "-scan", "systematic", "-iters", "400000"}},
		{"spin", []string{"spin", "-width", "4", "-sampler", "pgda", "-iters", "60000"}},
		{"mh", []string{"mh", "-model", "tgm", "-n", "3000", "-sampler", "tunamh", "-iters", "60000", "-chains", "2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ref := filepath.Join(dir, "ref.csv")
			start := time.Now()
			code, want, stderr := runCLI(t, append(tc.args, "-json", "-trace", ref)...)
			if code != 0 {
				t.Fatalf("uninterrupted run: exit %d: %s", code, stderr)
			}
			// Interruptions and checkpoints at fractions of the run's own
			// duration, so that they land mid-run on fast and slow machines.
			d := time.Since(start)
			ck, tr := filepath.Join(dir, "ck"), filepath.Join(dir, "tr.csv")
			args := append(tc.args, "-json", "-trace", tr, "-checkpoint", ck, "-checkpoint-every", (d / 10).String())
			code, _, stderr = runCtx(t, d/3, args...)
			if code != 130 || !strings.Contains(stderr, "-resume "+ck) {
				t.Fatalf("interrupted run: exit %d, stderr %q; want 130 and how to resume", code, stderr)
			}
			// Resume and interrupt a few more times, then let it finish.
			var got string
			for range 4 {
				code, got, stderr = runCtx(t, d/4, tc.args[0], "-resume", ck, "-json")
				if code == 0 {
					break
				}
				if code != 130 {
					t.Fatalf("resumed run: exit %d: %s", code, stderr)
				}
			}
			if code != 0 {
				code, got, stderr = runCLI(t, tc.args[0], "-resume", ck, "-json")
				if code != 0 {
					t.Fatalf("final resumed run: exit %d: %s", code, stderr)
				}
			}
			w, g := deterministic(t, want), deterministic(t, got)
			if wj, gj := mustJSON(w), mustJSON(g); wj != gj {
				t.Errorf("resumed run differs from the uninterrupted one:\n got %s\nwant %s", gj, wj)
			}
			chains := 1
			for k, a := range tc.args {
				if a == "-chains" {
					chains = map[string]int{"2": 2}[tc.args[k+1]]
				}
			}
			for c := range chains {
				if a, b := fileHash(t, tracePath(ref, c, chains)), fileHash(t, tracePath(tr, c, chains)); a != b {
					t.Errorf("trace of chain %d differs after interruptions", c)
				}
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCheckpointErrors: corrupt, foreign and mismatched checkpoints are
// refused with a message saying what is wrong.
func TestCheckpointErrors(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck")
	args := []string{"potts", "-width", "4", "-states", "3", "-iters", "200000", "-checkpoint", ck, "-checkpoint-every", "5ms"}
	if code, _, stderr := runCtx(t, 30*time.Millisecond, args...); code != 130 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	good, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	nbad := 0
	write := func(data []byte) string {
		nbad++
		p := filepath.Join(dir, "bad"+string(rune('a'+nbad)))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x01
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bit flip", []string{"potts", "-resume", write(flipped)}, 1, "corrupt"},
		{"truncated", []string{"potts", "-resume", write(good[:len(good)/2])}, 1, "corrupt"},
		{"not a checkpoint", []string{"potts", "-resume", write([]byte("hello\nworld\n"))}, 1, "not a pgibbs checkpoint"},
		{"future version", []string{"potts", "-resume", write(bytes.Replace(good, []byte("pgibbs-checkpoint 2"), []byte("pgibbs-checkpoint 9"), 1))}, 1, "version 9"},
		{"other command", []string{"spin", "-resume", ck}, 1, "is of `pgibbs potts`"},
		{"changed flag", []string{"potts", "-resume", ck, "-states", "4"}, 2, "differs from the checkpoint"},
		{"missing", []string{"potts", "-resume", filepath.Join(dir, "nope")}, 1, "no such file"},
	}
	for _, tc := range cases {
		code, _, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
	}
	// The good checkpoint still resumes.
	if code, _, stderr := runCLI(t, "potts", "-resume", ck); code != 0 {
		t.Errorf("good checkpoint: exit %d: %s", code, stderr)
	}
}

// TestSIGINTResume runs pgibbs as a subprocess, interrupts it with SIGINT
// mid-way, resumes it, and compares the final state and the trace with an
// uninterrupted run.
func TestSIGINTResume(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	base := []string{"potts", "-width", "8", "-states", "3", "-beta", "0.6", "-iters", "3000000", "-chains", "2", "-json"}
	pgibbs := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PGIBBS_TEST_MAIN=1")
		return cmd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ref := filepath.Join(dir, "ref.csv")
	want, err := pgibbs(ctx, append(base, "-trace", ref)...).Output()
	if err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	ck, tr := filepath.Join(dir, "ck"), filepath.Join(dir, "tr.csv")
	cmd := pgibbs(ctx, append(base, "-trace", tr, "-checkpoint", ck, "-checkpoint-every", "50ms")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; { // wait for the first checkpoint
		if _, err := os.Stat(ck); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v (stderr %q); want exit status 130 (the run may have finished before the signal)", err, stderr.String())
	}
	got, err := pgibbs(ctx, "potts", "-resume", ck, "-json").Output()
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	w, g := deterministic(t, string(want)), deterministic(t, string(got))
	if mustJSON(w) != mustJSON(g) {
		t.Errorf("resumed run differs:\n got %s\nwant %s", mustJSON(g), mustJSON(w))
	}
	for c := range 2 {
		if fileHash(t, tracePath(ref, c, 2)) != fileHash(t, tracePath(tr, c, 2)) {
			t.Errorf("trace of chain %d differs after SIGINT and resume", c)
		}
	}
}
