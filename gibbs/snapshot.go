package gibbs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// Every sampler and observer of this package is a chain.Snapshotter, so
// that long runs can be checkpointed and resumed bit for bit: Snapshot
// returns the object's state, Restore sets it from a snapshot of the same
// kind of object on the same model. The random number generator is not
// part of a sampler's state: its *rand.PCG source (math/rand/v2) marshals
// itself. Snapshots are versioned JSON; float64 values round-trip exactly.

const snapshotVersion = 1

// chainState is the state every sampler shares.
type chainState struct {
	chain.SnapshotHeader
	X     []float64 `json:"x"`
	Stats Stats     `json:"stats"`
	Eps   *float64  `json:"eps,omitempty"` // the cached global estimate of the MIN samplers
}

// header is the snapshot header of a sampler of the given kind.
func header(kind string) chain.SnapshotHeader {
	return chain.SnapshotHeader{Version: snapshotVersion, Kind: kind}
}

func (c *core) snapshot(kind string, eps *float64) ([]byte, error) {
	if c.err != nil {
		return nil, fmt.Errorf("gibbs: snapshot of a chain that stopped on an error: %w", c.err)
	}
	return json.Marshal(chainState{SnapshotHeader: header(kind), X: c.x, Stats: c.stats, Eps: eps})
}

func (c *core) restore(kind string, data []byte) (*chainState, error) {
	c.condAt = -1 // no update of the restored chain has drawn yet
	var st chainState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	if err := st.Check("gibbs", kind, snapshotVersion); err != nil {
		return nil, err
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

// Snapshot implements chain.Snapshotter.
func (s *Gibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *Gibbs) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// Snapshot implements chain.Snapshotter.
func (s *PoissonGibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *PoissonGibbs) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// Snapshot implements chain.Snapshotter.
func (a *Mixed) Snapshot() ([]byte, error) { return a.snapshot(a.kind(), nil) }

// Restore implements chain.Snapshotter.
func (a *Mixed) Restore(data []byte) error { _, err := a.restore(a.kind(), data); return err }

// Snapshot implements chain.Snapshotter.
func (s *MGPMH) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *MGPMH) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// Snapshot implements chain.Snapshotter; the state includes the cached estimate ε.
func (s *MINGibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), &s.eps) }

// Restore implements chain.Snapshotter.
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

// Snapshot implements chain.Snapshotter; the state includes the cached estimate ε.
func (s *DoubleMINGibbs) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), &s.eps) }

// Restore implements chain.Snapshotter.
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

// Snapshot implements chain.Snapshotter.
func (s *Continuous) Snapshot() ([]byte, error) { return s.snapshot(s.kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *Continuous) Restore(data []byte) error { _, err := s.restore(s.kind(), data); return err }

// The kinds of the samplers' snapshots (and of a Chromatic's workers).
func (*Gibbs) kind() string          { return "gibbs" }
func (*PoissonGibbs) kind() string   { return "pgibbs" }
func (*Mixed) kind() string          { return "auto" }
func (*MGPMH) kind() string          { return "mgpmh" }
func (*MINGibbs) kind() string       { return "mingibbs" }
func (*DoubleMINGibbs) kind() string { return "doublemin" }

// kind is the continuous sampler's snapshot kind, its name in messages:
// "GibbsITS", "GibbsDA", "PGITS", "PGDA", "GibbsRejection" or
// "PGRejection" (the kinds of the six types it replaces, so that their
// snapshots still restore).
func (s *Continuous) kind() string { return s.name }
