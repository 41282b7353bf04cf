package exchange

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/glass"
)

// BenchmarkExchangeGlass: a step of replica exchange over plain Gibbs on a
// 16×16 ±J glass at β = 2 (the ladder tuned at construction), reported
// per replica update: with Houdayer moves (two replicas a rung) and
// without.
func BenchmarkExchangeGlass(b *testing.B) {
	g, err := glass.New(glass.Spec{L: 16, Beta: 2, FieldSD: 0.1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		hou  bool
	}{{"houdayer=false", false}, {"houdayer=true", true}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := New(g, siteGibbs, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{}, &Options{Houdayer: c.hou})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.Step()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(e.Replicas()), "ns/replica-update")
			b.ReportMetric(float64(e.Replicas()), "replicas")
		})
	}
}
