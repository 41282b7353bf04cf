package chain_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// TestRunBuilt: the chains built by k are run for the runner's steps, in
// order; a chain that cannot be built stops it before anything runs.
func TestRunBuilt(t *testing.T) {
	build := func(k int) (*chain.Chain, error) {
		src := chain.Source(3, k)
		return &chain.Chain{Kernel: newWalk(5, 2, true, src), Sources: []*rand.PCG{src}}, nil
	}
	chains, err := (&chain.Runner{Steps: 100}).RunBuilt(context.Background(), 3, build)
	if err != nil || len(chains) != 3 {
		t.Fatalf("%d chains, %v", len(chains), err)
	}
	for k, c := range chains {
		if c.Done() != 100 || c.Kernel.(*walk).steps != 100 {
			t.Errorf("chain %d ran %d steps, want 100", k, c.Done())
		}
	}
	refused := errors.New("chain 1 refused")
	_, err = (&chain.Runner{Steps: 100}).RunBuilt(context.Background(), 3, func(k int) (*chain.Chain, error) {
		if k == 1 {
			return nil, refused
		}
		return build(k)
	})
	if !errors.Is(err, refused) {
		t.Errorf("err = %v, want the build's", err)
	}
}
