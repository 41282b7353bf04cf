package tgm

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Box is the support [Lo1, Hi1] × [Lo2, Hi2] of (x1, x2).
type Box struct{ Lo1, Hi1, Lo2, Hi2 float64 }

// Prior selects the prior on (x1, x2).
type Prior int

const (
	// Flat is the uniform prior on the box (the TunaMH paper).
	Flat Prior = iota
	// Gaussian is x1 ~ N(0, PriorVar1), x2 ~ N(0, PriorVar2) restricted to
	// the box (the Poisson-Gibbs paper: variances 10 and 1).
	Gaussian
)

// Config describes the model. Use GibbsConfig or MHConfig for the papers'
// settings.
type Config struct {
	// N is the number of data points.
	N int
	// SigmaY2 is the component variance σ_y².
	SigmaY2 float64
	// X1, X2 are the true parameters used to generate data.
	X1, X2 float64
	// Box is the support; its x2-range must be symmetric about 0.
	Box Box
	// Beta is the tempering exponent of the likelihood, in (0, 1].
	Beta float64
	// Prior and its variances (used when Prior is Gaussian).
	Prior                Prior
	PriorVar1, PriorVar2 float64
}

// GibbsConfig returns the Poisson-Gibbs paper's setting: N = 10⁶, σ_y² = 2,
// (x1, x2) = (0, 1), box [−6, 6]², β = 10⁻⁴, Gaussian prior (10, 1).
func GibbsConfig() Config {
	return Config{N: 1_000_000, SigmaY2: 2, X1: 0, X2: 1, Box: Box{-6, 6, -6, 6}, Beta: 1e-4,
		Prior: Gaussian, PriorVar1: 10, PriorVar2: 1}
}

// MHConfig returns the TunaMH paper's setting: as GibbsConfig but with the
// box [−3, 3]² and a flat prior.
func MHConfig() Config {
	c := GibbsConfig()
	c.Box = Box{-3, 3, -3, 3}
	c.Prior = Flat
	return c
}

// Model is the tempered truncated Gaussian mixture with its data, the
// exact per-datum ranges and the bound constants of the MH papers.
type Model struct {
	cfg      Config
	y        []float64
	lo, hi   []float64 // ranges of ℓ_i over the box
	c        []float64 // local bounds c_i (β included)
	u2       []float64 // β·Ū_{2,i}
	logNorm  float64   // log ½ − ½ log(2πσ²)
	inv2s2   float64   // 1/(2σ²)
	invS2    float64   // 1/σ²
	sumRange float64
	// The Gaussian prior's variances and ½ log(2π·variance), per variable.
	priorVar, priorLog [2]float64
}

// Generate draws cfg.N data points from the mixture with (cfg.X1, cfg.X2)
// using r, and returns the model on them.
func Generate(cfg Config, r *rand.Rand) (*Model, error) {
	if cfg.N < 1 {
		return nil, fmt.Errorf("tgm: N = %d must be at least 1", cfg.N)
	}
	if !(cfg.SigmaY2 > 0) || math.IsInf(cfg.SigmaY2, 0) {
		return nil, fmt.Errorf("tgm: σ_y² = %v must be positive and finite", cfg.SigmaY2)
	}
	if math.IsNaN(cfg.X1+cfg.X2) || math.IsInf(cfg.X1+cfg.X2, 0) {
		return nil, fmt.Errorf("tgm: true parameters (%v, %v) must be finite", cfg.X1, cfg.X2)
	}
	if r == nil {
		return nil, fmt.Errorf("tgm: nil random source")
	}
	sd := math.Sqrt(cfg.SigmaY2)
	y := make([]float64, cfg.N)
	for i := range y {
		mean := cfg.X1
		if r.Float64() >= 0.5 {
			mean += cfg.X2
		}
		y[i] = mean + sd*r.NormFloat64()
	}
	return New(cfg, y)
}

// New returns the model on the data y (kept, not copied); cfg.N is
// ignored (len(y) is used) and cfg.X1, cfg.X2 are not used.
func New(cfg Config, y []float64) (*Model, error) {
	b := cfg.Box
	switch {
	case len(y) < 1:
		return nil, fmt.Errorf("tgm: no data")
	case !(cfg.SigmaY2 > 0) || math.IsInf(cfg.SigmaY2, 0):
		return nil, fmt.Errorf("tgm: σ_y² = %v must be positive and finite", cfg.SigmaY2)
	case !(cfg.Beta > 0 && cfg.Beta <= 1):
		return nil, fmt.Errorf("tgm: tempering β = %v must lie in (0, 1]", cfg.Beta)
	case !(b.Lo1 < b.Hi1) || math.IsInf(b.Lo1, 0) || math.IsInf(b.Hi1, 0):
		return nil, fmt.Errorf("tgm: x1-range [%v, %v] must be finite and non-empty", b.Lo1, b.Hi1)
	case !(b.Lo2 < b.Hi2) || math.IsInf(b.Lo2, 0) || math.IsInf(b.Hi2, 0):
		return nil, fmt.Errorf("tgm: x2-range [%v, %v] must be finite and non-empty", b.Lo2, b.Hi2)
	case b.Lo2 != -b.Hi2:
		return nil, fmt.Errorf("tgm: x2-range [%v, %v] must be symmetric about 0 (the closed-form ranges need it)", b.Lo2, b.Hi2)
	case cfg.Prior != Flat && cfg.Prior != Gaussian:
		return nil, fmt.Errorf("tgm: unknown prior %d", cfg.Prior)
	case cfg.Prior == Gaussian && (!(cfg.PriorVar1 > 0) || !(cfg.PriorVar2 > 0) || math.IsInf(cfg.PriorVar1+cfg.PriorVar2, 0)):
		return nil, fmt.Errorf("tgm: prior variances (%v, %v) must be positive and finite", cfg.PriorVar1, cfg.PriorVar2)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tgm: datum %d is %v", i, v)
		}
	}
	cfg.N = len(y)
	m := &Model{cfg: cfg, y: y,
		lo: make([]float64, len(y)), hi: make([]float64, len(y)),
		c: make([]float64, len(y)), u2: make([]float64, len(y)),
		logNorm: math.Log(0.5) - 0.5*math.Log(2*math.Pi*cfg.SigmaY2),
		inv2s2:  0.5 / cfg.SigmaY2, invS2: 1 / cfg.SigmaY2}
	m.priorVar = [2]float64{cfg.PriorVar1, cfg.PriorVar2}
	for j, v := range m.priorVar {
		m.priorLog[j] = 0.5 * math.Log(2*math.Pi*v)
	}
	m.computeRanges()
	m.computeBounds()
	return m, nil
}

// Config returns the model's configuration (N = number of data).
func (m *Model) Config() Config { return m.cfg }

// N returns the number of data points.
func (m *Model) N() int { return len(m.y) }

// Data returns the data (a view).
func (m *Model) Data() []float64 { return m.y }

// Beta returns the tempering exponent.
func (m *Model) Beta() float64 { return m.cfg.Beta }

// logMix returns log(½N(y; u, σ²) + ½N(y; v, σ²)).
func (m *Model) logMix(y, u, v float64) float64 {
	a := -(y - u) * (y - u) * m.inv2s2
	b := -(y - v) * (y - v) * m.inv2s2
	if a < b {
		a, b = b, a
	}
	return m.logNorm + a + math.Log1p(math.Exp(b-a))
}

// LogLik returns the tempered log-likelihood term ℓ_i(x1, x2).
func (m *Model) LogLik(i int, x1, x2 float64) float64 {
	return m.cfg.Beta * m.logMix(m.y[i], x1, x1+x2)
}

// weights returns p = P(first component | y, x), q = 1 − p and the
// derivatives A = (y − x1)/σ², B = (y − x1 − x2)/σ².
func (m *Model) weights(i int, x1, x2 float64) (p, q, A, B float64) {
	y := m.y[i]
	a := -(y - x1) * (y - x1) * m.inv2s2
	b := -(y - x1 - x2) * (y - x1 - x2) * m.inv2s2
	p = 1 / (1 + math.Exp(b-a))
	q = 1 / (1 + math.Exp(a-b))
	return p, q, (y - x1) * m.invS2, (y - x1 - x2) * m.invS2
}

// Grad returns ∇ℓ_i(x1, x2).
func (m *Model) Grad(i int, x1, x2 float64) (g1, g2 float64) {
	p, q, A, B := m.weights(i, x1, x2)
	beta := m.cfg.Beta
	return beta * (p*A + q*B), beta * q * B
}

// Hess returns the entries of ∇²ℓ_i(x1, x2): ∂²/∂x1², ∂²/∂x1∂x2, ∂²/∂x2².
func (m *Model) Hess(i int, x1, x2 float64) (h11, h12, h22 float64) {
	p, q, A, B := m.weights(i, x1, x2)
	beta, s := m.cfg.Beta, m.invS2
	pq := p * q
	h11 = -s + pq*(A-B)*(A-B)
	h12 = -q*s - pq*(A-B)*B
	h22 = -q*s + pq*B*B
	return beta * h11, beta * h12, beta * h22
}

// LogPrior returns the log prior at (x1, x2) up to a constant (not
// tempered): −Inf outside the box.
func (m *Model) LogPrior(x1, x2 float64) float64 {
	b := m.cfg.Box
	if !(x1 >= b.Lo1 && x1 <= b.Hi1 && x2 >= b.Lo2 && x2 <= b.Hi2) {
		return math.Inf(-1)
	}
	if m.cfg.Prior == Flat {
		return 0
	}
	return m.PriorTerm(0, x1) + m.PriorTerm(1, x2)
}

// PriorTerm returns the log prior factor of variable j (0 for x1, 1 for x2)
// at value x, normalising constant included (0 for the flat prior). It
// does not check the box.
func (m *Model) PriorTerm(j int, x float64) float64 {
	if m.cfg.Prior == Flat {
		return 0
	}
	return -0.5*x*x/m.priorVar[j] - m.priorLog[j]
}

// PriorRange returns the range of PriorTerm(j, ·) over the box side j.
func (m *Model) PriorRange(j int) (lo, hi float64) {
	a, b := m.cfg.Box.Lo1, m.cfg.Box.Hi1
	if j == 1 {
		a, b = m.cfg.Box.Lo2, m.cfg.Box.Hi2
	}
	near := min(max(0, a), b)
	far := a
	if math.Abs(b) > math.Abs(a) {
		far = b
	}
	return m.PriorTerm(j, far), m.PriorTerm(j, near)
}

// rangeMargin is the relative widening of the declared ranges.
const rangeMargin = 1e-12

func (m *Model) computeRanges() {
	b := m.cfg.Box
	w := b.Hi2
	beta := m.cfg.Beta
	m.sumRange = 0
	for i, y := range m.y {
		// Maximum.
		u := min(max(y, b.Lo1), b.Hi1)
		v := min(max(y, u-w), u+w)
		hi := beta * m.logMix(y, u, v)
		// Minimum: x1 at the end farther from y, v at the end farther from y.
		u = b.Lo1
		if math.Abs(y-b.Hi1) > math.Abs(y-b.Lo1) {
			u = b.Hi1
		}
		v = u - w
		if math.Abs(y-(u+w)) > math.Abs(y-(u-w)) {
			v = u + w
		}
		lo := beta * m.logMix(y, u, v)
		pad := rangeMargin * (math.Abs(lo) + math.Abs(hi))
		m.lo[i], m.hi[i] = lo-pad, hi+pad
		m.sumRange += m.hi[i] - m.lo[i]
	}
}

func (m *Model) computeBounds() {
	b := m.cfg.Box
	w1 := max(math.Abs(b.Lo1), math.Abs(b.Hi1))
	w12 := max(math.Abs(b.Lo1+b.Lo2), math.Abs(b.Hi1+b.Hi2))
	s := m.invS2
	beta := m.cfg.Beta
	for i, y := range m.y {
		ay := math.Abs(y)
		d1 := (2*ay + w1 + w12) * s
		d2 := (ay + w12) * s
		m.c[i] = beta * math.Hypot(d1, d2)
		m.u2[i] = beta * (d1*d1 + (ay+w1)*s*(ay+w1)*s + d2*d2 + 2*s)
	}
}

// Range returns the declared range [lo_i, hi_i] of ℓ_i over the box.
func (m *Model) Range(i int) (lo, hi float64) { return m.lo[i], m.hi[i] }

// Ranges returns views of all lower and upper range ends.
func (m *Model) Ranges() (lo, hi []float64) { return m.lo, m.hi }

// SumRanges returns Σ_i (hi_i − lo_i) over the data factors.
func (m *Model) SumRanges() float64 { return m.sumRange }

// L returns L = max_j L_j of the factor graph with two variables, N data
// factors each touching both, and one prior factor per variable
// (L_j = Σ_i (hi_i − lo_i) + the range of variable j's prior).
func (m *Model) L() float64 {
	lo1, hi1 := m.PriorRange(0)
	lo2, hi2 := m.PriorRange(1)
	return m.sumRange + max(hi1-lo1, hi2-lo2)
}

// LocalBound returns c_i (see the package comment).
func (m *Model) LocalBound(i int) float64 { return m.c[i] }

// SecondBound returns β·Ū_{2,i}, a bound on every second partial derivative
// of ℓ_i on the box.
func (m *Model) SecondBound(i int) float64 { return m.u2[i] }
