package gibbs

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// PoissonGibbs is Poisson-minibatching Gibbs sampling on discrete variables
// (Algorithm 2 of Zhang & De Sa, NeurIPS 2019).
//
// Each factor φ gets an auxiliary count s_φ | x ~ Poisson(λM_φ/L + φ̃(x));
// given s, the conditional of x_i is
//
//	ρ(v) ∝ exp(U_v),   U_v = Σ_{φ∈A[i], s_φ>0} s_φ · log(1 + L·φ̃(x_{i←v})/(λM_φ)),
//
// which only involves the factors with s_φ > 0. A step redraws the s_φ of
// A[i] and then x_i; the chain is reversible with stationary distribution π,
// exactly, and its spectral gap is at least exp(−4L²/λ) times that of plain
// Gibbs when λ ≥ 2L (Theorem 1). The counts are drawn all at once in
// O(λ + L) expected time by thinning (Statement 1): B ~ Poisson(L_i(λ/L+1)),
// B alias picks of φ ∈ A[i] with probability M_φ/L_i, each kept with
// probability (λM_φ/L + φ̃(x))/(M_φ(λ/L+1)). No step scans A[i]: the expected
// number of distinct factors touched is at most λ + L whatever |A[i]| is.
//
// Hard factors of A[i] are added to U_v exactly. The default λ is L²; see
// Options for λ, a multiple of L², and the per-variable variant.
type PoissonGibbs struct {
	chain
	lambda      float64
	perVariable bool
	counts      *minibatch.Counts
	src         *pgSource
}

var _ Sampler = (*PoissonGibbs)(nil)

// NewPoissonGibbs returns a Poisson-Gibbs sampler on m drawing from r.
func NewPoissonGibbs(m factorgraph.Model, r *rand.Rand, opt *Options) (*PoissonGibbs, error) {
	if opt == nil {
		opt = &Options{}
	}
	c, err := newChain("PoissonGibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	lambda, err := opt.lambda(m.L())
	if err != nil {
		return nil, fmt.Errorf("gibbs: PoissonGibbs: %w", err)
	}
	s := &PoissonGibbs{
		chain:       c,
		lambda:      lambda,
		perVariable: opt.PerVariable,
		counts:      minibatch.NewCounts(max(m.MaxDegree(), 1)),
	}
	s.src = &pgSource{s: s}
	return s, nil
}

// Lambda returns λ.
func (s *PoissonGibbs) Lambda() float64 { return s.lambda }

// Step resamples a uniformly chosen free variable and returns it.
func (s *PoissonGibbs) Step() int {
	i := s.pick()
	s.Update(i)
	return i
}

// Sweep resamples every free variable once, in increasing order.
func (s *PoissonGibbs) Sweep() {
	for _, i := range s.free {
		s.Update(i)
	}
}

// scale returns L and λ for the update of variable i.
func (s *PoissonGibbs) scale(i int) (l, lambda float64) {
	l = s.m.L()
	if !s.perVariable {
		return l, s.lambda
	}
	li := s.m.Li(i)
	return li, s.lambda * (li / l) * (li / l)
}

// Update resamples variable i (Algorithm 2).
func (s *PoissonGibbs) Update(i int) {
	if s.err != nil || s.clamped[i] {
		return
	}
	s.stats.Steps++
	u := s.u[:s.m.Domain(i).Size]
	clear(u)
	soft, hard := s.m.Degree(i)
	for k := soft; k < soft+hard; k++ {
		if !s.addExact(i, k, u) {
			return
		}
	}
	if soft > 0 {
		if !s.minibatch(i, u) {
			return
		}
	}
	s.stats.Factors += int64(hard)
	s.set(i, u)
}

// minibatch draws the auxiliary counts of the soft factors of A[i] and adds
// their contribution to u. It reports false after recording an error.
func (s *PoissonGibbs) minibatch(i int, u []float64) bool {
	l, lambda := s.scale(i)
	a := lambda / l // λ/L
	s.src.i, s.src.a = i, a
	// Statement 1: B ~ Poisson(L_i(λ/L + 1)), picks ∝ M_φ, thinning.
	s.stats.Picks += int64(minibatch.Draw(s.r, s.m.Li(i)*(a+1), s.src, s.counts))
	if s.err != nil {
		return false
	}
	full := math.Log1p(1 / a) // log(1 + L·M_φ/(λM_φ)) for φ̃ = M_φ
	buf := s.buf[:len(u)]
	for _, k32 := range s.counts.Keys() {
		k := int(k32)
		sk := float64(s.counts.Count(k))
		mk := s.m.Bound(i, k)
		lo, hi := factorgraph.Limits(mk)
		s.m.EvalAll(i, k, s.x, buf)
		for v, t := range buf {
			switch {
			case t == 0:
			case t == mk:
				u[v] += sk * full
			case t >= lo && t <= hi:
				u[v] += sk * math.Log1p(t/(a*mk)) // s_φ log(1 + L φ̃/(λ M_φ))
			default:
				s.fail(factorgraph.CheckError(s.m, i, k, t))
				return false
			}
		}
	}
	s.stats.Factors += int64(s.counts.Len())
	return true
}

// pgSource is the thinning of Statement 1 for the current variable.
type pgSource struct {
	s *PoissonGibbs
	i int
	a float64 // λ/L
}

func (p *pgSource) Pick(r *rand.Rand) int { return p.s.m.Pick(p.i, r) }

// Keep returns (λM_φ/L + φ̃(x)) / (M_φ(λ/L + 1)).
func (p *pgSource) Keep(k int) float64 {
	s := p.s
	mk := s.m.Bound(p.i, k)
	t := s.m.Eval(p.i, k, s.x)
	if !factorgraph.InRange(t, mk) {
		s.fail(factorgraph.CheckError(s.m, p.i, k, t))
		return 0
	}
	return (p.a*mk + t) / (mk * (p.a + 1))
}
