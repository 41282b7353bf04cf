package targets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/mh"
)

// Logistic is Bayesian logistic regression with a flat prior:
//
//	ℓ_i(θ) = y_i log σ(x_iᵀθ) + (1 − y_i) log σ(−x_iᵀθ) = log σ(t_i x_iᵀθ),  t_i = 2y_i − 1.
//
// It implements mh.Target, mh.LocalBounder (c_i = ‖x_i‖₂, since |ℓ'| ≤ 1),
// mh.ControlVariates (L1 = 1/4, L2 = √3/18) and mh.LowerBounder with the
// Jaakkola–Jordan bound at ξ = 1.5 used by FlyMC's and the TunaMH paper's
// code: log σ(z) ≥ a z² + z/2 + c, a = −tanh(ξ/2)/(4ξ),
// c = −aξ² − ½ log(2 + e^ξ + e^{−ξ}) − 10⁻⁶.
type Logistic struct {
	design
	y []float64 // 0 or 1
	// Bound selects the control-variate remainder bound (Corollary2 by
	// default).
	Bound BoundKind
	// Jaakkola–Jordan bound, collapsed: Σ_i log B_i(θ) = a θᵀAθ + bᵀθ + N c.
	jjA, jjC float64
	gram     []float64 // Σ_i x_i x_iᵀ
	tx       []float64 // ½ Σ_i t_i x_i
}

var (
	_ mh.Target          = (*Logistic)(nil)
	_ mh.LocalBounder    = (*Logistic)(nil)
	_ mh.ControlVariates = (*Logistic)(nil)
	_ mh.LowerBounder    = (*Logistic)(nil)
)

// NewLogistic returns the model for the row-major N×d design x and labels
// y ∈ {0, 1}. It keeps x and y.
func NewLogistic(x, y []float64, d int) (*Logistic, error) {
	if d < 1 || len(y) < 1 {
		return nil, fmt.Errorf("targets: logistic: %d labels in dimension %d", len(y), d)
	}
	ds, err := newDesign(x, len(y), d)
	if err != nil {
		return nil, err
	}
	m := &Logistic{design: ds, y: y, gram: make([]float64, d*d), tx: make([]float64, d)}
	for i, v := range y {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("targets: logistic: label %d is %v, want 0 or 1", i, v)
		}
		t := 2*v - 1
		row := m.row(i)
		for a, xa := range row {
			m.tx[a] += 0.5 * t * xa
			for b, xb := range row {
				m.gram[a*d+b] += xa * xb
			}
		}
	}
	const xi = 1.5
	m.jjA = -math.Tanh(xi/2) / (4 * xi)
	m.jjC = -m.jjA*xi*xi - 0.5*math.Log(2+math.Exp(xi)+math.Exp(-xi)) - 1e-6
	return m, nil
}

// GenerateLogistic draws the synthetic data of Prado, Nemeth & Sherlock
// (§5.1): x_i1 = 1, x_ij ~ N(0,1) for j ≥ 2, θ_j ~ N(0, 1/d), y_i ~
// Bernoulli(σ(x_iᵀθ)). It returns the model and the true θ.
func GenerateLogistic(n, d int, r *rand.Rand) (*Logistic, []float64, error) {
	if n < 1 || d < 1 {
		return nil, nil, fmt.Errorf("targets: logistic: %d points in dimension %d", n, d)
	}
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = r.NormFloat64() / math.Sqrt(float64(d))
	}
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		eta := 0.0
		for j := range d {
			v := 1.0
			if j > 0 {
				v = r.NormFloat64()
			}
			x[i*d+j] = v
			eta += v * theta[j]
		}
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	m, err := NewLogistic(x, y, d)
	return m, theta, err
}

// Dim implements mh.Target.
func (m *Logistic) Dim() int { return m.d }

// N implements mh.Target.
func (m *Logistic) N() int { return m.n }

// LogPrior implements mh.Target (flat).
func (m *Logistic) LogPrior(theta []float64) float64 { return 0 }

// logSigmoid returns log σ(z) stably.
func logSigmoid(z float64) float64 {
	if z >= 0 {
		return -math.Log1p(math.Exp(-z))
	}
	return z - math.Log1p(math.Exp(z))
}

// LogLik implements mh.Target.
func (m *Logistic) LogLik(i int, theta []float64) float64 {
	return logSigmoid((2*m.y[i] - 1) * m.eta(i, theta))
}

// LocalBound implements mh.LocalBounder: c_i = ‖x_i‖₂.
func (m *Logistic) LocalBound(i int) float64 { return m.norm2[i] }

// Distance implements mh.LocalBounder: M = ‖θ − θ'‖₂.
func (m *Logistic) Distance(theta, thetaP []float64) float64 { return euclid(theta, thetaP) }

// GradLogLik implements mh.ControlVariates: (y_i − σ(x_iᵀθ)) x_i.
func (m *Logistic) GradLogLik(dst []float64, i int, theta []float64) {
	g := m.y[i] - 1/(1+math.Exp(-m.eta(i, theta)))
	for j, v := range m.row(i) {
		dst[j] = g * v
	}
}

// HessLogLik implements mh.ControlVariates: −σ(1−σ) x_i x_iᵀ.
func (m *Logistic) HessLogLik(dst []float64, i int, theta []float64) {
	s := 1 / (1 + math.Exp(-m.eta(i, theta)))
	h := -s * (1 - s)
	m.outer(dst, i, h)
}

// CVOrder implements mh.ControlVariates.
func (m *Logistic) CVOrder() int { return 2 }

// RemainderBound implements mh.ControlVariates.
func (m *Logistic) RemainderBound(order, i int) float64 {
	if order == 1 {
		return m.remainder(m.Bound, 1, i, 0.25)
	}
	return m.remainder(m.Bound, 2, i, math.Sqrt(3)/18)
}

// RemainderScale implements mh.ControlVariates.
func (m *Logistic) RemainderScale(order int, ref, theta, thetaP []float64) float64 {
	return remainderScale(m.Bound, order, ref, theta, thetaP)
}

// LogLowerBound implements mh.LowerBounder (Jaakkola–Jordan).
func (m *Logistic) LogLowerBound(i int, theta []float64) float64 {
	z := (2*m.y[i] - 1) * m.eta(i, theta)
	return m.jjA*z*z + 0.5*z + m.jjC
}

// SumLogLowerBound implements mh.LowerBounder in O(d²).
func (m *Logistic) SumLogLowerBound(theta []float64) float64 {
	s := 0.0
	for a, ta := range theta {
		row := m.gram[a*m.d : (a+1)*m.d]
		q := 0.0
		for b, tb := range theta {
			q += row[b] * tb
		}
		s += m.jjA*ta*q + m.tx[a]*ta
	}
	return s + float64(m.n)*m.jjC
}

// Mode writes the maximum-likelihood point (the MAP under the flat prior)
// to dst by Newton's method from zero.
func (m *Logistic) Mode(dst []float64) error {
	if len(dst) != m.d {
		return fmt.Errorf("targets: logistic: mode destination has length %d, want %d", len(dst), m.d)
	}
	clear(dst)
	return newton(dst, m.n, m.d, m, m)
}
