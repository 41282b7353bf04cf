package gibbs

import (
	"github.com/pgibbs/pgibbs/chain"
)

// Interruption (chain.Interrupter). The rule, for every sampler of this
// package:
//
//   - a single-site step (Step) that sees its interrupt channel closed stops
//     before it changes x, restores any variable it set for the while (the
//     MIN-Gibbs estimates evaluate x_{i←u}), leaves the counters and the
//     cached estimate ε as they were before the step and returns
//     chain.Aborted;
//   - a sweep (Sweep, and a Sweeper's step) is one step: the channel is
//     looked at inside each update and between updates, and an aborted
//     sweep puts back x as it was at the sweep's start (a copy taken then;
//     a Chromatic's workers each keep the old values of their own share,
//     copied in parallel) and the counters, so it too leaves the sampler
//     exactly at the step boundary.
//
// Long loops look at the channel between chunks of pollEvery units of
// work (minibatch draws, compiled pairs), with a non-blocking receive: the
// hot loops themselves are unchanged and a step smaller than a chunk never
// looks. Loops over costlier units (a user factor, an interface call, a row
// of a table at D values) count their work as they go and look every
// spendEvery units. A sampler without a channel (SetInterrupt never called,
// or called with nil, as chain.Chain does when its context cannot be
// cancelled) does nothing more than before. An interrupt is so seen within
// about a tenth of a millisecond on compiled factors and within
// spendEvery evaluations (a few milliseconds for microsecond factors) on
// user factors.

// pollEvery is the number of units of work (minibatch draws, factor
// values) between two looks at the interrupt channel.
const pollEvery = 1 << 14

// spendEvery is the number of units of work between two looks at the
// interrupt channel on the paths that count their work as they go (spend):
// those whose unit is an interface call, a user factor or a row of a table.
const spendEvery = 1 << 10

// sweepPoll is one less than the number of variables a sweep updates
// between two looks at the interrupt channel (a power of two).
const sweepPoll = 1<<10 - 1

var _ chain.Interrupter = (*core)(nil)

// SetInterrupt implements chain.Interrupter: once done is closed, the step
// or sweep under way stops and returns chain.Aborted (see Sweeper), leaving
// the state, the counters and any cached estimate as they were before it.
// nil removes the channel.
func (c *core) SetInterrupt(done <-chan struct{}) {
	c.done = done
	c.aborted = false
}

// base returns c (a Chromatic's workers are samplers embedding a chain).
func (c *core) base() *core { return c }

// stop reports whether the interrupt channel is closed, and if so records
// that the update under way is aborted.
func (c *core) stop() bool {
	if c.done == nil {
		return false
	}
	select {
	case <-c.done:
		c.aborted = true
		return true
	default:
		return false
	}
}

// spend counts n units of work and looks at the interrupt channel each
// spendEvery units; it reports whether the update must stop (see stop).
func (c *core) spend(n int) bool {
	c.budget -= n
	if c.budget >= 0 {
		return false
	}
	c.budget = spendEvery
	return c.stop()
}

// Step resamples a uniformly chosen free variable and returns it, or
// chain.Aborted if the step was interrupted (see SetInterrupt).
func (c *core) Step() int {
	i := c.pick()
	if c.done == nil {
		c.update(i)
		return i
	}
	st := c.stats
	c.aborted = false
	c.update(i)
	if c.aborted {
		c.aborted = false
		c.stats = st
		return chain.Aborted
	}
	return i
}

// Sweep resamples every free variable once, in increasing order. An
// interrupted sweep (see SetInterrupt) leaves the sampler as it was before
// it.
func (c *core) Sweep() { c.sweep() }

// sweep is Sweep; it reports false if the sweep was interrupted.
func (c *core) sweep() bool {
	if c.done == nil {
		for _, i := range c.free {
			c.update(i)
		}
		return true
	}
	c.saved = append(c.saved[:0], c.x...)
	st := c.stats
	c.aborted = false
	for k, i := range c.free {
		if k&sweepPoll == sweepPoll {
			c.stop()
		}
		if !c.aborted {
			c.update(i)
		}
		if c.aborted {
			copy(c.x, c.saved)
			c.stats = st
			c.aborted = false
			return false
		}
	}
	return true
}

// sweeper is a sampler of this package whose sweep can be interrupted.
type sweeper interface{ sweep() bool }

// Step performs one sweep and returns chain.Any, or chain.Aborted if the
// sweep was interrupted (see SetInterrupt): the sampler is then as it was
// before the sweep.
func (s Sweeper) Step() int {
	if sw, ok := s.Sampler.(sweeper); ok {
		if !sw.sweep() {
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
