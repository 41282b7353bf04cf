package mingibbs

// LocalUpdates implements worker: an MGPMH update reads A[i] only.
func (*MGPMH) LocalUpdates() bool { return true }

// LocalUpdates implements worker: MIN-Gibbs's estimates read the whole
// state, and its cached estimate ε is global.
func (*MINGibbs) LocalUpdates() bool { return false }

// LocalUpdates implements worker: DoubleMIN-Gibbs's estimates read the
// whole state, and its cached estimate ε is global.
func (*DoubleMINGibbs) LocalUpdates() bool { return false }
