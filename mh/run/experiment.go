package run

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
)

// MaxDraws bounds the draws of θ a chain's trace keeps (it is thinned,
// chain.Trace).
const MaxDraws = 20000

// CheckEvery is the steps between two checks of a stopping rule on the
// tracked quantities (chain.Runner.CheckEvery).
const CheckEvery = 1000

// Experiment is a validated Config: it builds the chains (the samplers
// with their random streams and observers) and turns chains that have run
// into a Result. It does not run them: Run does, or a caller's own
// chain.Runner (checkpoints, traces, chains split across processes). An
// Experiment is safe for concurrent use.
type Experiment struct {
	cfg  Config
	vars []int // every coordinate of θ, traced
}

// New validates cfg. A configuration that cannot run is refused with a
// *chain.ConfigError naming the field; the Options are mh.New's to judge, when
// Chain builds a sampler.
func New(cfg Config) (*Experiment, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	vars := make([]int, cfg.Target.Dim())
	for j := range vars {
		vars[j] = j
	}
	return &Experiment{cfg: cfg, vars: vars}, nil
}

// Config returns the configuration with its defaults filled in.
func (e *Experiment) Config() Config { return e.cfg }

// Steps returns the steps of every chain, burn-in included, and the
// burn-in.
func (e *Experiment) Steps() (steps, burn int64) { return e.cfg.Steps, e.cfg.Burn }

// Memory estimates the bytes of one chain: the sampler's per-datum state
// (FlyMC's bright set, memos) and the thinned trace of every coordinate.
func (e *Experiment) Memory() float64 {
	return 32*float64(e.cfg.Target.N()) + 8*MaxDraws*float64(len(e.vars))
}

// Chain builds chain k (k ≥ 0) of the run: the sampler (mh.New, with a
// copy of the Options) drawing from the stream chain.Source(Seed, k)
// alone — chain k is the same whether the run's other chains run beside
// it, elsewhere or not at all —, observed past the burn-in (Chain.Burn is
// set) by the running means of θ (chain.Means) and a trace of every
// coordinate (chain.Trace, at most MaxDraws draws). mh.New's refusal is a
// *chain.ConfigError of the Options.
func (e *Experiment) Chain(k int) (*chain.Chain, error) {
	if k < 0 {
		return nil, fmt.Errorf("mh/run: chain %d: need k ≥ 0", k)
	}
	src := chain.Source(e.cfg.Seed, k)
	opts := e.cfg.Options
	s, err := mh.New(e.cfg.Sampler, e.cfg.Target, rand.New(src), &opts)
	if err != nil {
		return nil, &chain.ConfigError{Pkg: "mh/run", Field: "Options", Err: err}
	}
	// θ's coordinates are continuous (size 0): their draws are the
	// tracked quantities.
	m, err := chain.NewMonitor(e.vars, make([]int, len(e.vars)), MaxDraws)
	if err != nil {
		return nil, err
	}
	tr, err := m.Trace(s)
	if err != nil {
		return nil, err
	}
	return &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{chain.NewMeans(len(e.vars)), tr},
		Burn: e.cfg.Burn}, nil
}

// Trace returns the CSV trace of a chain Chain built (for a chain.CSV
// observer, chain.Session.Trace): its header, a row every step past the
// burn-in, the step and θ.
func (e *Experiment) Trace(*chain.Chain) (header string, every int64, row chain.RowFunc, err error) {
	return chain.StateHeader(e.vars), 1, chain.StateRow(e.vars), nil
}

// CheckEvery returns the steps between two checks of a stopping rule on
// Series (CheckEvery).
func (e *Experiment) CheckEvery() int64 { return CheckEvery }

// Sampler returns the sampler of a chain Chain built.
func Sampler(c *chain.Chain) (mh.Sampler, error) {
	if s, ok := c.Kernel.(mh.Sampler); ok {
		return s, nil
	}
	return nil, fmt.Errorf("mh/run: the chain's kernel %T is not a sampler of package mh: not one Experiment.Chain built", c.Kernel)
}

// observer returns the observer of type T of a chain Chain built.
func observer[T chain.Observer](c *chain.Chain) (T, error) {
	for _, o := range c.Observers {
		if t, ok := o.(T); ok {
			return t, nil
		}
	}
	var zero T
	return zero, fmt.Errorf("mh/run: the chain has no %T: not one Experiment.Chain built", zero)
}

// Series returns the chains' tracked quantities, [coordinate][chain][draw]
// (chains cut to the shortest trace), and their names (x0, x1, …), as
// chain.Judge and a stopping rule read them.
func (e *Experiment) Series(chains []*chain.Chain) ([][][]float64, func(q int) string, error) {
	traces := make([]*chain.Trace, len(chains))
	shortest := -1
	for k, c := range chains {
		t, err := observer[*chain.Trace](c)
		if err != nil {
			return nil, nil, err
		}
		traces[k] = t
		if n := len(t.Draws()[0]); shortest < 0 || n < shortest {
			shortest = n
		}
	}
	var qs [][][]float64
	if len(traces) > 0 {
		qs = make([][][]float64, len(traces[0].Vars()))
	}
	for j := range qs {
		qs[j] = make([][]float64, len(traces))
		for k, t := range traces {
			qs[j][k] = t.Draws()[j][:shortest]
		}
	}
	return qs, func(q int) string { return fmt.Sprintf("x%d", q) }, nil
}
