package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/potts"
)

// peakRSS runs pgibbs with args in a subprocess and returns its peak
// resident memory in bytes (VmHWM, which the subprocess writes at its end:
// the rusage of a child forked from the test binary would count the
// parent's pages).
func peakRSS(t *testing.T, args ...string) float64 {
	t.Helper()
	file := filepath.Join(t.TempDir(), "hwm")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PGIBBS_TEST_MAIN=1", "PGIBBS_TEST_HWM="+file, "GOMAXPROCS=2")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgibbs %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("no peak resident memory on this system: %v", err)
	}
	kb, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil {
		t.Fatal(err)
	}
	return kb * 1024
}

// writeHWM writes this process's peak resident memory in kB (VmHWM of
// /proc/self/status) to file, nothing where it is not known.
func writeHWM(file string) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			os.WriteFile(file, []byte(strings.TrimSuffix(strings.TrimSpace(v), " kB")), 0o644)
		}
	}
}

// TestMemoryEstimate checks the estimate `pgibbs potts` checks -max-memory
// against (pottsBytes: the graph and the chains) against the peak resident
// memory of the run, less a run's on a 2×2 lattice (the program itself):
// within 20%, for Poisson-Gibbs and Swendsen–Wang.
func TestMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocesses of tens of MB")
	}
	base := peakRSS(t, "potts", "-width", "2", "-iters", "1", "-json")
	for _, c := range []struct {
		width   int
		sampler string
	}{{60, "pgibbs"}, {40, "sw"}} {
		p := potts.Paper()
		p.Width = c.width
		model, perChain := pottsBytes(p, c.sampler)
		est := model + perChain
		rss := peakRSS(t, "potts", "-width", fmt.Sprint(c.width), "-sampler", c.sampler, "-iters", "200", "-json") - base
		t.Logf("width %d, %s: %d pairs; estimate %.1f MB (model %.1f), peak RSS less the program's %.1f MB (%.1f bytes a pair)",
			c.width, c.sampler, p.NumPairs(), est/1e6, model/1e6, rss/1e6, rss/float64(p.NumPairs()))
		if math.Abs(est-rss) > 0.2*rss {
			t.Errorf("width %d, %s: estimate %.1f MB, measured %.1f MB", c.width, c.sampler, est/1e6, rss/1e6)
		}
	}
	// A lattice beyond -max-memory is refused before it is built.
	code, _, stderr := runCLI(t, "potts", "-width", "500", "-max-memory", "1G")
	if code != 2 || !strings.Contains(stderr, "more than the limit of 1 GB (Run.MaxBytes; -max-memory)") {
		t.Errorf("a 500×500 lattice within 1G: exit %d, %s", code, stderr)
	}
}

// TestReadMaxMemory: `pgibbs uai` reads its model within -max-memory: a
// file whose header declares a graph above it is refused as it is read,
// with a usage error that names the counts, the estimate and the flag;
// within it, the model is read and run.
func TestReadMaxMemory(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.uai")
	if err := os.WriteFile(big, []byte("MARKOV\n1000000\n2 2 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "uai", "-model", big, "-max-memory", "64M", "-iters", "10")
	want := big + ": uai: line 2: 1000000 variables: the graph needs about 127 MB, more than the limit of 64 MB (Options.MaxBytes; -max-memory)"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("1,000,000 variables within 64M: exit %d, %s; want 2, %q", code, stderr, want)
	}
	small := filepath.Join(dir, "small.uai")
	if err := os.WriteFile(small, []byte("MARKOV 2 2 2 1 2 0 1 4 1 2 2 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "uai", "-model", small, "-max-memory", "64M", "-iters", "10", "-sampler", "gibbs"); code != 0 {
		t.Errorf("a two-variable model within 64M: exit %d, %s", code, stderr)
	}
}
