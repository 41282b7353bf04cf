package mingibbs

import (
	"errors"
)

// Snapshot implements chain.Snapshotter.
func (s *MGPMH) Snapshot() ([]byte, error) { return s.SnapshotState(s.Kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *MGPMH) Restore(data []byte) error { _, err := s.RestoreState(s.Kind(), data); return err }

// Snapshot implements chain.Snapshotter; the state includes the cached estimate ε.
func (s *MINGibbs) Snapshot() ([]byte, error) { return s.SnapshotState(s.Kind(), &s.eps) }

// Restore implements chain.Snapshotter.
func (s *MINGibbs) Restore(data []byte) error {
	st, err := s.RestoreState(s.Kind(), data)
	if err == nil {
		if st.Eps == nil {
			return errors.New("gibbs: restore mingibbs: snapshot lacks the cached estimate ε")
		}
		s.eps = *st.Eps
	}
	return err
}

// Snapshot implements chain.Snapshotter; the state includes the cached estimate ε.
func (s *DoubleMINGibbs) Snapshot() ([]byte, error) { return s.SnapshotState(s.Kind(), &s.eps) }

// Restore implements chain.Snapshotter.
func (s *DoubleMINGibbs) Restore(data []byte) error {
	st, err := s.RestoreState(s.Kind(), data)
	if err == nil {
		if st.Eps == nil {
			return errors.New("gibbs: restore doublemin: snapshot lacks the cached estimate ε")
		}
		s.eps = *st.Eps
	}
	return err
}

func (*MGPMH) Kind() string { return "mgpmh" }

func (*MINGibbs) Kind() string { return "mingibbs" }

func (*DoubleMINGibbs) Kind() string { return "doublemin" }
