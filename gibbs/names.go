package gibbs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// constructors maps the names of New to the samplers' constructors.
var constructors = map[string]func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error){
	"gibbs": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewGibbs(m, r, opt)
	},
	"pgibbs": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewPoissonGibbs(m, r, opt)
	},
	"auto": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewAuto(m, r, opt)
	},
	"mingibbs": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewMINGibbs(m, r, opt)
	},
	"mgpmh": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewMGPMH(m, r, opt)
	},
	"doublemin": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewDoubleMINGibbs(m, r, opt)
	},
	"gibbs-its": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewGibbsITS(m, r, opt)
	},
	"gibbs-da": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewGibbsDA(m, r, opt)
	},
	"pgits": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewPGITS(m, r, opt)
	},
	"pgda": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewPGDA(m, r, opt)
	},
	"gibbs-rejection": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewGibbsRejection(m, r, opt)
	},
	"pg-rejection": func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
		return NewPGRejection(m, r, opt)
	},
}

// New returns the sampler called name (see Names) on m, drawing from r.
func New(name string, m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error) {
	c, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("gibbs: unknown sampler %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	return c(m, r, opt)
}

// Names returns the names New accepts, sorted.
func Names() []string {
	var names []string
	for n := range constructors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
