// Package ctxtest holds a context for the tests of constructions that
// honour one (packages blocks, gibbs/blocked, gibbs/cluster): it counts the
// times it is looked at and is done from a chosen look on, so that a test
// stops a construction at its first look, halfway or at its last, the same
// way on every machine.
package ctxtest

import (
	"context"
	"sync"
)

// Looks is a context whose Err counts the looks at it and returns
// context.Canceled from look After+1 on (never if After < 0). Its Done
// channel is Background's: the constructions look at Err.
type Looks struct {
	context.Context
	After int

	mu sync.Mutex
	n  int
}

// NewLooks returns a Looks done after after looks (never if after < 0).
func NewLooks(after int) *Looks {
	return &Looks{Context: context.Background(), After: after}
}

// Err returns context.Canceled from look After+1 on, nil before.
func (c *Looks) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if c.After >= 0 && c.n > c.After {
		return context.Canceled
	}
	return nil
}

// N returns the looks so far.
func (c *Looks) N() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
