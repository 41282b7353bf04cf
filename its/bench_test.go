package its

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/chebyshev"
)

// Sizes of the paper's experiments: spin model m = 3 (PGITS) and m = 3, k = 10
// (PGDA); truncated Gaussian mixture m = 20, k = 25.

func benchLogValues(m int) []float64 {
	x, _ := chebyshev.Points(nil, m, 0, 1)
	for j, xj := range x {
		x[j] = 13.7 * xj * (1 - xj) * (1 + 0.3*xj) // a smooth energy of size ~L
	}
	return x
}

func BenchmarkFitLogDensity(b *testing.B) {
	for _, m := range []int{3, 10, 20, 50} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			lv := benchLogValues(m)
			var s Sampler
			b.ReportAllocs()
			for b.Loop() {
				if err := s.FitLogDensity(0, 1, lv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFitEnergySeries(b *testing.B) {
	for _, mk := range [][2]int{{3, 10}, {20, 25}} {
		b.Run(fmt.Sprintf("m=%d/k=%d", mk[0], mk[1]), func(b *testing.B) {
			u, _ := chebyshev.NewFromValues(0, 1, benchLogValues(mk[0]))
			var s Sampler
			b.ReportAllocs()
			for b.Loop() {
				if err := s.FitEnergySeries(u, mk[1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDraw(b *testing.B) {
	for _, m := range []int{3, 10, 25, 50} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			var s Sampler
			_ = s.FitLogDensity(0, 1, benchLogValues(m))
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Draw(r)
			}
		})
	}
}

// BenchmarkStep is the per-MCMC-step cost of the polynomial part of PGITS and
// PGDA: fit, one draw, and the two density evaluations of the MH correction.
func BenchmarkStep(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("sampler=pgits/m=3", func(b *testing.B) {
		lv := benchLogValues(3)
		var s Sampler
		b.ReportAllocs()
		for b.Loop() {
			_ = s.FitLogDensity(0, 1, lv)
			v := s.Draw(r)
			_ = s.LogAcceptRatio(0.5, 1, v, 2)
		}
	})
	for _, mk := range [][2]int{{3, 10}, {20, 25}} {
		b.Run(fmt.Sprintf("sampler=pgda/m=%d/k=%d", mk[0], mk[1]), func(b *testing.B) {
			lv := benchLogValues(mk[0])
			var u chebyshev.Series
			var s Sampler
			b.ReportAllocs()
			for b.Loop() {
				_ = u.Fit(0, 1, lv)
				_ = s.FitEnergySeries(&u, mk[1])
				v := s.Draw(r)
				_ = s.LogAcceptRatio(0.5, 1, v, 2)
			}
		})
	}
}
