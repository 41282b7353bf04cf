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
	if c.TorusSweep {
		if x8 := c.scanBytes(); x8 != nil {
			return c.stepBytes(x8)
		}
	}
	if c.Done == nil {
		i := c.Pick()
		c.UpdateFn(i)
		return i
	}
	m := c.markScan()
	return c.abortable(c.Pick(), m)
}

// scanMark is where the scan stood before a pick: the look-ahead's
// pending indices and the systematic scan's position.
type scanMark struct {
	ahead       [3]int
	nahead, pos int
}

// markScan returns where the scan stands.
func (c *Core) markScan() scanMark { return scanMark{c.ahead, c.nahead, c.scanPos} }

// abortable updates i under the interrupt channel and returns i, or
// chain.Aborted if the update was interrupted; an aborted step leaves the
// counters and the scan as they were at m (the look-ahead too: the chain
// puts its random sources back, and the indices drawn ahead go with
// them).
func (c *Core) abortable(i int, m scanMark) int {
	st := c.Stat
	c.Aborted = false
	c.UpdateFn(i)
	if c.Aborted {
		c.Aborted = false
		c.Stat = st
		c.ahead, c.nahead, c.scanPos = m.ahead, m.nahead, m.pos
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
	c.x8ok = false // the sweep makes and keeps its own copy; a step after it makes it afresh
	x8 := c.byteState()
	if c.Done == nil {
		if x8 != nil {
			for _, i := range c.Free {
				c.exactBytes(i, x8)
			}
			return true
		}
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
		switch {
		case c.Aborted:
		case x8 != nil && c.KG.SoftStart[i+1]-c.KG.SoftStart[i] <= PollEvery:
			c.exactBytes(i, x8)
		default: // a row long enough to look at Done within the update
			c.UpdateFn(i)
			if x8 != nil {
				x8[i] = uint8(c.X[i])
			}
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

// ByteSweepMin is the number of variables from which a sweep of plain
// Gibbs over Potts pairs reads the neighbours' values from a one-byte copy
// of the state (see byteState). Below it the float64 state is small enough
// to stay in the core's caches and the copy would only cost.
var ByteSweepMin = 1 << 16

// byteState returns the one-byte copy of X a sweep (and the steps:
// scanBytes) reads the neighbours' values from, or nil where it must read
// X: where an update is not
// plain Gibbs's (TorusSweep), the graph has anything but Potts pairs
// (compiled.Graph.AllPotts, no hard entry), a domain is over 256 values, a
// value of X is not one of its domain's, or the graph has fewer than
// ByteSweepMin variables. A random graph of 10⁶ variables has a state of
// 8 MB, read at random, against 1 MB as bytes: the sweep's reads then stay
// in the core's own cache (BenchmarkSparse, gibbs-sweep). The copy is made
// afresh at every sweep (a pass over X, about 1 ns a variable), so no other
// writer of X has to keep it, and the sweep's draws are the same, bit for
// bit, as those of the sweep over X (TestByteSweep).
func (c *Core) byteState() []uint8 {
	k := c.KG
	if !c.TorusSweep || k == nil || !k.AllPotts || len(k.Hard) > 0 || len(c.X) < ByteSweepMin && !c.ForceBytes || c.Failure != nil {
		return nil
	}
	if len(c.x8) != len(c.X) {
		c.x8 = make([]uint8, len(c.X))
	}
	x8 := c.x8
	size := c.Size[:len(c.X)]
	for i, v := range c.X {
		b := uint8(v)
		if float64(b) != v || int32(b) >= size[i] {
			return nil
		}
		x8[i] = b
	}
	c.ByteSweeps++
	return x8
}

// exactBytes is exactCompiled (Algorithm 1) on a graph of Potts pairs
// alone, reading the neighbours' values from x8, the one-byte copy of X
// (byteState), which it keeps in step with X.
func (c *Core) exactBytes(i int, x8 []uint8) {
	if c.Failure != nil || c.Clamped[i] {
		return
	}
	c.Stat.Steps++
	nb, w := c.KG.Row(i)
	if c.AllBinary && !c.NoBinary && !c.Recording {
		// binaryCompiled's sums and draw, the values read as bytes.
		u0, u1 := pottsRow2Binary(x8, nb, w)
		if c.BrokenBinary {
			u0, u1 = u1, u0
		}
		c.Stat.Factors += int64(len(nb))
		c.draw2(i, u0, u1)
	} else {
		u := c.U[:c.Size[i]]
		clear(u)
		addPottsRow(x8, nb, w, u, c.Buf2)
		c.Stat.Factors += int64(len(nb))
		c.set(i, u)
	}
	if !c.BrokenBytes {
		x8[i] = uint8(c.X[i])
	}
}

// scanBytes returns the one-byte copy of the state that the steps of
// plain Gibbs over Potts pairs read the neighbours' values from (the
// sweep's, byteState), or nil where they must read X. The copy is made
// whenever it is not known to be in step (x8ok), and in a systematic scan
// at the start of each pass too: any writer of X but the steps' own
// updates — Assign of a value a byte cannot hold, Restore, a sweep, a
// caller that owns the state (Share) — clears x8ok (set, set2 and Assign
// write the copy with X). Where the copy cannot be made (a graph of other
// factors, a value a byte cannot hold), it is tried again only after as
// many steps as there are free variables, so that a step stays O(1).
func (c *Core) scanBytes() []uint8 {
	switch {
	case c.shared:
		return nil
	case c.x8ok && !(c.Systematic && c.scanPos == 0):
		return c.x8
	case c.x8wait > 0:
		c.x8wait--
		return nil
	}
	if c.x8ok = c.byteState() != nil; !c.x8ok {
		c.x8wait = len(c.Free)
		return nil
	}
	return c.x8
}

// stepBytes is Step with the one-byte copy x8 of the state: exactBytes
// for the variable picked, the same draws as UpdateFn's; a row long enough
// to look at Done within the update goes through UpdateFn, x8 kept in step
// after it, and an aborted step puts the scan back as Step does.
func (c *Core) stepBytes(x8 []uint8) int {
	m := c.markScan()
	i := c.Pick()
	if c.Done == nil || c.KG.SoftStart[i+1]-c.KG.SoftStart[i] <= PollEvery {
		c.exactBytes(i, x8)
		return i
	}
	if c.abortable(i, m) == chain.Aborted {
		return chain.Aborted
	}
	x8[i] = uint8(c.X[i])
	return i
}
