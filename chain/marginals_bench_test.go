package chain

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// fixedConditioner is a Conditioner whose every step draws coordinate i
// from one fixed distribution: what a Gibbs-type kernel reports, at no
// cost, for benchmarking Marginals.
type fixedConditioner struct {
	x []float64
	i int
	w []float64
}

func (f *fixedConditioner) Step() int                  { return f.i }
func (f *fixedConditioner) State() []float64           { return f.x }
func (f *fixedConditioner) Err() error                 { return nil }
func (f *fixedConditioner) RecordConditionals(on bool) {}
func (f *fixedConditioner) Conditional() (int, []float64, float64) {
	return f.i, f.w, 10
}

// BenchmarkMarginalsObserve: Rao–Blackwellised marginals of n coordinates
// of 10 values, observing single-coordinate steps in random order (a
// random-scan Gibbs chain), on a graph whose marginals fit in the cache
// (400) and one far larger (266,256: pgibbs potts -width 516).
func BenchmarkMarginalsObserve(b *testing.B) {
	const d, seqLen = 10, 1 << 20
	for _, n := range []int{400, 266256} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sizes := make([]int, n)
			for j := range sizes {
				sizes[j] = d
			}
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			coords, vals := make([]int32, seqLen), make([]float64, seqLen)
			for k := range coords {
				coords[k], vals[k] = int32(rng.IntN(n)), float64(rng.IntN(d))
			}
			f := &fixedConditioner{x: make([]float64, n), w: []float64{1, 2, 0.5, 0.5, 1, 1, 1, 1, 1, 1}}
			mg := NewMarginals(sizes)
			mg.RaoBlackwellise(f)
			// A sweep first: every coordinate holds a conditional, as in a
			// long run.
			for j := range n {
				f.i = j
				mg.Observe(int64(j+1), j, f.x)
			}
			t := int64(n)
			b.ReportAllocs()
			b.ResetTimer()
			for k := range b.N {
				i := int(coords[k&(seqLen-1)])
				f.x[i], f.i = vals[k&(seqLen-1)], i
				t++
				mg.Observe(t, i, f.x)
			}
		})
	}
}

// BenchmarkMarginalsObserveAny: Rao–Blackwellised marginals of n
// coordinates of 10 values observing steps returning Any (a cluster move,
// an MH sweep) that changed 1% of the coordinates: a scan of every
// coordinate's value a step.
func BenchmarkMarginalsObserveAny(b *testing.B) {
	const d = 10
	for _, n := range []int{400, 266256} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sizes := make([]int, n)
			for j := range sizes {
				sizes[j] = d
			}
			rng := rand.New(rand.NewPCG(2, uint64(n)))
			f := &fixedConditioner{x: make([]float64, n), i: -1, w: make([]float64, d)}
			mg := NewMarginals(sizes)
			mg.RaoBlackwellise(f)
			b.ReportAllocs()
			b.ResetTimer()
			for t := range b.N {
				for range n / 100 {
					f.x[rng.IntN(n)] = float64(rng.IntN(d))
				}
				mg.Observe(int64(t+1), Any, f.x)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/coordinate")
		})
	}
}
