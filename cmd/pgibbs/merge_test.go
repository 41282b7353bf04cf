package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMergeEqualsChains: for every sampling subcommand, the K parts of a
// run split with -chain k -of K, pooled by `pgibbs merge`, print what the
// same run with -chains K prints, timings aside.
func TestMergeEqualsChains(t *testing.T) {
	model, evid, mar := uaiFiles(t)
	weak := weakRBMFile(t)
	cases := [][]string{
		{"potts", "-width", "4", "-states", "3", "-iters", "30000", "-burn", "100"},
		{"uai", "-model", model, "-evidence", evid, "-mar", mar, "-sampler", "infer", "-iters", "20000"},
		{"uai", "-model", model, "-evidence", evid, "-mar", mar, "-sampler", "gibbs", "-iters", "20000"},
		// Sampled and shrunk toward loopy BP: the parts keep their chains'
		// batch records, and the merge shrinks the pooled marginals.
		{"uai", "-model", weak, "-exact-memory", "1K", "-iters", "40000"},
		{"spin", "-width", "3", "-iters", "3000", "-m", "3", "-k", "5"},
		{"tgm", "-n", "300", "-iters", "2000"},
		{"mh", "-model", "bias", "-K", "20", "-sampler", "tunamh", "-iters", "60000", "-burn", "10"},
		{"mh", "-model", "logistic", "-n", "300", "-d", "2", "-sampler", "flymc", "-iters", "2000"},
		{"lattice", "-size", "8", "-spin", "ising", "-beta", "0.4", "-sweeps", "40"},
		{"lattice", "-size", "8", "-states", "3", "-sampler", "chromatic", "-workers", "2", "-sweeps", "30"},
		{"lattice", "-size", "8", "-kernel", "power", "-spin", "ising", "-beta", "0.3", "-sampler", "wolff", "-sweeps", "40"},
		{"potts", "-width", "4", "-states", "3", "-sampler", "sw", "-iters", "300"},
	}
	const k = 3
	for _, args := range cases {
		t.Run(strings.Join(args[:1], ""), func(t *testing.T) {
			if testing.Short() && slices.Contains(args, weak) {
				t.Skip("the pilots of four answers (slow under -race, which CI runs with -short)")
			}
			code, want, stderr := runCLI(t, append(args, "-chains", fmt.Sprint(k), "-json")...)
			if code != 0 {
				t.Fatalf("%v -chains %d: exit %d: %s", args, k, code, stderr)
			}
			dir := t.TempDir()
			parts := []string{"merge", "-json"}
			for c := range k {
				code, out, stderr := runCLI(t, append(args, "-chain", fmt.Sprint(c), "-of", fmt.Sprint(k), "-json")...)
				if code != 0 {
					t.Fatalf("%v -chain %d -of %d: exit %d: %s", args, c, k, code, stderr)
				}
				p := filepath.Join(dir, fmt.Sprintf("c%d.json", c))
				if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				parts = append(parts, p)
			}
			// The parts in any order.
			parts[2], parts[4] = parts[4], parts[2]
			code, got, stderr := runCLI(t, parts...)
			if code != 0 {
				t.Fatalf("merge: exit %d: %s", code, stderr)
			}
			w, g := deterministic(t, want), deterministic(t, got)
			if wj, gj := mustJSON(w), mustJSON(g); wj != gj {
				t.Errorf("%v: merged parts differ from -chains %d:\n got %s\nwant %s", args, k, gj, wj)
			}
		})
	}
}

// TestMergeErrors: parts that are not one run, or not all of it, are
// refused with a message saying which.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	part := func(name string, args ...string) string {
		code, out, stderr := runCLI(t, append([]string{"potts", "-width", "3", "-states", "2", "-iters", "2000", "-json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c0, c1 := part("c0", "-chain", "0", "-of", "2"), part("c1", "-chain", "1", "-of", "2")
	other := part("o1", "-chain", "1", "-of", "2", "-seed", "7")
	whole := part("whole", "-chains", "2")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"none", []string{"merge"}, 2, "no parts"},
		{"missing chain", []string{"merge", c0}, 1, "chain 1 of 2 is missing"},
		{"twice", []string{"merge", c0, c0}, 1, "given twice"},
		{"other run", []string{"merge", c0, other}, 1, "parts of different runs"},
		{"not a part", []string{"merge", c0, whole}, 1, "not the output of a run with -chain k -of K"},
		{"not JSON", []string{"merge", filepath.Join(dir, "nope")}, 1, "no such file"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
	}
	if code, _, stderr := runCLI(t, "merge", c1, c0); code != 0 {
		t.Errorf("good parts: exit %d: %s", code, stderr)
	}
	for _, bad := range [][]string{{"-chain", "2", "-of", "2"}, {"-chain", "1"}, {"-chain", "0", "-of", "2", "-chains", "2"}} {
		code, _, stderr := runCLI(t, append([]string{"potts", "-width", "3", "-iters", "100"}, bad...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", bad, code, stderr)
		}
	}
}
