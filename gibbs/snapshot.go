package gibbs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Snapshotter is implemented by the samplers and observers of this package
// so that long runs can be checkpointed and resumed bit for bit: Snapshot
// returns the object's state, Restore sets it from a snapshot of the same
// kind of object on the same model. The random number generator is not
// part of a sampler's state: its *rand.PCG source (math/rand/v2) marshals
// itself. Snapshots are versioned JSON; float64 values round-trip exactly.
type Snapshotter interface {
	Snapshot() ([]byte, error)
	Restore(data []byte) error
}

const snapshotVersion = 1

// chainState is the state every sampler shares.
type chainState struct {
	Version int       `json:"version"`
	Kind    string    `json:"kind"`
	X       []float64 `json:"x"`
	Stats   Stats     `json:"stats"`
	Eps     *float64  `json:"eps,omitempty"` // the cached global estimate of the MIN samplers
}

func (c *chain) snapshot(kind string, eps *float64) ([]byte, error) {
	if c.err != nil {
		return nil, fmt.Errorf("gibbs: snapshot of a chain that stopped on an error: %w", c.err)
	}
	return json.Marshal(chainState{Version: snapshotVersion, Kind: kind, X: c.x, Stats: c.stats, Eps: eps})
}

func (c *chain) restore(kind string, data []byte) (*chainState, error) {
	var st chainState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	switch {
	case st.Version != snapshotVersion:
		return nil, fmt.Errorf("gibbs: restore %s: snapshot version %d, this build reads %d", kind, st.Version, snapshotVersion)
	case st.Kind != kind:
		return nil, fmt.Errorf("gibbs: restore %s from a snapshot of %s", kind, st.Kind)
	}
	if err := checkSnapshotState(c.m, st.X); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	copy(c.x, st.X)
	c.resume(st.Stats)
	return &st, nil
}

// checkSnapshotState reports whether x, a restored state, fits m: one value
// per variable, each inside its domain, evidence at its observed value.
func checkSnapshotState(m factorgraph.Model, x []float64) error {
	if n := m.NumVars(); len(x) != n {
		return fmt.Errorf("snapshot has %d variables, the model %d", len(x), n)
	}
	for i, v := range x {
		if ov, ok := m.Observed(i); ok && v != ov {
			return fmt.Errorf("variable %d is %v, evidence says %v", i, v, ov)
		}
		if d := m.Domain(i); !d.Contains(v) {
			return fmt.Errorf("value %v of variable %d outside its domain %v", v, i, d)
		}
	}
	return nil
}

// Snapshot implements Snapshotter.
func (s *Gibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements Snapshotter.
func (s *Gibbs) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// Snapshot implements Snapshotter.
func (s *PoissonGibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements Snapshotter.
func (s *PoissonGibbs) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// Snapshot implements Snapshotter.
func (a *Auto) Snapshot() ([]byte, error) { return a.snapshot(a.kind(), nil) }

// Restore implements Snapshotter.
func (a *Auto) Restore(data []byte) error { _, err := a.restore(a.kind(), data); return err }

// Snapshot implements Snapshotter.
func (s *MGPMH) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements Snapshotter.
func (s *MGPMH) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// Snapshot implements Snapshotter; the state includes the cached estimate ε.
func (s *MINGibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), &s.eps) }

// Restore implements Snapshotter.
func (s *MINGibbs) Restore(data []byte) error {
	st, err := s.restore(s.kind(), data)
	if err == nil {
		if st.Eps == nil {
			return errors.New("gibbs: restore mingibbs: snapshot lacks the cached estimate ε")
		}
		s.eps = *st.Eps
	}
	return err
}

// Snapshot implements Snapshotter; the state includes the cached estimate ε.
func (s *DoubleMINGibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), &s.eps) }

// Restore implements Snapshotter.
func (s *DoubleMINGibbs) Restore(data []byte) error {
	st, err := s.restore(s.kind(), data)
	if err == nil {
		if st.Eps == nil {
			return errors.New("gibbs: restore doublemin: snapshot lacks the cached estimate ε")
		}
		s.eps = *st.Eps
	}
	return err
}

// Snapshot implements Snapshotter.
func (s *Continuous) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements Snapshotter.
func (s *Continuous) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// The kinds of the samplers' snapshots (and of a Chromatic's workers).
func (*Gibbs) kind() string          { return "gibbs" }
func (*PoissonGibbs) kind() string   { return "pgibbs" }
func (*Auto) kind() string           { return "auto" }
func (*MGPMH) kind() string          { return "mgpmh" }
func (*MINGibbs) kind() string       { return "mingibbs" }
func (*DoubleMINGibbs) kind() string { return "doublemin" }

// kind is the continuous sampler's snapshot kind, its name in messages:
// "GibbsITS", "GibbsDA", "PGITS", "PGDA", "GibbsRejection" or
// "PGRejection" (the kinds of the six types it replaces, so that their
// snapshots still restore).
func (s *Continuous) kind() string { return s.name }

var (
	_ Snapshotter = (*Gibbs)(nil)
	_ Snapshotter = (*PoissonGibbs)(nil)
	_ Snapshotter = (*Auto)(nil)
	_ Snapshotter = (*MINGibbs)(nil)
	_ Snapshotter = (*MGPMH)(nil)
	_ Snapshotter = (*DoubleMINGibbs)(nil)
	_ Snapshotter = (*Continuous)(nil)
	_ Snapshotter = (*Marginals)(nil)
	_ Snapshotter = (*Histograms)(nil)
	_ Snapshotter = (*Joint2D)(nil)
	_ Snapshotter = (*Trace)(nil)
)

// observerState wraps an observer's state with a version and kind.
type observerState[T any] struct {
	Version int    `json:"version"`
	Kind    string `json:"kind"`
	State   T      `json:"state"`
}

func snapshotObserver[T any](kind string, st T) ([]byte, error) {
	return json.Marshal(observerState[T]{Version: snapshotVersion, Kind: kind, State: st})
}

func restoreObserver[T any](kind string, data []byte) (T, error) {
	var w observerState[T]
	if err := json.Unmarshal(data, &w); err != nil {
		return w.State, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	if w.Version != snapshotVersion || w.Kind != kind {
		return w.State, fmt.Errorf("gibbs: restore %s from a snapshot of %s version %d", kind, w.Kind, w.Version)
	}
	return w.State, nil
}

type marginalsState struct {
	Counts [][]float64 `json:"counts"`
	Cur    []int       `json:"cur"`
	Last   []int64     `json:"last"`
	N      int64       `json:"n"`
}

// Snapshot implements Snapshotter.
func (mg *Marginals) Snapshot() ([]byte, error) {
	return snapshotObserver("marginals", marginalsState{mg.counts, mg.cur, mg.last, mg.n})
}

// Restore implements Snapshotter.
func (mg *Marginals) Restore(data []byte) error {
	st, err := restoreObserver[marginalsState]("marginals", data)
	if err != nil {
		return err
	}
	if len(st.Counts) != len(mg.counts) || len(st.Cur) != len(mg.cur) || len(st.Last) != len(mg.last) {
		return fmt.Errorf("gibbs: restore marginals: snapshot of %d variables, observer of %d", len(st.Counts), len(mg.counts))
	}
	for i := range st.Counts {
		if len(st.Counts[i]) != len(mg.counts[i]) {
			return fmt.Errorf("gibbs: restore marginals: variable %d has %d values, snapshot %d", i, len(mg.counts[i]), len(st.Counts[i]))
		}
	}
	mg.counts, mg.cur, mg.last, mg.n = st.Counts, st.Cur, st.Last, st.N
	return nil
}

type histogramsState struct {
	Bins   int         `json:"bins"`
	Counts [][]float64 `json:"counts"`
	Sum    []float64   `json:"sum"`
	Cur    []float64   `json:"cur"`
	Last   []int64     `json:"last"`
	N      int64       `json:"n"`
}

// Snapshot implements Snapshotter.
func (h *Histograms) Snapshot() ([]byte, error) {
	return snapshotObserver("histograms", histogramsState{h.bins, h.counts, h.sum, h.cur, h.last, h.n})
}

// Restore implements Snapshotter.
func (h *Histograms) Restore(data []byte) error {
	st, err := restoreObserver[histogramsState]("histograms", data)
	if err != nil {
		return err
	}
	if st.Bins != h.bins || len(st.Counts) != len(h.counts) || len(st.Sum) != len(h.sum) || len(st.Cur) != len(h.cur) || len(st.Last) != len(h.last) {
		return fmt.Errorf("gibbs: restore histograms: snapshot shape differs from the observer's")
	}
	h.counts, h.sum, h.cur, h.last, h.n = st.Counts, st.Sum, st.Cur, st.Last, st.N
	return nil
}

type joint2DState struct {
	NX, NY                   int
	Counts                   []float64
	N                        int64
	SumA, SumB, SumAA, SumBB float64
}

// Snapshot implements Snapshotter.
func (j *Joint2D) Snapshot() ([]byte, error) {
	return snapshotObserver("joint2d", joint2DState{j.nx, j.ny, j.counts, j.n, j.sumA, j.sumB, j.sumAA, j.sumBB})
}

// Restore implements Snapshotter.
func (j *Joint2D) Restore(data []byte) error {
	st, err := restoreObserver[joint2DState]("joint2d", data)
	if err != nil {
		return err
	}
	if st.NX != j.nx || st.NY != j.ny || len(st.Counts) != len(j.counts) {
		return fmt.Errorf("gibbs: restore joint histogram: snapshot shape differs from the observer's")
	}
	j.counts, j.n, j.sumA, j.sumB, j.sumAA, j.sumBB = st.Counts, st.N, st.SumA, st.SumB, st.SumAA, st.SumBB
	return nil
}

type traceState struct {
	Vars  []int       `json:"vars"`
	Every int64       `json:"every"`
	Max   int         `json:"max"`
	Draws [][]float64 `json:"draws"`
	Last  int64       `json:"last"`
	Next  int64       `json:"next"`
}

// Snapshot implements Snapshotter.
func (t *Trace) Snapshot() ([]byte, error) {
	return snapshotObserver("trace", traceState{t.vars, t.every, t.max, t.draws, t.last, t.next})
}

// Restore implements Snapshotter.
func (t *Trace) Restore(data []byte) error {
	st, err := restoreObserver[traceState]("trace", data)
	if err != nil {
		return err
	}
	if len(st.Vars) != len(t.vars) || st.Max != t.max || len(st.Draws) != len(t.draws) {
		return fmt.Errorf("gibbs: restore trace: snapshot shape differs from the observer's")
	}
	for k := range st.Vars {
		if st.Vars[k] != t.vars[k] {
			return fmt.Errorf("gibbs: restore trace: snapshot traces other variables")
		}
	}
	t.every, t.draws, t.last, t.next = st.Every, st.Draws, st.Last, st.Next
	return nil
}
