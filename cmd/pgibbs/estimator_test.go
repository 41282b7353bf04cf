package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// TestEstimator: marginals are Rao–Blackwellised by default for the
// samplers that report conditionals and counted for the others; -estimator
// counts restores visit counts; an explicit rb with a sampler that cannot
// serve it, or an unknown estimator, is a usage error.
func TestEstimator(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"potts", "-width", "4", "-states", "3", "-iters", "20000"}, "rb"},
		{[]string{"potts", "-width", "4", "-states", "3", "-iters", "20000", "-estimator", "counts"}, "counts"},
		{[]string{"potts", "-width", "4", "-states", "3", "-iters", "200", "-sampler", "sw"}, "counts"},
		{[]string{"uai", "-model", model, "-evidence", evid, "-mar", mar, "-iters", "20000", "-sampler", "gibbs"}, "rb"},
		{[]string{"uai", "-model", model, "-evidence", evid, "-mar", mar, "-iters", "20000", "-sampler", "mgpmh"}, "counts"},
	} {
		code, out, stderr := runCLI(t, append(tc.args, "-json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var o struct {
			Estimator string `json:"estimator"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		if o.Estimator != tc.want {
			t.Errorf("%v: estimator %q, want %q", tc.args, o.Estimator, tc.want)
		}
	}
	for _, args := range [][]string{
		{"potts", "-width", "4", "-iters", "100", "-estimator", "mean"},
		{"potts", "-width", "4", "-iters", "100", "-estimator", ""},
		{"potts", "-width", "4", "-iters", "100", "-sampler", "sw", "-estimator", "rb"},
		{"uai", "-model", model, "-iters", "100", "-sampler", "mingibbs", "-estimator", "rb"},
		{"lattice", "-size", "4", "-estimator", "rb"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d (stderr %q), want a usage error", args, code, stderr)
		}
	}
}

// TestUAIAnytime: -anytime writes solutions in the competitions' format
// whose last one is the run's final marginals (-out), and -mar adds the
// Hellinger error.
func TestUAIAnytime(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	dir := t.TempDir()
	any, out := filepath.Join(dir, "any.MAR"), filepath.Join(dir, "out.MAR")
	code, stdout, stderr := runCLI(t, "uai", "-model", model, "-evidence", evid, "-mar", mar, "-sampler", "gibbs", "-chains", "2",
		"-iters", "200000", "-anytime", any, "-out", out, "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o struct {
		Hellinger *float64 `json:"mean_hellinger"`
		Solutions int      `json:"anytime_solutions"`
	}
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatal(err)
	}
	last, n, err := uai.ReadAnytimeMARFile(any)
	if err != nil {
		t.Fatal(err)
	}
	final, err := uai.ReadMarginalsFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 || n != o.Solutions || !reflect.DeepEqual(last, final) {
		t.Errorf("%d solutions (JSON %d); last equals -out: %v", n, o.Solutions, reflect.DeepEqual(last, final))
	}
	if o.Hellinger == nil || !(*o.Hellinger >= 0 && *o.Hellinger < 0.1) {
		t.Errorf("mean Hellinger error %v", o.Hellinger)
	}
}

// TestUAIBlock: -sampler block runs, reports its blocks, honours -width,
// -forests, -boundary and -flips (phase flips on a pedigree, reported),
// and refuses them without it, out of range or together.
func TestUAIBlock(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	code, out, stderr := runCLI(t, "uai", "-model", model, "-evidence", evid, "-mar", mar, "-sampler", "block", "-width", "2",
		"-iters", "20000", "-chains", "2", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o struct {
		Blocks *struct {
			Count    int `json:"count"`
			MaxWidth int `json:"max_width"`
		} `json:"blocks"`
		MeanAbs float64 `json:"mean_abs_error"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if o.Blocks == nil || o.Blocks.Count < 1 || o.Blocks.MaxWidth > 2 || !(o.MeanAbs < 0.05) {
		t.Errorf("blocks %+v, mean abs error %v", o.Blocks, o.MeanAbs)
	}
	// A 4-cycle of soft pairs: blocks of width 1 cannot hold it, so they
	// have boundaries to minibatch.
	cycle := filepath.Join(t.TempDir(), "cycle.uai")
	if err := os.WriteFile(cycle, []byte("MARKOV\n4\n2 2 2 2\n4\n2 0 1\n2 1 2\n2 2 3\n2 3 0\n"+
		strings.Repeat("\n4\n2 1\n1 2\n", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{
		{"-model", model, "-evidence", evid, "-mar", mar, "-forests"},
		{"-model", cycle, "-boundary", "poisson", "-lambda-scale", "0.5", "-width", "1"},
	} {
		args := append([]string{"uai", "-sampler", "block", "-iters", "20000", "-chains", "2", "-json"}, extra...)
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		var o struct {
			Blocks struct {
				Minibatched int `json:"minibatched"`
			} `json:"blocks"`
			MeanAbs float64 `json:"mean_abs_error"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		if !(o.MeanAbs < 0.05) || (extra[1] == cycle) != (o.Blocks.Minibatched > 0) {
			t.Errorf("%v: mean abs error %v, %d blocks minibatched", extra, o.MeanAbs, o.Blocks.Minibatched)
		}
	}
	// -flips on a pedigree: its founder's phase flips are proposed and
	// reported.
	ped := filepath.Join(t.TempDir(), "ped.uai")
	if err := os.WriteFile(ped, []byte(pedigreeUAI()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "uai", "-model", ped, "-sampler", "block", "-flips", "-iters", "20000", "-json")
	if code != 0 {
		t.Fatalf("-flips: exit %d: %s", code, stderr)
	}
	var fo struct {
		Flips *struct {
			Groups   int   `json:"groups"`
			Proposed int64 `json:"proposed"`
		} `json:"phase_flips"`
		Sampler string `json:"sampler"`
	}
	if err := json.Unmarshal([]byte(out), &fo); err != nil {
		t.Fatal(err)
	}
	if fo.Flips == nil || fo.Flips.Groups == 0 || fo.Flips.Proposed == 0 {
		t.Errorf("-flips on Pedigree_11: %+v", fo.Flips)
	}
	for _, args := range [][]string{
		{"uai", "-model", model, "-width", "4"},
		{"uai", "-model", model, "-sampler", "block", "-width", "0"},
		{"uai", "-model", model, "-sampler", "gibbs", "-forests"},
		{"uai", "-model", model, "-sampler", "auto", "-boundary", "exact"},
		{"uai", "-model", model, "-sampler", "block", "-boundary", "sometimes"},
		{"uai", "-model", model, "-sampler", "block", "-forests", "-width", "3"},
		{"uai", "-model", model, "-sampler", "gibbs", "-flips"},
		{"uai", "-model", model, "-sampler", "gibbs", "-regions", "1000"},
		{"uai", "-model", model, "-sampler", "block", "-regions", "-1"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d (stderr %q), want a usage error", args, code, stderr)
		}
	}
}

// pedigreeUAI is a founder (alleles a_l, b_l: variables 2l, 2l+1) at two
// loci and two children inheriting from it (selectors s_kl: 4 + 2k + l;
// inherited alleles c_kl: 8 + 2k + l), as a UAI MARKOV model: allele
// priors, hard transmissions (c = a if s = 0, else b), recombination
// between a child's selectors, soft evidence on the children's alleles.
func pedigreeUAI() string {
	var scopes, tables []string
	add := func(scope []int, vals ...float64) {
		sc := fmt.Sprint(len(scope))
		for _, v := range scope {
			sc += fmt.Sprint(" ", v)
		}
		scopes = append(scopes, sc)
		tb := fmt.Sprint(len(vals))
		for _, v := range vals {
			tb += fmt.Sprint(" ", v)
		}
		tables = append(tables, tb)
	}
	for l := range 2 {
		add([]int{2 * l}, 0.6, 0.4)
		add([]int{2*l + 1}, 0.6, 0.4)
		for k := range 2 {
			s, c := 4+2*k+l, 8+2*k+l
			// Table order a, b, s, c (the last fastest).
			var t []float64
			for a := range 2 {
				for b := range 2 {
					for sv := range 2 {
						for cv := range 2 {
							want := a
							if sv == 1 {
								want = b
							}
							t = append(t, map[bool]float64{true: 1, false: 0}[cv == want])
						}
					}
				}
			}
			add([]int{2 * l, 2*l + 1, s, c}, t...)
			add([]int{c}, 0.3+0.2*float64(k), 0.7-0.2*float64(k))
			if l == 1 {
				add([]int{s - 1, s}, 0.9, 0.1, 0.1, 0.9)
			}
		}
	}
	return "MARKOV\n12\n" + strings.TrimSpace(strings.Repeat("2 ", 12)) + "\n" + fmt.Sprint(len(scopes)) + "\n" +
		strings.Join(scopes, "\n") + "\n\n" + strings.Join(tables, "\n\n") + "\n"
}
