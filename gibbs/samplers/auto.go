package samplers

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

// NewAuto returns the sampler the registry's "auto" names: on a
// model that lists its factors (a *factorgraph.Graph) where single-site
// chains freeze — at least a tenth of the links between free variables are
// deterministic (a hard factor with zeros) or strong (factor ranges
// summing to 1 or more) — and blocks can absorb them at a cost of at most
// 80 single-site updates per variable (the width chosen as blocked.New
// does), a Blocked sampler; otherwise a Mixed sampler (plain Gibbs or
// Poisson-Gibbs variable by variable). A model with a hard factor that
// would freeze single-site updates (see site.NewGibbs) always gets blocks,
// whatever they cost. Both are exact; the choice depends
// on the model only, so the same seed gives the same chain. The workers of
// a Chromatic, which update one variable at a time, are Mixed: build them
// with the entry's Config.SingleSite (Lookup("auto"), Entry.Factory). The
// choice is by rule; for the marginals themselves — exact where an
// elimination fits, a sampler chosen by measured pilots elsewhere, with a
// convergence verdict — see infer.Marginals.
func NewAuto(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
	cfg := &Config{}
	if opt != nil {
		cfg.Options = *opt
	}
	return newAuto(m, r, cfg)
}
