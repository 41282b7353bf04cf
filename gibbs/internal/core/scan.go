package core

import (
	"fmt"

	"github.com/pgibbs/pgibbs/internal/prefetch"
)

// pickScan is Pick in a systematic scan: the free variables in turn, in
// the order of Free. With Prefetch it passes the scan's next two
// variables on, whose data is then on its way a step or two before the
// update reads it (the rows themselves stream: they are stored in this
// order).
func (c *Core) pickScan() int {
	i := c.nextScan()
	if c.BrokenScan && c.X[i] == 0 {
		i = c.nextScan() // the scan then depends on the state
	}
	if c.Prefetch != nil {
		n := len(c.Free)
		next := c.scanPos
		after := next + 1
		if after == n {
			after = 0
		}
		c.Prefetch(c.Free[next], c.Free[after])
	}
	return i
}

// nextScan returns the scan's next variable and moves past it.
func (c *Core) nextScan() int {
	i := c.Free[c.scanPos]
	if c.scanPos++; c.scanPos == len(c.Free) {
		c.scanPos = 0
	}
	return i
}

// prefetchNeighbours starts the loads of the neighbours' values of
// variable after, two steps ahead in a systematic scan: its row is read
// in the order rows are stored, so it is already in cache, and the values
// it points to are what an update there would wait for (the same call
// prefetches the entries of tables and generic factors' slots as values:
// a wasted line, no harm).
func (c *Core) prefetchNeighbours(after int) {
	if c.x8ok {
		return // the values are read from the byte copy, in cache (scanBytes)
	}
	nb, _ := c.KG.Row(after)
	prefetch.Refs(c.X, nb)
}

// scanState returns the systematic scan's position for a snapshot (nil in
// a random scan).
func (c *Core) scanState() *int {
	if !c.Systematic {
		return nil
	}
	pos := c.scanPos
	return &pos
}

// restoreScan sets the scan's position from a snapshot, refusing one of
// the other kind of scan (a random-scan chain, which records none, into a
// systematic one, or the reverse) or a position outside the free
// variables.
func (c *Core) restoreScan(pos *int) error {
	switch {
	case pos == nil && c.Systematic:
		return fmt.Errorf("the snapshot is of a random-scan chain, this chain scans systematically (gibbs.Options.Systematic)")
	case pos != nil && !c.Systematic:
		return fmt.Errorf("the snapshot is of a systematic-scan chain (position %d), this chain scans at random", *pos)
	case pos != nil && (*pos < 0 || *pos >= len(c.Free)):
		return fmt.Errorf("the snapshot's scan position %d is outside the %d free variables", *pos, len(c.Free))
	case pos != nil:
		c.scanPos = *pos
	}
	return nil
}
