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

// UpdateVars is Update(i) for each i of vars in turn (a Chromatic worker's
// share of a colour class), with one loop over the sites of a torus model
// instead of a call per site.
func (s *Gibbs) UpdateVars(vars []int, journal bool) { s.UpdateEach(vars, journal, true) }

// UpdateVars is Update(i) for each i of vars in turn: where every variable
// is updated by plain Gibbs (a lattice whose minibatch would not be
// smaller than its K neighbours: a nearest-neighbour one), Gibbs's loop
// over the sites of a torus model, so that auto costs what gibbs does.
func (a *Mixed) UpdateVars(vars []int, journal bool) { a.UpdateEach(vars, journal, a.nPG == 0) }
