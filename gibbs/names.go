package gibbs

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Factory builds a sampler on m drawing from r, as the constructors of this
// package do (opt may be nil). FactoryOf returns the factory of a sampler
// by name; NewChromatic builds its workers with one.
type Factory func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error)

// registry lists the samplers New knows, sorted by name: the order of
// Names.
var registry = []struct {
	name string
	new  Factory
}{
	{"auto", NewAuto},
	{"block", factory(NewBlocked)},
	{"doublemin", factory(NewDoubleMINGibbs)},
	{"gibbs", factory(NewGibbs)},
	{"gibbs-da", factory(NewGibbsDA)},
	{"gibbs-its", factory(NewGibbsITS)},
	{"gibbs-rejection", factory(NewGibbsRejection)},
	{"mgpmh", factory(NewMGPMH)},
	{"mingibbs", factory(NewMINGibbs)},
	{"pg-rejection", factory(NewPGRejection)},
	{"pgda", factory(NewPGDA)},
	{"pgibbs", factory(NewPoissonGibbs)},
	{"pgits", factory(NewPGITS)},
	{"sw", factory(NewSwendsenWang)},
	{"wolff", factory(NewWolff)},
}

// factory turns a constructor into a Factory (a failed construction
// returns a nil Sampler, not a nil pointer in an interface).
func factory[S Sampler](f func(factorgraph.Model, *rand.Rand, *Options) (S, error)) Factory {
	return func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		s, err := f(m, r, opt)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// FactoryOf returns the factory of the sampler called name (see Names).
func FactoryOf(name string) (Factory, error) {
	for _, e := range registry {
		if e.name == name {
			return e.new, nil
		}
	}
	return nil, fmt.Errorf("gibbs: unknown sampler %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// New returns the sampler called name (see Names) on m, drawing from r:
// FactoryOf(name) called with m, r and opt.
func New(name string, m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
	f, err := FactoryOf(name)
	if err != nil {
		return nil, err
	}
	return f(m, r, opt)
}

// Names returns the names New and FactoryOf accept, sorted, in a new slice.
func Names() []string {
	names := make([]string, len(registry))
	for k, e := range registry {
		names[k] = e.name
	}
	return names
}
