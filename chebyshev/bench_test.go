package chebyshev

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkFit shows the O(m log m) cost of values→coefficients through the
// DCT (m a power of two); BenchmarkFitDirect is the O(m²) formula.
func BenchmarkFit(b *testing.B) {
	for _, m := range []int{16, 64, 256, 1024, 4096, 16384, 65536} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			x, _ := Points(nil, m, -1, 1)
			v := make([]float64, m+1)
			for j, xj := range x {
				v[j] = math.Exp(xj)
			}
			var s Series
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Fit(-1, 1, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFitDirect(b *testing.B) {
	for _, m := range []int{16, 64, 256, 1024} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			v := make([]float64, m+1)
			for j := range v {
				v[j] = float64(j)
			}
			for b.Loop() {
				_ = directCoeffs(v)
			}
		})
	}
}

func benchSeries(n int) *Series {
	c := make([]float64, n+1)
	for k := range c {
		c[k] = 1 / float64(k+1)
	}
	s, _ := New(0, 1, c)
	return s
}

func BenchmarkEval(b *testing.B) {
	for _, n := range []int{3, 25, 51} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := benchSeries(n)
			b.ReportAllocs()
			x := 0.3
			for b.Loop() {
				x = s.Eval(x)*1e-3 + 0.3
			}
		})
	}
}

func BenchmarkEvalTo4(b *testing.B) {
	for _, n := range []int{3, 25, 51} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := benchSeries(n)
			x := []float64{0.1, 0.3, 0.5, 0.7}
			dst := make([]float64, 4)
			b.ReportAllocs()
			for b.Loop() {
				s.EvalTo(dst, x)
			}
		})
	}
}

func BenchmarkMul(b *testing.B) {
	for _, n := range []int{3, 10, 25, 50} {
		b.Run(fmt.Sprintf("square/n=%d", n), func(b *testing.B) {
			s := benchSeries(n)
			var p Series
			b.ReportAllocs()
			for b.Loop() {
				_ = p.Mul(s, s)
			}
		})
	}
}

func BenchmarkAntiderivative(b *testing.B) {
	s := benchSeries(50)
	var p Series
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Antiderivative(s)
	}
}
