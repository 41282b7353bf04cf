package chain_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// walkChain is chain k of a run of walks: its stream is the k-th of seed 1.
func walkChain(k int) *chain.Chain {
	return &chain.Chain{Kernel: newWalk(3, 2, true, chain.Source(1, k))}
}

// writePart runs chain k of a run of `of` and writes its part to dir/name,
// as `pgibbs … -chain k -of K -json` does; edit changes the part first.
func writePart(t *testing.T, dir, name string, k, of int, m chain.Meta, edit func(*chain.Part)) string {
	t.Helper()
	c := walkChain(k)
	if err := (&chain.Runner{Steps: 500}).Run(context.Background(), []*chain.Chain{c}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Save()
	if err != nil {
		t.Fatal(err)
	}
	m.Args = append([]string{"-chain=" + strconv.Itoa(k)}, m.Args...)
	p := &chain.Part{Meta: m, Chain: k, Of: of, Seconds: float64(k + 1), State: st}
	if edit != nil {
		edit(p)
	}
	data, err := json.Marshal(map[string]any{"parts": []*chain.Part{p}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPartsPoolLikeOneRun: the parts of a run split in two, read in any
// order and restored, end where the run in one process ends.
func TestPartsPoolLikeOneRun(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "model.txt")
	if err := os.WriteFile(input, []byte("weights 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := chain.HashFiles(input)
	if err != nil {
		t.Fatal(err)
	}
	m := chain.Meta{Command: "walk", Args: []string{"-seed=1"}, Inputs: in}
	c1, c0 := writePart(t, dir, "c1", 1, 2, m, nil), writePart(t, dir, "c0", 0, 2, m, nil)
	parts, err := chain.ReadParts([]string{c1, c0})
	if err != nil {
		t.Fatal(err)
	}
	merged := []*chain.Chain{walkChain(0), walkChain(1)}
	seconds, err := chain.RestoreParts(parts, merged)
	if err != nil || seconds != 2 {
		t.Fatalf("RestoreParts: %v seconds, %v; want the slowest part's 2", seconds, err)
	}
	whole := []*chain.Chain{walkChain(0), walkChain(1)}
	if err := (&chain.Runner{Steps: 500}).Run(context.Background(), whole); err != nil {
		t.Fatal(err)
	}
	if got, want := chain.StateHash(chain.States(merged)...), chain.StateHash(chain.States(whole)...); got != want {
		t.Errorf("merged parts' state hash %s, the whole run's %s", got, want)
	}
	if _, err := chain.RestoreParts(parts, whole[:1]); err == nil {
		t.Error("RestoreParts with a chain too few: no error")
	}

	// Bad parts, each refused with a message naming the file at fault.
	other := writePart(t, dir, "o1", 1, 2, chain.Meta{Command: "walk", Args: []string{"-seed=7"}, Inputs: in}, nil)
	moved := writePart(t, dir, "m1", 1, 2, chain.Meta{Command: "walk", Args: m.Args}, nil)
	of3 := writePart(t, dir, "t1", 1, 3, m, nil)
	bad, whole2 := filepath.Join(dir, "bad"), filepath.Join(dir, "whole")
	for path, data := range map[string]string{bad: `{"parts": [`, whole2: `{"parts": []}`} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"none", nil, "no parts"},
		{"missing k", []string{c0}, "chain 1 of 2 is missing"},
		{"duplicate k", []string{c0, c1, c0}, c0 + ": chain 0 is given twice"},
		{"different runs", []string{c0, other}, c0 + " and " + other + " are parts of different runs (`pgibbs walk -chain=0 -seed=1` and `pgibbs walk -chain=1 -seed=7`)"},
		{"different inputs", []string{c0, moved}, c0 + " and " + moved + " are parts of runs on different input files"},
		{"different K", []string{c0, of3}, c0 + ": chain 0 of 2, " + of3 + ": chain 1 of 3"},
		{"not JSON", []string{c0, bad}, bad + ": not the JSON output of a pgibbs run"},
		{"not a part", []string{whole2}, whole2 + ": not the output of a run with -chain k -of K -json"},
		{"gone", []string{filepath.Join(dir, "nope")}, "no such file"},
	} {
		if _, err := chain.ReadParts(tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := os.WriteFile(input, []byte("weights 1 2 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := chain.ReadParts([]string{c1, c0}); err == nil || !strings.Contains(err.Error(), c1+": input "+input+" has changed") {
		t.Errorf("changed input: error %v", err)
	}
}

// TestReadRun: a checkpoint's Meta read back, and one of another command
// refused.
func TestReadRun(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	m := chain.Meta{Command: "walk", Args: []string{"-seed=3", "-burn=10", "-x"}}
	if err := (&chain.Runner{Steps: 100, Checkpoint: ck, Meta: m}).Run(context.Background(), []*chain.Chain{walkChain(0)}); err != nil {
		t.Fatal(err)
	}
	read, got, err := chain.ReadRun(ck, "walk")
	if err != nil || len(read.Chains) != 1 {
		t.Fatalf("ReadRun: %v", err)
	}
	if s := got.Settings(); len(s) != 3 || s["seed"] != "3" || s["burn"] != "10" || s["x"] != "" {
		t.Errorf("settings %v", s)
	}
	if _, _, err := chain.ReadRun(ck, "other"); err == nil || !strings.Contains(err.Error(), "is of `pgibbs walk`, not `pgibbs other`") {
		t.Errorf("another command's checkpoint: %v", err)
	}
}

func TestTracePath(t *testing.T) {
	for _, tc := range []struct {
		path string
		k, n int
		want string
	}{
		{"/d/trace.csv", 0, 1, "/d/trace.csv"},
		{"/d/trace.csv", 2, 3, "/d/trace.c2.csv"},
		{"/d/trace", 1, 2, "/d/trace.c1"},
	} {
		if got := chain.TracePath(tc.path, tc.k, tc.n); got != tc.want {
			t.Errorf("TracePath(%q, %d, %d) = %q, want %q", tc.path, tc.k, tc.n, got, tc.want)
		}
	}
}
