package core

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"

	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// PGState is the Poisson minibatch of one step (Statement 1), shared by the
// discrete and continuous Poisson-Gibbs samplers.
type PGState struct {
	Lambda      float64
	perVariable bool
	Counts      *minibatch.Counts
	picks       []int32 // the B2 picks of draw
	a           float64 // λ/L of the current draw

	// The compiled path (compiled.go): L_i per variable, log(1 + L/λ) and
	// its negative powers for the global λ, Potts counts per value.
	li     []float64
	full   float64
	pow    []float64
	n      []int32
	Gens   []pgGen
	genIdx []int32
	tmp    pgGen
	// Direct counts (directUpdate): per variable its block (h < 0: not
	// direct), the heavy factors, and generators shared by equal means
	// of the counts of phase 1 and phase 2, drawn together (Pairs).
	Hot    []pgVar
	refs   []int32   // the heavy factors' Col references
	Rec    []int32   // or hot and refs in one record a variable (recordLayout)
	recLen int       // the records' length in words
	shapes []int32   // the heavy factors' generators, by shape
	xs     []float64 // their neighbours' values during an update
	Gather bool      // read xs in a loop of their own (set at Init by the state's size; tests set it)
	Pairs  []minibatch.PoissonPair
	joint  int      // the joint tables built (newPair)
	seen   []uint32 // seen[k] = epoch: the k-th soft factor of A[i] was picked
	epoch  uint32
	TorPG  *torusPG // the torus path's precomputed draw (torus.go), or nil

	// The kept factors of the current draw, for repeated energy
	// evaluations (continuous samplers): local index, count s_φ,
	// 1/(aM_φ) = L/(λM_φ), and range limits.
	Keys   []int
	S, Inv []float64
	Lo, Hi []float64
}

// NewPG returns the Poisson minibatch of the options, λ resolved
// (+Inf if L² overflows: the caller's check refuses it), ready for check
// and then init.
func NewPG(c *Core, opt *gibbs.Options) (*PGState, error) {
	lambda, err := LambdaOf(opt, c.M.L())
	if err != nil {
		return nil, err
	}
	return &PGState{Lambda: lambda, perVariable: opt.PerVariable}, nil
}

// Init sets up the draws of the updates of vars, the free variables the
// sampler updates by Poisson-Gibbs (all of them but Mixed's exact ones).
func (p *PGState) Init(c *Core, vars []int) error {
	// Per-factor counts, over the largest A[i]; the torus kernel keeps its
	// own (per-value counts) and needs none.
	nc := max(c.M.MaxDegree(), 1)
	if c.Tor != nil {
		nc = 1
	}
	p.Counts = minibatch.NewCounts(nc)
	if len(vars) == 0 {
		return nil
	}
	// The largest expected draw of a step is λ + L (Statement 1).
	if err := minibatch.CheckMean(p.Lambda + c.M.L()); err != nil {
		return fmt.Errorf("λ = %g, L = %g: %w", p.Lambda, c.M.L(), err)
	}
	if c.KG != nil && c.KG.Discrete {
		p.li = c.KG.Li // the graph's L_i, shared: no copy a chain
		if l := c.M.L(); l > 0 {
			p.a = p.Lambda / l
			p.full = math.Log1p(1 / p.a)
			p.pow = newPow(p.full)
		}
		p.n = make([]int32, len(c.U))
		p.initGens(c, vars)
		p.initDirect(c, vars)
		p.seen = make([]uint32, max(c.M.MaxDegree(), 1))
	}
	if c.Tor != nil {
		p.TorPG = NewTorusPG(c.Tor, p.Lambda)
	}
	return nil
}

// scale returns L and λ for the update of variable i.
func (p *PGState) scale(m factorgraph.Model, i int) (l, lambda float64) {
	l = m.L()
	if !p.perVariable {
		return l, p.Lambda
	}
	li := m.Li(i)
	return li, p.Lambda * (li / l) * (li / l)
}

// Draw draws the counts s_φ of the soft factors of A[i] at the current
// state into p.Counts. It reports false after recording an error.
//
// It draws Statement 1's counts s_φ ~ Poisson(aM_φ + φ̃(x)), a = λ/L, as
// the sum of two independent thinned processes (see compiledUpdate for the
// argument): B1 ~ Poisson(a·L_i) picks ∝ M_φ, all kept, evaluate nothing;
// B2 ~ Poisson(L_i) picks ∝ M_φ, each kept with probability φ̃(x)/M_φ. The
// B2 picks are all drawn before any is evaluated, so that the memory reads
// of the picks and then of the picked factors overlap.
func (p *PGState) Draw(c *Core, i int) bool {
	l, lambda := p.scale(c.M, i)
	a := lambda / l
	p.a = a
	li := c.M.Li(i)
	b1, b2 := minibatch.Poisson(c.R, a*li), minibatch.Poisson(c.R, li)
	c.Stat.Picks += int64(b1 + b2)
	p.Counts.Reset()
	if !c.PickAll(p.Counts, i, b1) || !p.pickThin(c, i, b2) {
		return false
	}
	for _, k32 := range p.picks {
		if c.Spend(1) {
			return false
		}
		k := int(k32)
		mk := c.M.Bound(i, k)
		t := c.M.Eval(i, k, c.X)
		if !factorgraph.InRange(t, mk) {
			c.Fail(factorgraph.CheckError(c.M, i, k, t))
			return false
		}
		if t >= mk || c.R.Float64()*mk < t {
			p.Counts.Add(k)
		}
	}
	c.Stat.Factors += int64(p.Counts.Len())
	return true
}

// PickAll adds b picks ∝ M_φ from the soft factors of A[i] to counts (the
// kept picks of a minibatch), in chunks between which it looks at the
// interrupt channel. It reports false if the update must stop.
func (c *Core) PickAll(counts *minibatch.Counts, i, b int) bool {
	for b > 0 {
		n := min(b, PollEvery)
		if c.KG != nil {
			for range n {
				counts.Add(c.KG.Pick(i, c.R))
			}
		} else {
			for range n {
				counts.Add(c.M.Pick(i, c.R))
			}
		}
		if b -= n; b > 0 && c.Stop() {
			return false
		}
	}
	return true
}

// pickThin sets p.picks to b picks ∝ M_φ from A[i] (phase 2 of draw, to be
// thinned), in chunks between which it looks at the interrupt channel. It
// reports false if the update must stop.
func (p *PGState) pickThin(c *Core, i, b int) bool {
	picks := p.picks[:0]
	for b > 0 {
		n := min(b, PollEvery)
		if c.KG != nil {
			for range n {
				picks = append(picks, int32(c.KG.Pick(i, c.R)))
			}
		} else {
			for range n {
				picks = append(picks, int32(c.M.Pick(i, c.R)))
			}
		}
		if b -= n; b > 0 && c.Stop() {
			p.picks = picks
			return false
		}
	}
	p.picks = picks
	return true
}

// DiscreteUpdate resamples discrete variable i (Algorithm 2).
func (p *PGState) DiscreteUpdate(c *Core, i int) {
	switch {
	case c.KG != nil:
		p.compiledUpdate(c, i)
	case c.Tor != nil:
		p.torusUpdate(c, i)
	default:
		p.genericUpdate(c, i)
	}
}

// genericUpdate is discreteUpdate through the model's interface.
func (p *PGState) genericUpdate(c *Core, i int) {
	c.Stat.Steps++
	u := c.U[:c.M.Domain(i).Size]
	if !c.HardEnergies(i, u) {
		return
	}
	if soft, _ := c.M.Degree(i); soft > 0 {
		if !p.Draw(c, i) {
			return
		}
		full := math.Log1p(1 / p.a) // log(1 + L·M_φ/(λM_φ)) for φ̃ = M_φ
		buf := c.Buf[:len(u)]
		for _, k32 := range p.Counts.Keys() {
			k := int(k32)
			c.M.EvalAll(i, k, c.X, buf)
			if !c.addLog1p(i, k, buf, c.M.Bound(i, k), float64(p.Counts.Count(k)), p.a, full, u) || c.Spend(len(u)) {
				return
			}
		}
	}
	c.set(i, u)
}

// Cache records the kept factors of the current draw with their
// coefficients, for Continuous.energy. It reports false if the update must
// stop.
func (p *PGState) Cache(c *Core, i int) bool {
	p.Keys, p.S, p.Inv, p.Lo, p.Hi = p.Keys[:0], p.S[:0], p.Inv[:0], p.Lo[:0], p.Hi[:0]
	for _, k32 := range p.Counts.Keys() {
		if c.Spend(1) {
			return false
		}
		k := int(k32)
		mk := c.M.Bound(i, k)
		lo, hi := factorgraph.Limits(mk)
		p.Keys = append(p.Keys, k)
		p.S = append(p.S, float64(p.Counts.Count(k)))
		p.Inv = append(p.Inv, 1/(p.a*mk))
		p.Lo, p.Hi = append(p.Lo, lo), append(p.Hi, hi)
	}
	return true
}

// Bound returns max_x U_s(x) = Σ s_φ log(1 + L/λ), the envelope of
// PG-rejection, for the cached draw.
func (p *PGState) Bound() float64 {
	n := 0.0
	for _, s := range p.S {
		n += s
	}
	return n * math.Log1p(1/p.a)
}
