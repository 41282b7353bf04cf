package targets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/mh"
)

// Bias is the bias-demonstration target of the TunaMH paper (§2.1, App.
// J.1): N = 6000 data x_i ∈ {−1, 5} (5000 values −1 and 1000 values 5, so
// Σ_i x_i = 0) and θ ∈ {0, 1, …, K−1} with
//
//	π(θ) ∝ exp(−(1/N) Σ_i θ x_i),  i.e. ℓ_i(θ) = −θ x_i / N,
//
// which is uniform on {0, …, K−1}. It implements mh.Target,
// mh.LocalBounder (c_i = |x_i|/N, M = |θ − θ'|, tight) and mh.Ranger. θ is
// a float64 holding an integer; use the proposal LazyWalk.
type Bias struct {
	x []float64
	k int
}

var (
	_ mh.Target       = (*Bias)(nil)
	_ mh.LocalBounder = (*Bias)(nil)
	_ mh.Ranger       = (*Bias)(nil)
)

// NewBias returns the bias example on {0, …, k−1}, k ≥ 2.
func NewBias(k int) (*Bias, error) {
	if k < 2 {
		return nil, fmt.Errorf("targets: bias: K = %d must be at least 2", k)
	}
	x := make([]float64, 6000)
	for i := range x {
		if i < 5000 {
			x[i] = -1
		} else {
			x[i] = 5
		}
	}
	return &Bias{x: x, k: k}, nil
}

// K returns the number of states.
func (b *Bias) K() int { return b.k }

// Dim implements mh.Target.
func (b *Bias) Dim() int { return 1 }

// N implements mh.Target.
func (b *Bias) N() int { return len(b.x) }

// LogPrior implements mh.Target: 0 on {0, …, K−1}, −Inf elsewhere.
func (b *Bias) LogPrior(theta []float64) float64 {
	t := theta[0]
	if t >= 0 && t <= float64(b.k-1) && t == math.Trunc(t) {
		return 0
	}
	return math.Inf(-1)
}

// LogLik implements mh.Target.
func (b *Bias) LogLik(i int, theta []float64) float64 {
	return -theta[0] * b.x[i] / float64(len(b.x))
}

// LocalBound implements mh.LocalBounder.
func (b *Bias) LocalBound(i int) float64 { return math.Abs(b.x[i]) / float64(len(b.x)) }

// Distance implements mh.LocalBounder.
func (b *Bias) Distance(theta, thetaP []float64) float64 { return math.Abs(theta[0] - thetaP[0]) }

// LogLikRange implements mh.Ranger.
func (b *Bias) LogLikRange(i int) (lo, hi float64) {
	v := -float64(b.k-1) * b.x[i] / float64(len(b.x))
	return min(0, v), max(0, v)
}

// LazyWalk is the proposal of the bias example: from θ stay with
// probability 1/2, otherwise move to a neighbour (each with probability 1/4
// inside, 1/2 at the two ends). It is not symmetric at the ends, and
// Propose returns the log ratio log q(θ|θ') − log q(θ'|θ) accordingly.
type LazyWalk struct{ K int }

var _ mh.Proposal = LazyWalk{}

// q returns the probability of moving from a to b (|a − b| ≤ 1).
func (w LazyWalk) q(a, b int) float64 {
	if a == b {
		return 0.5
	}
	if a == 0 || a == w.K-1 {
		return 0.5
	}
	return 0.25
}

// Propose implements mh.Proposal.
func (w LazyWalk) Propose(dst, theta []float64, r *rand.Rand) float64 {
	a := int(theta[0])
	u := r.Float64()
	b := a
	switch {
	case u < 0.5:
	case a == 0:
		b = 1
	case a == w.K-1:
		b = a - 1
	case u < 0.75:
		b = a - 1
	default:
		b = a + 1
	}
	dst[0] = float64(b)
	return math.Log(w.q(b, a)) - math.Log(w.q(a, b))
}
