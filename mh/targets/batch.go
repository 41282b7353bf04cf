package targets

import (
	"math"

	"github.com/pgibbs/pgibbs/mh"
)

// Batched log-likelihoods (mh.BatchLogLiker, mh.SumLogLiker). A term is a
// dot product x_iᵀθ followed by one log1p (and, for logistic regression,
// one exp); evaluated in blocks, the dot products of a block come first and
// the transcendental calls after, so that the processor pipelines them.
// The arithmetic is LogLik's, operation for operation: the values are the
// same float64s.

// block is the number of terms a batched pass handles at once.
const block = 64

var (
	_ mh.BatchLogLiker = (*RobustLinear)(nil)
	_ mh.SumLogLiker   = (*RobustLinear)(nil)
	_ mh.BatchLogLiker = (*Logistic)(nil)
	_ mh.SumLogLiker   = (*Logistic)(nil)
)

// LogLikBatch implements mh.BatchLogLiker.
func (m *RobustLinear) LogLikBatch(dst []float64, idx []int32, theta []float64) {
	var zb [block]float64
	c := -0.5 * (m.nu + 1)
	dst = dst[:len(idx)]
	for len(idx) > 0 {
		n := min(len(idx), block)
		z := zb[:n]
		for j, i := range idx[:n] {
			r := m.y[i] - m.eta(int(i), theta)
			z[j] = r * r / m.nu
		}
		for j, v := range z {
			dst[j] = c * math.Log1p(v)
		}
		dst, idx = dst[n:], idx[n:]
	}
}

// SumLogLik implements mh.SumLogLiker.
func (m *RobustLinear) SumLogLik(theta []float64) float64 {
	var zb [block]float64
	c := -0.5 * (m.nu + 1)
	s := 0.0
	for from := 0; from < m.n; from += block {
		z := zb[:min(block, m.n-from)]
		for j := range z {
			r := m.y[from+j] - m.eta(from+j, theta)
			z[j] = r * r / m.nu
		}
		for _, v := range z {
			s += c * math.Log1p(v)
		}
	}
	return s
}

// LogLikBatch implements mh.BatchLogLiker.
func (m *Logistic) LogLikBatch(dst []float64, idx []int32, theta []float64) {
	var zb [block]float64
	dst = dst[:len(idx)]
	for len(idx) > 0 {
		n := min(len(idx), block)
		z := zb[:n]
		for j, i := range idx[:n] {
			z[j] = (2*m.y[i] - 1) * m.eta(int(i), theta)
		}
		for j, v := range z {
			dst[j] = logSigmoid(v)
		}
		dst, idx = dst[n:], idx[n:]
	}
}

// SumLogLik implements mh.SumLogLiker.
func (m *Logistic) SumLogLik(theta []float64) float64 {
	var zb [block]float64
	s := 0.0
	for from := 0; from < m.n; from += block {
		z := zb[:min(block, m.n-from)]
		for j := range z {
			z[j] = (2*m.y[from+j] - 1) * m.eta(from+j, theta)
		}
		for _, v := range z {
			s += logSigmoid(v)
		}
	}
	return s
}
