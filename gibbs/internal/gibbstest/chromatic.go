package gibbstest

import (
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// Outsider wraps a sampler as code outside the family would (it hides
// the sampler's other methods, such as Snapshot).
type Outsider struct{ gibbs.Sampler }
