package site

// LocalUpdates reports true (see gibbs.Worker): a Gibbs update reads A[i] only.
func (*Gibbs) LocalUpdates() bool { return true }

// LocalUpdates reports true (see gibbs.Worker): a Poisson-Gibbs update reads A[i] only.
func (*PoissonGibbs) LocalUpdates() bool { return true }

// LocalUpdates reports true (see gibbs.Worker): both updates of Mixed read A[i] only.
func (*Mixed) LocalUpdates() bool { return true }
