package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
)

func init() {
	register(&command{
		name:    "lattice",
		summary: "Potts, Ising or continuous spins on an implicit periodic lattice (nn, Gaussian or power-law couplings)",
		example: "pgibbs lattice -dim 2 -size 1000 -kernel power -sigma 1 -states 2 -beta 0.5 -sampler pgibbs -sweeps 8 -json",
		run:     runLattice,
	})
}

// latticeOutput is the JSON object of `pgibbs lattice -json`.
type latticeOutput struct {
	Dim                int      `json:"dim"`
	Size               int      `json:"size"`
	Sites              int      `json:"sites"`
	Kernel             string   `json:"kernel"`
	Gamma              float64  `json:"gamma,omitempty"`
	Sigma              float64  `json:"sigma,omitempty"`
	Cutoff             float64  `json:"cutoff,omitempty"`
	Spin               string   `json:"spin"`
	States             int      `json:"states,omitempty"`
	Lo                 *float64 `json:"lo,omitempty"` // continuous spins only
	Hi                 *float64 `json:"hi,omitempty"`
	Beta               float64  `json:"beta"`
	Update             string   `json:"update,omitempty"`
	Workers            int      `json:"workers,omitempty"`
	Classes            int      `json:"colour_classes,omitempty"`
	Start              string   `json:"start"`
	L                  float64  `json:"L"`
	Lambda             float64  `json:"lambda,omitempty"`
	Offsets            int      `json:"offsets"`
	PairFactors        float64  `json:"pair_factors"`
	CouplingSum        float64  `json:"coupling_sum"`
	Sweeps             int64    `json:"sweeps"`
	Measurements       int      `json:"measurements"`
	MeasureEvery       int      `json:"measure_every,omitempty"` // -measure-every k > 1
	EnergyPerSite      float64  `json:"energy_per_site"`
	EnergyError        float64  `json:"energy_error"`
	EnergyTau          float64  `json:"energy_tau"`
	EnergyMethod       string   `json:"energy_method"`
	EnergySamples      int      `json:"energy_samples,omitempty"`
	Magnetisation      float64  `json:"magnetisation"`
	MagnetisationError float64  `json:"magnetisation_error"`
	MagnetisationTau   float64  `json:"magnetisation_tau"`
	ErrorPlateau       bool     `json:"error_plateau"`
	SetupSeconds       float64  `json:"setup_seconds"`
	Steps              int64    `json:"steps"`
	StepsPerSecond     float64  `json:"steps_per_second"`
	FactorsPerStep     float64  `json:"factors_per_step,omitempty"`
	DrawsPerStep       float64  `json:"draws_per_step,omitempty"`
	Snapshot           string   `json:"snapshot,omitempty"`
	// Observables are the finite-size-scaling observables of the pooled
	// chains (lattice.Observables: blocked-jackknife errors and τ);
	// Reweight, with -reweight, the same reweighted to other β.
	Observables *observablesOutput `json:"observables,omitempty"`
	Reweight    *reweightOutput    `json:"reweight,omitempty"`
	record                         // R̂ and ESS of the energy and magnetisation series
}

// estimateOutput is an estimate with its error and τ (null when undefined).
type estimateOutput struct {
	Mean *float64 `json:"mean"`
	Err  *float64 `json:"err"`
	Tau  *float64 `json:"tau,omitempty"`
}

// observablesOutput are lattice.Observables as the JSON record has them.
type observablesOutput struct {
	AbsM            estimateOutput  `json:"abs_m"`
	M2              estimateOutput  `json:"m2"`
	M4              estimateOutput  `json:"m4"`
	Energy          estimateOutput  `json:"energy"`
	Chi             estimateOutput  `json:"chi"`
	ChiDisconnected estimateOutput  `json:"chi_disconnected"`
	SpecificHeat    *estimateOutput `json:"specific_heat,omitempty"` // exact energies only
	Binder          estimateOutput  `json:"binder"`
	Xi              estimateOutput  `json:"xi"`
	Blocks          int             `json:"jackknife_blocks"`
	Block           int             `json:"jackknife_block"`
}

// reweightOutput is what -reweight β1:β2:n reports.
type reweightOutput struct {
	Beta0       float64         `json:"beta0"`
	Window      [2]float64      `json:"window"`       // where the weights' effective fraction is ≥ MinFraction
	MinFraction float64         `json:"min_fraction"` // -reweight-fraction
	Points      []reweightPoint `json:"points"`
	Peak        *chiPeakOutput  `json:"chi_peak,omitempty"`
	Notes       []string        `json:"notes,omitempty"`
}

// reweightPoint is the observables at one β of the -reweight grid.
type reweightPoint struct {
	Beta        float64            `json:"beta"`
	ESS         float64            `json:"ess_fraction"`
	Observables *observablesOutput `json:"observables,omitempty"`
	Refused     string             `json:"refused,omitempty"`
}

// chiPeakOutput is the maximum of the reweighted χ over the window.
type chiPeakOutput struct {
	Beta   estimateOutput `json:"beta"`
	Height estimateOutput `json:"height"`
	Edge   bool           `json:"at_window_edge"`
}

// estimateOf returns e for the record (NaN as null).
func estimateOf(e diag.Estimate) estimateOutput {
	def := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return estimateOutput{Mean: def(e.Mean), Err: def(e.Err), Tau: def(e.Tau)}
}

// observablesOf returns o for the record; the specific heat only with
// exact energies (a Monte Carlo energy's noise adds to its variance).
func observablesOf(o lattice.Observables, exactEnergy bool) *observablesOutput {
	out := &observablesOutput{AbsM: estimateOf(o.AbsM), M2: estimateOf(o.M2), M4: estimateOf(o.M4), Energy: estimateOf(o.Energy),
		Chi: estimateOf(o.Chi), ChiDisconnected: estimateOf(o.ChiDisconnected), Binder: estimateOf(o.Binder), Xi: estimateOf(o.Xi),
		Blocks: o.Blocks, Block: o.Block}
	if exactEnergy {
		c := estimateOf(o.SpecificHeat)
		out.SpecificHeat = &c
	}
	return out
}

// latticeFlags are the parsed flags of the lattice command.
type latticeFlags struct {
	*runFlags
	dim, size, states, workers, energySamples, snapScale int
	measureEvery                                         int
	kernel, spin, update, start, snapshot                string
	reweight                                             string  // -reweight β1:β2:n
	reweightFraction                                     float64 // -reweight-fraction
	gamma, sigma, cutoff, lo, hi, beta                   float64
}

// latticeUsage is the description of `pgibbs lattice -h`.
const latticeUsage = "Samples π(x) ∝ exp(β Σ_{i<j} J(r_ij) f(x_i, x_j)) on a periodic lattice of size^dim sites whose\n" +
	"pair factors are generated from the kernel J, never stored: f = δ for Potts, s_i·s_j for Ising (β in Ising units),\n" +
	"x_i·x_j for continuous spins; r is the minimal-image distance. Kernels: nn (J = 1 at r = 1), gaussian\n" +
	"(J = exp(−γr²)) and power (J = r^−(dim+σ), every pair of sites). Prints the energy per site H/n\n" +
	"(H = −Σ J f) and the order parameter (Potts: (q·max_v n_v/n − 1)/(q − 1); Ising and continuous: |Σ x|/n) with\n" +
	"binning error bars over one measurement a sweep (one every k sweeps with -measure-every k); the energy is\n" +
	"exact for ≤ 64 offsets and otherwise a Monte Carlo estimate from n sampled pairs (see -energy-samples). A\n" +
	"measurement is one pass over the state, a fraction of a sweep's cost (nearest-neighbour kernels: about a\n" +
	"tenth; exact energies of other kernels cost O(n·K), Monte Carlo ones O(n)). With -chains K the K chains run in\n" +
	"parallel and the estimates are pooled over them, with split-R̂ and bulk ESS of the two per-sweep series.\n" +
	"Chains advance by whole sweeps (progress and checkpoints count sweeps); -trace writes the per-sweep\n" +
	"measurements, not the states.\n" +
	"Also reported, pooled over the chains with blocked-jackknife errors and τ (lattice.Observables), m⃗ the\n" +
	"magnetisation vector (Ising: Σs/n; Potts: the (q−1)-component simplex form): ⟨m²⟩, the susceptibility\n" +
	"χ = βn(⟨m²⟩ − ⟨|m⃗|⟩²) (connected) and χ' = βn⟨m²⟩ (disconnected), the specific heat C = β²n(⟨e²⟩ − ⟨e⟩²) (exact\n" +
	"energies only), the Binder cumulant U = 1 − ⟨m⁴⟩/(3⟨m²⟩²) and the second-moment correlation length\n" +
	"ξ₂ = √(n⟨m²⟩/S(k_min) − 1)/(2 sin(π/N)), S(k_min) the structure factor at the smallest nonzero wave vector;\n" +
	"-reweight β1:β2:n gives them at other β from the same run, and χ's peak."

func runLattice(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "lattice", latticeUsage)
	f := latticeFlags{runFlags: addRunFlags(fs, "lattice", runDefaults{sampler: "pgibbs",
		samplers: samplerNames(func(e samplers.Entry) bool { return !e.Continuous && !e.Graph }) + " (discrete spins; wolff: -clusters single clusters a sweep),\n" +
			continuousSamplers() + " (continuous spins), or chromatic (parallel colour-class sweeps)",
		iters: 1000, itersName: "sweeps", itersUsage: "measured sweeps (one measurement each; at least 4), after the burn-in", clusters: true})}
	f.define(fs)
	f.outputs = []string{"snapshot"}
	if err := f.parse(e, args); err != nil {
		return err
	}
	p, err := f.params()
	if err != nil {
		return err
	}
	if err := f.check(p); err != nil {
		return err
	}
	setup := time.Now()
	l, err := lattice.New(p)
	if err != nil {
		return usagef("%v", paramsReason(err))
	}
	if f.chains > 1 && int64(f.chains)*int64(l.Sites()) > latticeMaxChainSites {
		return usagef("-chains %d of %d sites: at most %d sites over all chains", f.chains, l.Sites(), latticeMaxChainSites)
	}
	var classes [][]int
	if f.sampler == "chromatic" {
		if classes, err = l.Colouring(); err != nil {
			return usagef("-sampler chromatic: %v", paramsReason(err))
		}
	}
	run := &latticeRun{f: &f, l: l, p: p, classes: classes}
	o, err := f.execute(ctx, run.job())
	if err != nil {
		return err
	}
	if err := run.report(e, o, max(0, time.Since(setup).Seconds()-o.seconds)); err != nil {
		if o.interrupted != nil {
			// Too little measured before the interruption to report.
			return o.interrupted
		}
		return err
	}
	return nil
}

// define defines the flags of `pgibbs lattice` besides the shared ones,
// and the shared ones' usage that differs.
func (f *latticeFlags) define(fs *flag.FlagSet) {
	// The default, a tenth of -sweeps, is −1 inside: the usage says it,
	// and the zero DefValue keeps the flag package from printing −1.
	fs.Lookup("burn").Usage = "sweeps before measuring (default a tenth of -sweeps)"
	fs.Lookup("burn").DefValue = "0"
	f.burn = -1
	fs.IntVar(&f.dim, "dim", 2, "lattice dimension: 1, 2 or 3")
	fs.IntVar(&f.size, "size", 64, "sites along each axis (size^dim sites)")
	fs.StringVar(&f.kernel, "kernel", "nn", "coupling kernel: nn, gaussian or power")
	fs.Float64Var(&f.gamma, "gamma", 1.5, "Gaussian kernel width γ of exp(−γ·r²) (-kernel gaussian)")
	fs.Float64Var(&f.sigma, "sigma", 1, "power-law exponent σ of r^−(dim+σ), σ > 0 (-kernel power)")
	fs.Float64Var(&f.cutoff, "cutoff", 0, "couple only pairs at distance r ≤ cutoff (0: no cutoff)")
	fs.StringVar(&f.spin, "spin", "potts", "spins: potts (-states q), ising, or continuous (on [-lo, -hi])")
	fs.IntVar(&f.states, "states", 2, "Potts states q")
	fs.Float64Var(&f.lo, "lo", -1, "lower end of the continuous spins' interval")
	fs.Float64Var(&f.hi, "hi", 1, "upper end of the continuous spins' interval")
	fs.Float64Var(&f.beta, "beta", 1, "inverse temperature β (non-zero; negative for antiferromagnetic couplings)")
	fs.StringVar(&f.update, "update", "", "site update of -sampler chromatic (default auto for discrete spins, pgda for continuous)")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "parallel workers of each chain of -sampler chromatic")
	fs.StringVar(&f.start, "start", "hot", "initial state: hot (uniformly random) or cold (every site 0, or hi for continuous spins)")
	fs.IntVar(&f.energySamples, "energy-samples", 0, "pairs sampled per energy measurement: 0 auto (exact for ≤ 64 offsets, else one per site), -1 exact")
	fs.IntVar(&f.measureEvery, "measure-every", 1, "measure one sweep in k: the series, error bars, R̂, ESS and -trace then hold one\n"+
		"measurement every k sweeps (sweeps k, 2k, … after the burn-in; at least 4 in all)")
	fs.StringVar(&f.reweight, "reweight", "", "β1:β2:n — the observables reweighted from the run's β to n values of β from β1 to β2\n"+
		"(single-histogram reweighting, Ferrenberg & Swendsen 1988: ⟨O⟩_β = Σ O_t e^{−(β−β0)nE_t}/Σ e^{−(β−β0)nE_t}), each\n"+
		"inside the window where the weights' effective fraction (Σw)²/(NΣw²) is at least -reweight-fraction (outside:\n"+
		"refused, saying so), and the susceptibility's peak over the window (position and height with jackknife errors);\n"+
		"needs exact energies (-energy-samples -1 on long-range lattices: by FFT)")
	fs.Float64Var(&f.reweightFraction, "reweight-fraction", lattice.DefaultMinFraction, "-reweight: the smallest effective fraction of the measurements inside the window, 0 < f < 1\n"+
		"(smaller: a wider window, noisier estimates at its ends)")
	fs.StringVar(&f.snapshot, "snapshot", "", "write chain 0's final configuration to this PNG file (3-D: the slice of first coordinate 0)")
	fs.IntVar(&f.snapScale, "snapshot-scale", 0, "pixels per site of -snapshot (0: enough for a picture about 512 pixels wide)")
	fs.Lookup("trace").Usage = "write each chain's measurements to this CSV file (sweep,energy_per_site,magnetisation, one row a\n" +
		"measured sweep; one file a chain: FILE, or FILE with .cK before the extension for K chains), flushed at each checkpoint"
}

// latticeRun runs the chains of `pgibbs lattice`: a chain's step is a
// sweep (systematic, or chromatic over colour classes), and its Measurer
// measures after each sweep past the burn-in.
type latticeRun struct {
	f        *latticeFlags
	l        *lattice.Lattice
	p        lattice.Params
	classes  [][]int
	samplers []gibbs.Sampler
	meas     []*lattice.Measurer
}

// job builds chain k. Chain k of a run with w workers (w = 1 but for
// chromatic) draws from the streams chain.Source(seed, k·(w+1) + j): j < w
// for its sampler or workers and j = w for its Measurer's Monte Carlo
// energies, so that every stream is distinct, depends on (seed, k) alone,
// and chain 0 draws what the single-chain command always drew.
func (r *latticeRun) job() job {
	f := r.f
	return job{steps: f.burn + f.iters, burn: f.burn,
		build: func(k int) (*chain.Chain, error) {
			w := f.workers
			srcs := make([]*rand.PCG, w+1)
			rngs := make([]*rand.Rand, w+1)
			for j := range srcs {
				srcs[j] = chain.Source(f.seed, k*(w+1)+j)
				rngs[j] = rand.New(srcs[j])
			}
			meas, err := lattice.NewMeasurer(r.l, rngs[w], f.energySamples)
			if err != nil {
				return nil, err
			}
			if err := meas.SetEvery(f.measureEvery); err != nil {
				return nil, err
			}
			if err := meas.SetWorkers(w); err != nil { // the chromatic workers' cores, idle while it measures
				return nil, err
			}
			opts := f.options()
			if f.start == "cold" {
				opts.Init = make([]float64, r.l.Sites())
				if r.p.Spin.Kind == lattice.ContinuousSpins {
					for i := range opts.Init {
						opts.Init[i] = f.hi
					}
				}
			}
			var s gibbs.Sampler
			if f.sampler == "chromatic" {
				e, err := samplers.Lookup(f.update)
				if err != nil {
					return nil, usagef("-update: %v", err)
				}
				// The workers update one site at a time: auto's are Mixed.
				s, err = chromatic.New(e.Factory(samplers.Config{SingleSite: true}), r.l, r.classes, rngs[:w], &opts)
				if err != nil {
					return nil, usagef("%v", err)
				}
			} else if s, err = f.newSampler(r.l, rngs[0], &opts); err != nil {
				return nil, err
			}
			r.samplers, r.meas = append(r.samplers, s), append(r.meas, meas)
			var kern chain.Kernel = gibbs.Sweeper{Sampler: s}
			if entry(f.sampler).Sweep {
				kern = s // its step is already a sweep
			}
			return &chain.Chain{Kernel: kern, Sources: srcs, Observers: []chain.Observer{meas}}, nil
		},
		// Per site: the state, the sampler's and workers' scratch; per
		// measurement: the four series.
		memory: func() float64 {
			return 40*float64(r.l.Sites())*float64(f.workers) + 32*float64(f.iters/int64(f.measureEvery))
		},
		quantities: func() ([][][]float64, func(q int) string) {
			qs := make([][][]float64, 2)
			for _, m := range r.meas {
				qs[0], qs[1] = append(qs[0], m.Energies()), append(qs[1], m.Magnetisations())
			}
			return qs, func(q int) string { return []string{"energy", "magnetisation"}[q] }
		},
		checkEvery: func() int64 { return 200 },
		trace: func(k int) (string, int64, chain.RowFunc) {
			meas := r.meas[len(r.meas)-1]
			return "sweep,energy_per_site,magnetisation", int64(f.measureEvery), func(dst []byte, t int64, _ []float64) []byte {
				es, ms := meas.Energies(), meas.Magnetisations()
				dst = strconv.AppendInt(dst, f.burn+t, 10)
				dst = append(dst, ',')
				dst = strconv.AppendFloat(dst, es[len(es)-1], 'g', -1, 64)
				dst = append(dst, ',')
				return strconv.AppendFloat(dst, ms[len(ms)-1], 'g', -1, 64)
			}
		},
	}
}

// report pools the chains' measurements and prints them.
func (r *latticeRun) report(e *env, o *outcome, setupSeconds float64) error {
	f, l := r.f, r.l
	var (
		stats  gibbs.Stats
		es, ms []diag.Estimate
		eq, mq [][]float64 // per-sweep series, chains × measurements
		res    lattice.Result
		err    error
	)
	for k, s := range r.samplers {
		stats.Add(s.Stats())
		if res, err = r.meas[k].Result(); err != nil {
			return err
		}
		es, ms = append(es, res.Energy), append(ms, res.Magnetisation)
		eq, mq = append(eq, r.meas[k].Energies()), append(mq, r.meas[k].Magnetisations())
	}
	energy, mag := diag.PoolEstimates(es), diag.PoolEstimates(ms)
	conv := f.judge([][][]float64{eq, mq}, func(q int) string { return [...]string{"energy", "magnetisation"}[q] })
	out := latticeOutput{
		Dim: f.dim, Size: f.size, Sites: l.Sites(), Kernel: f.kernel, Cutoff: f.cutoff, Spin: f.spin, Beta: f.beta,
		Start: f.start, L: l.L(), Offsets: l.NumOffsets(),
		PairFactors: l.PairFactors(), CouplingSum: l.CouplingSum(), Sweeps: f.iters,
		Measurements:  res.Measurements,
		EnergyPerSite: energy.Mean, EnergyError: energy.Err, EnergyTau: finite(energy.Tau),
		EnergyMethod: "exact", EnergySamples: res.EnergySamples,
		Magnetisation: mag.Mean, MagnetisationError: mag.Err,
		MagnetisationTau: finite(mag.Tau), ErrorPlateau: energy.Plateau && mag.Plateau,
		SetupSeconds: setupSeconds, Steps: stats.Steps,
		StepsPerSecond: stepsPerSecond(stats.Steps, len(o.chains), o.seconds),
		FactorsPerStep: stats.FactorsPerStep(), DrawsPerStep: stats.PicksPerStep(),
		record: f.record(o, conv),
	}
	out.ClustersPerStep = clustersPerStep(r.samplers)
	if err := r.observables(&out, res.EnergySamples == 0); err != nil {
		return err
	}
	if res.EnergySamples > 0 {
		out.EnergyMethod = "monte-carlo"
	}
	if f.measureEvery > 1 {
		out.MeasureEvery = f.measureEvery
	}
	r.describe(&out)
	if f.snapshot != "" {
		if err := writeSnapshot(f.snapshot, l, r.samplers[0].State(), f.snapScale); err != nil {
			return err
		}
		out.Snapshot = f.snapshot
	}
	if f.asJSON {
		return writeJSON(e, out)
	}
	return printLattice(e, out, l)
}

// observables fills out's pooled chains' observables (the specific heat
// only with exact energies) and, with -reweight, their reweighting. The
// energy and magnetisation reported are then the observables' (one
// estimate each, not two with different error bars); where the
// observables cannot be computed (too few measurements), the per-chain
// estimates stay.
func (r *latticeRun) observables(out *latticeOutput, exact bool) error {
	series := make([]lattice.Series, len(r.meas))
	for k, m := range r.meas {
		series[k] = m.Series()
	}
	if obs, err := r.l.Observables(series...); err == nil {
		out.Observables = observablesOf(obs, exact)
		out.EnergyPerSite, out.EnergyError, out.EnergyTau = obs.Energy.Mean, obs.Energy.Err, finite(obs.Energy.Tau)
		out.Magnetisation, out.MagnetisationError, out.MagnetisationTau = obs.AbsM.Mean, obs.AbsM.Err, finite(obs.AbsM.Tau)
	}
	if r.f.reweight != "" {
		var err error
		if out.Reweight, err = r.reweighted(series); err != nil {
			return err
		}
	}
	return nil
}

// describe fills out's settings that depend on the kernel, the spins and
// the sampler: γ or σ, the states or the interval, the chromatic update
// and λ of a minibatch update.
func (r *latticeRun) describe(out *latticeOutput) {
	f, l := r.f, r.l
	switch f.kernel {
	case "gaussian":
		out.Gamma = f.gamma
	case "power":
		out.Sigma = f.sigma
	}
	switch r.p.Spin.Kind {
	case lattice.PottsSpins:
		out.States = f.states
	case lattice.IsingSpins:
		out.States = 2
	default:
		out.Lo, out.Hi = &f.lo, &f.hi
	}
	update := f.sampler
	if f.sampler == "chromatic" {
		out.Update, out.Workers, out.Classes = f.update, f.workers, len(r.classes)
		update = f.update
	}
	if entry(update).Minibatched {
		out.Lambda = f.lambda
		if out.Lambda == 0 {
			out.Lambda = cmp.Or(f.lambdaScale, 1) * l.L() * l.L()
		}
	}
}

// reweighted returns the observables of -reweight: on its grid, each
// inside the window or refused, and χ's peak.
func (r *latticeRun) reweighted(series []lattice.Series) (*reweightOutput, error) {
	lo, hi, n, _ := r.f.reweightGrid()
	rw, err := r.l.Reweighter(series...)
	if err != nil {
		return nil, fmt.Errorf("-reweight: %w", err)
	}
	if err := rw.SetMinFraction(r.f.reweightFraction); err != nil {
		return nil, fmt.Errorf("-reweight-fraction: %w", err)
	}
	out := &reweightOutput{Beta0: r.l.Params().Beta, MinFraction: rw.MinFraction()}
	out.Window[0], out.Window[1] = rw.Window()
	for k := range n {
		beta := lo
		if n > 1 {
			beta = lo + (hi-lo)*float64(k)/float64(n-1)
		}
		pt := reweightPoint{Beta: beta, ESS: rw.ESS(beta)}
		if o, err := rw.At(beta); err != nil {
			pt.Refused = "outside the window (a smaller -reweight-fraction widens it, at the price of noisier estimates)"
		} else {
			pt.Observables = observablesOf(o.Observables, true)
		}
		out.Points = append(out.Points, pt)
	}
	if p, err := rw.ChiPeak(); err == nil {
		out.Peak = &chiPeakOutput{Beta: estimateOf(p.Beta), Height: estimateOf(p.Height), Edge: p.Edge}
		if p.Edge {
			out.Notes = append(out.Notes, "χ is largest at an end of the window: its peak may lie beyond; run nearer it")
		}
	} else {
		out.Notes = append(out.Notes, "no χ peak: "+err.Error())
	}
	return out, nil
}

// latticeMaxChainSites bounds the sites of all chains together (each site
// costs a chain about 12 bytes besides its sampler's scratch space).
const latticeMaxChainSites = 1 << 26

// params turns the flags into lattice parameters, rejecting flags that do
// not apply to the chosen kernel or spins.
func (f *latticeFlags) params() (lattice.Params, error) {
	p := lattice.Params{Dim: f.dim, Size: f.size, Beta: f.beta, Cutoff: f.cutoff}
	switch f.kernel {
	case "nn":
		p.Coupling = lattice.NearestNeighbour{}
	case "gaussian":
		p.Coupling = lattice.Gaussian{Gamma: f.gamma}
	case "power":
		p.Coupling = lattice.PowerLaw{Sigma: f.sigma}
	default:
		return p, usagef("-kernel %q: want nn, gaussian or power", f.kernel)
	}
	if f.set["gamma"] && f.kernel != "gaussian" {
		return p, usagef("-gamma applies to -kernel gaussian only")
	}
	if f.set["sigma"] && f.kernel != "power" {
		return p, usagef("-sigma applies to -kernel power only")
	}
	switch f.spin {
	case "potts":
		p.Spin = lattice.Potts(f.states)
	case "ising":
		if f.set["states"] && f.states != 2 {
			return p, usagef("-spin ising has 2 states, not -states %d", f.states)
		}
		p.Spin = lattice.Ising()
	case "continuous":
		if f.set["states"] {
			return p, usagef("-states applies to -spin potts, not continuous spins")
		}
		p.Spin = lattice.Continuous(f.lo, f.hi)
	default:
		return p, usagef("-spin %q: want potts, ising or continuous", f.spin)
	}
	if (f.set["lo"] || f.set["hi"]) && f.spin != "continuous" {
		return p, usagef("-lo and -hi apply to -spin continuous only")
	}
	return p, nil
}

// check validates the run flags; the lattice parameters are validated by
// lattice.New.
func (f *latticeFlags) check(p lattice.Params) error {
	continuous := p.Spin.Kind == lattice.ContinuousSpins
	update := f.sampler
	if f.sampler == "chromatic" {
		if f.update == "" {
			f.update = "auto"
			if continuous {
				f.update = "pgda"
			}
		}
		update = f.update
		if f.workers < 1 || f.workers > 1024 {
			return usagef("-workers %d: need 1 to 1024", f.workers)
		}
	}
	// Unknown samplers are the library's to refuse; a continuous sampler
	// would run plain Gibbs on discrete spins without a word.
	if continuous != entry(update).Continuous {
		return usagef("%s does not sample %s spins: want one of %s for continuous spins, another sampler of package gibbs for discrete ones",
			update, f.spin, continuousSamplers())
	}
	if f.sampler != "chromatic" {
		if f.set["update"] || f.set["workers"] {
			return usagef("-update and -workers apply to -sampler chromatic only")
		}
		f.workers = 1
	}
	if f.iters < 4 || f.iters > 1<<30 {
		return usagef("-sweeps %d: need 4 to 2³⁰ measured sweeps (error bars need at least 4 measurements)", f.iters)
	}
	if f.measureEvery < 1 || int64(f.measureEvery) > f.iters/4 {
		return usagef("-measure-every %d: need 1 to -sweeps/4 = %d (error bars need at least 4 measurements)", f.measureEvery, f.iters/4)
	}
	if f.burn < 0 || f.burn > 1<<30 {
		return usagef("-burn %d: need 0 to 2³⁰ sweeps", f.burn)
	}
	if f.start != "hot" && f.start != "cold" {
		return usagef("-start %q: want hot or cold", f.start)
	}
	if f.energySamples < -1 || f.energySamples > 1<<30 {
		return usagef("-energy-samples %d: want -1 (exact), 0 (auto) or a number of pairs up to 2³⁰", f.energySamples)
	}
	if f.snapScale < 0 || f.snapScale > 64 {
		return usagef("-snapshot-scale %d: need 0 (auto) to 64", f.snapScale)
	}
	if f.set["snapshot-scale"] && f.snapshot == "" {
		return usagef("-snapshot-scale needs -snapshot")
	}
	if f.set["reweight-fraction"] && (f.reweight == "" || !(f.reweightFraction > 0 && f.reweightFraction < 1)) {
		return usagef("-reweight-fraction %v: needs -reweight, and a fraction 0 < f < 1", f.reweightFraction)
	}
	if f.reweight != "" {
		if _, _, _, err := f.reweightGrid(); err != nil {
			return err
		}
		exact := f.energySamples < 0 || f.energySamples == 0 && p.Coupling != nil && !longRange(p)
		if !exact {
			return usagef("-reweight needs exact energies: the weights are e^{−(β−β0)·nE}, and a Monte Carlo energy's noise would\n" +
				"decide them; add -energy-samples -1 (on a long-range lattice the exact energy is an FFT, about a sweep's cost)")
		}
	}
	return nil
}

// paramsReason returns why the lattice's parameters cannot work, without
// the package's prefix (a *lattice.ParamsError's reason), or err.
func paramsReason(err error) error {
	var pe *lattice.ParamsError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// longRange reports whether the lattice of p has more offsets than a
// Measurer measures exactly by default (lattice.AutoExactOffsets).
func longRange(p lattice.Params) bool {
	l, err := lattice.New(p)
	return err == nil && l.NumOffsets() > lattice.AutoExactOffsets
}

// reweightGrid parses -reweight β1:β2:n.
func (f *latticeFlags) reweightGrid() (lo, hi float64, n int, err error) {
	parts := strings.Split(f.reweight, ":")
	bad := func() (float64, float64, int, error) {
		return 0, 0, 0, usagef("-reweight %q: want β1:β2:n (e.g. 0.43:0.45:21), β1 < β2, n from 1 to 1000", f.reweight)
	}
	if len(parts) != 3 {
		return bad()
	}
	lo, err1 := strconv.ParseFloat(parts[0], 64)
	hi, err2 := strconv.ParseFloat(parts[1], 64)
	n, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || n < 1 || n > 1000 {
		return bad()
	}
	return lo, hi, n, nil
}

// pm formats an estimate as "mean ± err" ("—" where undefined).
func pm(e estimateOutput) string {
	if e.Mean == nil {
		return "—"
	}
	if e.Err == nil {
		return fmt.Sprintf("%.5g", *e.Mean)
	}
	return fmt.Sprintf("%.5g ± %.2g", *e.Mean, *e.Err)
}

// writeSnapshot draws state x of l to a PNG file.
func writeSnapshot(path string, l *lattice.Lattice, x []float64, scale int) error {
	if scale == 0 {
		scale = max(1, min(64, 512/l.Params().Size))
	}
	img, err := l.Image(x, scale)
	if err != nil {
		return err
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(file, img); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// finite returns v, or 0 if v is NaN or infinite (JSON has no NaN).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func printLattice(e *env, out latticeOutput, l *lattice.Lattice) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%v\n", l)
	fmt.Fprintf(tw, "couplings\tK = %d offsets a site, %.4g pair factors, Σ_j |J_ij| = %.6g, L = %.6g\n",
		out.Offsets, out.PairFactors, out.CouplingSum, out.L)
	sampler := out.Sampler
	if out.Update != "" {
		sampler = fmt.Sprintf("chromatic (%s updates, %d colour classes, %d workers)", out.Update, out.Classes, out.Workers)
	}
	if out.Lambda > 0 {
		sampler += fmt.Sprintf(", λ = %.4g", out.Lambda)
	}
	if len(out.ClustersPerStep) > 0 {
		sampler += fmt.Sprintf(", %s clusters a sweep", intList(out.ClustersPerStep))
	}
	fmt.Fprintf(tw, "sampler\t%s\n", sampler)
	chains := "1 chain"
	if out.Chains > 1 {
		chains = fmt.Sprintf("%d chains", out.Chains)
	}
	fmt.Fprintf(tw, "run\t%s of %d + %d burn-in sweeps from a %s start, %d updates in %.3g s (setup %.3g s)\n",
		chains, out.Sweeps, out.Burn, out.Start, out.Steps, out.Seconds, out.SetupSeconds)
	if out.FactorsPerStep > 0 {
		fmt.Fprintf(tw, "speed\t%.4g steps/s a chain, %.4g factors/step, %.4g draws/step\n", out.StepsPerSecond, out.FactorsPerStep, out.DrawsPerStep)
	} else { // a cluster move: its draws are bond events
		fmt.Fprintf(tw, "speed\t%.4g steps/s a chain, %.4g bond events/step\n", out.StepsPerSecond, out.DrawsPerStep)
	}
	method := "exact"
	if out.EnergyMethod == "monte-carlo" {
		method = fmt.Sprintf("Monte Carlo, %d pairs a measurement", out.EnergySamples)
	}
	unit := "sweeps" // τ is in measurements
	if out.MeasureEvery > 1 {
		unit = fmt.Sprintf("measurements of one sweep in %d", out.MeasureEvery)
	}
	fmt.Fprintf(tw, "energy per site\t%.6g ± %.2g (%s; τ = %.3g %s)\n", out.EnergyPerSite, out.EnergyError, method, out.EnergyTau, unit)
	fmt.Fprintf(tw, "magnetisation\t%.6g ± %.2g (τ = %.3g %s)\n", out.Magnetisation, out.MagnetisationError, out.MagnetisationTau, unit)
	printObservables(tw, out.Observables)
	printReweight(tw, out.Reweight)
	if out.ESSBulkMin != nil {
		fmt.Fprintf(tw, "bulk ESS\t%.1f (the smaller of the energy's and the magnetisation's)\n", *out.ESSBulkMin)
	}
	if out.RhatMax != nil {
		fmt.Fprintf(tw, "R̂\t%.4f (rank-normalised split-R̂ over the halves of %d chain(s), the larger of the two series')\n", *out.RhatMax, out.Chains)
	}
	fmt.Fprintf(tw, "convergence\t%s\n", out.convergence.summary())
	out.stopping.print(tw)
	if !out.ErrorPlateau {
		fmt.Fprintf(tw, "warning\tthe binning analysis found no plateau: the run is short for its correlation time and the error bars are lower bounds\n")
	}
	if out.Snapshot != "" {
		fmt.Fprintf(tw, "snapshot\t%s\n", out.Snapshot)
	}
	return tw.Flush()
}

// printObservables prints the pooled chains' observables, if any.
func printObservables(tw io.Writer, o *observablesOutput) {
	if o == nil {
		return
	}
	est := func(name, def string, e *estimateOutput) {
		if e == nil || e.Mean == nil {
			return
		}
		errs := "—"
		if e.Err != nil {
			errs = fmt.Sprintf("%.2g", *e.Err)
		}
		fmt.Fprintf(tw, "%s\t%.6g ± %s (%s)\n", name, *e.Mean, errs, def)
	}
	est("⟨m²⟩", "squared vector magnetisation", &o.M2)
	est("susceptibility χ", "βn(⟨m²⟩ − ⟨|m|⟩²), connected", &o.Chi)
	est("susceptibility χ'", "βn⟨m²⟩, disconnected", &o.ChiDisconnected)
	est("specific heat C", "β²n(⟨e²⟩ − ⟨e⟩²)", o.SpecificHeat)
	est("Binder U", "1 − ⟨m⁴⟩/3⟨m²⟩², vector m", &o.Binder)
	est("correlation length ξ₂", "√(n⟨m²⟩/S(k_min) − 1)/2sin(π/N)", &o.Xi)
	if o.SpecificHeat == nil {
		fmt.Fprintf(tw, "specific heat C\tnot given: Monte Carlo energies (-energy-samples -1 for exact ones, by FFT)\n")
	}
	fmt.Fprintf(tw, "errors\tblocked jackknife, %d blocks of %d measurements\n", o.Blocks, o.Block)
}

// printReweight prints the reweighted observables and χ's peak, if any.
func printReweight(tw io.Writer, rw *reweightOutput) {
	if rw == nil {
		return
	}
	fmt.Fprintf(tw, "reweighting\tfrom β0 = %g, window [%.6g, %.6g] (effective fraction ≥ %g)\n", rw.Beta0, rw.Window[0], rw.Window[1], rw.MinFraction)
	for _, pt := range rw.Points {
		if pt.Observables == nil {
			fmt.Fprintf(tw, "  β = %.6g\t%s\n", pt.Beta, pt.Refused)
			continue
		}
		o := pt.Observables
		fmt.Fprintf(tw, "  β = %.6g\tχ %s, U %s, C %s, e %s\n", pt.Beta, pm(o.Chi), pm(o.Binder), pm(*o.SpecificHeat), pm(o.Energy))
	}
	if p := rw.Peak; p != nil {
		fmt.Fprintf(tw, "χ peak\tβ = %s, χ = %s\n", pm(p.Beta), pm(p.Height))
	}
	for _, n := range rw.Notes {
		fmt.Fprintf(tw, "note\t%s\n", n)
	}
}
