package gibbs

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Mixed chooses, variable by variable, the cheaper of two exact updates: a
// plain Gibbs update where the expected Poisson-Gibbs minibatch, L_i(λ/L + 1)
// draws (λ_i + L_i in the per-variable variant), is not smaller than the
// number of soft factors of A[i], and a Poisson-Gibbs update otherwise: its
// expected minibatch is never larger than A[i]. Each update leaves π
// invariant on its own (the Poisson variables are redrawn at each step),
// so any such mixture does too. Options are those of PoissonGibbs; a λ so
// large that L² overflows, or a factor range so wide that no minibatch
// could be drawn, only makes every update a plain Gibbs one. A step
// evaluates at most |A[i]|·D_i factor values or draws a minibatch smaller
// than A[i], and Options.MaxDraws bounds that.
type Mixed struct {
	*PoissonGibbs
	exact       []bool // exact[i]: update i by plain Gibbs
	nGibbs, nPG int
}

// NewMixed returns a Mixed sampler on m.
func NewMixed(m factorgraph.Model, r *rand.Rand, opt *Options) (*Mixed, error) {
	if opt == nil {
		opt = &Options{}
	}
	c, err := newSiteChain("Auto", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	pg := &PoissonGibbs{core: c}
	if pg.pg, err = newPGParams(&pg.core, opt); err != nil {
		return nil, fmt.Errorf("gibbs: Auto: %w", err)
	}
	a := &Mixed{PoissonGibbs: pg, exact: make([]bool, m.NumVars())}
	a.update = a.Update // Step and Sweep use Auto's choice
	var vars []int      // the minibatch updates
	for _, i := range pg.free {
		soft, _ := m.Degree(i)
		if pg.pg.draws(m, i) >= float64(soft) {
			a.exact[i] = true
			a.nGibbs++
		} else {
			vars = append(vars, i)
			a.nPG++
		}
	}
	if err := a.check(opt); err != nil {
		return nil, err
	}
	if err := pg.pg.init(&pg.core, vars); err != nil {
		return nil, fmt.Errorf("gibbs: Auto: %w", err)
	}
	return a, nil
}

// check refuses the sampler if a step would exceed Options.MaxDraws.
func (a *Mixed) check(opt *Options) error {
	limit, err := maxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: auto: %w", err)
	}
	c := &a.core
	w := c.worstUpdate(func(i int) float64 {
		if a.exact[i] {
			return c.exactWork(i)
		}
		return c.minibatchWork(i, a.pg.draws(c.m, i), c.values(i))
	})
	if !(w.work > limit) {
		return nil
	}
	soft, hard := c.m.Degree(w.i)
	what := fmt.Sprintf("evaluate about %.2g factor values (variable %d: |A[i]| = %d factors at D = %d values)", w.work, w.i, soft+hard, c.size[w.i])
	if !a.exact[w.i] {
		d := a.pg.draws(c.m, w.i)
		what = fmt.Sprintf("%s (variable %d, %s)", drawText(d, w.work), w.i, lambdaText("λ", opt.Lambda, opt.LambdaScale, "L", a.pg.lambda))
	}
	return tooMuch("auto", what, limit, "each update already is the cheaper of gibbs's and pgibbs's; raise Options.MaxDraws to run steps this long")
}

// Kinds returns how many free variables Mixed updates by plain Gibbs and by
// Poisson-Gibbs.
func (a *Mixed) Kinds() (gibbs, poissonGibbs int) { return a.nGibbs, a.nPG }

// Update resamples variable i by the update chosen for it.
func (a *Mixed) Update(i int) {
	if a.err != nil || a.clamped[i] {
		return
	}
	if a.exact[i] {
		a.exactUpdate(i)
		return
	}
	a.PoissonGibbs.Update(i)
}
