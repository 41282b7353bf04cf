package gibbs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
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
	pool    *sweepPool // the goroutines of workers 1, 2, …, started by the first Sweep
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
// parallel over the workers. Worker 0 runs on the caller's goroutine, the
// others on goroutines that live as long as the sampler: a class costs one
// channel send per extra worker and one wait, and no allocation.
func (c *Chromatic) Sweep() {
	if c.Err() != nil {
		return
	}
	if len(c.workers) > 1 && c.pool == nil {
		c.pool = startPool(c.workers, c.chunks)
		runtime.AddCleanup(c, func(p *sweepPool) { p.stop() }, c.pool)
	}
	p := c.pool
	for class, chunk := range c.chunks {
		if p != nil {
			p.wg.Add(len(p.start))
			for _, ch := range p.start {
				ch <- class
			}
		}
		updateVars(c.workers[0], chunk[0])
		if p != nil {
			p.wg.Wait()
		}
	}
	c.sweeps++
}

// sweepPool runs the chunks of workers 1, 2, … of a Chromatic: start[w−1]
// receives the classes worker w is to update. It holds no reference to the
// Chromatic, whose cleanup stops it.
type sweepPool struct {
	start []chan int
	wg    sync.WaitGroup
}

func startPool(workers []Sampler, chunks [][][]int) *sweepPool {
	p := &sweepPool{start: make([]chan int, len(workers)-1)}
	for k := range p.start {
		ch := make(chan int, 1)
		p.start[k] = ch
		w, s := k+1, workers[k+1]
		go func() {
			for class := range ch {
				updateVars(s, chunks[class][w])
				p.wg.Done()
			}
		}()
	}
	return p
}

func (p *sweepPool) stop() {
	for _, ch := range p.start {
		close(ch)
	}
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

// chromaticState is the snapshot of a Chromatic: the shared state once, and
// each worker's own snapshot without its copy of the shared state.
type chromaticState struct {
	Version int       `json:"version"`
	Kind    string    `json:"kind"`
	Workers int       `json:"workers"`
	Layout  string    `json:"layout"` // SHA-256 of the colour classes as split among the workers
	Sweeps  int64     `json:"sweeps"`
	X       []float64 `json:"x"`
	// WorkerStates are the workers' snapshots (see Snapshotter) with
	// their field "x", the shared state, left out.
	WorkerStates []json.RawMessage `json:"worker_states"`
}

// layout returns a hash of which worker updates which variables in which
// class, in which order: two Chromatics with the same layout, workers and
// RNG streams run the same chain.
func (c *Chromatic) layout() string {
	h := sha256.New()
	var b [8]byte
	put := func(v int) {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	put(len(c.chunks))
	for _, chunk := range c.chunks {
		put(len(chunk))
		for _, vars := range chunk {
			put(len(vars))
			for _, i := range vars {
				put(i)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Snapshot implements Snapshotter: it returns the shared state, the number
// of sweeps and the workers' states (their counters) as versioned JSON.
// The workers' random number generators are the caller's: marshal their
// *rand.PCG sources alongside. It fails if a worker stopped on an error.
func (c *Chromatic) Snapshot() ([]byte, error) {
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("gibbs: chromatic: snapshot of a sampler that stopped on an error: %w", err)
	}
	st := chromaticState{Version: snapshotVersion, Kind: "chromatic", Workers: len(c.workers), Layout: c.layout(),
		Sweeps: c.sweeps, X: c.x}
	for w, s := range c.workers {
		sn, ok := s.(Snapshotter)
		if !ok {
			return nil, fmt.Errorf("gibbs: chromatic: worker %d (%T) cannot be snapshot", w, s)
		}
		data, err := sn.Snapshot()
		if err != nil {
			return nil, fmt.Errorf("gibbs: chromatic: worker %d: %w", w, err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(data, &fields); err != nil {
			return nil, fmt.Errorf("gibbs: chromatic: worker %d: %w", w, err)
		}
		delete(fields, "x") // the shared state, stored once
		if data, err = json.Marshal(fields); err != nil {
			return nil, fmt.Errorf("gibbs: chromatic: worker %d: %w", w, err)
		}
		st.WorkerStates = append(st.WorkerStates, data)
	}
	return json.Marshal(st)
}

// Restore implements Snapshotter: it sets the shared state, the sweep count
// and the workers' states from a snapshot of a Chromatic with the same
// update sampler, number of workers and colour classes on the same model;
// any difference is an error saying which. The caller restores the
// workers' random number generators. If Restore fails after checking the
// snapshot's shape, the sampler's state is unspecified (restore again
// before sweeping).
func (c *Chromatic) Restore(data []byte) error {
	var st chromaticState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("gibbs: restore chromatic: %w", err)
	}
	switch {
	case st.Version != snapshotVersion:
		return fmt.Errorf("gibbs: restore chromatic: snapshot version %d, this build reads %d", st.Version, snapshotVersion)
	case st.Kind != "chromatic":
		return fmt.Errorf("gibbs: restore chromatic from a snapshot of %q", st.Kind)
	case st.Workers != len(c.workers) || len(st.WorkerStates) != st.Workers:
		return fmt.Errorf("gibbs: restore chromatic: snapshot of %d workers (%d worker states), the sampler has %d",
			st.Workers, len(st.WorkerStates), len(c.workers))
	case len(st.X) != len(c.x):
		return fmt.Errorf("gibbs: restore chromatic: snapshot has %d variables, the model %d", len(st.X), len(c.x))
	case st.Sweeps < 0:
		return fmt.Errorf("gibbs: restore chromatic: snapshot has %d sweeps", st.Sweeps)
	case st.Layout != c.layout():
		return errors.New("gibbs: restore chromatic: the snapshot's colour classes or their split among workers differ from the sampler's")
	}
	x, err := json.Marshal(st.X)
	if err != nil {
		return fmt.Errorf("gibbs: restore chromatic: %w", err)
	}
	for w, s := range c.workers {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(st.WorkerStates[w], &fields); err != nil {
			return fmt.Errorf("gibbs: restore chromatic: worker %d: %w", w, err)
		}
		fields["x"] = x
		data, err := json.Marshal(fields)
		if err != nil {
			return fmt.Errorf("gibbs: restore chromatic: worker %d: %w", w, err)
		}
		sn, ok := s.(Snapshotter)
		if !ok {
			return fmt.Errorf("gibbs: restore chromatic: worker %d (%T) cannot be restored", w, s)
		}
		// Every worker's state is the shared slice: each Restore checks
		// st.X against the model and copies it there.
		if err := sn.Restore(data); err != nil {
			return fmt.Errorf("gibbs: restore chromatic: worker %d: %w", w, err)
		}
	}
	c.sweeps = st.Sweeps
	return nil
}

var _ Snapshotter = (*Chromatic)(nil)
