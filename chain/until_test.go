package chain_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
)

// TestRunnerUntil: a stopping rule is asked at the check points (every
// CheckEvery steps while they are below 8·CheckEvery), the run stops at the first check that says so (Converged),
// the ceiling still applies, a resumed run stops at the same step, and an
// error of the rule ends the run.
func TestRunnerUntil(t *testing.T) {
	mk := func() []*chain.Chain {
		var cs []*chain.Chain
		for k := range 2 {
			src := chain.Source(3, k)
			cs = append(cs, &chain.Chain{Kernel: newWalk(5, 3, true, src), Sources: []*rand.PCG{src}})
		}
		return cs
	}
	var asked []int64
	until := func(cs []*chain.Chain) (bool, error) {
		asked = append(asked, cs[0].Done())
		return cs[0].Done() >= 250, nil
	}
	cs := mk()
	r := &chain.Runner{Steps: 1000, Until: until, CheckEvery: 100}
	if err := r.Run(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	if !r.Converged() || cs[0].Done() != 300 || cs[1].Done() != 300 || len(asked) != 3 {
		t.Errorf("stopped at %d and %d steps (converged %v), asked at %v; want 300, true, [100 200 300]", cs[0].Done(), cs[1].Done(), r.Converged(), asked)
	}

	// The ceiling: a rule that never holds stops at Steps without a check there.
	asked = nil
	never := &chain.Runner{Steps: 250, Until: func([]*chain.Chain) (bool, error) { asked = append(asked, 0); return false, nil }, CheckEvery: 100}
	cs = mk()
	if err := never.Run(context.Background(), cs); err != nil || never.Converged() || cs[0].Done() != 250 || len(asked) != 2 {
		t.Errorf("ceiling: err %v, converged %v, %d steps, %d checks", err, never.Converged(), cs[0].Done(), len(asked))
	}

	// The check points grow by an eighth past 8·CheckEvery.
	var points []int64
	grow := &chain.Runner{Steps: 100000, CheckEvery: 10, Until: func(cs []*chain.Chain) (bool, error) {
		points = append(points, cs[0].Done())
		return false, nil
	}}
	if err := grow.Run(context.Background(), mk()); err != nil {
		t.Fatal(err)
	}
	if len(points) > 70 || points[0] != 10 || points[7] != 80 || points[9] != 102 {
		t.Errorf("%d check points: %v…", len(points), points[:min(12, len(points))])
	}

	// Resumed from a checkpoint at 200 steps, the run stops at 300 again.
	ck := filepath.Join(t.TempDir(), "ck")
	cs = mk()
	if err := (&chain.Runner{Steps: 200, Checkpoint: ck}).Run(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	read, err := chain.ReadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	cs = mk()
	if err := read.Restore(cs); err != nil {
		t.Fatal(err)
	}
	r2 := &chain.Runner{Steps: 1000, Until: until, CheckEvery: 100}
	if err := r2.Run(context.Background(), cs); err != nil || cs[0].Done() != 300 || !r2.Converged() {
		t.Errorf("resumed: err %v, %d steps, converged %v", err, cs[0].Done(), r2.Converged())
	}

	// With a time budget too.
	cs = mk()
	r3 := &chain.Runner{Duration: time.Minute, Until: until, CheckEvery: 100}
	if err := r3.Run(context.Background(), cs); err != nil || cs[0].Done() != 300 || !r3.Converged() {
		t.Errorf("time budget: err %v, %d steps, converged %v", err, cs[0].Done(), r3.Converged())
	}

	// Errors.
	boom := errors.New("boom")
	if err := (&chain.Runner{Steps: 1000, Until: func([]*chain.Chain) (bool, error) { return false, boom }, CheckEvery: 10}).Run(context.Background(), mk()); !errors.Is(err, boom) {
		t.Errorf("rule error: %v", err)
	}
	if err := (&chain.Runner{Steps: 1000, Until: until}).Run(context.Background(), mk()); err == nil {
		t.Error("CheckEvery 0: no error")
	}
}
