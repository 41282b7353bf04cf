package samplers

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/continuous"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// registry lists the samplers New knows, sorted by name: the order of
// Names.
var registry = []struct {
	name string
	new  gibbs.Factory
}{
	{"auto", NewAuto},
	{"block", factory(blocked.New)},
	{"doublemin", factory(mingibbs.NewDoubleMINGibbs)},
	{"gibbs", factory(site.NewGibbs)},
	{"gibbs-da", factory(continuous.NewGibbsDA)},
	{"gibbs-its", factory(continuous.NewGibbsITS)},
	{"gibbs-rejection", factory(continuous.NewGibbsRejection)},
	{"mgpmh", factory(mingibbs.NewMGPMH)},
	{"mingibbs", factory(mingibbs.NewMINGibbs)},
	{"pg-rejection", factory(continuous.NewPGRejection)},
	{"pgda", factory(continuous.NewPGDA)},
	{"pgibbs", factory(site.NewPoissonGibbs)},
	{"pgits", factory(continuous.NewPGITS)},
	{"sw", factory(cluster.NewSwendsenWang)},
	{"wolff", factory(cluster.NewWolff)},
}

// factory turns a constructor into a Factory (a failed construction
// returns a nil Sampler, not a nil pointer in an interface).
func factory[S gibbs.Sampler](f func(factorgraph.Model, *rand.Rand, *gibbs.Options) (S, error)) gibbs.Factory {
	return func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		s, err := f(m, r, opt)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// FactoryOf returns the factory of the sampler called name (see Names).
func FactoryOf(name string) (gibbs.Factory, error) {
	for _, e := range registry {
		if e.name == name {
			return e.new, nil
		}
	}
	return nil, fmt.Errorf("gibbs: unknown sampler %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// New returns the sampler called name (see Names) on m, drawing from r:
// FactoryOf(name) called with m, r and opt.
func New(name string, m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
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
