package targets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/pgibbs/pgibbs/mh"
)

// RobustLinear is Bayesian robust linear regression with Student-t errors
// (TunaMH paper §5.1, after Cornish et al.): y_i = x_iᵀθ + ε_i, ε_i ~ t_ν,
//
//	ℓ_i(θ) = −((ν+1)/2) log(1 + (y_i − x_iᵀθ)²/ν),
//
// with a flat prior on R^d or, after SetBox, on a box. It implements
// mh.Target, mh.LocalBounder, mh.ControlVariates and mh.Ranger (the last
// only with a box; without one the ranges are infinite).
type RobustLinear struct {
	design
	y      []float64
	nu     float64
	l1, l2 float64 // sup|ℓ''|, sup|ℓ'''| as functions of η = xᵀθ
	cLip   float64 // (ν+1)/(2√ν)
	// Bound selects the control-variate remainder bound (Corollary2 by
	// default).
	Bound BoundKind
	box   box
}

var (
	_ mh.Target          = (*RobustLinear)(nil)
	_ mh.LocalBounder    = (*RobustLinear)(nil)
	_ mh.ControlVariates = (*RobustLinear)(nil)
	_ mh.Ranger          = (*RobustLinear)(nil)
)

// NewRobustLinear returns the model for the row-major N×d design x,
// responses y and ν > 0 degrees of freedom. It keeps x and y.
func NewRobustLinear(x, y []float64, d int, nu float64) (*RobustLinear, error) {
	if !(nu > 0) || math.IsInf(nu, 0) {
		return nil, fmt.Errorf("targets: robust linear: ν = %v must be positive and finite", nu)
	}
	if d < 1 || len(y) < 1 {
		return nil, fmt.Errorf("targets: robust linear: %d responses in dimension %d", len(y), d)
	}
	ds, err := newDesign(x, len(y), d)
	if err != nil {
		return nil, err
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("targets: robust linear: response %d is %v", i, v)
		}
	}
	m := &RobustLinear{design: ds, y: y, nu: nu}
	m.l1 = (nu + 1) / nu
	// |ℓ'''| = (ν+1)·2|r||3ν − r²|/(ν + r²)³, stationary at r² = ν(3 ∓ 2√2).
	for _, r2 := range []float64{nu * (3 - 2*math.Sqrt2), nu * (3 + 2*math.Sqrt2)} {
		r := math.Sqrt(r2)
		m.l2 = max(m.l2, (nu+1)*2*r*math.Abs(3*nu-r2)/math.Pow(nu+r2, 3))
	}
	m.cLip = (nu + 1) / (2 * math.Sqrt(nu))
	return m, nil
}

// GenerateRobustLinear draws the synthetic data of the TunaMH paper: x_ij ~
// N(0,1), y_i = Σ_j x_ij + ε_i with ε_i ~ N(0,1) (true θ = all ones).
func GenerateRobustLinear(n, d int, nu float64, r *rand.Rand) (*RobustLinear, error) {
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("targets: robust linear: %d points in dimension %d", n, d)
	}
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		s := 0.0
		for j := range d {
			v := r.NormFloat64()
			x[i*d+j] = v
			s += v
		}
		y[i] = s + r.NormFloat64()
	}
	return NewRobustLinear(x, y, d, nu)
}

// SetBox restricts the prior to the box Π_j [lo_j, hi_j] (nil, nil removes
// it); with a box the exact global ranges of ℓ_i are available.
func (m *RobustLinear) SetBox(lo, hi []float64) error { return m.box.set(lo, hi, m.d) }

// Dim implements mh.Target.
func (m *RobustLinear) Dim() int { return m.d }

// N implements mh.Target.
func (m *RobustLinear) N() int { return m.n }

// Nu returns ν.
func (m *RobustLinear) Nu() float64 { return m.nu }

// LogPrior implements mh.Target: 0 on the box (or everywhere), −Inf outside.
func (m *RobustLinear) LogPrior(theta []float64) float64 { return m.box.logPrior(theta) }

// LogLik implements mh.Target.
func (m *RobustLinear) LogLik(i int, theta []float64) float64 {
	r := m.y[i] - m.eta(i, theta)
	return -0.5 * (m.nu + 1) * math.Log1p(r*r/m.nu)
}

// LocalBound implements mh.LocalBounder: c_i = ((ν+1)/(2√ν))‖x_i‖₂ =
// sup_θ ‖∇ℓ_i(θ)‖₂.
func (m *RobustLinear) LocalBound(i int) float64 { return m.cLip * m.norm2[i] }

// Distance implements mh.LocalBounder: M = ‖θ − θ'‖₂.
func (m *RobustLinear) Distance(theta, thetaP []float64) float64 { return euclid(theta, thetaP) }

// GradLogLik implements mh.ControlVariates.
func (m *RobustLinear) GradLogLik(dst []float64, i int, theta []float64) {
	r := m.y[i] - m.eta(i, theta)
	g := (m.nu + 1) * r / (m.nu + r*r)
	for j, v := range m.row(i) {
		dst[j] = g * v
	}
}

// HessLogLik implements mh.ControlVariates.
func (m *RobustLinear) HessLogLik(dst []float64, i int, theta []float64) {
	r := m.y[i] - m.eta(i, theta)
	q := m.nu + r*r
	h := (m.nu + 1) * (r*r - m.nu) / (q * q)
	m.outer(dst, i, h)
}

// CVOrder implements mh.ControlVariates (orders 1 and 2).
func (m *RobustLinear) CVOrder() int { return 2 }

// RemainderBound implements mh.ControlVariates.
func (m *RobustLinear) RemainderBound(order, i int) float64 {
	if order == 1 {
		return m.remainder(m.Bound, 1, i, m.l1)
	}
	return m.remainder(m.Bound, 2, i, m.l2)
}

// RemainderScale implements mh.ControlVariates.
func (m *RobustLinear) RemainderScale(order int, ref, theta, thetaP []float64) float64 {
	return remainderScale(m.Bound, order, ref, theta, thetaP)
}

// LogLikRange implements mh.Ranger: the exact range of ℓ_i over the box
// ((−Inf, 0] without a box).
func (m *RobustLinear) LogLikRange(i int) (lo, hi float64) {
	if m.box.lo == nil {
		return math.Inf(-1), 0
	}
	elo, ehi := m.box.etaRange(m.row(i))
	rlo, rhi := m.y[i]-ehi, m.y[i]-elo // residual range
	near := 0.0
	if rlo > 0 {
		near = rlo
	} else if rhi < 0 {
		near = rhi
	}
	far := max(math.Abs(rlo), math.Abs(rhi))
	f := func(r float64) float64 { return -0.5 * (m.nu + 1) * math.Log1p(r*r/m.nu) }
	return f(far), f(near)
}

// Mode writes a posterior mode (the MAP under the flat prior) to dst by
// Newton's method with backtracking, started from the least-squares fit;
// it is the reference point θ̂ of SMH, MH-SS and FlyMC-MAP.
func (m *RobustLinear) Mode(dst []float64) error {
	if len(dst) != m.d {
		return fmt.Errorf("targets: robust linear: mode destination has length %d, want %d", len(dst), m.d)
	}
	// Least squares.
	xm := mat.NewDense(m.n, m.d, m.x)
	var ls mat.VecDense
	if err := ls.SolveVec(xm, mat.NewVecDense(m.n, m.y)); err != nil {
		return fmt.Errorf("targets: robust linear: least squares: %v", err)
	}
	copy(dst, ls.RawVector().Data)
	return newton(dst, m.n, m.d, m, m)
}

// newton maximises Σ_i ℓ_i from theta in place.
func newton(theta []float64, n, d int, t mh.Target, cv mh.ControlVariates) error {
	g := make([]float64, d)
	h := make([]float64, d*d)
	gi := make([]float64, d)
	hi := make([]float64, d*d)
	step := make([]float64, d)
	trial := make([]float64, d)
	sum := func(th []float64) float64 {
		s := 0.0
		for i := range n {
			s += t.LogLik(i, th)
		}
		return s
	}
	f := sum(theta)
	for range 100 {
		clear(g)
		clear(h)
		for i := range n {
			cv.GradLogLik(gi, i, theta)
			cv.HessLogLik(hi, i, theta)
			for j := range g {
				g[j] += gi[j]
			}
			for j := range h {
				h[j] += hi[j]
			}
		}
		// Solve (−H) step = g; fall back to gradient ascent if −H is not
		// positive definite.
		neg := mat.NewSymDense(d, nil)
		for a := range d {
			for b := a; b < d; b++ {
				neg.SetSym(a, b, -h[a*d+b])
			}
		}
		var ch mat.Cholesky
		if ch.Factorize(neg) {
			var s mat.VecDense
			if err := ch.SolveVecTo(&s, mat.NewVecDense(d, g)); err != nil {
				return fmt.Errorf("targets: newton: %v", err)
			}
			copy(step, s.RawVector().Data)
		} else {
			copy(step, g)
		}
		improved := false
		for a := 1.0; a > 1e-12; a /= 2 {
			for j := range theta {
				trial[j] = theta[j] + a*step[j]
			}
			if ft := sum(trial); ft > f {
				improved = ft-f > 1e-12*math.Abs(f)
				f = ft
				copy(theta, trial)
				break
			}
		}
		if !improved {
			return nil
		}
	}
	return errors.New("targets: newton: no convergence in 100 iterations")
}
