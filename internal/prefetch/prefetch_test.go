package prefetch

import (
	"math"
	"testing"
	"unsafe"
)

// TestLine: a prefetch changes nothing, at any address of a slice.
func TestLine(t *testing.T) {
	s := make([]float64, 1000)
	for i := range s {
		s[i] = float64(i)
	}
	for i := range s {
		Line(unsafe.Pointer(&s[i]))
	}
	for i, v := range s {
		if v != float64(i) {
			t.Fatalf("s[%d] = %v after a prefetch", i, v)
		}
	}
}

func BenchmarkLine(b *testing.B) {
	s := make([]float64, 1<<20)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Line(unsafe.Pointer(&s[i&(len(s)-1)]))
		i += 997
	}
}

// TestRefs: prefetching a neighbour list, with the signs of negative
// weights, a NotPotts entry (math.MinInt32) and references past the end,
// changes nothing and does not fault.
func TestRefs(t *testing.T) {
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(i)
	}
	tests := [][]int32{
		nil,
		{0},
		{0, 1, 99, ^5, ^99},
		{100, ^100, math.MinInt32, math.MaxInt32, -1},
	}
	for _, refs := range tests {
		Refs(x, refs)
		Refs(nil, refs)
		Refs(x[:0], refs)
	}
	for i, v := range x {
		if v != float64(i) {
			t.Fatalf("x[%d] = %v after a prefetch", i, v)
		}
	}
}

// BenchmarkRefs: one call for 24 neighbours against a call a line.
func BenchmarkRefs(b *testing.B) {
	x := make([]float64, 1<<20)
	refs := make([]int32, 24)
	for k := range refs {
		refs[k] = int32(k * 4099 % len(x))
		if k%3 == 0 {
			refs[k] = ^refs[k]
		}
	}
	b.Run("refs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Refs(x, refs)
		}
	})
	b.Run("lines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range refs {
				Line(unsafe.Pointer(&x[r^r>>31]))
			}
		}
	})
}
