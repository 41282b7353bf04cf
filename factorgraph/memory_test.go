package factorgraph

import (
	"math"
	"runtime"
	"slices"
	"testing"
)

// heapBytes returns the live heap after a collection.
func heapBytes() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}

// gaussPairs returns the pairs of a width×width Gaussian-kernel lattice
// (as package potts builds them, the kernel cut at distance 22).
func gaussPairs(width int) (a, b []int32, w []float64) {
	for i := range width * width {
		for j := i + 1; j < width*width; j++ {
			dr, dc := i/width-j/width, i%width-j%width
			if d2 := dr*dr + dc*dc; d2 <= 22*22 {
				a, b, w = append(a, int32(i)), append(b, int32(j)), append(w, 4.6*math.Exp(-1.5*float64(d2)))
			}
		}
	}
	return a, b, w
}

// TestBytes compares Graph.Bytes with the heap a graph takes and
// PairGraphBytes with Graph.Bytes, on Gaussian-kernel lattices and a
// nearest-neighbour torus.
func TestBytes(t *testing.T) {
	for _, width := range []int{10, 30, 50} {
		n := width * width
		before := heapBytes()
		a, b, w := gaussPairs(width)
		a, b, w = slices.Clone(a), slices.Clone(b), slices.Clone(w) // without append's slack
		bl := NewBuilder()
		bl.AddVariables(n, Discrete(10))
		bl.AddPottsPairs(a, b, w)
		g, err := bl.Build()
		if err != nil {
			t.Fatal(err)
		}
		heap := heapBytes() - before
		got, est := float64(g.Bytes()), float64(PairGraphBytes(n, len(w)))
		t.Logf("width %d: %d pairs, heap %.0f, Bytes %.0f (%.1f a pair), PairGraphBytes %.0f", width, len(w), heap, got, got/float64(len(w)), est)
		if math.Abs(got-heap) > 0.03*heap && heap > 1e6 { // small heaps move by tens of kB

			t.Errorf("width %d: Bytes %.0f, heap %.0f", width, got, heap)
		}
		if math.Abs(est-got) > 0.05*got {
			t.Errorf("width %d: PairGraphBytes %.0f, Bytes %.0f", width, est, got)
		}
		runtime.KeepAlive(g)
	}
}
