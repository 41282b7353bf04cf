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
	for _, sampler := range strings.Split(continuousSamplers(), ", ") {
		args := []string{"spin", "-width", "5", "-sampler", sampler, "-iters", "3000", "-json", "-hist", hist}
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: not one JSON object: %v", sampler, err)
		}
		for _, k := range []string{"L", "iterations", "factors_per_step", "seconds", "steps_per_second", "mean_spin"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: JSON lacks %q", sampler, k)
			}
		}
		// λ is reported where it applies: by the minibatch samplers.
		if _, ok := got["lambda"]; ok != entry(sampler).Minibatched {
			t.Errorf("%s: JSON has λ: %v, want %v", sampler, ok, entry(sampler).Minibatched)
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

func TestTGMJSON(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "d.csv")
	for _, sampler := range []string{"pgda", "gibbs-its", "pg-rejection"} {
		iters := "2000"
		if sampler == "pg-rejection" {
			iters = "20" // ~1700 tries a step on this model
		}
		code, out, stderr := runCLI(t, "tgm", "-n", "200", "-beta", "0.05", "-box", "3", "-sampler", sampler, "-m", "6", "-k", "8",
			"-iters", iters, "-bins", "10", "-hist", hist, "-json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sampler, code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: not one JSON object: %v", sampler, err)
		}
		for _, k := range []string{"L", "iterations", "factors_per_step", "seconds", "steps_per_second", "mean_x1", "mean_x2"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: JSON lacks %q", sampler, k)
			}
		}
		if lambda, _ := got["lambda"].(float64); lambda != 500 && entry(sampler).Minibatched {
			t.Errorf("%s: default λ = %v, want the paper's 500", sampler, got["lambda"])
		}
	}
	data, err := os.ReadFile(hist)
	if err != nil || !strings.HasPrefix(string(data), "x1,x2,density\n") || strings.Count(string(data), "\n") != 101 {
		t.Errorf("density CSV: %v\n%.200s", err, data)
	}
	for _, args := range [][]string{{"tgm", "-n", "0"}, {"tgm", "-beta", "2"}, {"tgm", "-box", "-1"}, {"tgm", "-sampler", "mh"}, {"tgm", "-bins", "0"}} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
