package mingibbs

import (
	"errors"
)

// Snapshot implements chain.Snapshotter.
func (s *MGPMH) Snapshot() ([]byte, error) { return s.core().SnapshotState(s.SnapshotKind(), nil) }

// Restore implements chain.Snapshotter.
func (s *MGPMH) Restore(data []byte) error {
	_, err := s.core().RestoreState(s.SnapshotKind(), data)
	return err
}

// Snapshot implements chain.Snapshotter; the state includes the cached estimate ε.
func (s *MINGibbs) Snapshot() ([]byte, error) {
	return s.core().SnapshotState(s.SnapshotKind(), &s.eps)
}

// Restore implements chain.Snapshotter.
func (s *MINGibbs) Restore(data []byte) error {
	st, err := s.core().RestoreState(s.SnapshotKind(), data)
	if err == nil {
		if st.Eps == nil {
			return errors.New("gibbs: restore mingibbs: snapshot lacks the cached estimate ε")
		}
		s.eps = *st.Eps
	}
	return err
}

// Snapshot implements chain.Snapshotter; the state includes the cached estimate ε.
func (s *DoubleMINGibbs) Snapshot() ([]byte, error) {
	return s.core().SnapshotState(s.SnapshotKind(), &s.eps)
}

// Restore implements chain.Snapshotter.
func (s *DoubleMINGibbs) Restore(data []byte) error {
	st, err := s.core().RestoreState(s.SnapshotKind(), data)
	if err == nil {
		if st.Eps == nil {
			return errors.New("gibbs: restore doublemin: snapshot lacks the cached estimate ε")
		}
		s.eps = *st.Eps
	}
	return err
}

// SnapshotKind returns "mgpmh", the kind of a MGPMH's snapshots.
func (*MGPMH) SnapshotKind() string { return "mgpmh" }

// SnapshotKind returns "mingibbs", the kind of a MINGibbs's snapshots.
func (*MINGibbs) SnapshotKind() string { return "mingibbs" }

// SnapshotKind returns "doublemin", the kind of a DoubleMINGibbs's snapshots.
func (*DoubleMINGibbs) SnapshotKind() string { return "doublemin" }
