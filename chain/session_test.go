package chain_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// TestIndices: chain k alone of a split run, else all n.
func TestIndices(t *testing.T) {
	for _, tc := range []struct {
		k, of, n int
		want     []int
	}{{0, 0, 3, []int{0, 1, 2}}, {2, 4, 1, []int{2}}, {0, 0, 1, []int{0}}} {
		if got := chain.Indices(tc.k, tc.of, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Indices(%d, %d, %d) = %v, want %v", tc.k, tc.of, tc.n, got, tc.want)
		}
	}
}

// TestSessionEnd: how End classifies the Runner's error of chains that
// made done steps of steps, burn-in burn.
func TestSessionEnd(t *testing.T) {
	save := &chain.SaveError{Err: errors.New("disk full")}
	intr := &chain.Interrupted{Checkpoint: "ck", Err: context.Canceled}
	for _, tc := range []struct {
		name               string
		err                error
		complete           bool
		done               int64
		unsaved, interrupt bool
		fail               string // the error End returns ("" none)
	}{
		{"complete", nil, false, 100, false, false, ""},
		{"save failed after the steps", save, false, 100, true, false, ""},
		{"save failed in a complete time budget", save, true, 50, true, false, ""},
		{"save failed before the steps", save, false, 50, false, false, "disk full"},
		{"interrupted after the burn-in", intr, false, 50, false, true, ""},
		{"interrupted within the burn-in", intr, false, 10, false, true, "interrupted; checkpoint written to ck"},
		{"within the burn-in", nil, true, 10, false, false, "the run ended after 10 steps, within the burn-in"},
		{"failed", errors.New("kernel"), false, 50, false, false, "kernel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := walkChain(0)
			if err := (&chain.Runner{Steps: tc.done}).Run(context.Background(), []*chain.Chain{c}); err != nil {
				t.Fatal(err)
			}
			s := &chain.Session{}
			if err := s.Add(c, 0); err != nil {
				t.Fatal(err)
			}
			end, err := s.End(tc.err, tc.complete, 100, 20)
			if got := fmt.Sprint(err); (tc.fail == "" && err != nil) || (tc.fail != "" && !strings.HasSuffix(got, tc.fail)) {
				t.Errorf("error %v, want %q", err, tc.fail)
			}
			var bie *chain.BurnInError
			if errors.As(err, &bie) != (tc.name == "within the burn-in") || bie != nil && bie.Done != tc.done {
				t.Errorf("error %#v: a *BurnInError only for a run that ended within its burn-in, with its steps", err)
			}
			if (end.Unsaved != nil) != tc.unsaved || (end.Interrupted != nil) != tc.interrupt {
				t.Errorf("Ending %+v, want unsaved %v interrupted %v", end, tc.unsaved, tc.interrupt)
			}
		})
	}
}

// sourcedWalk is walkChain(k) with its source, which checkpoints save.
func sourcedWalk(k int) (*chain.Chain, error) {
	src := chain.Source(1, k)
	return &chain.Chain{Kernel: newWalk(3, 2, true, src), Sources: []*rand.PCG{src}}, nil
}

// TestSessionSplitRun: chain 1 of 2 traced and resumed from its
// checkpoint ends where the same chain run straight through does, its
// trace file named by TracePath and continued, not restarted; its part,
// attached to a fresh chain, ends there too.
func TestSessionSplitRun(t *testing.T) {
	dir := t.TempDir()
	m := chain.Meta{Command: "walk", Args: []string{"-seed=1"}, Trace: filepath.Join(dir, "t.csv")}
	trace := func(*chain.Chain) (string, int64, chain.RowFunc, error) {
		return chain.StateHeader([]int{0, 1}), 10, chain.StateRow([]int{0, 1}), nil
	}
	run := func(m chain.Meta, ck *chain.Checkpoint, ckPath string, steps int64) *chain.Session {
		s := &chain.Session{Meta: m, Of: 2, Trace: trace, Resume: ck, ResumePath: ckPath}
		defer s.Close()
		if err := s.Build([]int{1}, 5, sourcedWalk); err != nil {
			t.Fatal(err)
		}
		if run, err := s.Attach(); err != nil || !run {
			t.Fatalf("Attach: %v, %v", run, err)
		}
		r := &chain.Runner{Steps: steps, Checkpoint: ckPath, Every: 1 << 40, Meta: m}
		if _, err := s.End(r.Run(context.Background(), s.Chains), false, steps, 5); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	ckPath := filepath.Join(dir, "ck")
	run(m, nil, ckPath, 200)
	ck, err := chain.ReadCheckpoint(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	resumed := run(m, ck, ckPath, 400)
	straight := run(chain.Meta{Command: "walk"}, nil, filepath.Join(dir, "ck2"), 400)
	if got, want := resumed.Chains[0].Kernel.State(), straight.Chains[0].Kernel.State(); !slices.Equal(got, want) {
		t.Errorf("resumed state %v, want the straight run's %v", got, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "t.c1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(data), "\n"); rows != 1+(400-5)/10 {
		t.Errorf("trace has %d lines, want a header and %d rows", rows, (400-5)/10)
	}
	p, err := straight.Part()
	if err != nil || p.Chain != 1 || p.Of != 2 || p.Command != "walk" || p.Seconds != straight.Seconds {
		t.Fatalf("Part: %+v, %v", p, err)
	}
	merged := &chain.Session{Parts: []*chain.Part{p}}
	c, _ := sourcedWalk(1)
	if err := merged.Add(c, 1); err != nil {
		t.Fatal(err)
	}
	if run, err := merged.Attach(); err != nil || run || merged.Hash != straight.Hash {
		t.Errorf("Attach of the part: run %v, %v, hash %s, want %s", run, err, merged.Hash, straight.Hash)
	}
}
