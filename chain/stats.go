package chain

import "math"

// Stats is the core of the counters every sampler keeps: the steps it took
// and the Metropolis–Hastings proposals it made and accepted. The sampler
// families embed it in their own Stats (gibbs.Stats, mh.Stats), which add
// the counts of their algorithms; encoding/json flattens it, so a
// snapshot's "stats" object lists these fields beside the family's own.
type Stats struct {
	// Steps is the number of steps taken (for a Gibbs sampler, variable
	// updates).
	Steps int64
	// Proposals is the number of Metropolis–Hastings proposals drawn
	// (every step of an MH sampler, the corrections of a Gibbs one).
	Proposals int64
	// Accepted is the number of accepted proposals.
	Accepted int64
}

// Add adds the counts of o to s, field by field (the counts of several
// chains or workers).
func (s *Stats) Add(o Stats) {
	s.Steps += o.Steps
	s.Proposals += o.Proposals
	s.Accepted += o.Accepted
}

// Sub subtracts the counts of o from s, field by field (what a chain did
// since its counters were o).
func (s *Stats) Sub(o Stats) {
	s.Steps -= o.Steps
	s.Proposals -= o.Proposals
	s.Accepted -= o.Accepted
}

// AcceptanceRate returns Accepted/Proposals, the acceptance rate of the
// Metropolis–Hastings proposals (NaN when Proposals is 0).
func (s Stats) AcceptanceRate() float64 {
	if s.Proposals == 0 {
		return math.NaN()
	}
	return float64(s.Accepted) / float64(s.Proposals)
}
