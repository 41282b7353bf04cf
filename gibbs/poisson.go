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
	core
	pg *pgState
}

// NewPoissonGibbs returns a Poisson-Gibbs sampler on m drawing from r.
func NewPoissonGibbs(m factorgraph.Model, r *rand.Rand, opt *Options) (*PoissonGibbs, error) {
	if opt == nil {
		opt = &Options{}
	}
	c, err := newSiteChain("PoissonGibbs", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	s := &PoissonGibbs{core: c}
	s.update = s.Update
	if s.pg, err = newPGParams(&s.core, opt); err != nil {
		return nil, fmt.Errorf("gibbs: PoissonGibbs: %w", err)
	}
	if err := s.pg.check(&s.core, opt, "pgibbs", 0); err != nil {
		return nil, err
	}
	if err := s.pg.init(&s.core, s.free); err != nil {
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
	s.pg.discreteUpdate(&s.core, i)
}

// pgState is the Poisson minibatch of one step (Statement 1), shared by the
// discrete and continuous Poisson-Gibbs samplers.
type pgState struct {
	lambda      float64
	perVariable bool
	counts      *minibatch.Counts
	picks       []int32 // the B2 picks of draw
	a           float64 // λ/L of the current draw

	// The compiled path (compiled.go): L_i per variable, log(1 + L/λ) and
	// its negative powers for the global λ, Potts counts per value.
	li     []float64
	full   float64
	pow    []float64
	n      []int32
	gens   []pgGen
	genIdx []int32
	tmp    pgGen
	// Direct counts (directUpdate): per variable its block (h < 0: not
	// direct), the heavy factors, and generators shared by equal means,
	// of phase 1 (pool) and phase 2 (pool2).
	hot         []pgVar
	refs        []int32   // the heavy factors' Col references
	rec         []int32   // or hot and refs in one record a variable (recordLayout)
	recLen      int       // the records' length in words
	shapes      []int32   // the heavy factors' generators, by shape
	xs          []float64 // their neighbours' values during an update
	gather      bool      // read xs in a loop of their own
	pool, pool2 []minibatch.PoissonGen
	seen        []uint32 // seen[k] = epoch: the k-th soft factor of A[i] was picked
	epoch       uint32
	tor         *torusPG // the torus path's precomputed draw (torus.go), or nil

	// The kept factors of the current draw, for repeated energy
	// evaluations (continuous samplers): local index, count s_φ,
	// 1/(aM_φ) = L/(λM_φ), and range limits.
	keys   []int
	s, inv []float64
	lo, hi []float64
}

// newPGParams returns the Poisson minibatch of the options, λ resolved
// (+Inf if L² overflows: the caller's check refuses it), ready for check
// and then init.
func newPGParams(c *core, opt *Options) (*pgState, error) {
	lambda, err := lambdaOf(opt, c.m.L())
	if err != nil {
		return nil, err
	}
	return &pgState{lambda: lambda, perVariable: opt.PerVariable}, nil
}

// init sets up the draws of the updates of vars, the free variables the
// sampler updates by Poisson-Gibbs (all of them but Mixed's exact ones).
func (p *pgState) init(c *core, vars []int) error {
	// Per-factor counts, over the largest A[i]; the torus kernel keeps its
	// own (per-value counts) and needs none.
	nc := max(c.m.MaxDegree(), 1)
	if c.torus != nil {
		nc = 1
	}
	p.counts = minibatch.NewCounts(nc)
	if len(vars) == 0 {
		return nil
	}
	// The largest expected draw of a step is λ + L (Statement 1).
	if err := minibatch.CheckMean(p.lambda + c.m.L()); err != nil {
		return fmt.Errorf("λ = %g, L = %g: %w", p.lambda, c.m.L(), err)
	}
	if c.kg != nil && c.kg.Discrete {
		p.li = make([]float64, c.m.NumVars())
		for i := range p.li {
			p.li[i] = c.m.Li(i)
		}
		if l := c.m.L(); l > 0 {
			p.a = p.lambda / l
			p.full = math.Log1p(1 / p.a)
			p.pow = newPow(p.full)
		}
		p.n = make([]int32, len(c.u))
		p.initGens(c, vars)
		p.initDirect(c, vars)
		p.seen = make([]uint32, max(c.m.MaxDegree(), 1))
	}
	if c.torus != nil {
		p.tor = newTorusPG(c.torus, p.lambda)
	}
	return nil
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
//
// It draws Statement 1's counts s_φ ~ Poisson(aM_φ + φ̃(x)), a = λ/L, as
// the sum of two independent thinned processes (see compiledUpdate for the
// argument): B1 ~ Poisson(a·L_i) picks ∝ M_φ, all kept, evaluate nothing;
// B2 ~ Poisson(L_i) picks ∝ M_φ, each kept with probability φ̃(x)/M_φ. The
// B2 picks are all drawn before any is evaluated, so that the memory reads
// of the picks and then of the picked factors overlap.
func (p *pgState) draw(c *core, i int) bool {
	l, lambda := p.scale(c.m, i)
	a := lambda / l
	p.a = a
	li := c.m.Li(i)
	b1, b2 := minibatch.Poisson(c.r, a*li), minibatch.Poisson(c.r, li)
	c.stats.Picks += int64(b1 + b2)
	p.counts.Reset()
	if !c.pickAll(p.counts, i, b1) || !p.pickThin(c, i, b2) {
		return false
	}
	for _, k32 := range p.picks {
		if c.spend(1) {
			return false
		}
		k := int(k32)
		mk := c.m.Bound(i, k)
		t := c.m.Eval(i, k, c.x)
		if !factorgraph.InRange(t, mk) {
			c.fail(factorgraph.CheckError(c.m, i, k, t))
			return false
		}
		if t >= mk || c.r.Float64()*mk < t {
			p.counts.Add(k)
		}
	}
	c.stats.Factors += int64(p.counts.Len())
	return true
}

// pickAll adds b picks ∝ M_φ from the soft factors of A[i] to counts (the
// kept picks of a minibatch), in chunks between which it looks at the
// interrupt channel. It reports false if the update must stop.
func (c *core) pickAll(counts *minibatch.Counts, i, b int) bool {
	for b > 0 {
		n := min(b, pollEvery)
		if c.kg != nil {
			for range n {
				counts.Add(c.kg.Pick(i, c.r))
			}
		} else {
			for range n {
				counts.Add(c.m.Pick(i, c.r))
			}
		}
		if b -= n; b > 0 && c.stop() {
			return false
		}
	}
	return true
}

// pickThin sets p.picks to b picks ∝ M_φ from A[i] (phase 2 of draw, to be
// thinned), in chunks between which it looks at the interrupt channel. It
// reports false if the update must stop.
func (p *pgState) pickThin(c *core, i, b int) bool {
	picks := p.picks[:0]
	for b > 0 {
		n := min(b, pollEvery)
		if c.kg != nil {
			for range n {
				picks = append(picks, int32(c.kg.Pick(i, c.r)))
			}
		} else {
			for range n {
				picks = append(picks, int32(c.m.Pick(i, c.r)))
			}
		}
		if b -= n; b > 0 && c.stop() {
			p.picks = picks
			return false
		}
	}
	p.picks = picks
	return true
}

// discreteUpdate resamples discrete variable i (Algorithm 2).
func (p *pgState) discreteUpdate(c *core, i int) {
	switch {
	case c.kg != nil:
		p.compiledUpdate(c, i)
	case c.torus != nil:
		p.torusUpdate(c, i)
	default:
		p.genericUpdate(c, i)
	}
}

// genericUpdate is discreteUpdate through the model's interface.
func (p *pgState) genericUpdate(c *core, i int) {
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
			c.m.EvalAll(i, k, c.x, buf)
			if !c.addLog1p(i, k, buf, c.m.Bound(i, k), float64(p.counts.Count(k)), p.a, full, u) || c.spend(len(u)) {
				return
			}
		}
	}
	c.set(i, u)
}
