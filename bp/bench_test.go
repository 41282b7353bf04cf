package bp

import (
	"context"
	"testing"

	"github.com/pgibbs/pgibbs/internal/densegen"
)

// BenchmarkRun: belief propagation to convergence on the RBMs of `pgibbs
// reproduce dense` (K₂₅₀,₂₅₀, couplings N(0, σ²), fields N(0, 0.5²)),
// read as the UAI readers read them (pair tables split into Potts pairs
// and fields).
func BenchmarkRun(b *testing.B) {
	for _, sd := range []float64{0.05, 0.15} {
		g, err := densegen.RBM(250, sd, 0.5, 1).Graph(nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(map[float64]string{0.05: "w=0.05", 0.15: "w=0.15"}[sd], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := Run(context.Background(), g, Options{})
				if err != nil || !res.Converged {
					b.Fatalf("%v, %+v", err, res)
				}
			}
		})
	}
}
