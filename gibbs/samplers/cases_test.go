package samplers

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// familySamplers are the registry's single-site discrete samplers, with
// the variants of their options the exactness tests of their packages
// check (gibbs/site, gibbs/mingibbs): the cases of this package's
// properties that every sampler must have (checked mode, no allocations, a
// seed's chain, Rao–Blackwellisation).
func familySamplers() []gibbstest.SamplerCase {
	entry := func(name, entry string, o gibbs.Options, steps int) gibbstest.SamplerCase {
		e, err := Lookup(entry)
		if err != nil {
			panic(err)
		}
		return gibbstest.SamplerCase{Name: name, Steps: steps, New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			o := o
			o.Init = init
			return e.New(m, r, &Config{Options: o, SingleSite: true})
		}}
	}
	return []gibbstest.SamplerCase{
		entry("Gibbs", "gibbs", gibbs.Options{}, 0),
		entry("PoissonGibbs", "pgibbs", gibbs.Options{}, 0),
		entry("PoissonGibbs/λ=0.1L²", "pgibbs", gibbs.Options{LambdaScale: 0.1}, 0),
		entry("PoissonGibbs/per-variable", "pgibbs", gibbs.Options{PerVariable: true, LambdaScale: 0.5}, 0),
		entry("Auto", "auto", gibbs.Options{LambdaScale: gibbstest.MixedScale}, 0),
		entry("MINGibbs", "mingibbs", gibbs.Options{}, gibbstest.MinSteps),
		entry("MGPMH", "mgpmh", gibbs.Options{}, 0),
		entry("MGPMH/λ=0.1L²", "mgpmh", gibbs.Options{LambdaScale: 0.1}, 0),
		entry("DoubleMINGibbs", "doublemin", gibbs.Options{Lambda2Scale: 4}, 0),
	}
}
