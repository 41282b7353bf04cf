package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSpinJSON(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.csv")
	for _, sampler := range continuousSamplers {
		args := []string{"spin", "-width", "5", "-sampler", sampler, "-iters", "3000", "-json", "-hist", hist}
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: not one JSON object: %v", sampler, err)
		}
		for _, k := range []string{"L", "lambda", "iterations", "factors_per_step", "seconds", "steps_per_second", "mean_spin"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: JSON lacks %q", sampler, k)
			}
		}
		if m := got["mean_spin"].(float64); !(m > 0 && m < 1) {
			t.Errorf("%s: mean spin %v outside (0, 1)", sampler, m)
		}
	}
	data, err := os.ReadFile(hist)
	if err != nil || !strings.HasPrefix(string(data), "bin,lo,hi,probability\n") || strings.Count(string(data), "\n") != 51 {
		t.Errorf("histogram CSV: %v\n%.200s", err, data)
	}
}

func TestSpinUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"spin", "-sampler", "gibbs"},
		{"spin", "-m", "0"},
		{"spin", "-k", "-1"},
		{"spin", "-width", "1"},
		{"spin", "-gamma", "0"},
		{"spin", "-bins", "0"},
		{"spin", "-lambda", "-2"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, stderr)
		}
	}
	code, _, stderr := runCLI(t, "spin", "-iters", "10", "-hist", "/nonexistent-dir/h.csv")
	if code != 1 || !strings.Contains(stderr, "nonexistent-dir") {
		t.Errorf("unwritable -hist: exit %d, %q", code, stderr)
	}
}
