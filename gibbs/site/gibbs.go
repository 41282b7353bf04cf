package site

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// Gibbs is plain single-site Gibbs sampling on discrete variables
// (Algorithm 1 of Zhang & De Sa 2019): pick i, compute
//
//	U_v = Σ_{φ∈A[i]} φ̃(x_{i←v})
//
// for every value v, and draw x_i = v with probability ∝ exp(U_v). A step
// costs O(D·|A[i]|) factor evaluations.
type Gibbs struct {
	base
}

// NewGibbs returns a Gibbs sampler on m drawing from r. Only opt.Init and
// opt.MaxDraws are used (a step evaluates up to |A[i]|·D_i factor values);
// opt may be nil. A model with a hard factor that fixes one of its
// variables given the others (x0 = x1; a deterministic link of a
// pedigree) is refused, naming the factor: no single-site update could
// change that variable, so the chain would be reducible. The other
// single-site samplers (Poisson-Gibbs, Mixed, the MIN family, the
// continuous samplers) refuse it too; blocks move it (blocked.New, or the
// registry's auto).
func NewGibbs(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Gibbs, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c, err := core.NewSiteCore("Gibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	if err := c.CheckExact(opt, "gibbs"); err != nil {
		return nil, err
	}
	s := &Gibbs{base: newBase(c)}
	s.core().UpdateFn = s.Update
	s.core().TorusSweep = true // a Chromatic worker's share: the torus loop
	return s, nil
}

// Update resamples variable i from its full conditional.
func (s *Gibbs) Update(i int) {
	if s.core().Failure != nil || s.core().Clamped[i] {
		return
	}
	s.core().ExactUpdate(i)
}
