package site

// Snapshot implements chain.Snapshotter.
func (s *Gibbs) Snapshot() ([]byte, error) { return s.SnapshotState(s.Kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *Gibbs) Restore(data []byte) error { _, err := s.RestoreState(s.Kind(), data); return err }

// Snapshot implements chain.Snapshotter.
func (s *PoissonGibbs) Snapshot() ([]byte, error) { return s.SnapshotState(s.Kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *PoissonGibbs) Restore(data []byte) error {
	_, err := s.RestoreState(s.Kind(), data)
	return err
}

// Snapshot implements chain.Snapshotter.
func (a *Mixed) Snapshot() ([]byte, error) { return a.SnapshotState(a.Kind(), nil) }

// Restore implements chain.Snapshotter.
func (a *Mixed) Restore(data []byte) error { _, err := a.RestoreState(a.Kind(), data); return err }

// The kinds of the samplers' snapshots (and of a Chromatic's workers).
func (*Gibbs) Kind() string { return "gibbs" }

func (*PoissonGibbs) Kind() string { return "pgibbs" }

func (*Mixed) Kind() string { return "auto" }
