package main

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// latticeJSON runs `pgibbs lattice args… -json` and decodes its output.
func latticeJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, stderr := runCLI(t, append(append([]string{"lattice"}, args...), "-json")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: output is not one JSON object: %v\n%s", args, err, out)
	}
	return got
}

func TestLatticeJSON(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		offsets float64
		method  string
	}{
		{[]string{"-dim", "2", "-size", "8", "-kernel", "nn", "-states", "3", "-beta", "0.5", "-sampler", "pgibbs", "-sweeps", "40"}, 4, "exact"},
		{[]string{"-dim", "2", "-size", "10", "-kernel", "power", "-sigma", "0.5", "-spin", "ising", "-beta", "0.2", "-sweeps", "20"}, 99, "monte-carlo"},
		{[]string{"-dim", "1", "-size", "30", "-kernel", "gaussian", "-gamma", "0.1", "-sampler", "gibbs", "-sweeps", "20", "-energy-samples", "-1"}, 29, "exact"},
		{[]string{"-dim", "3", "-size", "4", "-kernel", "nn", "-sampler", "chromatic", "-workers", "2", "-sweeps", "20", "-start", "cold"}, 6, "exact"},
		{[]string{"-dim", "2", "-size", "6", "-kernel", "gaussian", "-cutoff", "1.5", "-spin", "continuous", "-lo", "-1", "-hi", "1",
			"-sampler", "chromatic", "-update", "pgda", "-sweeps", "10"}, 8, "exact"},
		{[]string{"-dim", "2", "-size", "6", "-kernel", "nn", "-spin", "continuous", "-sampler", "pg-rejection", "-sweeps", "10"}, 4, "exact"},
	} {
		got := latticeJSON(t, tc.args...)
		for _, k := range []string{"dim", "size", "kernel", "states", "beta", "L", "lambda", "sweeps", "energy_per_site", "energy_error",
			"magnetisation", "magnetisation_error", "seconds", "steps_per_second", "factors_per_step"} {
			if _, ok := got[k]; !ok && !(k == "states" && got["spin"] == "continuous") && !(k == "lambda" && got["sampler"] == "gibbs") {
				t.Errorf("%v: JSON lacks %q", tc.args, k)
			}
		}
		if got["offsets"] != tc.offsets || got["energy_method"] != tc.method {
			t.Errorf("%v: %v offsets, energy %v; want %v, %s", tc.args, got["offsets"], got["energy_method"], tc.offsets, tc.method)
		}
		sites := got["sites"].(float64)
		sweeps, burn := got["sweeps"].(float64), got["burn"].(float64)
		if got["steps"].(float64) != sites*(sweeps+burn) || got["measurements"].(float64) != sweeps {
			t.Errorf("%v: %v steps and %v measurements for %v sites × (%v + %v) sweeps", tc.args, got["steps"], got["measurements"], sites, sweeps, burn)
		}
		e, m := got["energy_per_site"].(float64), got["magnetisation"].(float64)
		if math.IsNaN(e) || !(m >= 0 && m <= 1) || !(got["energy_error"].(float64) >= 0) {
			t.Errorf("%v: energy %v, magnetisation %v", tc.args, e, m)
		}
	}
}

// TestLatticeIsing: the CLI reproduces Onsager's energy per site at β = 0.6
// (−1.90909) within its own error bar on a small torus.
func TestLatticeIsing(t *testing.T) {
	got := latticeJSON(t, "-size", "16", "-spin", "ising", "-beta", "0.6", "-sampler", "chromatic", "-update", "gibbs",
		"-sweeps", "2000", "-start", "cold", "-seed", "3")
	e, se := got["energy_per_site"].(float64), got["energy_error"].(float64)
	if math.Abs(e-(-1.90909)) > 4*se || se > 0.01 {
		t.Errorf("energy per site %v ± %v, Onsager −1.90909", e, se)
	}
	if got["colour_classes"].(float64) != 2 {
		t.Errorf("%v colour classes for an even nearest-neighbour torus", got["colour_classes"])
	}
}

func TestLatticeDeterministic(t *testing.T) {
	args := []string{"-size", "12", "-kernel", "power", "-states", "3", "-beta", "0.4", "-sweeps", "10", "-seed", "5"}
	a, b := latticeJSON(t, args...), latticeJSON(t, args...)
	for _, k := range []string{"energy_per_site", "magnetisation", "factors_per_step"} {
		if a[k] != b[k] {
			t.Errorf("%s differs between runs with the same seed: %v, %v", k, a[k], b[k])
		}
	}
}

func TestLatticeText(t *testing.T) {
	code, out, stderr := runCLI(t, "lattice", "-size", "8", "-sweeps", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"energy per site", "magnetisation", "steps/s", "L = "} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestLatticeSnapshot(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		w, h int
	}{
		{[]string{"-dim", "2", "-size", "8", "-states", "4", "-snapshot-scale", "3"}, 24, 24},
		{[]string{"-dim", "3", "-size", "4"}, 256, 256},
		{[]string{"-dim", "1", "-size", "40"}, 480, 96},
		{[]string{"-dim", "2", "-size", "6", "-spin", "continuous", "-sampler", "pgda", "-snapshot-scale", "1"}, 6, 6},
	} {
		path := filepath.Join(dir, "snap.png")
		args := append(tc.args, "-sweeps", "4", "-snapshot", path)
		got := latticeJSON(t, args...)
		if got["snapshot"] != path {
			t.Errorf("%v: snapshot %v", tc.args, got["snapshot"])
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if b := img.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
			t.Errorf("%v: %d×%d picture, want %d×%d", tc.args, b.Dx(), b.Dy(), tc.w, tc.h)
		}
	}
	code, _, stderr := runCLI(t, "lattice", "-size", "4", "-sweeps", "4", "-snapshot", filepath.Join(dir, "missing", "x.png"))
	if code != 1 || stderr == "" {
		t.Errorf("unwritable snapshot: exit %d, stderr %q", code, stderr)
	}
}

// TestLatticeUsageErrors: bad command lines exit 2 with a message.
func TestLatticeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-dim", "0"},
		{"-dim", "4"},
		{"-size", "1"},
		{"-size", "2"}, // nn needs 3
		{"-dim", "3", "-size", "1000"},
		{"-kernel", "yukawa"},
		{"-kernel", "gaussian", "-gamma", "0"},
		{"-kernel", "gaussian", "-gamma", "NaN"},
		{"-kernel", "power", "-sigma", "-1"},
		{"-gamma", "2"},
		{"-sigma", "2"},
		{"-cutoff", "-1"},
		{"-cutoff", "0.5"},
		{"-states", "1"},
		{"-spin", "heisenberg"},
		{"-spin", "ising", "-states", "3"},
		{"-spin", "continuous", "-states", "3"},
		{"-spin", "continuous", "-lo", "1", "-hi", "1"},
		{"-lo", "0"},
		{"-beta", "0"},
		{"-beta", "NaN"},
		{"-beta", "Inf"},
		{"-sampler", "metropolis"},
		{"-sampler", "mingibbs"},
		{"-sampler", "pgda"},
		{"-spin", "continuous", "-sampler", "pgibbs"},
		{"-sampler", "chromatic", "-update", "mingibbs"},
		{"-sampler", "chromatic", "-update", "pgda"},
		{"-sampler", "chromatic", "-workers", "0"},
		{"-sampler", "chromatic", "-kernel", "power"},
		{"-update", "gibbs"},
		{"-workers", "2"},
		{"-lambda", "-1"},
		{"-lambda", "1", "-lambda-scale", "1"},
		{"-sweeps", "3"},
		{"-burn", "-1"},
		{"-start", "warm"},
		{"-energy-samples", "-2"},
		{"-snapshot-scale", "2"},
		{"-snapshot-scale", "100", "-snapshot", "x.png"},
		{"stray"},
	} {
		code, _, stderr := runCLI(t, append([]string{"lattice", "-size", "6"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if stderr == "" {
			t.Errorf("%v: no message on stderr", args)
		}
	}
}
