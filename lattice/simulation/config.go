package simulation

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
)

// Chromatic is Config.Sampler for parallel colour-class sweeps
// (chromatic.New over lattice.Colouring's classes), each site updated by
// Config.Update on one of Config.Workers workers.
const Chromatic = "chromatic"

// Limits of the runs New accepts.
const (
	MaxChains  = 4096    // Config.Chains
	MaxWorkers = 1024    // Config.Workers
	MaxSweeps  = 1 << 30 // Config.Sweeps and Config.Burn
	// MaxChainSites bounds the sites of all chains together (each site
	// costs a chain about 12 bytes besides its sampler's scratch space).
	MaxChainSites = 1 << 26
	// MaxGrid is the largest number of β of a Grid.
	MaxGrid = 1000
)

// Start is a chain's initial state.
type Start int

const (
	// Hot draws every site uniformly at random (the sampler's own
	// initial state).
	Hot Start = iota
	// Cold sets every site to 0 (continuous spins: to the interval's
	// upper end).
	Cold
)

// String returns "hot" or "cold".
func (s Start) String() string {
	switch s {
	case Hot:
		return "hot"
	case Cold:
		return "cold"
	}
	return fmt.Sprintf("Start(%d)", int(s))
}

// Grid is the reweighting of a run's measurements to other β
// (single-histogram reweighting, Ferrenberg & Swendsen 1988): N values
// evenly spaced from Lo to Hi (Lo alone if N = 1), each inside the window
// where the weights' effective fraction is at least MinFraction.
type Grid struct {
	Lo, Hi float64
	N      int // 1 to MaxGrid
	// MinFraction is the smallest effective fraction of the measurements
	// inside the window, 0 < f < 1 (0: lattice.DefaultMinFraction).
	MinFraction float64
}

// Beta returns the k-th β of the grid.
func (g Grid) Beta(k int) float64 {
	if g.N <= 1 {
		return g.Lo
	}
	return g.Lo + (g.Hi-g.Lo)*float64(k)/float64(g.N-1)
}

// ParseGrid parses a grid written β1:β2:n (e.g. 0.43:0.45:21), with the
// default MinFraction; New checks its values.
func ParseGrid(s string) (Grid, error) {
	parts := strings.Split(s, ":")
	var g Grid
	var err [3]error
	if len(parts) == 3 {
		g.Lo, err[0] = strconv.ParseFloat(parts[0], 64)
		g.Hi, err[1] = strconv.ParseFloat(parts[1], 64)
		g.N, err[2] = strconv.Atoi(parts[2])
	}
	if len(parts) != 3 || errors.Join(err[:]...) != nil {
		return Grid{}, fmt.Errorf("%q: want β1:β2:n (e.g. 0.43:0.45:21), β1 < β2, n from 1 to %d", s, MaxGrid)
	}
	return g, nil
}

// Config is a lattice simulation: the model, the sampler, the chains and
// what is measured. The zero value of every field but Params, Sampler and
// Sweeps is its default.
type Config struct {
	// Params is the model (lattice.New).
	Params lattice.Params
	// Sampler is the name of a sampler of the registry (samplers.Lookup)
	// that runs on an implicit lattice — discrete spins: a discrete one
	// (sw and wolff, the cluster moves, among them); continuous spins: a
	// continuous one —, or Chromatic.
	Sampler string
	// Samplers is the registry's configuration of the sampler: its options
	// (λ, work limits; Options.Init is set by Start) and Wolff's clusters
	// a step. Chromatic's workers are built single-site
	// (samplers.Config.SingleSite) with these options.
	Samplers samplers.Config
	// Update is Chromatic's site update, a Local sampler of the registry
	// (default auto for discrete spins, pgda for continuous ones), and
	// Workers its workers a chain (default 1, at most MaxWorkers): they
	// pick the random streams, so a run is reproducible for a given
	// number of workers only.
	Update  string
	Workers int
	// Chains is the number of independent chains Run runs (default 1).
	Chains int
	// Seed picks every random stream (see Simulation.Chain).
	Seed uint64
	// Sweeps is the measured sweeps a chain (4 to MaxSweeps), after Burn
	// sweeps (0 to MaxSweeps) that are not measured.
	Sweeps, Burn int64
	// MeasureEvery measures one sweep in k (default 1; at most Sweeps/4:
	// error bars need 4 measurements).
	MeasureEvery int
	// EnergySamples sets how a measurement's energy is taken
	// (lattice.NewMeasurer): 0 auto, -1 exact, n > 0 that many sampled
	// pairs.
	EnergySamples int
	// Start is the chains' initial state.
	Start Start
	// Reweight, if set, reweights the pooled measurements to its grid of
	// β and finds χ's peak; it needs exact energies.
	Reweight *Grid
	// Criteria are the convergence verdict's thresholds (zero: chain's
	// defaults).
	Criteria chain.Criteria
}

// refuse returns a *chain.ConfigError of field.
func refuse(field, format string, args ...any) error {
	return chain.Refuse("simulation", field, format, args...)
}

// normalise checks c's fields whose zero is a default and fills the
// defaults.
func (c *Config) normalise() error {
	switch {
	case c.Chains < 0:
		return refuse("Chains", "%d: need 1 to %d (0: 1)", c.Chains, MaxChains)
	case c.Workers < 0:
		return refuse("Workers", "%d: need 1 to %d (0: 1)", c.Workers, MaxWorkers)
	case c.MeasureEvery < 0:
		return refuse("MeasureEvery", "%d: need 1 to Sweeps/4 (0: 1)", c.MeasureEvery)
	}
	c.Chains = max(c.Chains, 1)
	c.MeasureEvery = max(c.MeasureEvery, 1)
	c.Workers = max(c.Workers, 1)
	if c.Sampler != Chromatic {
		return nil
	}
	if c.Update == "" {
		c.Update = "auto"
		if c.Params.Spin.Kind == lattice.ContinuousSpins {
			c.Update = "pgda"
		}
	}
	return nil
}

// update returns the name of the registry's sampler that updates the
// sites: Sampler, or Chromatic's Update.
func (c *Config) update() string {
	if c.Sampler == Chromatic {
		return c.Update
	}
	return c.Sampler
}

// checkRun validates the run's fields (the model is lattice.New's).
func (c *Config) checkRun() error {
	switch {
	case c.Chains > MaxChains:
		return refuse("Chains", "%d: need 1 to %d", c.Chains, MaxChains)
	case c.Sampler == Chromatic && c.Workers > MaxWorkers:
		return refuse("Workers", "%d: need 1 to %d", c.Workers, MaxWorkers)
	case c.Sampler != Chromatic && c.Workers > 1:
		return refuse("Workers", "%d: workers apply to Sampler %s only", c.Workers, Chromatic)
	case c.Sampler != Chromatic && c.Update != "":
		return refuse("Update", "%s: an update applies to Sampler %s only", c.Update, Chromatic)
	case c.Sweeps < 4 || c.Sweeps > MaxSweeps:
		return refuse("Sweeps", "%d: need 4 to 2³⁰ measured sweeps (error bars need at least 4 measurements)", c.Sweeps)
	case int64(c.MeasureEvery) > c.Sweeps/4:
		return refuse("MeasureEvery", "%d: need 1 to Sweeps/4 = %d (error bars need at least 4 measurements)", c.MeasureEvery, c.Sweeps/4)
	case c.Burn < 0 || c.Burn > MaxSweeps:
		return refuse("Burn", "%d: need 0 to 2³⁰ sweeps", c.Burn)
	case c.Start != Hot && c.Start != Cold:
		return refuse("Start", "%v: want Hot or Cold", c.Start)
	case c.EnergySamples < -1 || c.EnergySamples > MaxSweeps:
		return refuse("EnergySamples", "%d: want -1 (exact), 0 (auto) or a number of pairs up to 2³⁰", c.EnergySamples)
	}
	return c.checkReweight()
}

// checkReweight validates the grid of Reweight.
func (c *Config) checkReweight() error {
	g := c.Reweight
	if g == nil {
		return nil
	}
	if !(g.Lo < g.Hi) || math.IsInf(g.Lo, 0) || math.IsInf(g.Hi, 0) || g.N < 1 || g.N > MaxGrid {
		return refuse("Reweight", "%v:%v:%d: want β1 < β2, finite, and 1 to %d values", g.Lo, g.Hi, g.N, MaxGrid)
	}
	if g.MinFraction != 0 && !(g.MinFraction > 0 && g.MinFraction < 1) {
		return refuse("Reweight", "MinFraction %v: want a fraction 0 < f < 1", g.MinFraction)
	}
	return nil
}

// checkModel validates what depends on the lattice l: the sampler's kind
// of spins, the chains' sites, the energies reweighting needs.
func (c *Config) checkModel(l *lattice.Lattice) error {
	continuous := l.Params().Spin.Kind == lattice.ContinuousSpins
	update := c.update()
	e, err := samplers.Lookup(update)
	field := map[bool]string{false: "Sampler", true: "Update"}[c.Sampler == Chromatic]
	if err != nil {
		return refuse(field, "%s: %w", update, err)
	}
	// A continuous sampler would run plain Gibbs on discrete spins
	// without a word.
	switch {
	case continuous != e.Continuous:
		return refuse(field, "%s does not sample %s spins: want one of %s for continuous spins, another sampler of package gibbs for discrete ones",
			update, spinName(l.Params().Spin.Kind), strings.Join(samplers.NamesWhere(func(e samplers.Entry) bool { return e.Continuous }), ", "))
	case e.Graph:
		return refuse(field, "%s needs a model that lists its factors (a *factorgraph.Graph), not an implicit lattice", update)
	case c.Sampler == Chromatic && !e.Local:
		return refuse(field, "%s cannot be a chromatic worker: its updates read more than the site's own factors", update)
	}
	if c.Chains > 1 && int64(c.Chains)*int64(l.Sites()) > MaxChainSites {
		return refuse("Chains", "%d of %d sites: at most %d sites over all chains", c.Chains, l.Sites(), MaxChainSites)
	}
	exact := c.EnergySamples < 0 || c.EnergySamples == 0 && l.NumOffsets() <= lattice.AutoExactOffsets
	if c.Reweight != nil && !exact {
		return refuse("Reweight", "needs exact energies: the weights are e^{−(β−β0)·nE}, and a Monte Carlo energy's noise would\n"+
			"decide them; set EnergySamples -1 (on a long-range lattice the exact energy is an FFT, about a sweep's cost)")
	}
	return nil
}

// spinName names a kind of spins as the CLI's -spin does.
func spinName(k lattice.SpinKind) string {
	switch k {
	case lattice.PottsSpins:
		return "potts"
	case lattice.IsingSpins:
		return "ising"
	}
	return "continuous"
}
