package core

import (
	"github.com/pgibbs/pgibbs/chain"
)

// PollEvery is the number of units of work (minibatch draws, factor
// values) between two looks at the interrupt channel.
const PollEvery = 1 << 14

// spendEvery is the number of units of work between two looks at the
// interrupt channel on the paths that count their work as they go (Spend):
// those whose unit is an interface call, a user factor or a row of a table.
const spendEvery = 1 << 10

// SweepPoll is one less than the number of variables a sweep updates
// between two looks at the interrupt channel (a power of two).
const SweepPoll = 1<<10 - 1

var _ chain.Interrupter = (*Core)(nil)

// SetInterrupt implements chain.Interrupter: once done is closed, the step
// or sweep under way stops and returns chain.Aborted (see Sweeper), leaving
// the state, the counters and any cached estimate as they were before it.
// nil removes the channel.
func (c *Core) SetInterrupt(done <-chan struct{}) {
	c.Done = done
	c.Aborted = false
}

// Stop reports whether the interrupt channel is closed, and if so records
// that the update under way is aborted.
func (c *Core) Stop() bool {
	if c.Done == nil {
		return false
	}
	select {
	case <-c.Done:
		c.Aborted = true
		return true
	default:
		return false
	}
}

// Spend counts n units of work and looks at the interrupt channel each
// spendEvery units; it reports whether the update must stop (see stop).
func (c *Core) Spend(n int) bool {
	c.Budget -= n
	if c.Budget >= 0 {
		return false
	}
	c.Budget = spendEvery
	return c.Stop()
}

// Step resamples a uniformly chosen free variable and returns it, or
// chain.Aborted if the step was interrupted (see SetInterrupt).
func (c *Core) Step() int {
	i := c.Pick()
	if c.Done == nil {
		c.UpdateFn(i)
		return i
	}
	st := c.Stat
	c.Aborted = false
	c.UpdateFn(i)
	if c.Aborted {
		c.Aborted = false
		c.Stat = st
		return chain.Aborted
	}
	return i
}

// Sweep resamples every free variable once, in increasing order. An
// interrupted sweep (see SetInterrupt) leaves the sampler as it was before
// it.
func (c *Core) Sweep() { c.RunSweep() }

// RunSweep is Sweep; it reports false if the sweep was interrupted.
func (c *Core) RunSweep() bool {
	if c.Done == nil {
		for _, i := range c.Free {
			c.UpdateFn(i)
		}
		return true
	}
	c.Saved = append(c.Saved[:0], c.X...)
	st, d := c.Stat, c.LogDelta
	c.Aborted = false
	for k, i := range c.Free {
		if k&SweepPoll == SweepPoll {
			c.Stop()
		}
		if !c.Aborted {
			c.UpdateFn(i)
		}
		if c.Aborted {
			copy(c.X, c.Saved)
			c.Stat, c.LogDelta = st, d
			c.Aborted = false
			return false
		}
	}
	return true
}
