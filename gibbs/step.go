package gibbs

import (
	"github.com/pgibbs/pgibbs/chain"
)

// sweepRunner is a sampler whose sweep can be interrupted: RunSweep reports
// false, with the sampler as it was before the sweep, if it was.
type sweepRunner interface{ RunSweep() bool }

// Step performs one sweep and returns chain.Any, or chain.Aborted if the
// sweep was interrupted (see SetInterrupt): the sampler is then as it was
// before the sweep.
func (s Sweeper) Step() int {
	if sw, ok := s.Sampler.(sweepRunner); ok {
		if !sw.RunSweep() {
			return chain.Aborted
		}
		return chain.Any
	}
	s.Sweep()
	return chain.Any
}

// SetInterrupt implements chain.Interrupter by passing done on to the
// sampler, if it is an Interrupter (every sampler of this package is).
func (s Sweeper) SetInterrupt(done <-chan struct{}) {
	if in, ok := s.Sampler.(chain.Interrupter); ok {
		in.SetInterrupt(done)
	}
}
