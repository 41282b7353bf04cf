package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// isingUAI writes a side×side Ising torus with couplings K (pair tables
// [e^K 1; 1 e^K], Potts form) and no fields as a UAI file, and returns its
// path.
func isingUAI(t *testing.T, side int, k float64) string {
	t.Helper()
	n := side * side
	m := &uai.Model{Type: uai.Markov, Cards: make([]int, n)}
	for i := range n {
		m.Cards[i] = 2
		r, c := i/side, i%side
		for _, j := range []int{r*side + (c+1)%side, ((r+1)%side)*side + c} {
			m.Scopes = append(m.Scopes, []int{i, j})
			m.Tables = append(m.Tables, []float64{math.Exp(k), 1, 1, math.Exp(k)})
		}
	}
	path := filepath.Join(t.TempDir(), "ising.uai")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVerdict: every run ends with a verdict in JSON and text, judged on
// one draw a sweep-equivalent whatever a step updates (a block run of a
// few hundred block updates has its draws); an unconverged run says so on
// stderr; Swendsen–Wang reads a ferromagnet written as Potts-form tables
// and its -until-rhat stops.
func TestVerdict(t *testing.T) {
	model := isingUAI(t, 6, 1.2)
	type result struct {
		Converged bool     `json:"converged"`
		Draws     int      `json:"draws_per_chain"`
		Rhat      *float64 `json:"rhat_max"`
		Worst     []string `json:"worst"`
		Note      string   `json:"convergence_note"`
		StoppedBy string   `json:"stopped_by"`
		Sweeps    float64  `json:"sweep_equivalents"`
	}
	run := func(args ...string) (result, string) {
		t.Helper()
		code, out, stderr := runCLI(t, append([]string{"uai", "-model", model, "-json"}, args...)...)
		var r result
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("%v: exit %d: %s\n%s", args, code, stderr, out)
		}
		return r, stderr
	}
	// Single-site Gibbs in the ordered phase, 100 sweeps: stuck in one
	// phase, and told so.
	r, stderr := run("-sampler", "gibbs", "-iters", "3600")
	if r.Converged || len(r.Worst) == 0 || !strings.Contains(stderr, "warning: the chains have not converged") {
		t.Errorf("gibbs, 100 sweeps: converged %v, worst %v, stderr %q; want a warning", r.Converged, r.Worst, stderr)
	}
	// Blocks: a few hundred steps are hundreds of sweep-equivalents, and
	// the verdict has their draws (it used to get one a 36 steps).
	r, _ = run("-sampler", "block", "-width", "4", "-iters", "4000")
	if r.Draws < 100 || r.Rhat == nil || r.Sweeps < 100 {
		t.Errorf("block: %d draws, R̂ %v, %v sweeps; want one draw a sweep-equivalent", r.Draws, r.Rhat, r.Sweeps)
	}
	// Swendsen–Wang on the Potts-form tables, stopping when converged.
	r, stderr = run("-sampler", "sw", "-iters", "100000", "-until-rhat", "1.02", "-min-ess", "200")
	if !r.Converged || r.StoppedBy != "converged" || stderr != "" {
		t.Errorf("sw -until-rhat: converged %v, stopped by %q, stderr %q", r.Converged, r.StoppedBy, stderr)
	}
}

// TestAutoChoice: the default on a UAI file answers exactly where the
// elimination fits, and otherwise (here: -exact-memory too small for the
// torus) runs the sampler its pilots measure best — on an ordered
// ferromagnet written as tables, a cluster move — and says why.
func TestAutoChoice(t *testing.T) {
	model := isingUAI(t, 12, 1.0)
	type out struct {
		Infer struct {
			Method string `json:"method"`
			Exact  int    `json:"exact_variables"`
			Choice *struct {
				Sampler string `json:"sampler"`
				Reason  string `json:"reason"`
				Pilots  []struct {
					Sampler string `json:"sampler"`
				} `json:"pilots"`
			} `json:"choice"`
			LogZ *float64 `json:"log_z"`
		} `json:"infer"`
		Sampler   string `json:"sampler"`
		Converged bool   `json:"converged"`
	}
	run := func(args ...string) out {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"uai", "-model", model, "-json"}, args...)...)
		var o out
		if code != 0 || json.Unmarshal([]byte(stdout), &o) != nil {
			t.Fatalf("%v: exit %d: %s\n%s", args, code, stderr, stdout)
		}
		return o
	}
	o := run()
	if o.Infer.Method != "exact" || o.Infer.Exact != 144 || o.Infer.LogZ == nil || o.Sampler != "infer" || !o.Converged {
		t.Errorf("12×12 torus: %+v, want an exact answer", o)
	}
	o = run("-exact-memory", "1K", "-iters", "20000")
	c := o.Infer.Choice
	if o.Infer.Method != "sampled" || c == nil || (c.Sampler != "sw" && c.Sampler != "wolff") || len(c.Pilots) < 5 || c.Reason == "" {
		t.Errorf("12×12 torus beyond -exact-memory: %+v, want a cluster move chosen by pilots", o)
	}
	if code, _, stderr := runCLI(t, "uai", "-model", model, "-sampler", "gibbs", "-exact-memory", "1G"); code != 2 || !strings.Contains(stderr, "-exact-memory applies to -sampler infer only") {
		t.Errorf("-exact-memory with gibbs: exit %d, %q", code, stderr)
	}
}

// frozenUAI writes infer's frozenCycle as a UAI model with its evidence:
// hard factors x0 ≤ x1, x1 ≤ x2, x2 ≤ x0 (single-site Gibbs accepts them
// and never moves the three), a field on x0, x3 = x4 with x4 observed at 1
// (x3 fixed), a field on x5.
func frozenUAI(t *testing.T) (model, evid string) {
	t.Helper()
	dir := t.TempDir()
	model, evid = filepath.Join(dir, "frozen.uai"), filepath.Join(dir, "frozen.evid")
	const m = "MARKOV\n6\n2 2 2 2 2 2\n6\n2 0 1\n2 1 2\n2 2 0\n1 0\n2 3 4\n1 5\n" +
		"\n4\n1 1 0 1\n\n4\n1 1 0 1\n\n4\n1 1 0 1\n\n2\n0.3 0.7\n\n4\n1 0 0 1\n\n2\n1 1.6487\n"
	if err := os.WriteFile(model, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evid, []byte("1 4 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return model, evid
}

// TestFrozenVerdictCLI: variables that single-site Gibbs never moves,
// although their marginals are not degenerate, fail the verdict and show:
// R̂ ∞ with their count in the text's R̂ line, first in the stderr
// warning, frozen_variables in JSON (x3, which the evidence fixes, is not
// counted); the JSON says how the answer was found and in how long.
func TestFrozenVerdictCLI(t *testing.T) {
	model, evid := frozenUAI(t)
	args := []string{"uai", "-model", model, "-evidence", evid, "-sampler", "gibbs", "-iters", "30000", "-seed", "3"}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`R̂ \(max over quantities\) +∞ \(3 variables never moved, their marginals not known to be degenerate\)\n`).MatchString(stdout) ||
		!strings.Contains(stdout, "answer                          sampled, ") {
		t.Errorf("text output lacks the frozen variables' R̂ line or the answer's method:\n%s", stdout)
	}
	if !strings.HasPrefix(stderr, "pgibbs uai: warning: the chains have not converged: 3 variables never moved in any chain, their marginals not known to be degenerate (R̂ ∞): x0 (never left ") ||
		strings.Contains(stderr, "x3 ") {
		t.Errorf("stderr %q; want the frozen variables x0, x1, x2 first, x3 not", stderr)
	}
	code, stdout, stderr = runCLI(t, append(args, "-json")...)
	var o struct {
		Converged    bool     `json:"converged"`
		Rhat         *float64 `json:"rhat_max"`
		Frozen       int      `json:"frozen_variables"`
		Constant     int      `json:"constant_quantities"`
		Method       string   `json:"method"`
		TotalSeconds float64  `json:"total_seconds"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &o) != nil {
		t.Fatalf("-json: exit %d: %s\n%s", code, stderr, stdout)
	}
	if o.Converged || o.Rhat != nil || o.Frozen != 3 || o.Constant != 4 || o.Method != "sampled" || !(o.TotalSeconds > 0) {
		t.Errorf("-json: %+v; want not converged, R̂ null, 3 frozen variables of 4 constant quantities, sampled, timed", o)
	}
}
