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
	s.core().EnableExactAhead(core.AheadVars)
	return s, nil
}

// Update resamples variable i from its full conditional.
func (s *Gibbs) Update(i int) {
	if s.core().Failure != nil || s.core().Clamped[i] {
		return
	}
	s.core().ExactUpdate(i)
}

// TrackLogPotential turns on (or off) the tracking of the model's
// log-potential Σ_φ log φ(x) through the updates, from a change of 0, which
// LogPotentialChange then reports: an update's change is U[new] − U[old]
// of the conditional it draws from, so tracking costs nothing more. Replica
// exchange (gibbs/exchange) knows its replicas' energies so without summing
// the model at every round of swaps.
func (s *Gibbs) TrackLogPotential(on bool) {
	s.core().LogTracking, s.core().LogDelta = on, 0
}

// LogPotentialChange returns the change of the log-potential the updates
// made since tracking began or SetLogPotentialChange; NaN if an update
// could not tell (a value outside the domain). The sum is in floating
// point: a caller recomputes the log-potential from the state now and then
// to bound the rounding's drift.
func (s *Gibbs) LogPotentialChange() float64 { return s.core().LogDelta }

// SetLogPotentialChange sets the change the next updates add to: 0 to start
// afresh, or a restored chain's.
func (s *Gibbs) SetLogPotentialChange(d float64) { s.core().LogDelta = d }

// Assign sets discrete variable i to v: a move another kernel makes on the
// state Gibbs shares (a Houdayer move of replica exchange), whose change of
// the log-potential the tracking (TrackLogPotential) counts as an update's.
func (s *Gibbs) Assign(i int, v float64) { s.core().Assign(i, v) }
