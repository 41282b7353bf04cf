package simulation

import (
	"errors"
	"fmt"
	"image/png"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
)

// Simulation is a validated Config with its lattice: it builds the chains
// (the step kernels with their random streams and Measurers) and turns
// chains that have run into a Result. It does not run them: Run does, or
// a caller's own chain.Runner (checkpoints, traces, chains split across
// processes). A Simulation is safe for concurrent use.
type Simulation struct {
	cfg     Config
	l       *lattice.Lattice
	entry   samplers.Entry // of the site update (Chromatic's Update)
	classes [][]int        // Chromatic's colour classes
}

// New validates cfg and builds its lattice. A configuration that cannot
// run is refused with a *chain.ConfigError naming the field (Field "Params":
// lattice.New's *lattice.ParamsError).
func New(cfg Config) (*Simulation, error) {
	if err := cfg.normalise(); err != nil {
		return nil, err
	}
	if err := cfg.checkRun(); err != nil {
		return nil, err
	}
	l, err := lattice.New(cfg.Params)
	if err != nil {
		return nil, &chain.ConfigError{Pkg: "simulation", Field: "Params", Err: err}
	}
	if err := cfg.checkModel(l); err != nil {
		return nil, err
	}
	s := &Simulation{cfg: cfg, l: l, entry: entry(cfg.update())}
	if cfg.Sampler == Chromatic {
		if s.classes, err = l.Colouring(); err != nil {
			var pe *lattice.ParamsError
			if errors.As(err, &pe) {
				err = pe.Err // without the package's prefix
			}
			return nil, refuse("Sampler", "%s: %w", Chromatic, err)
		}
	}
	return s, nil
}

// entry returns the registry's entry called name (checked by New).
func entry(name string) samplers.Entry {
	e, _ := samplers.Lookup(name)
	return e
}

// Config returns the configuration with its defaults filled in.
func (s *Simulation) Config() Config { return s.cfg }

// Lattice returns the model.
func (s *Simulation) Lattice() *lattice.Lattice { return s.l }

// Classes returns the number of colour classes of a Chromatic run (0
// otherwise).
func (s *Simulation) Classes() int { return len(s.classes) }

// Steps returns the steps of every chain, burn-in included, and the
// burn-in: a step is a sweep (a systematic one, a colour class after
// another, or a cluster move's).
func (s *Simulation) Steps() (steps, burn int64) { return s.cfg.Burn + s.cfg.Sweeps, s.cfg.Burn }

// Memory estimates the bytes of one chain: per site the state and the
// sampler's and workers' scratch, per measurement the four series.
func (s *Simulation) Memory() float64 {
	return 40*float64(s.l.Sites())*float64(s.cfg.Workers) + 32*float64(s.cfg.Sweeps/int64(s.cfg.MeasureEvery))
}

// Lambda returns λ of a minibatched site update (the options' Lambda, or
// LambdaScale·L², default L²), 0 for the others.
func (s *Simulation) Lambda() float64 {
	if !s.entry.Minibatched {
		return 0
	}
	o := s.cfg.Samplers.Options
	if o.Lambda != 0 {
		return o.Lambda
	}
	scale := o.LambdaScale
	if scale == 0 {
		scale = 1
	}
	return scale * s.l.L() * s.l.L()
}

// Chain builds chain k (k ≥ 0) of the run: its kernel, a sweep of the
// sampler, and its lattice.Measurer, which measures after each measured
// sweep past the burn-in (Chain.Burn is set). With w workers (w = 1 but
// for Chromatic) chain k draws from the streams chain.Source(Seed,
// k·(w+1) + j): j < w for its sampler or workers and j = w for its
// Measurer's Monte Carlo energies, so that every stream is distinct and
// depends on (Seed, k) alone — chain k is the same whether the run's other
// chains run beside it, elsewhere or not at all.
func (s *Simulation) Chain(k int) (*chain.Chain, error) {
	if k < 0 {
		return nil, fmt.Errorf("simulation: chain %d: need k ≥ 0", k)
	}
	w := s.cfg.Workers
	srcs := make([]*rand.PCG, w+1)
	rngs := make([]*rand.Rand, w+1)
	for j := range srcs {
		srcs[j] = chain.Source(s.cfg.Seed, k*(w+1)+j)
		rngs[j] = rand.New(srcs[j])
	}
	meas, err := s.measurer(rngs[w])
	if err != nil {
		return nil, err
	}
	sampler, err := s.sampler(rngs[:w])
	if err != nil {
		return nil, err
	}
	var kern chain.Kernel = gibbs.Sweeper{Sampler: sampler}
	if s.entry.Sweep && s.cfg.Sampler != Chromatic {
		kern = sampler // its step is already a sweep
	}
	return &chain.Chain{Kernel: kern, Sources: srcs, Observers: []chain.Observer{meas}, Burn: s.cfg.Burn}, nil
}

// measurer returns a chain's Measurer, drawing Monte Carlo energies from r.
func (s *Simulation) measurer(r *rand.Rand) (*lattice.Measurer, error) {
	meas, err := lattice.NewMeasurer(s.l, r, s.cfg.EnergySamples)
	if err != nil {
		return nil, err
	}
	if err := meas.SetEvery(s.cfg.MeasureEvery); err != nil {
		return nil, err
	}
	// The chromatic workers' cores, idle while it measures.
	if err := meas.SetWorkers(s.cfg.Workers); err != nil {
		return nil, err
	}
	return meas, nil
}

// sampler returns a chain's sampler drawing from rngs (one a worker).
func (s *Simulation) sampler(rngs []*rand.Rand) (gibbs.Sampler, error) {
	opts := s.cfg.Samplers.Options
	if s.cfg.Start == Cold {
		opts.Init = make([]float64, s.l.Sites())
		if p := s.l.Params(); p.Spin.Kind == lattice.ContinuousSpins {
			for i := range opts.Init {
				opts.Init[i] = p.Spin.Hi
			}
		}
	}
	if s.cfg.Sampler == Chromatic {
		// The workers update one site at a time: auto's are Mixed.
		return chromatic.New(s.entry.Factory(samplers.Config{SingleSite: true}), s.l, s.classes, rngs, &opts)
	}
	cfg := s.cfg.Samplers
	cfg.Options = opts
	return s.entry.New(s.l, rngs[0], &cfg)
}

// WritePNG draws configuration x (a Result's State) as a PNG picture,
// scale×scale pixels a site (0: about 512 pixels wide; lattice.Image).
func (s *Simulation) WritePNG(w io.Writer, x []float64, scale int) error {
	if scale == 0 {
		scale = max(1, min(64, 512/s.l.Params().Size))
	}
	img, err := s.l.Image(x, scale)
	if err != nil {
		return err
	}
	return png.Encode(w, img)
}

// Measurer returns the Measurer of a chain Chain built.
func Measurer(c *chain.Chain) (*lattice.Measurer, error) {
	for _, o := range c.Observers {
		if m, ok := o.(*lattice.Measurer); ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("simulation: the chain has no *lattice.Measurer: not one Simulation.Chain built")
}

// Sampler returns the sampler of a chain Chain built.
func Sampler(c *chain.Chain) (gibbs.Sampler, error) {
	switch k := c.Kernel.(type) {
	case gibbs.Sweeper:
		return k.Sampler, nil
	case gibbs.Sampler:
		return k, nil
	}
	return nil, fmt.Errorf("simulation: the chain's kernel %T is not a sampler of package gibbs: not one Simulation.Chain built", c.Kernel)
}

// NumQuantities is the number of quantities a run is judged on: the
// energy and magnetisation series.
const NumQuantities = 2

// QuantityName returns the name of quantity q of Series: energy (0) or
// magnetisation (1).
func QuantityName(q int) string { return [NumQuantities]string{"energy", "magnetisation"}[q] }

// Series returns the chains' energy and magnetisation series,
// [quantity][chain][measurement], and their names (QuantityName), as
// chain.Judge and a stopping rule read them.
func (s *Simulation) Series(chains []*chain.Chain) ([][][]float64, func(q int) string, error) {
	qs := make([][][]float64, NumQuantities)
	for _, c := range chains {
		m, err := Measurer(c)
		if err != nil {
			return nil, nil, err
		}
		qs[0], qs[1] = append(qs[0], m.Energies()), append(qs[1], m.Magnetisations())
	}
	return qs, QuantityName, nil
}

// CheckEvery returns the steps (sweeps) between two checks of a stopping
// rule on Series (chain.Runner.CheckEvery).
func (s *Simulation) CheckEvery() int64 { return 200 }

// Verdict judges the chains' energy and magnetisation series by the
// configuration's criteria (chain.Judge).
func (s *Simulation) Verdict(chains []*chain.Chain) (chain.Verdict, error) {
	qs, _, err := s.Series(chains)
	if err != nil {
		return chain.Verdict{}, err
	}
	return chain.Judge(qs, QuantityName, s.cfg.Criteria), nil
}

// TraceHeader is the header of a chain's trace (Trace).
const TraceHeader = "sweep,energy_per_site,magnetisation"

// Trace returns the CSV trace of chain c: its header (TraceHeader), a row
// every measured sweep (every MeasureEvery steps past the burn-in), its
// sweep number and its measurement, for a chain.CSV observer after c's
// Measurer (chain.Session.Trace).
func (s *Simulation) Trace(c *chain.Chain) (header string, every int64, row chain.RowFunc, err error) {
	meas, err := Measurer(c)
	if err != nil {
		return "", 0, nil, err
	}
	burn := s.cfg.Burn
	return TraceHeader, int64(s.cfg.MeasureEvery), func(dst []byte, t int64, _ []float64) []byte {
		es, ms := meas.Energies(), meas.Magnetisations()
		dst = strconv.AppendInt(dst, burn+t, 10)
		dst = append(dst, ',')
		dst = strconv.AppendFloat(dst, es[len(es)-1], 'g', -1, 64)
		dst = append(dst, ',')
		return strconv.AppendFloat(dst, ms[len(ms)-1], 'g', -1, 64)
	}, nil
}
