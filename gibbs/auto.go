package gibbs

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Auto chooses, variable by variable, the cheaper of two exact updates: a
// plain Gibbs update where the expected Poisson-Gibbs minibatch, L_i(λ/L + 1)
// draws (λ_i + L_i in the per-variable variant), is not smaller than the
// number of soft factors of A[i], and a Poisson-Gibbs update otherwise.
// Each update leaves π invariant on its own (the Poisson variables are
// redrawn at each step), so any such mixture does too. Options are those of
// PoissonGibbs.
type Auto struct {
	*PoissonGibbs
	exact       []bool // exact[i]: update i by plain Gibbs
	nGibbs, nPG int
}

var _ Sampler = (*Auto)(nil)

// NewAuto returns an Auto sampler on m.
func NewAuto(m factorgraph.Model, r *rand.Rand, opt *Options) (*Auto, error) {
	pg, err := NewPoissonGibbs(m, r, opt)
	if err != nil {
		return nil, fmt.Errorf("gibbs: Auto: %w", err)
	}
	a := &Auto{PoissonGibbs: pg, exact: make([]bool, m.NumVars())}
	a.update = a.Update // Step and Sweep use Auto's choice
	for _, i := range m.Free() {
		soft, _ := m.Degree(i)
		l, lambda := pg.pg.scale(m, i)
		draws := m.Li(i) * (lambda/l + 1)
		if l == 0 || draws >= float64(soft) {
			a.exact[i] = true
			a.nGibbs++
		} else {
			a.nPG++
		}
	}
	return a, nil
}

// Kinds returns how many free variables Auto updates by plain Gibbs and by
// Poisson-Gibbs.
func (a *Auto) Kinds() (gibbs, poissonGibbs int) { return a.nGibbs, a.nPG }

// Update resamples variable i by the update chosen for it.
func (a *Auto) Update(i int) {
	if a.err != nil || a.clamped[i] {
		return
	}
	if a.exact[i] {
		a.exactUpdate(i)
		return
	}
	a.PoissonGibbs.Update(i)
}
