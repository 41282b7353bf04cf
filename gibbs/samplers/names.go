package samplers

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/continuous"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// Entry is a sampler of the registry: its name, what it samples and how
// it runs — what a caller needs to know to offer it, run it and report
// on it — and how to build it ([Entry.New]).
type Entry struct {
	Name    string
	Summary string // what it is, in a few words
	// Continuous: it samples continuous variables (on intervals), with
	// Chebyshev interpolants or rejection; otherwise discrete ones.
	Continuous bool
	// Minibatched: its updates draw Poisson minibatches, so λ
	// (Options.Lambda, LambdaScale) applies and the sampler reports it.
	Minibatched bool
	// Conditioner: it implements chain.Conditioner (for auto: whichever
	// sampler it builds), so its marginals can be Rao–Blackwellised
	// (chain.Marginals.RaoBlackwellise).
	Conditioner bool
	// Sweep: a step updates every free variable, or about a sweep's worth
	// of them (the cluster moves): it runs as it is where a sweep at a
	// time is wanted, not under gibbs.Sweeper.
	Sweep bool
	// Local: an update of variable i reads only A[i], so variables that
	// share no factor can be updated in parallel: it can be a worker of
	// chromatic.New (auto with Config.SingleSite).
	Local bool
	// Graph: it needs a model that lists its factors (a
	// *factorgraph.Graph), not only each variable's (an implicit lattice):
	// it reads factors globally or tabulates blocks.
	Graph bool

	new func(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error)
}

// Config is what the registry builds a sampler with: the family's options
// and the configuration of the samplers that have one of their own. The
// zero value gives every sampler its defaults.
type Config struct {
	gibbs.Options
	// Block configures "block" (blocked.NewWith: zero, the blocks chosen
	// from the model as blocked.New chooses them).
	Block blocked.Config
	// Clusters is the single-cluster updates a step of "wolff": 0 the
	// constructor's default (one), TuneClusters to tune them on the chain
	// before its burn-in (cluster.Wolff.TuneClusters: as many as update
	// about a sweep's worth of sites, the construction's context stopping
	// it), k > 0 that many.
	Clusters int
	// SingleSite makes "auto" build single-site updates (site.Mixed), never
	// blocks: what the workers of a chromatic sweep need.
	SingleSite bool
	// Exchange configures "exchange" (exchange.New: zero, the ladder
	// tuned), and Replica names the registry's sampler its replicas run

	Exchange exchange.Options
	Replica  string
	// ColdReplica, if not empty, names the registry's sampler of the
	// exchange's chain itself, its β = 1 replica (exchange.Options.Cold):
	// "block" among "gibbs" replicas Rao–Blackwellises the answer over
	// blocks while the cheap replicas carry the ladder.
	ColdReplica string
}

// TuneClusters is Config.Clusters for a Wolff sampler that tunes its
// clusters a step (cluster.Wolff.TuneClusters), in rounds of
// TuneSweeps sweeps' worth of clusters.
const (
	TuneClusters = -1
	TuneSweeps   = 5
)

// registry lists the samplers, sorted by name: the order of Names.
var registry = []Entry{
	{Name: "auto", Summary: "blocked Gibbs where single-site chains freeze, Gibbs or Poisson-Gibbs by variable elsewhere",
		Minibatched: true, Conditioner: true, Local: true, new: newAuto},
	{Name: "block", Summary: "blocked Gibbs: blocks of bounded elimination width, drawn exactly",
		Conditioner: true, Graph: true, new: newBlock},
	{Name: "doublemin", Summary: "DoubleMIN-Gibbs", Minibatched: true, Graph: true, new: plain(mingibbs.NewDoubleMINGibbs)},
	{Name: "exchange", Summary: "replica exchange (parallel tempering) over another sampler's replicas, the ladder tuned",
		Conditioner: true, Graph: true}, // new: newExchange, set by init (it looks the registry up)
	{Name: "gibbs", Summary: "plain Gibbs (Algorithm 1)", Conditioner: true, Local: true, new: plain(site.NewGibbs)},
	{Name: "gibbs-da", Summary: "Gibbs with double Chebyshev approximation", Continuous: true, Local: true, new: plain(continuous.NewGibbsDA)},
	{Name: "gibbs-its", Summary: "Gibbs with inverse transform sampling", Continuous: true, Local: true, new: plain(continuous.NewGibbsITS)},
	{Name: "gibbs-rejection", Summary: "Gibbs by rejection sampling", Continuous: true, Local: true, new: plain(continuous.NewGibbsRejection)},
	{Name: "mgpmh", Summary: "minibatch-Gibbs proposal, exact MH test", Minibatched: true, Local: true, new: plain(mingibbs.NewMGPMH)},
	{Name: "mingibbs", Summary: "MIN-Gibbs", Minibatched: true, Graph: true, new: plain(mingibbs.NewMINGibbs)},
	{Name: "pg-rejection", Summary: "Poisson-Gibbs by rejection sampling", Continuous: true, Minibatched: true, Local: true, new: plain(continuous.NewPGRejection)},
	{Name: "pgda", Summary: "Poisson-Gibbs with double Chebyshev approximation (Algorithm 3)", Continuous: true, Minibatched: true, Local: true, new: plain(continuous.NewPGDA)},
	{Name: "pgibbs", Summary: "Poisson-Gibbs (Algorithm 2)", Minibatched: true, Conditioner: true, Local: true, new: plain(site.NewPoissonGibbs)},
	{Name: "pgits", Summary: "Poisson-Gibbs with inverse transform sampling", Continuous: true, Minibatched: true, Local: true, new: plain(continuous.NewPGITS)},
	{Name: "sw", Summary: "Swendsen–Wang cluster moves", Sweep: true, new: plain(cluster.NewSwendsenWang)},
	{Name: "wolff", Summary: "Wolff single-cluster moves", Sweep: true, new: newWolff},
}

// plain turns a constructor of the family into an Entry's builder (a
// failed construction returns a nil Sampler, not a nil pointer in an
// interface).
func plain[S gibbs.Sampler](f func(factorgraph.Model, *rand.Rand, *gibbs.Options) (S, error)) func(factorgraph.Model, *rand.Rand, *Config) (gibbs.Sampler, error) {
	return func(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error) {
		s, err := f(m, r, &cfg.Options)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func newAuto(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error) {
	if !cfg.SingleSite {
		b, err := blocked.NewIfSticky(m, r, &cfg.Options)
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
	}
	return site.NewMixed(m, r, &cfg.Options)
}

func newBlock(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error) {
	b, err := blocked.NewWith(m, r, &cfg.Options, nil, cfg.Block)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func init() {
	for k := range registry {
		if registry[k].Name == "exchange" {
			registry[k].new = newExchange
		}
	}
}

func newExchange(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error) {
	g, ok := m.(*factorgraph.Graph)
	if !ok {
		return nil, fmt.Errorf("gibbs: exchange: needs a *factorgraph.Graph (its replicas are the graph tempered), not %T", m)
	}
	name := cfg.Replica
	if name == "" {
		name = "gibbs"
	}
	inner := *cfg
	inner.Replica, inner.ColdReplica, inner.Exchange = "", "", exchange.Options{}
	factory, err := replicaFactory(name, inner)
	if err != nil {
		return nil, err
	}
	xo := cfg.Exchange
	if cfg.ColdReplica != "" {
		if xo.Cold, err = replicaFactory(cfg.ColdReplica, inner); err != nil {
			return nil, err
		}
	}
	x, err := exchange.New(g, factory, r, &cfg.Options, &xo)
	if err != nil {
		return nil, err
	}
	return x, nil
}

// replicaFactory returns the factory of the registry's sampler name as an
// exchange's replicas (inner: their configuration), or an error for a
// sampler that cannot be one.
func replicaFactory(name string, inner Config) (gibbs.Factory, error) {
	if name == "exchange" {
		return nil, fmt.Errorf("gibbs: exchange: replica sampler %q: replicas of replicas", name)
	}
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if e.Continuous {
		return nil, fmt.Errorf("gibbs: exchange: replica sampler %q samples continuous variables; exchange tempers discrete samplers", name)
	}
	if name == "block" {
		return sharedBlocks(inner.Block), nil
	}
	return e.Factory(inner), nil
}

// sharedBlocks returns the factory of blocked replicas that all use the
// blocks the first one built (blocks.Build on the model itself: the
// exchange builds its β = 1 replica first): the tempered models have the
// same structure, and building blocks once instead of at every rung and
// tuning round is most of an exchange's construction.
func sharedBlocks(cfg blocked.Config) gibbs.Factory {
	var sets [][]int
	return func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		b, err := blocked.NewWith(m, r, opt, sets, cfg)
		if err != nil {
			return nil, err
		}
		if sets == nil {
			sets = b.Sets()
		}
		return b, nil
	}
}

func newWolff(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error) {
	w, err := cluster.NewWolff(m, r, &cfg.Options)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.Clusters == TuneClusters:
		// Tuning ends at a stopping time: it comes before the burn-in.
		ctx := cfg.Context
		if ctx == nil {
			ctx = context.Background()
		}
		if _, err := w.TuneClusters(ctx, TuneSweeps); err != nil {
			return nil, err
		}
	case cfg.Clusters > 0:
		if err := w.SetClusters(cfg.Clusters); err != nil {
			return nil, err
		}
	case cfg.Clusters < 0:
		return nil, fmt.Errorf("gibbs: wolff: Config.Clusters = %d: want TuneClusters, 0 (one) or a positive count", cfg.Clusters)
	}
	return w, nil
}

// New builds e's sampler on m drawing from r with cfg (nil: the zero
// Config, every default).
func (e Entry) New(m factorgraph.Model, r *rand.Rand, cfg *Config) (gibbs.Sampler, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	c := *cfg
	return e.new(m, r, &c)
}

// Factory returns e's constructor with cfg's sampler configuration as a
// gibbs.Factory (the options the factory is called with replace
// cfg.Options): what chromatic.New builds its workers with.
func (e Entry) Factory(cfg Config) gibbs.Factory {
	return func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		c := cfg
		if opt != nil {
			c.Options = *opt
		} else {
			c.Options = gibbs.Options{}
		}
		return e.new(m, r, &c)
	}
}

// Lookup returns the registry's entry called name (see Names).
func Lookup(name string) (Entry, error) {
	for _, e := range registry {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("gibbs: unknown sampler %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Entries returns the registry's entries, sorted by name, in a new slice.
func Entries() []Entry { return append([]Entry(nil), registry...) }

// Names returns the names New, Lookup and FactoryOf accept, sorted, in a
// new slice.
func Names() []string {
	names := make([]string, len(registry))
	for k, e := range registry {
		names[k] = e.Name
	}
	return names
}

// NamesWhere returns the names of the entries for which keep holds, sorted:
// the samplers a caller offers (the continuous ones, the local ones, …).
func NamesWhere(keep func(Entry) bool) []string {
	var names []string
	for _, e := range registry {
		if keep(e) {
			names = append(names, e.Name)
		}
	}
	return names
}

// FactoryOf returns the factory of the sampler called name with the
// default configuration (see Names): Lookup(name) and Entry.Factory.
func FactoryOf(name string) (gibbs.Factory, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Factory(Config{}), nil
}

// New returns the sampler called name (see Names) on m, drawing from r,
// with the options opt (nil: the defaults) and every sampler's own
// configuration at its default: Lookup(name) and Entry.New.
func New(name string, m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	cfg := &Config{}
	if opt != nil {
		cfg.Options = *opt
	}
	return e.New(m, r, cfg)
}
