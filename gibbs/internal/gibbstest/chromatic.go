package gibbstest

import (
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// Outsider wraps a sampler as code outside the family would (it hides
// the sampler's other methods, such as Snapshot).
type Outsider struct{ gibbs.Sampler }

// OutsideWorker wraps a worker of the family as a user's own
// gibbs.Worker: a Chromatic cannot see its state and runs it through its
// methods, journalling for it.
type OutsideWorker struct{ gibbs.Worker }
