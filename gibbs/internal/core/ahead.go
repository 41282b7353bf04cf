package core

import (
	"fmt"
	"unsafe"

	"github.com/pgibbs/pgibbs/internal/prefetch"
)

// AheadVars is the fewest free variables from which a sampler with a
// prefetch for its data (PGState.prefetch, Core.prefetchRow) turns the look-ahead on: below
// it the records, rows and state of every variable stay in the core's
// caches, and the random stream stays that of a scan that draws each
// index as its step starts (the samplers' examples and small models).
const AheadVars = 1 << 15

// pickAhead is Pick with a look-ahead of two steps: it returns the
// variable drawn two steps ago, draws the one of the step after next, and
// calls Prefetch with the next two. The indices are still uniform and
// independent of the states (each is drawn from c.R alone), so the chain
// is the random scan's, with its draws taken in another order: a step of
// a chain of n ≥ AheadVars variables at 10⁸ factors waits for the
// variable's record and its neighbours' values from memory, and here
// their loads start one and two steps before they are needed. The
// pending indices are part of the snapshot (SnapshotState).
func (c *Core) pickAhead() int {
	for c.nahead < len(c.ahead) {
		c.ahead[c.nahead] = c.draw()
		if c.BrokenAhead && c.X[c.ahead[c.nahead]] == 0 {
			c.ahead[c.nahead] = c.draw() // the scan then depends on the state
		}
		c.nahead++
	}
	i := c.ahead[0]
	c.ahead[0], c.ahead[1] = c.ahead[1], c.ahead[2]
	c.nahead = 2
	c.Prefetch(c.ahead[0], c.ahead[1])
	return i
}

// Next returns the variable the next Step updates when the scan looks
// ahead and has drawn it, or scans systematically with a prefetch, else
// −1 (chain.Ahead).
func (c *Core) Next() int {
	if c.Prefetch != nil && c.Systematic {
		return c.Free[c.scanPos]
	}
	if c.Prefetch == nil || c.nahead == 0 {
		return -1
	}
	return c.ahead[0]
}

// pendingAhead returns the look-ahead's pending indices (nil without a
// look-ahead, or before its first step).
func (c *Core) pendingAhead() []int {
	if c.Prefetch == nil || c.nahead == 0 {
		return nil
	}
	return append([]int(nil), c.ahead[:c.nahead]...)
}

// restoreAhead sets the look-ahead's pending indices from a snapshot: none
// (a snapshot taken before the first step, or by a version without the
// look-ahead: the next step draws afresh), or the two a look-ahead
// snapshot saved, each a free variable.
func (c *Core) restoreAhead(ahead []int) error {
	if len(ahead) == 0 {
		c.nahead = 0
		return nil
	}
	if c.Prefetch == nil || c.Systematic {
		return fmt.Errorf("the snapshot's chain drew its variables ahead (%d pending), this one does not", len(ahead))
	}
	if len(ahead) != 2 {
		return fmt.Errorf("the snapshot has %d variables drawn ahead, want 2", len(ahead))
	}
	for _, i := range ahead {
		if i < 0 || i >= len(c.Clamped) || c.Clamped[i] {
			return fmt.Errorf("the snapshot's variable drawn ahead, %d, is not a free variable", i)
		}
	}
	copy(c.ahead[:], ahead)
	c.nahead = 2
	return nil
}

// EnableAhead turns the random scan's look-ahead on (Core.Prefetch) for
// a Poisson-Gibbs chain of at least minVars free variables whose
// variables have records (recordLayout): the data an update reads first,
// whose address the index alone gives, with the heavy neighbours' values
// one step later. (minVars 0: on any compiled chain, as the tests do.)
func (p *PGState) EnableAhead(c *Core, minVars int) {
	if p.Rec == nil && (minVars > 0 || c.KG == nil) || len(c.Free) < minVars {
		return
	}
	c.Prefetch = func(next, after int) { p.prefetch(c, next, after) }
}

// prefetch starts the loads of the next two steps' first reads: the
// record of after (the variable two steps ahead) and its own value
// (prefetchOwn), and the heavy neighbours' values of next, from its record
// (prefetched a step ago).
func (p *PGState) prefetch(c *Core, next, after int) {
	if p.Rec == nil {
		return
	}
	c.prefetchOwn(after)
	l := p.recLen
	o := after * l
	prefetch.Line(unsafe.Pointer(&p.Rec[o]))
	if l > 16 { // a record of two cache lines
		prefetch.Line(unsafe.Pointer(&p.Rec[o+l-1]))
	}
	r := p.Rec[next*l : (next+1)*l : (next+1)*l]
	h := int(r[recH])
	if h <= 0 {
		return
	}
	prefetch.Refs(c.X, r[recRefs:recRefs+h])
}

// prefetchOwn starts the loads of what the update of variable i reads
// first about i itself: its value, which the update also writes, and
// whether it is clamped. On a state far larger than the cache the write
// is what costs: the store misses, the store buffer stops draining behind
// it, and the next step's stores wait (on a random graph of 10⁶
// variables, 8 MB of float64 state: a third of plain Gibbs's update,
// BenchmarkLookAheadSparse). The byte copy of the state (scanBytes) is
// small enough to stay in the core's cache.
func (c *Core) prefetchOwn(i int) {
	prefetch.Line(unsafe.Pointer(&c.X[i]))
	prefetch.Line(unsafe.Pointer(&c.Clamped[i]))
}

// EnableExactAhead turns the random scan's look-ahead on (Core.Prefetch)
// for a chain of exact (Gibbs) updates on a compiled graph of at least
// minVars free variables: each step prefetches the row bounds of the
// variable two steps ahead and the row of the next one (prefetchRow); in
// a systematic scan, the neighbours' values of the variable two steps
// ahead (prefetchNeighbours).
func (c *Core) EnableExactAhead(minVars int) {
	if c.KG == nil || len(c.Free) < minVars {
		return
	}
	c.Prefetch = c.prefetchRow
	if c.Systematic {
		// The rows stream in the scan's order: the neighbours' values
		// are what an update waits for.
		c.Prefetch = func(_, after int) { c.prefetchNeighbours(after) }
	}
}

// maxRowLines bounds the cache lines prefetchRow asks for a row: a long
// row streams by itself once its first lines come.
const maxRowLines = 8

// prefetchRow starts the loads of the next two steps' first reads under
// exact updates: the row bounds of after, its domain's size and its own
// value (prefetchOwn), and from next's bounds (prefetched a step ago) the
// first lines of its neighbours and weights.
func (c *Core) prefetchRow(next, after int) {
	k := c.KG
	prefetch.Line(unsafe.Pointer(&k.SoftStart[after]))
	c.prefetchOwn(after)
	prefetch.Line(unsafe.Pointer(&c.Size[after]))
	s, e := k.SoftStart[next], k.SoftStart[next+1]
	for p, n := s, 0; p < e && n < maxRowLines; p, n = p+16, n+1 { // 16 int32 a line
		prefetch.Line(unsafe.Pointer(&k.Nbr[p]))
	}
	if k.W != nil {
		for p, n := s, 0; p < e && n < maxRowLines; p, n = p+8, n+1 {
			prefetch.Line(unsafe.Pointer(&k.W[p]))
		}
	}
}
