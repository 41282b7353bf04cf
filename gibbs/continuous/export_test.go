package continuous

import (
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// uncorrectedContinuous is a Continuous sampler whose polynomial draws skip
// the Metropolis–Hastings correction: every proposal is accepted, so the
// chain samples the polynomial approximation, not π.
type uncorrectedContinuous struct{ *Continuous }

// uncorrected returns s with its Metropolis–Hastings correction dropped;
// Step and Sweep of s use the broken update too.
func uncorrected(s *Continuous) gibbs.Sampler {
	u := uncorrectedContinuous{s}
	s.core().UpdateFn = u.Update
	return u
}

// Update resamples variable i, accepting every polynomial proposal.
func (u uncorrectedContinuous) Update(i int) { u.updateWith(i, acceptAll) }

// acceptAll is the broken correction: the proposal always becomes x_i.
func acceptAll(s *Continuous, i int, v float64) {
	s.core().X[i] = v
	s.core().Stat.Accepted++
}
