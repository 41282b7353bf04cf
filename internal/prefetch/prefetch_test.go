package prefetch

import (
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
