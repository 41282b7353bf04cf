package continuous

// LocalUpdates implements worker: a continuous update reads A[i] only.
func (*Continuous) LocalUpdates() bool { return true }
