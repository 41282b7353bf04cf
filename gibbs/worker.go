package gibbs

// Worker is a Sampler that a chromatic.Chromatic can run as one of its
// workers: chromatic.New builds one per random stream with a Factory, and
// runs them on one shared state, updating the variables of a colour class
// — which share no factor — in parallel, each worker always the same
// variables in the same order. The single-site samplers of the family are
// Workers (site's, mingibbs.MGPMH, the continuous samplers; the MIN-Gibbs
// estimators and the block and cluster samplers report LocalUpdates
// false), and so can a user's own sampler be.
//
// LocalUpdates reports whether an update of x_i reads and writes only
// x_i, the variables of A[i] and the sampler's own scratch space, so that
// workers updating variables that share no factor can run at the same
// time; chromatic.New refuses a worker that says false. Share makes the
// sampler work on x, a state of the same model shared with the other
// workers, instead of its own (State returns x from then on): a worker's
// state is x and its counters, nothing else carried from update to update.
// Resume sets the counters to st and clears the error (a Chromatic's
// restored snapshot; the rollback of an interrupted sweep). SnapshotKind
// names the sampler's kind, the same for every worker of one Chromatic,
// recorded in its snapshots.
//
// A Chromatic calls Update(i) of different workers on different goroutines
// at once, each on variables of one colour class, Step of worker 0 on the
// caller's. A worker that is a chain.Interrupter gets the Chromatic's
// interrupt channel; whether or not it is, an interrupted sweep is rolled
// back by the Chromatic, which journals the values its workers change.
type Worker interface {
	Sharer
	LocalUpdates() bool
	Resume(st Stats)
	SnapshotKind() string
}

// Sharer is a Sampler whose state can be a slice its caller owns: after
// Share(x), x is the sampler's state (State returns it, updates write it),
// and the caller may change x between steps to any state of positive
// probability. The workers of a chromatic.Chromatic share one state; the
// replicas of an exchange.Exchange swap theirs. A sampler that carries
// something else from update to update that depends on the state (the
// cached energy estimate of mingibbs.MINGibbs and DoubleMINGibbs) has the
// method but not the right to have its state changed: exchange refuses
// those.
type Sharer interface {
	Sampler
	Share(x []float64)
}
