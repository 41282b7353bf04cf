package gibbs

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Gibbs is plain single-site Gibbs sampling on discrete variables
// (Algorithm 1 of Zhang & De Sa 2019): pick i, compute
//
//	U_v = Σ_{φ∈A[i]} φ̃(x_{i←v})
//
// for every value v, and draw x_i = v with probability ∝ exp(U_v). A step
// costs O(D·|A[i]|) factor evaluations.
type Gibbs struct {
	core
}

// NewGibbs returns a Gibbs sampler on m drawing from r. Only opt.Init and
// opt.MaxDraws are used (a step evaluates up to |A[i]|·D_i factor values);
// opt may be nil. A model with a hard factor that fixes one of its
// variables given the others (x0 = x1; a deterministic link of a
// pedigree) is refused, naming the factor: no single-site update could
// change that variable, so the chain would be reducible. The other
// single-site samplers (Poisson-Gibbs, Mixed, the MIN family, the
// continuous samplers) refuse it too; blocks move it (NewBlocked, or the
// registry's auto).
func NewGibbs(m factorgraph.Model, r *rand.Rand, opt *Options) (*Gibbs, error) {
	if opt == nil {
		opt = &Options{}
	}
	c, err := newSiteChain("Gibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	if err := c.checkExact(opt, "gibbs"); err != nil {
		return nil, err
	}
	s := &Gibbs{core: c}
	s.update = s.Update
	return s, nil
}

// Update resamples variable i from its full conditional.
func (s *Gibbs) Update(i int) {
	if s.err != nil || s.clamped[i] {
		return
	}
	s.exactUpdate(i)
}

// exactUpdate resamples discrete variable i from its full conditional
// (Algorithm 1).
func (c *core) exactUpdate(i int) {
	switch {
	case c.kg != nil:
		c.exactCompiled(i)
	case c.torus != nil:
		c.exactTorus(i)
	default:
		c.exactGeneric(i)
	}
}

// exactGeneric is exactUpdate through the model's interface.
func (c *core) exactGeneric(i int) {
	c.stats.Steps++
	u := c.u[:c.m.Domain(i).Size]
	clear(u)
	soft, hard := c.m.Degree(i)
	for k := range soft + hard {
		if !c.addExact(i, k, u) || c.spend(len(u)) {
			return
		}
	}
	c.stats.Factors += int64(soft + hard)
	c.set(i, u)
}
