package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/lattice/simulation"
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

// TestLatticeClusters: Swendsen–Wang and Wolff runs at β_c on a 16×16
// torus report the exact finite-torus energy and a Binder cumulant near
// U* ≈ 0.61 (0.6107 at infinite size; finite-size corrections at L = 16 are
// below 0.01), once, among the observables, and Wolff its clusters a
// sweep.
func TestLatticeClusters(t *testing.T) {
	bc := fmt.Sprint(math.Log(1+math.Sqrt2) / 2)
	exact, err := lattice.IsingTorusEnergy(16, math.Log(1+math.Sqrt2)/2)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"sw", "wolff"} {
		got := latticeJSON(t, "-size", "16", "-spin", "ising", "-beta", bc, "-sampler", s, "-sweeps", "4000", "-chains", "2")
		e, se := got["energy_per_site"].(float64), got["energy_error"].(float64)
		if math.Abs(e-exact) > 4*se || se > 0.01 {
			t.Errorf("%s: energy per site %v ± %v, exact %v", s, e, se, exact)
		}
		// One Binder cumulant, among the observables (not also at the top
		// level with another error bar).
		b, _ := got["observables"].(map[string]any)["binder"].(map[string]any)
		u, ok := b["mean"].(float64)
		if ue, _ := b["err"].(float64); !ok || math.Abs(u-0.6107) > 4*ue+0.01 || got["binder"] != nil {
			t.Errorf("%s: Binder cumulant %v ± %v (top level: %v), want about 0.61 among the observables only", s, b["mean"], b["err"], got["binder"])
		}
		if ks, _ := got["clusters_per_step"].([]any); (s == "wolff") != (len(ks) == 2) {
			t.Errorf("%s: clusters_per_step %v", s, got["clusters_per_step"])
		}
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
		{"-sampler", "sw", "-clusters", "3"},
		{"-sampler", "wolff", "-clusters", "0"},
		{"-sampler", "wolff", "-clusters", "many"},
		{"-sampler", "sw", "-beta", "-1"},
		{"-sampler", "wolff", "-spin", "continuous"},
		{"-update", "gibbs"},
		{"-workers", "2"},
		{"-chains", "0"},
		{"-chains", "5000"},
		{"-size", "4096", "-chains", "8"},
		{"-lambda", "-1"},
		{"-lambda", "1", "-lambda-scale", "1"},
		{"-sweeps", "3"},
		{"-burn", "-1"},
		{"-start", "warm"},
		{"-energy-samples", "-2"},
		{"-measure-every", "0"},
		{"-sweeps", "11", "-measure-every", "3"},
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

// TestLatticeMeasureEvery: -measure-every k measures sweeps k, 2k, … past
// the burn-in, the values the every-sweep run measures at those sweeps
// (exact energies draw nothing, so the chains are the same), for sweeps
// and for single-site updates.
func TestLatticeMeasureEvery(t *testing.T) {
	dir := t.TempDir()
	for _, sampler := range [][]string{{"-sampler", "chromatic", "-workers", "2"}, {"-sampler", "pgibbs"}, {"-sampler", "sw"}} {
		args := append([]string{"-size", "6", "-spin", "ising", "-beta", "0.4", "-sweeps", "300", "-burn", "20", "-seed", "8"}, sampler...)
		all, third := filepath.Join(dir, "all.csv"), filepath.Join(dir, "third.csv")
		a := latticeJSON(t, append(args, "-trace", all)...)
		b := latticeJSON(t, append(args, "-trace", third, "-measure-every", "3")...)
		if b["measurements"] != 100.0 || b["measure_every"] != 3.0 || a["measure_every"] != nil || b["steps"] != a["steps"] {
			t.Errorf("%v: %v measurements every %v sweeps, %v steps; want 100 every 3, %v steps", sampler, b["measurements"], b["measure_every"], b["steps"], a["steps"])
		}
		sa, ea, ma := readMeasurements(t, all)
		sb, eb, mb := readMeasurements(t, third)
		if len(sb) != 100 {
			t.Fatalf("%v: %d rows", sampler, len(sb))
		}
		for k := range sb {
			if j := 3*k + 2; sb[k] != sa[j] || eb[k] != ea[j] || mb[k] != ma[j] || sb[k] != 20+3*(k+1) {
				t.Fatalf("%v: row %d: sweep %d (%v, %v); every-sweep run's sweep %d (%v, %v)", sampler, k, sb[k], eb[k], mb[k], sa[j], ea[j], ma[j])
			}
		}
	}
}

// readMeasurements reads a lattice trace file: the sweep numbers and the
// two series.
func readMeasurements(t *testing.T, path string) (sweeps []int, energy, mag []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "sweep,energy_per_site,magnetisation" {
		t.Fatalf("%s: header %v", path, rows[:min(1, len(rows))])
	}
	for _, r := range rows[1:] {
		s, err1 := strconv.Atoi(r[0])
		e, err2 := strconv.ParseFloat(r[1], 64)
		m, err3 := strconv.ParseFloat(r[2], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s: row %v", path, r)
		}
		sweeps, energy, mag = append(sweeps, s), append(energy, e), append(mag, m)
	}
	return sweeps, energy, mag
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// TestLatticeChains: -chains 3 runs three distinct chains, the first of
// which is the single-chain run, pools their estimates and reports R̂ and
// bulk ESS of the per-sweep series; the trace files hold those series.
func TestLatticeChains(t *testing.T) {
	dir := t.TempDir()
	for _, sampler := range [][]string{{"-sampler", "pgibbs"}, {"-sampler", "chromatic", "-workers", "2"}} {
		args := append([]string{"-size", "8", "-spin", "ising", "-beta", "0.3", "-sweeps", "800", "-burn", "50", "-seed", "4"}, sampler...)
		one := filepath.Join(dir, "one.csv")
		single := latticeJSON(t, append(args, "-trace", one)...)
		three := filepath.Join(dir, "three.csv")
		got := latticeJSON(t, append(args, "-chains", "3", "-trace", three)...)
		if got["chains"] != 3.0 || single["chains"] != 1.0 {
			t.Errorf("%v: chains %v and %v", sampler, single["chains"], got["chains"])
		}
		if got["steps"] != 3*64*850.0 || got["measurements"] != 800.0 {
			t.Errorf("%v: %v steps, %v measurements; want 3 chains × 64 sites × 850 sweeps and 800 a chain", sampler, got["steps"], got["measurements"])
		}
		// Chain 0 is the single-chain run; the others differ.
		if fileHash(t, one) != fileHash(t, tracePath(three, 0, 3)) {
			t.Errorf("%v: chain 0 of three differs from the single chain", sampler)
		}
		var es, ms []float64
		for c := range 3 {
			sw, e, m := readMeasurements(t, tracePath(three, c, 3))
			if len(sw) != 800 || sw[0] != 51 || sw[799] != 850 {
				t.Fatalf("%v: chain %d's trace has %d rows, sweeps %d to %d; want 800, 51 to 850", sampler, c, len(sw), sw[0], sw[len(sw)-1])
			}
			if c > 0 && fileHash(t, tracePath(three, c, 3)) == fileHash(t, tracePath(three, c-1, 3)) {
				t.Errorf("%v: chains %d and %d are the same chain", sampler, c-1, c)
			}
			es, ms = append(es, mean(e)), append(ms, mean(m))
		}
		// The pooled means are the chains' means averaged.
		if e := got["energy_per_site"].(float64); math.Abs(e-mean(es)) > 1e-12 {
			t.Errorf("%v: pooled energy %v, mean of the chains' traces %v", sampler, e, mean(es))
		}
		if m := got["magnetisation"].(float64); math.Abs(m-mean(ms)) > 1e-12 {
			t.Errorf("%v: pooled magnetisation %v, mean of the chains' traces %v", sampler, m, mean(ms))
		}
		// At β = 0.3 (disordered) the chains mix in a few sweeps: R̂ ≈ 1
		// and the bulk ESS is within a small factor of 3·800 draws over
		// the correlation time.
		rhat, ok := got["rhat_max"].(float64)
		ess := got["ess_bulk_min"].(float64)
		if !ok || !(rhat > 0.99 && rhat < 1.05) {
			t.Errorf("%v: R̂ %v", sampler, got["rhat_max"])
		}
		tau := max(got["energy_tau"].(float64), got["magnetisation_tau"].(float64), 1)
		if want := 3 * 800 / tau; !(ess > want/4 && ess < 4*want) {
			t.Errorf("%v: bulk ESS %v, expected about %v (τ = %v)", sampler, ess, want, tau)
		}
		// One chain is judged too: R̂ compares its halves.
		if r, ok := single["rhat_max"].(float64); !ok || !(r > 0.99 && r < 1.1) || !(single["ess_bulk_min"].(float64) > 0) {
			t.Errorf("%v: one chain: R̂ %v, ESS %v; want split-R̂ near 1 and some ESS", sampler, single["rhat_max"], single["ess_bulk_min"])
		}
		// Three chains' error bar is about a single chain's over √3.
		if r := got["energy_error"].(float64) * math.Sqrt(3) / single["energy_error"].(float64); !(r > 0.5 && r < 2) {
			t.Errorf("%v: pooled energy error %v, single chain %v", sampler, got["energy_error"], single["energy_error"])
		}
		if len(got["state_sha256"].(string)) != 64 || got["state_sha256"] == single["state_sha256"] {
			t.Errorf("%v: state hashes %v, %v", sampler, single["state_sha256"], got["state_sha256"])
		}
	}
}

// latticeCases are runs for the resume tests: a systematic-scan one that
// stops mid-sweep and a chromatic one that stops between sweeps, each of
// two chains with Monte Carlo or exact energies.
var latticeCases = []struct {
	name string
	args []string
}{
	{"pgibbs", []string{"lattice", "-size", "16", "-spin", "ising", "-beta", "0.44", "-chains", "2", "-sweeps", "6000", "-seed", "2"}},
	{"chromatic", []string{"lattice", "-size", "16", "-states", "3", "-beta", "1", "-sampler", "chromatic", "-workers", "2",
		"-chains", "2", "-sweeps", "6000", "-seed", "3"}},
	{"power", []string{"lattice", "-size", "10", "-kernel", "power", "-states", "3", "-beta", "0.4", "-sweeps", "8000"}},
	// Wolff's tuned clusters a step are part of the chain's snapshot.
	{"wolff", []string{"lattice", "-size", "12", "-kernel", "power", "-spin", "ising", "-beta", "0.3", "-sampler", "wolff",
		"-chains", "2", "-sweeps", "20000"}},
	{"sw", []string{"lattice", "-size", "32", "-spin", "ising", "-beta", "0.44", "-sampler", "sw", "-sweeps", "8000"}},
	// One measurement every 7 sweeps, Monte Carlo energies.
	{"every", []string{"lattice", "-size", "16", "-kernel", "power", "-spin", "ising", "-beta", "0.3", "-sampler", "chromatic",
		"-cutoff", "3", "-energy-samples", "50", "-workers", "2", "-sweeps", "7000", "-measure-every", "7", "-seed", "5"}},
}

// TestLatticeCheckpointResume: a lattice run interrupted several times and
// resumed ends with the state, outputs and trace files of an uninterrupted
// run.
func TestLatticeCheckpointResume(t *testing.T) {
	for _, tc := range latticeCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ref := filepath.Join(dir, "ref.csv")
			code, want, stderr := runCLI(t, append(tc.args, "-json", "-trace", ref)...)
			if code != 0 {
				t.Fatalf("uninterrupted run: exit %d: %s", code, stderr)
			}
			ck, tr := filepath.Join(dir, "ck"), filepath.Join(dir, "tr.csv")
			args := append(tc.args, "-json", "-trace", tr, "-checkpoint", ck, "-checkpoint-every", "10ms")
			code, _, stderr = runCtx(t, 60*time.Millisecond, args...)
			if code != 130 || !strings.Contains(stderr, "-resume "+ck) {
				t.Fatalf("interrupted run: exit %d, stderr %q; want 130 and how to resume", code, stderr)
			}
			var got string
			for range 4 {
				code, got, stderr = runCtx(t, 40*time.Millisecond, "lattice", "-resume", ck, "-json")
				if code == 0 {
					break
				}
				if code != 130 {
					t.Fatalf("resumed run: exit %d: %s", code, stderr)
				}
			}
			if code != 0 {
				if code, got, stderr = runCLI(t, "lattice", "-resume", ck, "-json"); code != 0 {
					t.Fatalf("final resumed run: exit %d: %s", code, stderr)
				}
			}
			w, g := deterministic(t, want), deterministic(t, got)
			delete(w, "setup_seconds")
			delete(g, "setup_seconds")
			if wj, gj := mustJSON(w), mustJSON(g); wj != gj {
				t.Errorf("resumed run differs from the uninterrupted one:\n got %s\nwant %s", gj, wj)
			}
			chains := 1
			if k := slices.Index(tc.args, "-chains"); k >= 0 {
				chains, _ = strconv.Atoi(tc.args[k+1])
			}
			for c := range chains {
				if a, b := fileHash(t, tracePath(ref, c, chains)), fileHash(t, tracePath(tr, c, chains)); a != b {
					t.Errorf("trace of chain %d differs after interruptions", c)
				}
			}
		})
	}
}

// TestLatticeCheckpointErrors: corrupt checkpoints, and checkpoints whose
// contents do not fit the run they describe, are refused with a message
// saying what is wrong; the good one still resumes.
func TestLatticeCheckpointErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range latticeCases[:2] {
		ck := filepath.Join(dir, tc.name)
		code, _, stderr := runCtx(t, 60*time.Millisecond, append(tc.args, "-checkpoint", ck, "-checkpoint-every", "10ms")...)
		if code != 130 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		good, err := chain.ReadCheckpoint(ck)
		if err != nil {
			t.Fatal(err)
		}
		nbad := 0
		mutate := func(f func(c *chain.Checkpoint, m *chain.Meta)) string {
			var c chain.Checkpoint
			var m chain.Meta
			b, _ := json.Marshal(good)
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(c.Meta, &m); err != nil {
				t.Fatal(err)
			}
			f(&c, &m)
			c.Meta, _ = json.Marshal(m)
			nbad++
			p := filepath.Join(dir, tc.name+strconv.Itoa(nbad))
			if err := chain.WriteCheckpoint(p, &c); err != nil {
				t.Fatal(err)
			}
			return p
		}
		setArg := func(m *chain.Meta, name, value string) {
			for k, a := range m.Args {
				if strings.HasPrefix(a, "-"+name+"=") {
					m.Args[k] = "-" + name + "=" + value
				}
			}
		}
		raw, err := os.ReadFile(ck)
		if err != nil {
			t.Fatal(err)
		}
		flipped := bytes.Clone(raw)
		flipped[len(flipped)/2] ^= 0x01
		flippedPath := filepath.Join(dir, tc.name+"flipped")
		if err := os.WriteFile(flippedPath, flipped, 0o644); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name, path, want string
		}{
			{"bit flip", flippedPath, "corrupt"},
			{"other chain count", mutate(func(_ *chain.Checkpoint, m *chain.Meta) { setArg(m, "chains", "3") }), "holds 2 chains, the run 3"},
			{"past the end", mutate(func(c *chain.Checkpoint, _ *chain.Meta) { c.Chains[0].Steps = 1 << 40 }), "more than the run's"},
			{"lost measurements", mutate(func(c *chain.Checkpoint, _ *chain.Meta) { c.Chains[1].Observers = nil }), "observers"},
			{"lost generator", mutate(func(c *chain.Checkpoint, _ *chain.Meta) { c.Chains[0].Sources[0] = c.Chains[0].Sources[0][:7] }), "random source 0"},
			{"other energies", mutate(func(_ *chain.Checkpoint, m *chain.Meta) { setArg(m, "energy-samples", "10") }), "sampled pairs"},
		}
		if tc.name == "chromatic" {
			cases = append(cases,
				struct{ name, path, want string }{"other workers", mutate(func(_ *chain.Checkpoint, m *chain.Meta) { setArg(m, "workers", "3") }), "random sources"},
				struct{ name, path, want string }{"other update", mutate(func(_ *chain.Checkpoint, m *chain.Meta) { setArg(m, "update", "gibbs") }), "restore gibbs from a snapshot of auto"})
		} else {
			cases = append(cases,
				struct{ name, path, want string }{"other sampler", mutate(func(_ *chain.Checkpoint, m *chain.Meta) { setArg(m, "sampler", "gibbs") }), "restore gibbs from a snapshot of pgibbs"},
				struct{ name, path, want string }{"other size", mutate(func(_ *chain.Checkpoint, m *chain.Meta) { setArg(m, "size", "12") }), "the model 144"})
		}
		for _, bc := range cases {
			code, _, stderr := runCLI(t, "lattice", "-resume", bc.path)
			if code != 1 || !strings.Contains(stderr, bc.want) {
				t.Errorf("%s, %s: exit %d, stderr %q; want 1 and %q", tc.name, bc.name, code, stderr, bc.want)
			}
		}
		if code, _, stderr := runCLI(t, "lattice", "-resume", ck); code != 0 {
			t.Errorf("%s: good checkpoint: exit %d: %s", tc.name, code, stderr)
		}
	}
}

// TestLatticeObservables: the record carries the finite-size-scaling
// observables with jackknife errors, -reweight reports the reweighted
// ones on its grid (refusing β outside the window) and χ's peak, and
// refuses Monte Carlo energies and malformed grids.
func TestLatticeObservables(t *testing.T) {
	code, out, stderr := runCLI(t, "lattice", "-size", "16", "-spin", "ising", "-beta", "0.44", "-sampler", "sw", "-sweeps", "800",
		"-reweight", "0.42:0.46:5", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o struct {
		Observables struct {
			Chi, Binder, Xi struct{ Mean, Err *float64 }
			SpecificHeat    *struct{ Mean, Err *float64 } `json:"specific_heat"`
		}
		Reweight struct {
			Window [2]float64
			Points []struct {
				Beta        float64
				Observables *struct{ Chi struct{ Mean *float64 } }
				Refused     string
			}
			Peak *struct{ Beta, Height struct{ Mean, Err *float64 } } `json:"chi_peak"`
		}
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	ob := o.Observables
	if ob.Chi.Mean == nil || ob.Chi.Err == nil || ob.Binder.Mean == nil || ob.Xi.Mean == nil || ob.SpecificHeat == nil || ob.SpecificHeat.Mean == nil {
		t.Errorf("observables: %+v", ob)
	}
	rw := o.Reweight
	if len(rw.Points) != 5 || rw.Peak == nil || rw.Peak.Beta.Mean == nil || !(rw.Window[0] < 0.44 && rw.Window[1] > 0.44) {
		t.Fatalf("reweight: %+v", rw)
	}
	for _, p := range rw.Points {
		inside := p.Beta >= rw.Window[0] && p.Beta <= rw.Window[1]
		if inside != (p.Observables != nil) || !inside && p.Refused == "" {
			t.Errorf("β = %v (window %v): observables %v, refused %q", p.Beta, rw.Window, p.Observables != nil, p.Refused)
		}
	}
	for _, args := range [][]string{
		{"-kernel", "power", "-size", "16", "-reweight", "0.1:0.2:3"},
		{"-reweight", "0.5:0.4:3"},
		{"-reweight", "0.4:0.5"},
	} {
		if code, _, stderr := runCLI(t, append([]string{"lattice", "-spin", "ising", "-sampler", "sw", "-sweeps", "20"}, args...)...); code != 2 || !strings.Contains(stderr, "-reweight") {
			t.Errorf("%v: exit %d, %q; want a usage error about -reweight", args, code, stderr)
		}
	}
}

// TestLatticeLibrarySame: simulation.Run with the configuration the flags
// make gives the numbers `pgibbs lattice` prints, bit for bit, for the
// same seed (one run of each kind: single-site with Monte Carlo energies,
// chromatic, a cluster move with reweighting).
func TestLatticeLibrarySame(t *testing.T) {
	for _, tc := range []struct {
		args []string
		cfg  simulation.Config
	}{
		{[]string{"-size", "8", "-kernel", "power", "-states", "3", "-beta", "0.4", "-sweeps", "40", "-chains", "2", "-seed", "5", "-start", "cold"},
			simulation.Config{Params: lattice.Params{Dim: 2, Size: 8, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(3), Beta: 0.4},
				Sampler: "pgibbs", Samplers: samplers.Config{Clusters: samplers.TuneClusters}, Chains: 2, Seed: 5, Sweeps: 40, Burn: 4, Start: simulation.Cold}},
		{[]string{"-size", "8", "-spin", "ising", "-beta", "0.4", "-sampler", "chromatic", "-workers", "2", "-sweeps", "60", "-burn", "5", "-measure-every", "2"},
			simulation.Config{Params: lattice.Params{Dim: 2, Size: 8, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.4},
				Sampler: simulation.Chromatic, Workers: 2, Seed: 1, Sweeps: 60, Burn: 5, MeasureEvery: 2}},
		{[]string{"-size", "16", "-spin", "ising", "-beta", "0.44", "-sampler", "sw", "-sweeps", "400", "-reweight", "0.42:0.46:3"},
			simulation.Config{Params: lattice.Params{Dim: 2, Size: 16, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.44},
				Sampler: "sw", Seed: 1, Sweeps: 400, Burn: 40, Reweight: &simulation.Grid{Lo: 0.42, Hi: 0.46, N: 3}}},
	} {
		cli := latticeJSON(t, tc.args...)
		res, err := simulation.Run(context.Background(), tc.cfg)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		b, _ := json.Marshal(res)
		var lib map[string]any
		if err := json.Unmarshal(b, &lib); err != nil {
			t.Fatal(err)
		}
		est := res.Estimates()
		if cli["energy_per_site"] != est.EnergyPerSite || cli["energy_error"] != est.EnergyError || cli["magnetisation"] != est.Magnetisation ||
			cli["magnetisation_error"] != est.MagnetisationError || cli["steps"] != float64(res.Stats.Steps) || cli["rhat_max"] != res.Verdict.RHatMax {
			t.Errorf("%v: CLI %v ± %v, %v ± %v, %v steps, R̂ %v; library %+v, %d steps, R̂ %v", tc.args, cli["energy_per_site"], cli["energy_error"],
				cli["magnetisation"], cli["magnetisation_error"], cli["steps"], cli["rhat_max"], est, res.Stats.Steps, res.Verdict.RHatMax)
		}
		for _, k := range []string{"observables", "reweight"} {
			if c, l := mustJSON(cli[k]), mustJSON(lib[k]); c != l || cli[k] == nil && (k == "observables" || tc.cfg.Reweight != nil) {
				t.Errorf("%v: %s differ:\nCLI     %s\nlibrary %s", tc.args, k, c, l)
			}
		}
	}
}
