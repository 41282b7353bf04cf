package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// runCLI runs the command line args in-process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), &env{stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "commands:") {
			t.Errorf("%v: exit %d, output %q; want the list of commands", args, code, out)
		}
	}
	for _, args := range [][]string{{"-version"}, {"version"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(out, "pgibbs ") || !strings.Contains(out, "go1.") {
			t.Errorf("%v: exit %d, output %q; want the build's version", args, code, out)
		}
	}
	if code, _, stderr := runCLI(t, "-version", "extra"); code != 2 || stderr == "" {
		t.Errorf("-version extra: exit %d, stderr %q; want 2 and a message", code, stderr)
	}
	code, out, _ := runCLI(t, "help")
	if code != 0 {
		t.Fatalf("help exited %d", code)
	}
	for name, c := range commands {
		if !strings.Contains(out, name) || !strings.Contains(out, c.example) {
			t.Errorf("help does not list %s with its example", name)
		}
		if !strings.HasPrefix(c.example, "pgibbs ") {
			t.Errorf("%s: example %q does not start with pgibbs", name, c.example)
		}
	}
}

// TestUsageErrors: bad command lines exit 2 with a message, never panic.
func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{"nonsense"},
		{"potts", "-bogus"},
		{"potts", "-width", "1"},
		{"potts", "-width", "x"},
		{"potts", "-states", "1"},
		{"potts", "-beta", "NaN"},
		{"potts", "-gamma", "-1"},
		{"potts", "-sampler", "metropolis"},
		{"potts", "-lambda", "-3"},
		{"potts", "-lambda-scale", "NaN"},
		{"potts", "-lambda", "2", "-lambda-scale", "1"},
		{"potts", "-iters", "0"},
		{"potts", "-chains", "0"},
		{"potts", "-burn", "10", "-iters", "10"},
		{"potts", "stray"},
		{"default", "-seconds", "0"},
		{"default", "-seconds", "-1"},
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

func TestPottsJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "potts", "-width", "6", "-states", "3", "-beta", "0.5", "-iters", "20000", "-chains", "2", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"L", "lambda", "iterations", "factors_per_step", "marginal_l2_error", "seconds", "steps_per_second"} {
		if _, ok := got[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if got["iterations"].(float64) != 40000 {
		t.Errorf("iterations = %v, want 2 chains × 20000", got["iterations"])
	}
	if l2 := got["marginal_l2_error"].(float64); !(l2 >= 0 && l2 < 0.2) {
		t.Errorf("marginal ℓ2 error %v on a small warm model", l2)
	}
}

func TestDefaultJob(t *testing.T) {
	code, out, stderr := runCLI(t, "-seconds", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"Gibbs", "Poisson-Gibbs", "marginal ℓ2 error", "5.0878"} {
		if !strings.Contains(out, s) {
			t.Errorf("default output lacks %q:\n%s", s, out)
		}
	}
}
