package infer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/glass"
)

// TestExchangeCandidate: the chooser's exchange with Houdayer moves runs
// a blocked chain among plain Gibbs replicas, and the cost model prices
// each kind as itself: a sweep-equivalent costs the chain's block sweep
// plus the others' single-site updates, far less than every replica
// priced as a block update (which once left the exchange out of the
// pilots' rule on a 20×20 glass).
func TestExchangeCandidate(t *testing.T) {
	g, err := glass.New(glass.Spec{L: 8, Beta: 2, FieldSD: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := &gibbs.Options{}
	smp, err := Spec{Name: "exchange", Houdayer: true}.New(g, rand.New(rand.NewPCG(1, 1)), opt)
	if err != nil {
		t.Fatal(err)
	}
	x := smp.(*exchange.Exchange)
	if _, ok := x.Replica(0).(*blocked.Blocked); !ok {
		t.Fatalf("the chain's replica is %T, want blocks", x.Replica(0))
	}
	if _, ok := x.Replica(1).(*blocked.Blocked); ok {
		t.Fatalf("replica 1 is blocked too, want plain Gibbs")
	}
	sweep := stepCost(g, x) * gibbs.StepsPerSweep(x)
	c, o, other := x.SweepWork()
	own := c * stepCost(g, x.Replica(0))
	others := o * stepCost(g, other)
	allBlocks := float64(x.Replicas()) * stepCost(g, x.Replica(0)) * gibbs.StepsPerSweep(x)
	if math.Abs(sweep-(own+others)) > 1e-9*sweep || !(own > 0 && others > 0 && sweep < allBlocks/4) {
		t.Errorf("a sweep-equivalent priced %.3g ns: want the blocked chain's %.3g plus the others' %.3g, well below every replica priced as blocks, %.3g", sweep, own, others, allBlocks)
	}
	if _, ok := other.(*site.Gibbs); !ok {
		t.Errorf("the other replicas are %T, want plain Gibbs", other)
	}
}
