package potts

import (
	"fmt"
	"testing"
)

// BenchmarkNew builds the Gaussian-kernel model (op = one graph) and
// reports the pair factors built a second.
func BenchmarkNew(b *testing.B) {
	for _, width := range []int{40, 80} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			p := Paper()
			p.Width = width
			pairs := p.NumPairs()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(pairs)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
