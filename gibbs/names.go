package gibbs

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Factory builds a sampler on m drawing from r, as the constructors of this
// package do (opt may be nil). FactoryOf returns the factory of a sampler
// by name; chromatic.New builds its workers with one.
type Factory func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error)
