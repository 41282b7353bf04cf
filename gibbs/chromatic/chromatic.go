package chromatic

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

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
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
// x_i reads A[i] alone can run this way (gibbs.Worker): gibbs, pgibbs,
// auto, mgpmh and the continuous samplers (not the MIN-Gibbs estimators,
// which read the whole state), or a user's own gibbs.Worker.
//
// A Chromatic is a Sampler: Sweep is the parallel sweep, while Step and
// Update(i) update one variable on the caller's goroutine with worker 0.
type Chromatic struct {
	workers []*worker
	m       factorgraph.Model
	chunks  [][][]int // chunks[class][worker]
	rows    [][]bool  // rows[class][worker]: the chunk is a core.CheckerRun of its worker's model
	x       []float64
	sweeps  int64
	pool    *sweepPool // the goroutines of workers 1, 2, …, started by the first Sweep

	done  <-chan struct{} // the interrupt channel (SetInterrupt), or nil
	stats []gibbs.Stats   // the workers' counters at the start of an interruptible sweep
}

// New returns a chromatic sampler on m with one worker per RNG in
// rngs, each built by f (see samplers.FactoryOf) with opt: worker 0 draws or takes
// the initial state as a single sampler would, and the others work on it.
// f must build gibbs.Workers whose updates read only A[i]
// (LocalUpdates: the registry's Local entries — gibbs, pgibbs, mgpmh, the
// continuous samplers, and auto built with samplers.Config.SingleSite, a
// Mixed — or a user's own); any other is refused. classes must partition
// the free variables of m; if m implements
// factorgraph.Adjacency the classes are checked to share no factor.
func New(f gibbs.Factory, m factorgraph.Model, classes [][]int, rngs []*rand.Rand, opt *gibbs.Options) (*Chromatic, error) {
	if f == nil {
		return nil, errors.New("gibbs: chromatic: nil factory")
	}
	if len(rngs) == 0 {
		return nil, errors.New("gibbs: chromatic: no workers")
	}
	if m == nil {
		return nil, errors.New("gibbs: chromatic: nil model")
	}
	if err := checkColouring(m, classes); err != nil {
		return nil, fmt.Errorf("gibbs: chromatic: %w", err)
	}
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c := &Chromatic{m: m}
	for w, r := range rngs {
		o := *opt
		if w > 0 {
			// Start from worker 0's state, which the worker then shares;
			// its own RNG draws nothing here.
			o.Init = c.x
		}
		s, err := f(m, r, &o)
		if err != nil {
			return nil, err
		}
		wk, err := asWorker(s)
		if err != nil {
			return nil, err
		}
		if w == 0 {
			c.x = wk.State()
		} else if k0 := c.workers[0].SnapshotKind(); wk.SnapshotKind() != k0 {
			return nil, fmt.Errorf("gibbs: chromatic: the factory built a %s sampler for worker %d, a %s one for worker 0", wk.SnapshotKind(), w, k0)
		}
		wk.share(c.x)
		c.workers = append(c.workers, wk)
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
		rows := make([]bool, nw)
		for w, vars := range chunk {
			rows[w] = c.workers[w].c != nil && c.workers[w].c.CheckerRun(vars)
		}
		c.rows = append(c.rows, rows)
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
// channel send per extra worker and one wait, and no allocation. An
// interrupted sweep (see SetInterrupt) leaves the sampler as it was before
// it.
func (c *Chromatic) Sweep() { c.RunSweep() }

// RunSweep is Sweep; it reports false if the sweep was interrupted. With an
// interrupt channel, each worker first copies the old values of the
// variables of its share of a class (in parallel, into its own journal),
// the workers look at the channel between blocks of variables and inside
// long updates, and the channel is looked at between classes; an aborted
// sweep puts every journalled value back and the workers' counters.
func (c *Chromatic) RunSweep() bool {
	if c.Err() != nil {
		return true
	}
	if len(c.workers) > 1 && c.pool == nil {
		c.pool = startPool(c.workers, c.chunks, c.rows)
		runtime.AddCleanup(c, func(p *sweepPool) { p.stop() }, c.pool)
	}
	p := c.pool
	journal := c.done != nil
	if journal {
		c.stats = c.stats[:0]
		for _, w := range c.workers {
			c.stats = append(c.stats, w.Stats())
			w.startJournal()
		}
	}
	for class := range c.chunks {
		c.runClass(p, class, journal)
		if journal && c.aborted() {
			c.rollback(class)
			return false
		}
	}
	c.sweeps++
	return true
}

// runClass updates colour class class: the pool's workers their chunks,
// worker 0 its own on this goroutine. It returns once every worker is
// done, even when worker 0's update panics (a user's factor), so that no
// worker still runs when the panic reaches the caller; a worker's panic is
// rethrown here.
func (c *Chromatic) runClass(p *sweepPool, class int, journal bool) {
	if p == nil {
		c.workers[0].run(c.chunks[class][0], journal, c.rows[class][0])
		return
	}
	p.journal = journal
	p.wg.Add(len(p.start))
	for _, ch := range p.start {
		ch <- class
	}
	defer p.rethrow()
	defer p.wg.Wait()
	c.workers[0].run(c.chunks[class][0], journal, c.rows[class][0])
}

// aborted reports whether a worker aborted an update or the interrupt
// channel has closed.
func (c *Chromatic) aborted() bool {
	for _, w := range c.workers {
		if w.aborted() {
			return true
		}
	}
	return closed(c.done)
}

// rollback puts back the values the workers journalled in the classes up
// to last of an interrupted sweep (each worker's journal holds a prefix of
// its variables in that order: see worker.run), and their counters.
func (c *Chromatic) rollback(last int) {
	for k, w := range c.workers {
		w.rollback(c.x, c.chunks[:last+1], k, c.stats[k])
	}
}

// sweepPool runs the chunks of workers 1, 2, … of a Chromatic: start[w−1]
// receives the classes worker w is to update, journal says whether to
// journal them (see worker.run). It holds no reference to the Chromatic,
// whose cleanup stops it.
type sweepPool struct {
	start   []chan int
	wg      sync.WaitGroup
	journal bool
	// panicked holds a worker's panic (a user's factor), rethrown on the
	// sweeping goroutine so that the chain's runner sees it as an error
	// rather than the process dying.
	mu       sync.Mutex
	panicked any
}

func startPool(workers []*worker, chunks [][][]int, rows [][]bool) *sweepPool {
	p := &sweepPool{start: make([]chan int, len(workers)-1)}
	for k := range p.start {
		ch := make(chan int, 1)
		p.start[k] = ch
		w, s := k+1, workers[k+1]
		go func() {
			for class := range ch {
				p.run(s, chunks[class][w], rows[class][w])
			}
		}()
	}
	return p
}

// run updates a worker's chunk, catching a panic for the sweeping
// goroutine.
func (p *sweepPool) run(s *worker, vars []int, rows bool) {
	defer p.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.panicked == nil {
				p.panicked = r
			}
			p.mu.Unlock()
		}
	}()
	s.run(vars, p.journal, rows)
}

// rethrow panics with a worker's panic, if one occurred.
func (p *sweepPool) rethrow() {
	p.mu.Lock()
	r := p.panicked
	p.panicked = nil
	p.mu.Unlock()
	if r != nil {
		panic(r)
	}
}

func (p *sweepPool) stop() {
	for _, ch := range p.start {
		close(ch)
	}
}

// Workers returns the chromatic's workers, worker 0 first: samplers
// sharing one state, each updating the variables of a colour class's
// chunks.
func (c *Chromatic) Workers() []gibbs.Sampler {
	w := make([]gibbs.Sampler, len(c.workers))
	for k, s := range c.workers {
		w[k] = s.Worker
	}
	return w
}

// Sweeps returns the number of sweeps done.
func (c *Chromatic) Sweeps() int64 { return c.sweeps }

// Step updates a uniformly chosen free variable with worker 0 (on the
// caller's goroutine) and returns it, or chain.Aborted if the update was
// interrupted (see SetInterrupt).
func (c *Chromatic) Step() int {
	b := c.workers[0].c
	if b == nil { // a worker outside the family: its own Step
		if c.Err() != nil {
			return chain.Any
		}
		return c.workers[0].Step()
	}
	i := b.Pick()
	if c.done == nil {
		c.Update(i)
		return i
	}
	st := b.Stat
	b.Aborted = false
	if c.Update(i); b.Aborted {
		b.Stat, b.Aborted = st, false
		return chain.Aborted
	}
	return i
}

// SetInterrupt implements chain.Interrupter: once done is closed, the step
// or sweep under way stops and returns chain.Aborted (see Sweeper), leaving
// the state and the counters as they were before it. nil removes the
// channel.
func (c *Chromatic) SetInterrupt(done <-chan struct{}) {
	c.done = done
	for _, w := range c.workers {
		w.setInterrupt(done)
	}
}

// Update updates variable i with worker 0 (a no-op for evidence, and once
// any worker has stopped on an error).
func (c *Chromatic) Update(i int) {
	if c.Err() != nil {
		return
	}
	c.workers[0].Update(i)
}

// Model returns the model the workers sample.
func (c *Chromatic) Model() factorgraph.Model { return c.m }

// State returns the shared state; the caller must not modify it.
func (c *Chromatic) State() []float64 { return c.x }

// Stats returns the workers' counters summed.
func (c *Chromatic) Stats() gibbs.Stats {
	var t gibbs.Stats
	for _, s := range c.workers {
		t.Add(s.Stats())
	}
	return t
}

// Updates implements chain.Counter: the workers' variable updates and the
// free variables.
func (c *Chromatic) Updates() (int64, int) {
	_, per := c.workers[0].Updates()
	return c.Stats().Steps, per
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

// chromaticState is the snapshot of a Chromatic: the shared state once,
// and each worker's counters.
type chromaticState struct {
	Version int           `json:"version"`
	Kind    string        `json:"kind"`    // "chromatic"
	Sampler string        `json:"sampler"` // the workers' kind (as in their own snapshots)
	Workers int           `json:"workers"`
	Layout  string        `json:"layout"` // SHA-256 of the colour classes as split among the workers
	Sweeps  int64         `json:"sweeps"`
	X       []float64     `json:"x"`
	Stats   []gibbs.Stats `json:"stats"` // per worker
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

// Snapshot implements chain.Snapshotter: it returns the shared state, the number
// of sweeps and the workers' counters as versioned JSON, with the workers'
// sampler kind, their number and the colour classes' layout to check a
// restore against. The workers' random number generators are the caller's:
// marshal their *rand.PCG sources alongside. It fails if a worker stopped
// on an error.
func (c *Chromatic) Snapshot() ([]byte, error) {
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("gibbs: chromatic: snapshot of a sampler that stopped on an error: %w", err)
	}
	st := chromaticState{Version: core.SnapshotVersion, Kind: "chromatic", Sampler: c.workers[0].SnapshotKind(),
		Workers: len(c.workers), Layout: c.layout(), Sweeps: c.sweeps, X: c.x}
	for _, s := range c.workers {
		st.Stats = append(st.Stats, s.Stats())
	}
	return json.Marshal(st)
}

// Restore implements chain.Snapshotter: it sets the shared state, the sweep count
// and the workers' counters from a snapshot of a Chromatic with the same
// kind of workers, number of workers and colour classes on the same model;
// any difference, or a state outside the model's domains or contradicting
// its evidence, is an error saying which, and leaves the sampler as it was.
// The caller restores the workers' random number generators.
func (c *Chromatic) Restore(data []byte) error {
	var st chromaticState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("gibbs: restore chromatic: %w", err)
	}
	kind := c.workers[0].SnapshotKind()
	switch {
	case st.Version != core.SnapshotVersion:
		return fmt.Errorf("gibbs: restore chromatic: snapshot version %d, this build reads %d", st.Version, core.SnapshotVersion)
	case st.Kind != "chromatic":
		return fmt.Errorf("gibbs: restore chromatic from a snapshot of %q", st.Kind)
	case st.Sampler != kind:
		return fmt.Errorf("gibbs: restore chromatic: its workers differ: restore %s from a snapshot of %s", kind, st.Sampler)
	case st.Workers != len(c.workers) || len(st.Stats) != st.Workers:
		return fmt.Errorf("gibbs: restore chromatic: snapshot of %d workers (%d worker counters), the sampler has %d",
			st.Workers, len(st.Stats), len(c.workers))
	case len(st.X) != len(c.x):
		return fmt.Errorf("gibbs: restore chromatic: snapshot has %d variables, the model %d", len(st.X), len(c.x))
	case st.Sweeps < 0:
		return fmt.Errorf("gibbs: restore chromatic: snapshot has %d sweeps", st.Sweeps)
	case st.Layout != c.layout():
		return errors.New("gibbs: restore chromatic: the snapshot's colour classes or their split among workers differ from the sampler's")
	}
	if err := core.CheckSnapshotState(c.Model(), st.X); err != nil {
		return fmt.Errorf("gibbs: restore chromatic: %w", err)
	}
	copy(c.x, st.X)
	for w, s := range c.workers {
		s.Resume(st.Stats[w])
	}
	c.sweeps = st.Sweeps
	return nil
}
