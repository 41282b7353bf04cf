package site

// LocalUpdates reports whether an update of x_i reads and writes only x_i
// and A[i] (chromatic.New takes such workers only): a Gibbs update reads A[i] only.
func (*Gibbs) LocalUpdates() bool { return true }

// LocalUpdates reports whether an update of x_i reads and writes only x_i
// and A[i] (chromatic.New takes such workers only): a Poisson-Gibbs update reads A[i] only.
func (*PoissonGibbs) LocalUpdates() bool { return true }

// LocalUpdates reports whether an update of x_i reads and writes only x_i
// and A[i] (chromatic.New takes such workers only): both updates of Mixed read A[i] only.
func (*Mixed) LocalUpdates() bool { return true }
