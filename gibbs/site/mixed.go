package site

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// Mixed chooses, variable by variable, the cheaper of two exact updates by
// a cost model (core.MixedCost, fitted on this project's benchmarks): a
// plain Gibbs update, which reads every factor of A[i], or a Poisson-Gibbs
// update, whose expected minibatch is L_i(λ/L + 1) draws (λ_i + L_i in the
// per-variable variant) at a fixed cost of about a hundred pair reads (its
// Poisson counts, tallies and weights): Poisson-Gibbs on the paper's Potts
// model (29 draws against 399 factors), plain Gibbs on a random graph of
// degree 20 (9 draws against 20 factors, where a minibatch is 2× slower).
// A minibatch is never larger than A[i]. Each update leaves π
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
func NewMixed(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (*Mixed, error) {
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c, err := core.NewSiteCore("Auto", m, r, opt, true)
	if err != nil {
		return nil, err
	}
	pg := &PoissonGibbs{base: newBase(c)}
	if pg.core().PG, err = core.NewPG(pg.core(), opt); err != nil {
		return nil, fmt.Errorf("gibbs: Auto: %w", err)
	}
	a := &Mixed{PoissonGibbs: pg, exact: make([]bool, m.NumVars())}
	b := a.core()
	b.UpdateFn = a.Update // Step and Sweep use Auto's choice
	var vars []int        // the minibatch updates
	for _, i := range b.Free {
		if core.Costs.PreferExact(m, b.KG, i, b.PG.Draws(m, i)) {
			a.exact[i] = true
			a.nGibbs++
		} else {
			vars = append(vars, i)
			a.nPG++
		}
	}
	// A Chromatic worker's share: Gibbs's loop over the sites of a torus
	// model where every variable is updated by plain Gibbs (a lattice whose
	// minibatch would not be smaller than its K neighbours: a
	// nearest-neighbour one), so that auto costs what gibbs does.
	b.TorusSweep = a.nPG == 0
	// One kind for every variable: its update without the choice's lookup
	// (a cache miss a step on a graph far larger than the cache).
	switch {
	case a.nPG == 0:
		b.UpdateFn = a.updateExact
	case a.nGibbs == 0:
		b.UpdateFn = a.PoissonGibbs.Update
	}
	if err := a.check(opt); err != nil {
		return nil, err
	}
	if err := b.PG.Init(b, vars); err != nil {
		return nil, fmt.Errorf("gibbs: Auto: %w", err)
	}
	switch {
	case a.nGibbs == 0:
		b.PG.EnableAhead(b, core.AheadVars)
	case a.nPG == 0:
		b.EnableExactAhead(core.AheadVars)
	}
	return a, nil
}

// check refuses the sampler if a step would exceed Options.MaxDraws.
func (a *Mixed) check(opt *gibbs.Options) error {
	limit, err := core.MaxDrawsOf(opt)
	if err != nil {
		return fmt.Errorf("gibbs: auto: %w", err)
	}
	c := a.core()
	w := c.WorstUpdate(func(i int) float64 {
		if a.exact[i] {
			return c.ExactWork(i)
		}
		return c.MinibatchWork(i, a.core().PG.Draws(c.M, i), c.Values(i))
	})
	if !(w.Work > limit) {
		return nil
	}
	soft, hard := c.M.Degree(w.I)
	what := fmt.Sprintf("evaluate about %.2g factor values (variable %d: |A[i]| = %d factors at D = %d values)", w.Work, w.I, soft+hard, c.Size[w.I])
	if !a.exact[w.I] {
		d := a.core().PG.Draws(c.M, w.I)
		what = fmt.Sprintf("%s (variable %d, %s)", core.DrawText(d, w.Work), w.I, core.LambdaText("λ", opt.Lambda, opt.LambdaScale, "L", a.core().PG.Lambda))
	}
	return core.TooMuch("auto", what, limit, "each update already is the cheaper of gibbs's and pgibbs's; raise Options.MaxDraws to run steps this long")
}

// Lambda returns λ of the Poisson-Gibbs updates (declared here, not only
// promoted from the embedded PoissonGibbs, so that go doc lists it).
func (a *Mixed) Lambda() float64 { return a.PoissonGibbs.Lambda() }

// Kinds returns how many free variables Mixed updates by plain Gibbs and by
// Poisson-Gibbs.
func (a *Mixed) Kinds() (gibbs, poissonGibbs int) { return a.nGibbs, a.nPG }

// Exact reports whether variable i is updated by plain Gibbs (true) or by
// Poisson-Gibbs (false).
func (a *Mixed) Exact(i int) bool { return a.exact[i] }

// updateExact is Update where every variable is updated by plain Gibbs.
func (a *Mixed) updateExact(i int) {
	if a.core().Failure != nil || a.core().Clamped[i] {
		return
	}
	a.core().ExactUpdate(i)
}

// Update resamples variable i by the update chosen for it.
func (a *Mixed) Update(i int) {
	if a.core().Failure != nil || a.core().Clamped[i] {
		return
	}
	if a.exact[i] {
		a.core().ExactUpdate(i)
		return
	}
	a.PoissonGibbs.Update(i)
}
