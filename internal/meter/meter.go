// Package meter counts the work of a long computation and looks at its
// context about every millisecond of it, so that a deadline or a signal
// stops the computation within about that much work: how the block,
// forest and cluster constructions (packages blocks, gibbs/blocked,
// gibbs/cluster) honour a context.
package meter

import (
	"context"
	"fmt"
)

// Every is the work, in the callers' units (a few nanoseconds each on the
// project's machine kind: an adjacency entry read, a factor visited,
// weighted by what it costs), between two looks at the context: about
// 0.3–1.5 ms.
const Every = 1 << 17

// Meter counts work units and looks at a context every Every of them.
type Meter struct {
	ctx  context.Context
	what string
	work int64
	next int64
	err  error
}

// New returns a meter of ctx (nil: never done) for the computation what
// (named in its error).
func New(ctx context.Context, what string) *Meter {
	return &Meter{ctx: ctx, what: what, next: Every}
}

// Add counts n units and returns the context's error, wrapped, once it is
// done (and from then on). It looks at the context when Every units have
// passed since the last look.
func (m *Meter) Add(n int) error {
	m.work += int64(n)
	if m.work < m.next || m.err != nil {
		return m.err
	}
	m.next = m.work + Every
	return m.Check()
}

// Check looks at the context now and returns its error, wrapped with what
// the meter measures and the work done (errors.Is sees context.Canceled or
// context.DeadlineExceeded through it), if it is done.
func (m *Meter) Check() error {
	if m.err != nil || m.ctx == nil {
		return m.err
	}
	if err := m.ctx.Err(); err != nil {
		m.err = fmt.Errorf("%s: stopped after %d units of work: %w", m.what, m.work, err)
	}
	return m.err
}

// Context returns the meter's context (nil if it has none).
func (m *Meter) Context() context.Context { return m.ctx }

// Err returns the error Add or Check returned, or nil.
func (m *Meter) Err() error { return m.err }

// Work returns the units counted so far.
func (m *Meter) Work() int64 { return m.work }
