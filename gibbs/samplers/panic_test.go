package samplers

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
)

// panicky is a ring of 6 binary variables with Potts couplings and one user
// factor on variables 2, 3 that panics when both are 1.
func panicky(t *testing.T) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(6, factorgraph.Discrete(2))
	for i := range 6 {
		b.AddFactor(factorgraph.NewPotts(i, (i+1)%6, 0.5))
	}
	b.AddFactor(factorgraph.NewFunc([]int{2, 3}, 0, 1, func(x []float64) float64 {
		if x[2] == 1 && x[3] == 1 {
			panic("the user's factor divided by zero")
		}
		return 0.5
	}))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPanicBecomesError: a user factor that panics inside a run of
// parallel chains (single-site, swept, chromatic with worker goroutines)
// is the run's error, naming the chain, the step and the factor; the
// process goes on.
func TestPanicBecomesError(t *testing.T) {
	g := panicky(t)
	classes := [][]int{{0, 2, 4}, {1, 3, 5}}
	for _, kind := range []string{"single", "sweep", "chromatic"} {
		var chains []*chain.Chain
		for k := range 3 {
			var kern chain.Kernel
			var err error
			switch kind {
			case "chromatic":
				var s *chromatic.Chromatic
				s, err = chromatic.New(mustFactory(t, "gibbs"), g, classes, chain.Streams(uint64(k), 2), nil)
				kern = gibbs.Sweeper{Sampler: s}
			default:
				var s gibbs.Sampler
				s, err = New("gibbs", g, rand.New(chain.Source(1, k)), nil)
				kern = s
				if kind == "sweep" {
					kern = gibbs.Sweeper{Sampler: s}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			chains = append(chains, &chain.Chain{Kernel: kern})
		}
		err := (&chain.Runner{Steps: 100000}).Run(context.Background(), chains)
		if err == nil {
			t.Fatalf("%s: no error from a panicking factor", kind)
		}
		t.Logf("%s: %v", kind, err)
		for _, want := range []string{"chain ", "step ", "panic: the user's factor divided by zero", "factor", "variable"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", kind, err, want)
			}
		}
	}
}

func mustFactory(t *testing.T, name string) gibbs.Factory {
	t.Helper()
	f, err := FactoryOf(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
