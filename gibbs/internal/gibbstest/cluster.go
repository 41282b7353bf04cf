package gibbstest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// RandomClusterGraph returns a random graph the cluster samplers accept: 3–5
// variables of domain sizes 2–4, Potts pairs of weights in [0, 1.6) (some
// doubled), and optionally unary tables (with hard zeros if hard) and a
// variable observed with factors to it of other kinds: a pair table and an
// antiferromagnetic Potts pair, unary terms given the evidence.
func RandomClusterGraph(t *testing.T, seed uint64, fields, hard, evidence bool) Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0xc1))
	for attempt := 0; ; attempt++ {
		if attempt > 100 {
			t.Fatalf("seed %d: no random cluster graph", seed)
		}
		b, sizes := randomVars(r)
		n := len(sizes)
		for i := range n {
			for j := i + 1; j < n; j++ {
				for r.Float64() < 0.6 {
					b.AddFactor(factorgraph.NewPotts(i, j, 1.6*r.Float64()))
				}
			}
		}
		if fields {
			for i := range n {
				if r.Float64() < 0.3 {
					continue
				}
				vals := make([]float64, sizes[i])
				for v := range vals {
					vals[v] = 1.5*r.Float64() - 0.75
					if hard && r.IntN(4) == 0 {
						vals[v] = math.Inf(-1)
					}
				}
				b.AddFactor(factorgraph.NewTable([]int{i}, []int{sizes[i]}, vals))
			}
		}
		if evidence {
			o, i := r.IntN(n), r.IntN(n)
			for i == o {
				i = r.IntN(n)
			}
			b.Observe(o, float64(r.IntN(sizes[o])))
			vals := make([]float64, sizes[o]*sizes[i])
			for k := range vals {
				vals[k] = r.Float64() - 0.5
			}
			b.AddFactor(factorgraph.NewTable([]int{o, i}, []int{sizes[o], sizes[i]}, vals))
			b.AddFactor(factorgraph.NewPotts(i, o, -0.8))
		}
		g, err := b.Build()
		if err != nil {
			continue // a table of zeros only
		}
		init, ok := Connected(g, Enumerate(g))
		if !ok {
			continue
		}
		return Graph{G: g, Init: init, Seed: seed}
	}
}
