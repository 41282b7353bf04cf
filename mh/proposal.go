package mh

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Proposal is a Metropolis–Hastings proposal kernel q(θ'|θ).
//
// Propose writes a draw θ' ~ q(·|θ) to dst (len(dst) == len(theta)) and
// returns the log proposal ratio log q(θ|θ') − log q(θ'|θ), the convention
// of eq. (1) of the TunaMH paper (its printed Algorithms 2–4 invert it). It
// must draw every random number from r. A Proposal may keep scratch space,
// so one value serves one sampler at a time.
type Proposal interface {
	Propose(dst, theta []float64, r *rand.Rand) float64
}

// GaussianRW is the Gaussian random walk θ' = θ + Step·L·z, z ~ N(0, I),
// with L the lower Cholesky factor of a covariance matrix (the identity if
// none was given). It is symmetric, so its log ratio is 0.
type GaussianRW struct {
	Step float64
	chol []float64 // row-major lower triangle, nil for the identity
	z    []float64
}

var _ Proposal = (*GaussianRW)(nil)

// NewGaussianRW returns a Gaussian random walk in d dimensions with scale
// step and covariance cov (row-major d×d, symmetric positive definite), or
// the identity covariance if cov is nil. The proposal covariance is
// step²·cov; MH-SS's recommended q = N(θ, (λ²/d)V) is step = λ/√d, cov = V.
func NewGaussianRW(step float64, cov []float64, d int) (*GaussianRW, error) {
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, fmt.Errorf("mh: random-walk step %v must be positive and finite", step)
	}
	if d < 1 {
		return nil, fmt.Errorf("mh: random-walk dimension %d must be at least 1", d)
	}
	g := &GaussianRW{Step: step, z: make([]float64, d)}
	if cov == nil {
		return g, nil
	}
	if len(cov) != d*d {
		return nil, fmt.Errorf("mh: covariance has %d entries, want %d×%d", len(cov), d, d)
	}
	sym := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			v := cov[i*d+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("mh: covariance entry (%d,%d) is %v", i, j, v)
			}
			if v != cov[j*d+i] {
				return nil, fmt.Errorf("mh: covariance is not symmetric at (%d,%d)", i, j)
			}
			sym.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return nil, errors.New("mh: covariance is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	g.chol = make([]float64, d*d)
	for i := range d {
		for j := 0; j <= i; j++ {
			g.chol[i*d+j] = l.At(i, j)
		}
	}
	return g, nil
}

// Propose implements Proposal.
func (g *GaussianRW) Propose(dst, theta []float64, r *rand.Rand) float64 {
	if g.chol == nil {
		for j, v := range theta {
			dst[j] = v + g.Step*r.NormFloat64()
		}
		return 0
	}
	d := len(theta)
	z := g.z[:d]
	for j := range z {
		z[j] = r.NormFloat64()
	}
	for i := range d {
		s := 0.0
		for j, l := range g.chol[i*d : i*d+i+1] {
			s += l * z[j]
		}
		dst[i] = theta[i] + g.Step*s
	}
	return 0
}
