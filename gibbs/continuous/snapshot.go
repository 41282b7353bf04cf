package continuous

// Snapshot implements chain.Snapshotter.
func (s *Continuous) Snapshot() ([]byte, error) { return s.SnapshotState(s.Kind(), nil) }

// Restore implements chain.Snapshotter.
func (s *Continuous) Restore(data []byte) error { _, err := s.RestoreState(s.Kind(), data); return err }

// Kind is the continuous sampler's snapshot kind, its name in messages:
// "GibbsITS", "GibbsDA", "PGITS", "PGDA", "GibbsRejection" or
// "PGRejection" (the kinds of the six types it replaces, so that their
// snapshots still restore).
func (s *Continuous) Kind() string { return s.name }
