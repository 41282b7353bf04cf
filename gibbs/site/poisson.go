package site

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
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
	base
}

// NewPoissonGibbs returns a Poisson-Gibbs sampler on m drawing from r.
func NewPoissonGibbs(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*PoissonGibbs, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c, err := core.NewSiteCore("PoissonGibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	s := &PoissonGibbs{base: newBase(c)}
	s.core().UpdateFn = s.Update
	if s.core().PG, err = core.NewPG(s.core(), opt); err != nil {
		return nil, fmt.Errorf("gibbs: PoissonGibbs: %w", err)
	}
	if err := s.core().PG.Check(s.core(), opt, "pgibbs", 0); err != nil {
		return nil, err
	}
	if err := s.core().PG.Init(s.core(), s.core().Free); err != nil {
		return nil, fmt.Errorf("gibbs: PoissonGibbs: %w", err)
	}
	s.core().PG.EnableAhead(s.core(), core.AheadVars)
	return s, nil
}

// Lambda returns λ.
func (s *PoissonGibbs) Lambda() float64 { return s.core().PG.Lambda }

// Update resamples variable i (Algorithm 2).
func (s *PoissonGibbs) Update(i int) {
	if s.core().Failure != nil || s.core().Clamped[i] {
		return
	}
	s.core().PG.DiscreteUpdate(s.core(), i)
}
