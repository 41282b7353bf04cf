package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestUntil: -until-rhat stops a run when its chains agree (stopped_by
// converged, fewer steps than the ceiling), reports the ceiling otherwise,
// and refuses what it cannot do.
func TestUntil(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"uai", "-model", model, "-evidence", evid, "-mar", mar, "-sampler", "gibbs", "-chains", "2", "-iters", "50000000", "-until-rhat", "1.05", "-min-ess", "100"}, "converged"},
		{[]string{"uai", "-model", model, "-evidence", evid, "-sampler", "gibbs", "-chains", "2", "-iters", "3000", "-until-rhat", "1.00001", "-min-ess", "2000"}, "ceiling"},
		{[]string{"lattice", "-size", "16", "-spin", "ising", "-beta", "0.3", "-sampler", "sw", "-chains", "2", "-sweeps", "1000000", "-until-rhat", "1.05"}, "converged"},
	} {
		code, out, stderr := runCLI(t, append(tc.args, "-json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var o struct {
			StoppedBy string   `json:"stopped_by"`
			Checks    int      `json:"checks"`
			Rhat      *float64 `json:"rhat_max"`
			Iters     int64    `json:"iterations"`
			Sweeps    int64    `json:"sweeps"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		if o.StoppedBy != tc.want || o.Checks < 1 {
			t.Errorf("%v: stopped by %q after %d checks, want %q", tc.args, o.StoppedBy, o.Checks, tc.want)
		}
		if tc.want == "converged" && (o.Rhat == nil || *o.Rhat >= 1.05) {
			t.Errorf("%v: converged with R̂ %v", tc.args, o.Rhat)
		}
	}
	// One chain has a stopping rule too (split-R̂ compares its halves).
	for _, args := range [][]string{
		{"uai", "-model", model, "-sampler", "gibbs", "-until-rhat", "1.05", "-iters", "2000000"},
	} {
		code, out, stderr := runCLI(t, append(args, "-json")...)
		var o struct {
			StoppedBy string `json:"stopped_by"`
			Converged bool   `json:"converged"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &o) != nil || o.StoppedBy != "converged" || !o.Converged {
			t.Errorf("%v: exit %d, stopped by %q, converged %v (stderr %q)", args, code, o.StoppedBy, o.Converged, stderr)
		}
	}
	for _, args := range [][]string{
		{"uai", "-model", model, "-chains", "2", "-until-rhat", "0.9"},
		{"uai", "-model", model, "-chains", "2", "-min-ess", "5"},
		{"uai", "-model", model, "-chains", "2", "-until-rhat", "1.01", "-chain", "0", "-of", "2"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d (stderr %q), want a usage error", args, code, stderr)
		}
	}
}

// TestPlot: -plot writes the convergence pictures into the named directory
// (and nowhere else) and lists them; a missing directory is a usage error.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "lattice", "-size", "8", "-spin", "ising", "-beta", "0.3", "-sampler", "sw", "-chains", "2",
		"-sweeps", "200", "-plot", dir, "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o struct {
		Plots []string `json:"plots"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// energy and magnetisation: trace and rank plots, and the running R̂, as PNG and SVG.
	if len(o.Plots) != 10 || len(entries) != 10 {
		t.Errorf("%d files listed, %d in the directory; want 10: %v", len(o.Plots), len(entries), o.Plots)
	}
	if code, _, stderr := runCLI(t, "lattice", "-size", "8", "-sweeps", "20", "-plot", filepath.Join(dir, "missing")); code != 2 || stderr == "" {
		t.Errorf("missing -plot directory: exit %d, stderr %q", code, stderr)
	}
}
