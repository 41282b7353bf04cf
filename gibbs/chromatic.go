package gibbs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Chromatic runs systematic sweeps whose colour classes are updated in
// parallel: classes are visited in turn, and the variables of one class,
// which share no factor and are therefore conditionally independent given
// the rest, are split among workers that update them at the same time. A
// sweep so done has the law of a sequential sweep that visits each class's
// variables in any order, so it leaves π invariant exactly.
//
// Each worker is a sampler of its own (with its own RNG stream and scratch
// space) operating on the one shared state; worker w always updates the
// same variables in the same order, so a run is reproducible for a fixed
// number of workers whatever the scheduling. Only samplers whose update of
// x_i reads A[i] alone can run this way: gibbs, pgibbs, auto, mgpmh and the
// continuous samplers (not the MIN-Gibbs estimators, which read the whole
// state).
type Chromatic struct {
	workers []Sampler
	chunks  [][][]int // chunks[class][worker]
	x       []float64
	sweeps  int64
}

// chromaticSafe are the samplers whose updates read only A[i].
var chromaticSafe = map[string]bool{
	"gibbs": true, "pgibbs": true, "auto": true, "mgpmh": true,
	"gibbs-its": true, "gibbs-da": true, "pgits": true, "pgda": true, "gibbs-rejection": true, "pg-rejection": true,
}

// NewChromatic returns a chromatic sampler running the sampler called name
// (see New) on m, with one worker per RNG in rngs. classes must partition
// the free variables of m; if m implements factorgraph.Adjacency the
// classes are checked to share no factor.
func NewChromatic(name string, m factorgraph.Model, classes [][]int, rngs []*rand.Rand, opt *Options) (*Chromatic, error) {
	if !chromaticSafe[name] {
		return nil, fmt.Errorf("gibbs: chromatic: sampler %q reads more than A[i] in an update; use one of gibbs, pgibbs, auto, mgpmh or a continuous sampler", name)
	}
	if len(rngs) == 0 {
		return nil, errors.New("gibbs: chromatic: no workers")
	}
	if err := checkColouring(m, classes); err != nil {
		return nil, fmt.Errorf("gibbs: chromatic: %w", err)
	}
	if opt == nil {
		opt = &Options{}
	}
	c := &Chromatic{}
	for w, r := range rngs {
		o := *opt
		if w > 0 {
			o.shared = c.x // every worker works on worker 0's state
		}
		s, err := New(name, m, r, &o)
		if err != nil {
			return nil, err
		}
		if w == 0 {
			c.x = s.State()
		}
		c.workers = append(c.workers, s)
	}
	nw := len(rngs)
	for _, cl := range classes {
		chunk := make([][]int, nw)
		per := (len(cl) + nw - 1) / nw
		for w := range nw {
			lo, hi := min(w*per, len(cl)), min((w+1)*per, len(cl))
			chunk[w] = cl[lo:hi]
		}
		c.chunks = append(c.chunks, chunk)
	}
	return c, nil
}

// checkColouring verifies that classes partition the free variables and,
// when the model can list neighbours, that no class holds two neighbours.
func checkColouring(m factorgraph.Model, classes [][]int) error {
	n := m.NumVars()
	class := make([]int, n)
	for i := range class {
		class[i] = -1
	}
	for c, cl := range classes {
		for _, i := range cl {
			if i < 0 || i >= n {
				return fmt.Errorf("colour class %d holds variable %d, out of range [0, %d)", c, i, n)
			}
			if _, obs := m.Observed(i); obs {
				return fmt.Errorf("colour class %d holds observed variable %d", c, i)
			}
			if class[i] >= 0 {
				return fmt.Errorf("variable %d is in colour classes %d and %d", i, class[i], c)
			}
			class[i] = c
		}
	}
	for _, i := range m.Free() {
		if class[i] < 0 {
			return fmt.Errorf("free variable %d is in no colour class", i)
		}
	}
	adj, ok := m.(factorgraph.Adjacency)
	if !ok {
		return nil
	}
	var nb []int
	for _, i := range m.Free() {
		nb = adj.Neighbours(nb[:0], i)
		for _, j := range nb {
			if class[j] == class[i] {
				return fmt.Errorf("variables %d and %d share a factor but are both in colour class %d", i, j, class[i])
			}
		}
	}
	return nil
}

// Sweep updates every free variable once, class by class, each class in
// parallel over the workers.
func (c *Chromatic) Sweep() {
	if c.Err() != nil {
		return
	}
	var wg sync.WaitGroup
	for _, chunk := range c.chunks {
		for w, vars := range chunk {
			if len(vars) == 0 {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := c.workers[w]
				for _, i := range vars {
					s.Update(i)
				}
			}()
		}
		wg.Wait()
	}
	c.sweeps++
}

// Sweeps returns the number of sweeps done.
func (c *Chromatic) Sweeps() int64 { return c.sweeps }

// State returns the shared state; the caller must not modify it.
func (c *Chromatic) State() []float64 { return c.x }

// Stats returns the workers' counters summed.
func (c *Chromatic) Stats() Stats {
	var t Stats
	for _, s := range c.workers {
		st := s.Stats()
		t.Steps += st.Steps
		t.Factors += st.Factors
		t.Picks += st.Picks
		t.Proposals += st.Proposals
		t.Accepted += st.Accepted
		t.Tries += st.Tries
	}
	return t
}

// Err returns the first error of any worker.
func (c *Chromatic) Err() error {
	for _, s := range c.workers {
		if err := s.Err(); err != nil {
			return err
		}
	}
	return nil
}
