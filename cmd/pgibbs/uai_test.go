package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// uaiFiles writes a small model to a temporary directory: three variables,
// a zero in one table (a hard factor), x_1 observed at 1, and the exact
// marginals given that evidence. It returns the paths.
func uaiFiles(t *testing.T) (model, evid, mar string) {
	t.Helper()
	dir := t.TempDir()
	// π(x) ∝ T0(x0) T1(x0,x1) T2(x1,x2); given x1 = 1:
	// p(x0) ∝ T0(x0)·T1(x0,1) = (0.4·0.6, 0.6·0.2) = (0.24, 0.12) → (2/3, 1/3);
	// p(x2) ∝ T2(1,x2) = (0.5, 0, 0.5).
	files := map[string]string{
		"m.uai":     "c test model\nMARKOV\n3\n2 2 3\n3\n1 0\n2 0 1\n2 1 2\n\n2\n0.4 0.6\n\n4\n0.4 0.6\n0.8 0.2\n\n6\n0.3 0.3 0.4\n0.5 0 0.5\n",
		"m.evid":    "1 1 1\n",
		"m.MAR":     "MAR\n3 2 0.6666666666666666 0.3333333333333333 2 0 1 3 0.5 0 0.5\n",
		"bad.uai":   "MARKOV\n1\n2\n1\n1 0\n2\n0.5 0.5x\n",
		"bad.evid":  "1 2 5\n",
		"short.MAR": "MAR 2 2 0.5 0.5 2 0.5 0.5\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "m.uai"), filepath.Join(dir, "m.evid"), filepath.Join(dir, "m.MAR")
}

func TestUAIJSON(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	out := filepath.Join(t.TempDir(), "est.MAR")
	code, stdout, stderr := runCLI(t, "uai", "-model", model, "-evidence", evid, "-mar", mar, "-out", out,
		"-sampler", "pgibbs", "-iters", "40000", "-burn", "1000", "-chains", "2", "-seed", "3", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
	}
	for _, k := range []string{"model", "sampler", "iterations", "seconds", "factors_per_step", "draws_per_step",
		"L", "lambda", "delta", "free", "evidence", "hard_factors", "mean_abs_error", "max_abs_error", "out"} {
		if _, ok := got[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if got["iterations"].(float64) != 80000 || got["free"].(float64) != 2 || got["evidence"].(float64) != 1 || got["hard_factors"].(float64) != 1 {
		t.Errorf("iterations %v, free %v, evidence %v, hard factors %v; want 80000, 2, 1, 1",
			got["iterations"], got["free"], got["evidence"], got["hard_factors"])
	}
	if l, lam := got["L"].(float64), got["lambda"].(float64); math.Abs(lam-l*l) > 1e-9*lam {
		t.Errorf("λ = %v, want the default L² = %v", lam, l*l)
	}
	if e := got["mean_abs_error"].(float64); !(e >= 0 && e < 0.02) {
		t.Errorf("mean abs error %v on a 2-variable model after 80000 updates", e)
	}
	p, err := uai.ReadMarginalsFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 3 || p[1][1] != 1 || p[2][1] != 0 {
		t.Errorf("-out marginals %v: want evidence x_1 = 1 as a point mass and p(x_2 = 1) = 0 (a zero of the table)", p)
	}
}

// TestUAISamplers: every sampler name of package gibbs runs on a UAI model
// with evidence and a hard factor.
func TestUAISamplers(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	for _, name := range samplers.Names() {
		code, stdout, stderr := runCLI(t, "uai", "-model", model, "-evidence", evid, "-mar", mar,
			"-sampler", name, "-iters", "3000", "-json")
		if entry(name).Continuous {
			// A UAI model is discrete: a continuous sampler would be plain
			// Gibbs under another name, and is refused.
			if code != 2 || !strings.Contains(stderr, "use gibbs, auto or pgibbs") {
				t.Errorf("%s on a discrete model: exit %d, stderr %q; want a usage error", name, code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		var got struct {
			Sampler      string   `json:"sampler"`
			MeanAbsError *float64 `json:"mean_abs_error"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Sampler != name || got.MeanAbsError == nil {
			t.Errorf("%s: output %q (%v)", name, stdout, err)
		}
	}
	code, stdout, stderr := runCLI(t, "uai", "-model", model, "-sampler", "doublemin", "-lambda2-scale", "4", "-iters", "2000", "-json")
	if code != 0 {
		t.Fatalf("doublemin: exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if l, l2 := got["L"].(float64), got["lambda2"].(float64); math.Abs(l2-4*l*l) > 1e-9*l2 {
		t.Errorf("λ2 = %v, want 4·L² = %v", l2, 4*l*l)
	}
}

func TestUAIText(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	code, stdout, stderr := runCLI(t, "uai", "-model", model, "-evidence", evid, "-mar", mar, "-sampler", "gibbs", "-iters", "5000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"3 variables (2 free, 1 observed), 3 factors (1 hard)", "marginal abs error", "factors/step"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
}

// TestUAIUsageErrors: impossible flags exit 2 with a message.
func TestUAIUsageErrors(t *testing.T) {
	model, _, _ := uaiFiles(t)
	tests := [][]string{
		{"uai"},
		{"uai", "-model", model, "-sampler", "metropolis"},
		{"uai", "-model", model, "-lambda", "-3"},
		{"uai", "-model", model, "-lambda", "2", "-lambda-scale", "1"},
		{"uai", "-model", model, "-lambda-scale", "NaN"},
		{"uai", "-model", model, "-sampler", "doublemin", "-lambda2", "NaN"},
		{"uai", "-model", model, "-sampler", "doublemin", "-lambda2", "-1"},
		{"uai", "-model", model, "-sampler", "doublemin", "-lambda2", "1", "-lambda2-scale", "1"},
		{"uai", "-model", model, "-sampler", "gibbs", "-lambda2", "5"},
		{"uai", "-model", model, "-iters", "0"},
		{"uai", "-model", model, "-seconds", "-1"},
		{"uai", "-model", model, "-seconds", "NaN"},
		{"uai", "-model", model, "-chains", "0"},
		{"uai", "-model", model, "-burn", "10", "-iters", "10"},
		{"uai", "-model", model, "stray"},
		{"uai", "-bogus"},
	}
	for _, args := range tests {
		code, _, stderr := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if stderr == "" {
			t.Errorf("%v: no message on stderr", args)
		}
	}
}

// TestUAIFileErrors: a missing or malformed file exits 1 with the parser's
// message, naming the file, the line and the token.
func TestUAIFileErrors(t *testing.T) {
	model, evid, _ := uaiFiles(t)
	dir := filepath.Dir(model)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-model", filepath.Join(dir, "missing.uai")}, "missing.uai: no such file"},
		{[]string{"-model", filepath.Join(dir, "bad.uai")}, `bad.uai: uai: line 7: token "0.5x": want a number`},
		{[]string{"-model", model, "-evidence", filepath.Join(dir, "bad.evid")}, "value 5 of variable 2 outside its domain {0..2}"},
		{[]string{"-model", model, "-mar", filepath.Join(dir, "short.MAR")}, "short.MAR: uai: marginals: 2 variables, the model has 3"},
		{[]string{"-model", model, "-evidence", evid, "-mar", model}, `token "MARKOV": want MAR`},
		{[]string{"-model", model, "-sampler", "pgibbs", "-out", filepath.Join(dir, "no", "such", "dir.MAR")}, "no such file"},
	}
	for _, tc := range tests {
		code, _, stderr := runCLI(t, append([]string{"uai", "-iters", "100"}, tc.args...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1 (stderr %q)", tc.args, code, stderr)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q, want it to contain %q", tc.args, stderr, tc.want)
		}
	}
}

// TestUAITimedBurnIn: a timed run burns in by the library's rule unless
// -burn says otherwise — a fixed sampler, which no pilot burnt in, a
// thousand sweeps (well within 0.3 s on this model) — and the JSON
// records the burn-in the chains kept.
func TestUAITimedBurnIn(t *testing.T) {
	model, evid, _ := uaiFiles(t)
	for _, tc := range []struct {
		args []string
		want float64 // steps; -1: positive
	}{
		{nil, -1},
		{[]string{"-burn", "0"}, 0},
		{[]string{"-burn", "77"}, 77},
	} {
		args := append([]string{"uai", "-model", model, "-evidence", evid, "-sampler", "gibbs", "-seconds", "0.3", "-json"}, tc.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		burn := got["burn"].(float64)
		if tc.want >= 0 && burn != tc.want || tc.want < 0 && burn <= 0 {
			t.Errorf("%v: burn %v, want %v (-1: positive)", tc.args, burn, tc.want)
		}
	}
}
