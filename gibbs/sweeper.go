package gibbs

import (
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
)

// StepsPerSweep returns the expected number of s's Steps that make one
// sweep-equivalent (as many variable updates as there are free variables),
// to convert budgets and check intervals given in sweeps into steps: the
// free variables for the single-site samplers (and a Chromatic, whose Step
// updates one variable), the free variables over the mean block size for a
// Blocked sampler (its Step updates the next block), one for a
// Swendsen–Wang sampler and a Sweeper, and for a Wolff sampler the free
// variables over its clusters a step times the mean cluster size of its
// last TuneClusters round (one if it was not tuned: its clusters' sizes
// are not known in advance).
func StepsPerSweep(s Sampler) float64 {
	if _, ok := s.(Sweeper); ok {
		return 1
	}
	if c, ok := s.(StepsPerSweeper); ok {
		return c.StepsPerSweep()
	}
	_, n := s.Updates()
	return float64(n)
}

// StepsPerSweeper is implemented by the samplers whose Step is not the
// update of one variable (blocked.Blocked, cluster.SwendsenWang,
// cluster.Wolff): StepsPerSweep returns the expected number of Steps that
// make one sweep-equivalent, which the function StepsPerSweep returns for
// them. For any other Sampler a Step is one update, and a sweep-equivalent
// is as many Steps as there are free variables.
type StepsPerSweeper interface {
	StepsPerSweep() float64
}

// SweepRunner is implemented by the samplers whose sweep can be
// interrupted (every sampler of the family, and a Chromatic): RunSweep is
// Sweep, and reports false if the sweep was interrupted (see
// chain.Interrupter), leaving the sampler as it was before it. A Sweeper
// runs it, and its Step then returns chain.Aborted.
type SweepRunner interface {
	RunSweep() bool
}

// Sweeper runs a Sampler by systematic sweeps: its Step is one Sweep of
// the sampler (every free variable once, in increasing order; a Chromatic
// sweeps colour class by colour class) and returns −1 (chain.Any), since a
// sweep may change any variable. A Sampler runs under package chain as it
// is (a step resamples one random variable and returns it), or wrapped in
// a Sweeper. A Sweeper passes SetInterrupt on to its sampler, and an
// interrupted sweep returns chain.Aborted with the sampler as it was
// before the sweep.
//
// On a graph far larger than the cache, a sweep is the scan to choose:
// the variables' rows are read in the order they are stored instead of
// one at random. Plain Gibbs's sweep over a large graph of Potts pairs
// also reads the neighbours' values from a one-byte copy of the state
// (the same draws): on a random graph of 10⁶ variables of degree 20 its
// update costs what it costs at 10⁴, 234 ns, where a random-scan one
// costs 1.1–1.3 µs (`go test -run '^$' -bench 'Sparse/.*sweep' ./bench`).
type Sweeper struct{ Sampler }

// Snapshot implements chain.Snapshotter if the sampler does.
func (s Sweeper) Snapshot() ([]byte, error) {
	sn, ok := s.Sampler.(chain.Snapshotter)
	if !ok {
		return nil, fmt.Errorf("gibbs: sampler %T cannot be snapshot", s.Sampler)
	}
	return sn.Snapshot()
}

// Restore implements chain.Snapshotter if the sampler does.
func (s Sweeper) Restore(data []byte) error {
	sn, ok := s.Sampler.(chain.Snapshotter)
	if !ok {
		return fmt.Errorf("gibbs: sampler %T cannot be restored", s.Sampler)
	}
	return sn.Restore(data)
}

// Where implements chain.Locator for the sampler's panics.
func (s Sweeper) Where() string {
	if l, ok := s.Sampler.(chain.Locator); ok {
		return l.Where()
	}
	return ""
}

// Step performs one sweep and returns chain.Any, or chain.Aborted if the
// sweep was interrupted (see SetInterrupt): the sampler is then as it was
// before the sweep.
func (s Sweeper) Step() int {
	if sw, ok := s.Sampler.(SweepRunner); ok {
		if !sw.RunSweep() {
			return chain.Aborted
		}
		return chain.Any
	}
	s.Sweep()
	return chain.Any
}

// SetInterrupt implements chain.Interrupter by passing done on to the
// sampler, if it is an Interrupter (every sampler of the family is).
func (s Sweeper) SetInterrupt(done <-chan struct{}) {
	if in, ok := s.Sampler.(chain.Interrupter); ok {
		in.SetInterrupt(done)
	}
}
