package exchange_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// Replica exchange over plain Gibbs on a frustrated triangle of strong
// antiferromagnetic pairs, with the ladder tuned at construction.
func Example() {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	for _, p := range [][2]int{{0, 1}, {1, 2}, {0, 2}} {
		b.AddFactor(factorgraph.NewPotts(p[0], p[1], -4))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	gibbsFactory := func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		return site.NewGibbs(m, r, opt)
	}
	e, err := exchange.New(g, gibbsFactory, rand.New(rand.NewPCG(1, 2)), nil, nil)
	if err != nil {
		panic(err)
	}
	for range 200000 {
		e.Step()
	}
	logZ, se, _ := e.LogZ()
	// Exact: 6 states with one agreeing pair (weight e^-4), 2 with three.
	fmt.Printf("log Z within 3 standard errors of exact: %v\n", abs(logZ-exactLogZ()) < 3*se)
	fmt.Printf("round trips: %v\n", e.RoundTrips() > 100)
	// Output:
	// log Z within 3 standard errors of exact: true
	// round trips: true
}

func abs(x float64) float64 { return max(x, -x) }

func exactLogZ() float64 { return math.Log(6*math.Exp(-4) + 2*math.Exp(-12)) }
