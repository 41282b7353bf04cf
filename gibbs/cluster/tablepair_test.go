package cluster

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// isingTable returns the 2×2 log-table J·δ(a, b) + u(a) + w(b) + c with
// u, w and c drawn from r (row a, column b).
func isingTable(r *rand.Rand, J float64) []float64 {
	u := [2]float64{1.5*r.Float64() - 0.75, 1.5*r.Float64() - 0.75}
	w := [2]float64{1.5*r.Float64() - 0.75, 1.5*r.Float64() - 0.75}
	c := r.Float64() - 0.5
	vals := make([]float64, 4)
	for a := range 2 {
		for b := range 2 {
			vals[2*a+b] = c + u[a] + w[b]
			if a == b {
				vals[2*a+b] += J
			}
		}
	}
	return vals
}

// tablePairGraphs are binary models whose pairs are tables of any
// ferromagnetic Ising coupling and unary parts (some additive, J = 0),
// written either way round, beside Potts pairs and unary tables; the last
// four have an observed variable in three-variable tables whose slice at
// the evidence is such a pair.
func tablePairGraphs(t *testing.T) []gibbstest.Graph {
	var gs []gibbstest.Graph
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x7ab))
		for {
			n := 3 + r.IntN(3)
			b := factorgraph.NewBuilder()
			b.AddVariables(n, factorgraph.Discrete(2))
			tables := 0
			for i := range n {
				for j := i + 1; j < n; j++ {
					switch x := r.Float64(); {
					case x < 0.5:
						J := 1.6 * r.Float64()
						if r.IntN(5) == 0 {
							J = 0
						}
						scope := []int{i, j}
						if r.IntN(2) == 0 {
							scope = []int{j, i} // the table transposed: J is symmetric, u and w swap
						}
						b.AddFactor(factorgraph.NewTable(scope, []int{2, 2}, isingTable(r, J)))
						tables++
					case x < 0.7:
						b.AddFactor(factorgraph.NewPotts(i, j, 1.2*r.Float64()))
					}
				}
				if r.Float64() < 0.5 {
					b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{r.Float64() - 0.5, r.Float64() - 0.5}))
				}
			}
			if seed > 4 {
				// x_n observed; a table over (x_n, i, j) per slice an Ising pair.
				b.AddVariable(factorgraph.Discrete(3))
				b.Observe(n, float64(r.IntN(3)))
				i, j := r.IntN(n), r.IntN(n)
				for i == j {
					j = r.IntN(n)
				}
				var vals []float64
				for range 3 {
					vals = append(vals, isingTable(r, 1.6*r.Float64())...)
				}
				b.AddFactor(factorgraph.NewTable([]int{n, i, j}, []int{3, 2, 2}, vals))
				tables++
			}
			g, err := b.Build()
			if err != nil || tables == 0 {
				continue
			}
			init, ok := gibbstest.Connected(g, gibbstest.Enumerate(g))
			if !ok {
				continue
			}
			gs = append(gs, gibbstest.Graph{G: g, Init: init, Seed: seed})
			break
		}
	}
	return gs
}

// TestClusterTablePairs: binary pair tables of ferromagnetic Ising
// couplings, split into a bond weight and unary terms (splitPair), keep
// both cluster samplers' joint and marginals exact.
func TestClusterTablePairs(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, tablePairGraphs(t), clusterCases(), 57, 1)
}

// dropTableFields removes from s's unary terms what splitPair added for
// the binary pair tables between free variables: the split's bonds kept,
// its unary parts lost.
func dropTableFields(g *factorgraph.Graph, c *clusters) {
	x := append([]float64(nil), c.core().X...)
	for f := range g.NumFactors() {
		var free []int
		for _, v := range g.Factor(f).Vars() {
			if _, obs := g.Observed(v); !obs {
				free = append(free, v)
			}
		}
		if _, ok := g.Factor(f).(*factorgraph.Table); !ok || len(free) != 2 {
			continue
		}
		var l [2][2]float64
		for a := range 2 {
			for b := range 2 {
				x[free[0]], x[free[1]] = float64(a), float64(b)
				l[a][b] = g.Factor(f).Value(x)
			}
		}
		J := max(0, (l[0][0]+l[1][1]-l[0][1]-l[1][0])/2)
		h0 := c.f.h[c.f.start[free[0]]:]
		h1 := c.f.h[c.f.start[free[1]]:]
		for v := range 2 {
			h0[v] -= (l[v][0] + l[v][1] - J) / 2
			h1[v] -= (l[0][v] + l[1][v] - J) / 2
		}
	}
}

func TestClusterTablePairsCatchBrokenSplit(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := tablePairGraphs(t)
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{
		{Name: "SwendsenWang/table-pairs-without-unary-parts", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := NewSwendsenWang(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
			if err == nil {
				dropTableFields(tg.G, &s.clusters)
			}
			return s, err
		}},
		{Name: "Wolff/table-pairs-without-unary-parts", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := NewWolff(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
			if err == nil {
				dropTableFields(tg.G, &s.clusters)
			}
			return s, err
		}},
	})
}

// TestClusterTablePairRefusals: an antiferromagnetic binary pair table
// (negative Ising coupling) is refused, naming the factor and J; a pair
// table of three-valued variables still is.
func TestClusterTablePairRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		vals  []float64
		want  []string
	}{
		{"antiferromagnetic", []int{2, 2}, []float64{0, 1, 0.5, -0.2}, []string{"factor 0 (vars 0,1)", "antiferromagnetic pair table", "J = -0.85"}},
		{"three values", []int{3, 2}, []float64{0, 1, 0, 0, 0, 0}, []string{"factor 0 (vars 0,1)", "is a table, not a Potts pair"}},
	} {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Discrete(tc.sizes[0]))
		b.AddVariable(factorgraph.Discrete(tc.sizes[1]))
		b.AddFactor(factorgraph.NewTable([]int{0, 1}, tc.sizes, tc.vals))
		g := gibbstest.Build(t, b)
		for name, mk := range clusterBoth(g, rand.New(rand.NewPCG(1, 1)), nil) {
			_, err := mk()
			if err == nil {
				t.Errorf("%s: %s accepted the model", tc.name, name)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %s: error %q does not say %q", tc.name, name, err, w)
				}
			}
		}
	}
}
