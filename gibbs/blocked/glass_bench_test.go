package blocked_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/glass"
)

// BenchmarkGlassBlocks: a sweep's worth of block updates (width 4) on a
// 20×20 ±J glass at β = 2, reported in ns a variable.
func BenchmarkGlassBlocks(b *testing.B) {
	g, err := glass.New(glass.Spec{L: 20, Beta: 2, FieldSD: 0.1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	s, err := blocked.New(g, rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*s.StepsPerSweep()/float64(len(g.Free())), "ns/var")
}
