package site

// Snapshot implements chain.Snapshotter.
func (s *Gibbs) Snapshot() ([]byte, error) { return s.core().SnapshotState(s.SnapshotKind(), nil) }

// Restore implements chain.Snapshotter.
func (s *Gibbs) Restore(data []byte) error {
	_, err := s.core().RestoreState(s.SnapshotKind(), data)
	return err
}

// Snapshot implements chain.Snapshotter.
func (s *PoissonGibbs) Snapshot() ([]byte, error) {
	return s.core().SnapshotState(s.SnapshotKind(), nil)
}

// Restore implements chain.Snapshotter.
func (s *PoissonGibbs) Restore(data []byte) error {
	_, err := s.core().RestoreState(s.SnapshotKind(), data)
	return err
}

// Snapshot implements chain.Snapshotter.
func (a *Mixed) Snapshot() ([]byte, error) { return a.core().SnapshotState(a.SnapshotKind(), nil) }

// Restore implements chain.Snapshotter.
func (a *Mixed) Restore(data []byte) error {
	_, err := a.core().RestoreState(a.SnapshotKind(), data)
	return err
}

// SnapshotKind returns "gibbs", the kind of a Gibbs's snapshots.
func (*Gibbs) SnapshotKind() string { return "gibbs" }

// SnapshotKind returns "pgibbs", the kind of a PoissonGibbs's snapshots.
func (*PoissonGibbs) SnapshotKind() string { return "pgibbs" }

// SnapshotKind returns "auto", the kind of a Mixed's snapshots.
func (*Mixed) SnapshotKind() string { return "auto" }
