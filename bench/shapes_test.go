package bench

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// sparsePotts returns n q-state variables and n·deg/2 Potts pairs of
// weight w between uniformly random distinct variables (a random sparse
// graph of mean degree deg: no locality to find), and the pairs' slices.
func sparsePotts(n, deg, q int, w float64, seed uint64) (*factorgraph.Builder, int) {
	r := rand.New(rand.NewPCG(seed, 7))
	m := n * deg / 2
	a, c, ws := make([]int32, m), make([]int32, m), make([]float64, m)
	for k := range m {
		i := r.IntN(n)
		j := r.IntN(n - 1)
		if j >= i {
			j++
		}
		a[k], c[k], ws[k] = int32(i), int32(j), w
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(q))
	b.AddPottsPairs(a, c, ws)
	return b, m
}

// sparseGraphs caches the random sparse graphs by name.
var sparseGraphs sync.Map

// sparseShapes are the random sparse Potts shapes of BenchmarkSparse: q =
// 4, weights that put L_i = deg·W at 2 (λ = L² = 4: a minibatch of about
// λ + L = 6 draws against deg factors).
var sparseShapes = []struct {
	n, deg int
	w      float64
}{
	{1e4, 10, 0.2}, {1e4, 20, 0.1}, {1e6, 10, 0.2}, {1e6, 20, 0.1},
}

// BenchmarkSparse measures random sparse Potts graphs (issue 36's shape
// without locality): the build through AddPottsPairs (ns/pair, pairs/s,
// B/pair of Graph.Bytes) and a random-scan update of plain Gibbs,
// Poisson-Gibbs and Mixed (auto), at 10⁴ variables (in cache) and 10⁶.
func BenchmarkSparse(b *testing.B) {
	for _, sh := range sparseShapes {
		name := fmt.Sprintf("n=%d/deg=%d", sh.n, sh.deg)
		b.Run(name+"/build", func(b *testing.B) {
			b.ReportAllocs()
			var g *factorgraph.Graph
			var pairs int
			for b.Loop() {
				b.StopTimer()
				bl, m := sparsePotts(sh.n, sh.deg, 4, sh.w, 1)
				pairs = m
				b.StartTimer()
				var err error
				if g, err = bl.Build(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pairs), "ns/pair")
			b.ReportMetric(float64(pairs)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
			b.ReportMetric(float64(g.Bytes())/float64(pairs), "B/pair")
			est := factorgraph.Size{Vars: sh.n, Pairs: pairs, OneWeight: true}.GraphBytes()
			b.ReportMetric(est/float64(g.Bytes()), "estimate/actual")
			sparseGraphs.Store(name, g)
		})
		for _, sc := range []struct {
			name string
			new  func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error)
		}{
			{"gibbs", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return site.NewGibbs(m, r, nil) }},
			{"pgibbs", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return site.NewPoissonGibbs(m, r, nil) }},
			{"auto", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return site.NewMixed(m, r, nil) }},
		} {
			b.Run(name+"/sampler="+sc.name, func(b *testing.B) {
				g, ok := sparseGraphs.Load(name)
				if !ok {
					bl, _ := sparsePotts(sh.n, sh.deg, 4, sh.w, 1)
					gg, err := bl.Build()
					if err != nil {
						b.Fatal(err)
					}
					sparseGraphs.Store(name, gg)
					g = gg
				}
				s, err := sc.new(g.(*factorgraph.Graph), rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				runStepsWarm(b, s, 2*sh.n)
			})
		}
	}
}
