package main

import (
	"bytes"
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

// interruptedCheckpoint runs args with a checkpoint, cancels the run
// mid-way and returns the checkpoint's path.
func interruptedCheckpoint(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ck := filepath.Join(dir, "run.ckpt")
	code, _, stderr := runCtx(t, 80*time.Millisecond, append(args, "-checkpoint", ck, "-checkpoint-every", "10ms")...)
	if code != 130 {
		t.Fatalf("%v: exit %d, want 130: %s", args, code, stderr)
	}
	return ck
}

// TestResumeRefusesChangedInput: a model file replaced by another of the
// same size after the checkpoint is named, and the run does not go on.
func TestResumeRefusesChangedInput(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	ck := interruptedCheckpoint(t, t.TempDir(), "uai", "-model", model, "-evidence", evid, "-mar", mar,
		"-sampler", "gibbs", "-iters", "100000000")
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	swapped := bytes.Replace(data, []byte("0.4 0.6\n\n4"), []byte("0.6 0.4\n\n4"), 1)
	if bytes.Equal(swapped, data) || len(swapped) != len(data) {
		t.Fatal("test model not swapped")
	}
	if err := os.WriteFile(model, swapped, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "uai", "-resume", ck)
	if code != 1 || !strings.Contains(stderr, "input "+model+" has changed") {
		t.Errorf("resume with a swapped model: exit %d, stderr %q", code, stderr)
	}
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCtx(t, 50*time.Millisecond, "uai", "-resume", ck); code != 130 {
		t.Errorf("resume with the original model: exit %d: %s", code, stderr)
	}
}

// TestResumeFromAnotherDirectory: relative paths are stored absolute, so a
// run resumed elsewhere reads and writes the files of the original run and
// nothing in the directory it is resumed from.
func TestResumeFromAnotherDirectory(t *testing.T) {
	home, away := t.TempDir(), t.TempDir()
	t.Chdir(home)
	args := []string{"potts", "-width", "4", "-states", "3", "-iters", "20000000", "-trace", "out.csv"}
	ck := interruptedCheckpoint(t, home, args...)
	before := fileHash(t, filepath.Join(home, "out.csv"))
	t.Chdir(away)
	victim := filepath.Join(away, "out.csv")
	if err := os.WriteFile(victim, []byte("someone else's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCtx(t, 50*time.Millisecond, "potts", "-resume", ck); code != 130 {
		t.Fatalf("resumed run: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "someone else's file\n" {
		t.Error("the resumed run wrote to out.csv in the directory it was resumed from")
	}
	if fileHash(t, filepath.Join(home, "out.csv")) == before {
		t.Error("the resumed run did not go on writing its own trace")
	}
	entries, _ := os.ReadDir(away)
	if len(entries) != 1 {
		t.Errorf("the resumed run wrote %d entries in the other directory", len(entries)-1)
	}
}

// TestResumeRefusesForeignTrace: a checkpoint edited to name another file
// as its trace (its checksum recomputed) does not truncate that file.
func TestResumeRefusesForeignTrace(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.csv")
	ck := interruptedCheckpoint(t, dir, "potts", "-width", "4", "-states", "3", "-iters", "20000000", "-trace", tr)
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim.txt")
	content := strings.Repeat("precious\n", 10000)
	if err := os.WriteFile(victim, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	read.Meta = bytes.Replace(read.Meta, []byte(tr), []byte(victim), 1)
	edited := filepath.Join(dir, "edited.ckpt")
	if err := chain.WriteCheckpoint(edited, read); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "potts", "-resume", edited)
	if code != 1 || !strings.Contains(stderr, "not the trace") {
		t.Errorf("exit %d, stderr %q; want 1 and a refusal", code, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != content {
		t.Error("the victim file was modified")
	}
}

// TestCheckpointPathCheckedFirst: an unwritable checkpoint path is an
// error before any work; a checkpoint that cannot be saved at the end of a
// completed run still prints the results, and the exit status says it
// failed.
func TestCheckpointPathCheckedFirst(t *testing.T) {
	start := time.Now()
	code, stdout, stderr := runCLI(t, "potts", "-width", "4", "-iters", "100000000", "-checkpoint", "/nonexistent/x.ckpt")
	if code != 1 || !strings.Contains(stderr, "checkpoint /nonexistent/x.ckpt: cannot write there") || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refused after %v: the run started", d)
	}

	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, func() { os.RemoveAll(dir) })
	code, stdout, stderr = runCLI(t, "potts", "-width", "5", "-states", "3", "-iters", "3000000", "-json",
		"-checkpoint", filepath.Join(dir, "x.ckpt"), "-checkpoint-every", "1h")
	if code != 1 || !strings.Contains(stdout, `"marginal_l2_error"`) || !strings.Contains(stderr, "results above are complete") {
		t.Errorf("final save into a removed directory: exit %d, stdout %.80q, stderr %q", code, stdout, stderr)
	}
}

// TestFullDisk: a trace that cannot be written (a full disk) fails the run
// with a message naming the file, without a panic.
func TestFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	code, _, stderr := runCLI(t, "potts", "-width", "4", "-iters", "200000", "-trace", "/dev/full")
	if code != 1 || !strings.Contains(stderr, "trace /dev/full") || !strings.Contains(stderr, "no space left") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestSignals: SIGINT exits 130 and SIGTERM 143, each after writing the
// checkpoint; SIGKILL in the middle of checkpointing leaves the previous
// checkpoint whole, and the run resumes from it to the uninterrupted end.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	pgibbs := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PGIBBS_TEST_MAIN=1")
		return cmd
	}
	base := []string{"potts", "-width", "6", "-states", "3", "-beta", "0.6", "-iters", "8000000", "-json"}
	want, err := pgibbs(base...).Output()
	if err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(dir, "ck")
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGKILL, -1}, {syscall.SIGKILL, -1}} {
		args := append(base, "-checkpoint", ck, "-checkpoint-every", "2ms")
		if _, err := os.Stat(ck); err == nil {
			args = []string{"potts", "-resume", ck, "-checkpoint-every", "2ms", "-json"}
		}
		cmd := pgibbs(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Fatalf("%v: %v; want exit status %d", tc.sig, err, tc.code)
		}
		if _, err := chain.ReadCheckpoint(ck); err != nil {
			t.Fatalf("after %v: the checkpoint does not read: %v", tc.sig, err)
		}
	}
	got, err := pgibbs("potts", "-resume", ck, "-json").Output()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the checkpoint's directory holds %v: temporary files were left behind", names)
	}
	if err != nil {
		t.Fatal(err)
	}
	if w, g := mustJSON(deterministic(t, string(want))), mustJSON(deterministic(t, string(got))); w != g {
		t.Errorf("resumed after SIGINT, SIGTERM and SIGKILLs:\n got %s\nwant %s", g, w)
	}
}

// hopelessModel writes the UAI model of the issue: 2 variables, 100
// factors holding 1e-300 and 1, so L ≈ 7·10⁴ and λ = L² ≈ 4.8·10⁹.
func hopelessModel(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("MARKOV\n2\n2 2\n100\n")
	for range 100 {
		b.WriteString("2 0 1\n")
	}
	for range 100 {
		b.WriteString("4\n1e-300 1 1 1e-300\n")
	}
	p := filepath.Join(t.TempDir(), "hopeless.uai")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHopelessStepRefused: a sampler whose step would draw billions of
// factors is refused at once, saying what to use; auto, the default, runs.
func TestHopelessStepRefused(t *testing.T) {
	model := hopelessModel(t)
	code, _, stderr := runCLI(t, "uai", "-model", model, "-sampler", "pgibbs", "-iters", "10")
	if code != 2 || !strings.Contains(stderr, "more than the limit") || !strings.Contains(stderr, "use auto or gibbs") {
		t.Errorf("pgibbs: exit %d, stderr %q; want a refusal naming auto and gibbs", code, stderr)
	}
	if code, _, stderr := runCLI(t, "uai", "-model", model, "-iters", "20000"); code != 0 {
		t.Errorf("the default sampler (auto): exit %d: %s", code, stderr)
	}
}

// TestSIGINTInLongStep: with the limit raised, a step draws millions of
// factors; SIGINT ends the run within milliseconds, not after the step,
// and the checkpoint written then resumes.
func TestSIGINTInLongStep(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	model := hopelessModel(t)
	ck := filepath.Join(t.TempDir(), "ck")
	cmd := exec.Command(os.Args[0], "uai", "-model", model, "-sampler", "pgibbs", "-max-draws", "1e12",
		"-lambda", "3e8", "-iters", "100", "-checkpoint", ck, "-checkpoint-every", "1h")
	cmd.Env = append(os.Environ(), "PGIBBS_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond) // inside a step of seconds
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	latency := time.Since(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("%v (stderr %q); want exit 130", err, stderr.String())
	}
	t.Logf("exit %v after SIGINT", latency)
	if latency > 500*time.Millisecond {
		t.Errorf("the run took %v to stop after SIGINT", latency)
	}
	if _, err := chain.ReadCheckpoint(ck); err != nil {
		t.Errorf("no checkpoint after SIGINT: %v", err)
	}
}
