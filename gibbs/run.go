package gibbs

import (
	"fmt"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Model returns the model the chain samples.
func (c *chain) Model() factorgraph.Model { return c.m }

// Sweeper runs a Sampler by systematic sweeps: its Step is one Sweep of
// the sampler (every free variable once, in increasing order; a Chromatic
// sweeps colour class by colour class) and returns −1 (chain.Any), since a
// sweep may change any variable. A Sampler runs under package chain as it
// is (a step resamples one random variable and returns it), or wrapped in
// a Sweeper. A Sweeper passes SetInterrupt on to its sampler, and an
// interrupted sweep returns chain.Aborted with the sampler as it was
// before the sweep.
type Sweeper struct{ Sampler }

// Snapshot implements Snapshotter if the sampler does.
func (s Sweeper) Snapshot() ([]byte, error) {
	sn, ok := s.Sampler.(Snapshotter)
	if !ok {
		return nil, fmt.Errorf("gibbs: sampler %T cannot be snapshot", s.Sampler)
	}
	return sn.Snapshot()
}

// Restore implements Snapshotter if the sampler does.
func (s Sweeper) Restore(data []byte) error {
	sn, ok := s.Sampler.(Snapshotter)
	if !ok {
		return fmt.Errorf("gibbs: sampler %T cannot be restored", s.Sampler)
	}
	return sn.Restore(data)
}

// Where implements chain.Locator for the sampler's panics.
func (s Sweeper) Where() string { return where(s.Sampler) }

// Where implements chain.Locator: the workers share one state.
func (c *Chromatic) Where() string { return where(c.workers[0]) }

func where(s any) string {
	if l, ok := s.(interface{ Where() string }); ok {
		return l.Where()
	}
	return ""
}
