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
	pg *pgState
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
	s := &PoissonGibbs{chain: c}
	s.update = s.Update
	if s.pg, err = newPGState(&s.chain, opt); err != nil {
		return nil, fmt.Errorf("gibbs: PoissonGibbs: %w", err)
	}
	return s, nil
}

// Lambda returns λ.
func (s *PoissonGibbs) Lambda() float64 { return s.pg.lambda }

// Update resamples variable i (Algorithm 2).
func (s *PoissonGibbs) Update(i int) {
	if s.err != nil || s.clamped[i] {
		return
	}
	s.pg.discreteUpdate(&s.chain, i)
}

// pgState is the Poisson minibatch of one step (Statement 1), shared by the
// discrete and continuous Poisson-Gibbs samplers.
type pgState struct {
	lambda      float64
	perVariable bool
	counts      *minibatch.Counts
	src         *pgSource
	a           float64 // λ/L of the current draw

	// The kept factors of the current draw, for repeated energy
	// evaluations (continuous samplers): local index, count s_φ,
	// 1/(aM_φ) = L/(λM_φ), and range limits.
	keys   []int
	s, inv []float64
	lo, hi []float64
}

func newPGState(c *chain, opt *Options) (*pgState, error) {
	lambda, err := opt.lambda(c.m.L())
	if err != nil {
		return nil, err
	}
	// The largest expected draw of a step is λ + L (Statement 1).
	if err := minibatch.CheckMean(lambda + c.m.L()); err != nil {
		return nil, fmt.Errorf("λ = %g, L = %g: %w", lambda, c.m.L(), err)
	}
	p := &pgState{lambda: lambda, perVariable: opt.PerVariable, counts: minibatch.NewCounts(max(c.m.MaxDegree(), 1))}
	p.src = &pgSource{c: c}
	return p, nil
}

// scale returns L and λ for the update of variable i.
func (p *pgState) scale(m factorgraph.Model, i int) (l, lambda float64) {
	l = m.L()
	if !p.perVariable {
		return l, p.lambda
	}
	li := m.Li(i)
	return li, p.lambda * (li / l) * (li / l)
}

// draw draws the counts s_φ of the soft factors of A[i] at the current
// state into p.counts. It reports false after recording an error.
func (p *pgState) draw(c *chain, i int) bool {
	l, lambda := p.scale(c.m, i)
	p.a = lambda / l
	p.src.i, p.src.a = i, p.a
	// Statement 1: B ~ Poisson(L_i(λ/L + 1)), picks ∝ M_φ, thinning.
	c.stats.Picks += int64(minibatch.Draw(c.r, c.m.Li(i)*(p.a+1), p.src, p.counts))
	c.stats.Factors += int64(p.counts.Len())
	return c.err == nil
}

// discreteUpdate resamples discrete variable i (Algorithm 2).
func (p *pgState) discreteUpdate(c *chain, i int) {
	c.stats.Steps++
	u := c.u[:c.m.Domain(i).Size]
	if !c.hardEnergies(i, u) {
		return
	}
	if soft, _ := c.m.Degree(i); soft > 0 {
		if !p.draw(c, i) {
			return
		}
		full := math.Log1p(1 / p.a) // log(1 + L·M_φ/(λM_φ)) for φ̃ = M_φ
		buf := c.buf[:len(u)]
		for _, k32 := range p.counts.Keys() {
			k := int(k32)
			sk := float64(p.counts.Count(k))
			mk := c.m.Bound(i, k)
			lo, hi := factorgraph.Limits(mk)
			c.m.EvalAll(i, k, c.x, buf)
			for v, t := range buf {
				switch {
				case t == 0:
				case t == mk:
					u[v] += sk * full
				case t >= lo && t <= hi:
					u[v] += sk * math.Log1p(t/(p.a*mk)) // s_φ log(1 + L φ̃/(λ M_φ))
				default:
					c.fail(factorgraph.CheckError(c.m, i, k, t))
					return
				}
			}
		}
	}
	c.set(i, u)
}

// pgSource is the thinning of Statement 1 for the current variable.
type pgSource struct {
	c *chain
	i int
	a float64 // λ/L
}

func (p *pgSource) Pick(r *rand.Rand) int { return p.c.m.Pick(p.i, r) }

// Keep returns (λM_φ/L + φ̃(x)) / (M_φ(λ/L + 1)).
func (p *pgSource) Keep(k int) float64 {
	c := p.c
	mk := c.m.Bound(p.i, k)
	t := c.m.Eval(p.i, k, c.x)
	if !factorgraph.InRange(t, mk) {
		c.fail(factorgraph.CheckError(c.m, p.i, k, t))
		return 0
	}
	return (p.a*mk + t) / (mk * (p.a + 1))
}
