package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/internal/densegen"
	"github.com/pgibbs/pgibbs/internal/phase"
)

// signalAt makes the test binary, run as the command (PGIBBS_TEST_MAIN),
// send itself SIGTERM as phase name begins (internal/phase), so that a
// test delivers a real signal in the phase it names.
func signalAt(name string) {
	if name == "" {
		return
	}
	sent := false
	delivered := make(chan os.Signal, 1)
	signal.Notify(delivered, syscall.SIGTERM) // beside the command's own handler
	phase.Hook = func(p string) {
		if p == name && !sent {
			sent = true
			fmt.Fprintf(os.Stderr, "test: SIGTERM at %s %d\n", p, time.Now().UnixNano())
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			// The signal arrives while the phase runs: a phase shorter
			// than the signal's delivery (writing the results) could
			// otherwise end the process first. Wait for the runtime to
			// deliver it (on a loaded machine that can take longer than
			// any fixed sleep), then for the command's handler to act.
			select {
			case <-delivered:
			case <-time.After(time.Second):
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// writeDense writes a generated binary UAI model (internal/densegen: a
// random unary table on every variable and a random pair table on every
// pair of p) to dir as name.uai and returns its path.
func writeDense(t testing.TB, dir, name string, p densegen.Pairs) string {
	t.Helper()
	path := filepath.Join(dir, name+".uai")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := p.Model(1).Write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readTime returns the time the library takes to read model.
func readTime(t *testing.T, model string) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := uai.ReadGraphProblem(model, "", ""); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// TestUAIBudget: on generated models beyond exact elimination — dense,
// with hubs, of 10⁵ factors, a grid of 250 000 variables — `pgibbs uai
// -seconds 2` answers (or says why not) within 1.25 × 2 s plus the model's
// reading time, every phase included.
func TestUAIBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for seconds")
	}
	dir := t.TempDir()
	for _, m := range []struct {
		name  string
		pairs densegen.Pairs
	}{
		{"kbip200", densegen.KBip(200)},
		{"hubs200", densegen.Hubs(200, 10000, 1)},
		{"complete448", densegen.Complete(448)},
		{"grid500", densegen.Grid(500)},
	} {
		model := writeDense(t, dir, m.name, m.pairs)
		t.Run(m.name, func(t *testing.T) {
			// Two at a time on two cores: every phase keeps to the clock,
			// so sharing the machine costs the runs samples, not time.
			t.Parallel()
			read := readTime(t, model)
			start := time.Now()
			code, stdout, stderr := runCLI(t, "uai", "-model", model, "-seconds", "2", "-json")
			took := time.Since(start)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var out map[string]any
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			if bound := 2500*time.Millisecond + read; took > bound {
				t.Errorf("took %v, over 1.25 × -seconds + the reading time (%v) = %v", took, read, bound)
			}
			if note, _ := out["convergence_note"].(string); strings.Contains(note, "within the burn-in") {
				// The rule's burn-in is a tenth of the sampling time by the
				// clock at most (chain.Runner.BurnFor), however far off the
				// cost model's speed is on a model this size.
				t.Errorf("no samples: %s", note)
			}
			t.Logf("%v (reading %v): converged %v; %v", took.Round(time.Millisecond), read.Round(time.Millisecond), out["converged"], out["convergence_note"])
		})
	}
}

// TestUAISignalInEveryPhase: SIGTERM delivered as each phase of the default
// (auto) run begins stops it within a second with what it knows: exit
// status 143, a message on stderr, and — once the model is read — the JSON
// answer so far, not converged, saying it was interrupted (or, when the
// signal comes as the results are written, the complete answer).
func TestUAISignalInEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	kbip := writeDense(t, dir, "kbip120", densegen.KBip(120))
	grid := writeDense(t, dir, "grid20", densegen.Grid(20)) // width ~26: an elimination of several seconds
	// A pedigree beyond exact elimination (linkage_16 is exact since
	// weighted min-fill orders), whose blocks search for a feasible start.
	linkage := filepath.Join("..", "..", "..", "shared", "data", "uai-hard", "linkage_13.uai")
	// A signal in an early phase comes long before -seconds 30 ends; the
	// late phases are reached within -seconds 1, the last pilots within 4.
	for _, tc := range []struct {
		at      string
		model   string
		seconds string
		args    []string
	}{
		{"read", kbip, "30", nil},
		{"plan", kbip, "30", nil},
		{"solve", grid, "30", nil},
		{"pilots", kbip, "30", nil},
		{"pilot block width 4 + regions", kbip, "30", nil},
		{"pilot block forests + regions", kbip, "4", nil},
		{"pilot sw", kbip, "4", nil},
		{"feasible", linkage, "30", []string{"-evidence", linkage + ".evid"}},
		{"build", kbip, "1", nil},
		{"sample", kbip, "1", nil},
		{"write", kbip, "1", nil},
	} {
		t.Run(tc.at, func(t *testing.T) {
			t.Parallel() // each in its own process
			if _, err := os.Stat(tc.model); err != nil {
				t.Skip(err)
			}
			args := append([]string{"uai", "-model", tc.model, "-seconds", tc.seconds, "-json"}, tc.args...)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "PGIBBS_TEST_MAIN=1", "PGIBBS_TEST_SIGNAL_AT="+tc.at)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			end := time.Now()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 143 {
				t.Fatalf("%v (stderr %q); want exit status 143", err, stderr.String())
			}
			var sent int64
			if _, err := fmt.Sscanf(stderr.String()[strings.Index(stderr.String(), "test: SIGTERM at "+tc.at)+len("test: SIGTERM at "+tc.at):], " %d", &sent); err != nil {
				t.Fatalf("no signal sent in phase %s: %q", tc.at, stderr.String())
			}
			lat := end.Sub(time.Unix(0, sent))
			if lat > time.Second {
				t.Errorf("stopped %v after the signal, want ≤ 1 s", lat)
			}
			t.Logf("stopped %v after the signal", lat.Round(time.Millisecond))
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say the run was interrupted: %q", stderr.String())
			}
			if tc.at == "read" {
				return
			}
			var out struct {
				Converged bool   `json:"converged"`
				Note      string `json:"convergence_note"`
			}
			if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
				t.Fatalf("no JSON answer so far: %v: %q", err, stdout.String())
			}
			if tc.at == "write" {
				return // the answer was complete: it is written whole
			}
			if out.Converged || !strings.Contains(out.Note, "interrupted") {
				t.Errorf("answer so far: converged %v, note %q; want not converged, saying it was interrupted", out.Converged, out.Note)
			}
		})
	}
}
