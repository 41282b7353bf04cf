package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/pgibbs/pgibbs/gibbs"
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

// latticeMaxSites bounds the lattices the command builds (the state alone
// is 8 bytes a site, a full-torus kernel 40 bytes an offset).
const latticeMaxSites = 1 << 24

// discreteLatticeSamplers and continuousSamplers are the -sampler values
// besides chromatic; chromaticUpdates are the -update values.
var (
	discreteLatticeSamplers = []string{"pgibbs", "gibbs", "auto", "mgpmh"}
	chromaticUpdates        = []string{"pgibbs", "gibbs", "auto", "mgpmh",
		"gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection"}
	minibatchSamplers = []string{"pgibbs", "auto", "mgpmh", "pgits", "pgda", "pg-rejection"}
)

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
	Sampler            string   `json:"sampler"`
	Update             string   `json:"update,omitempty"`
	Workers            int      `json:"workers,omitempty"`
	Classes            int      `json:"colour_classes,omitempty"`
	Seed               uint64   `json:"seed"`
	Chains             int      `json:"chains"`
	Start              string   `json:"start"`
	L                  float64  `json:"L"`
	Lambda             float64  `json:"lambda,omitempty"`
	Offsets            int      `json:"offsets"`
	PairFactors        float64  `json:"pair_factors"`
	CouplingSum        float64  `json:"coupling_sum"`
	Sweeps             int      `json:"sweeps"`
	Burn               int      `json:"burn"`
	Measurements       int      `json:"measurements"`
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
	Seconds            float64  `json:"seconds"`
	Steps              int64    `json:"steps"`
	StepsPerSecond     float64  `json:"steps_per_second"`
	FactorsPerStep     float64  `json:"factors_per_step"`
	DrawsPerStep       float64  `json:"draws_per_step"`
	Snapshot           string   `json:"snapshot,omitempty"`
	StateSHA256        string   `json:"state_sha256"` // of the chains' final states
	convergence                 // R̂ and ESS of the energy and magnetisation series
}

// latticeFlags are the parsed flags of the lattice command.
type latticeFlags struct {
	dim, size, states, workers, chains, sweeps, burn, energySamples, snapScale int
	kernel, spin, sampler, update, start, snapshot                             string
	gamma, sigma, cutoff, lo, hi, beta, lambda, lambdaScale                    float64
	seed                                                                       uint64
	asJSON                                                                     bool
	set                                                                        map[string]bool
}

func runLattice(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "lattice", "Samples π(x) ∝ exp(β Σ_{i<j} J(r_ij) f(x_i, x_j)) on a periodic lattice of size^dim sites whose\n"+
		"pair factors are generated from the kernel J, never stored: f = δ for Potts, s_i·s_j for Ising (β in Ising units),\n"+
		"x_i·x_j for continuous spins; r is the minimal-image distance. Kernels: nn (J = 1 at r = 1), gaussian\n"+
		"(J = exp(−γr²)) and power (J = r^−(dim+σ), every pair of sites). Prints the energy per site H/n\n"+
		"(H = −Σ J f) and the order parameter (Potts: (q·max_v n_v/n − 1)/(q − 1); Ising and continuous: |Σ x|/n) with\n"+
		"binning error bars over one measurement a sweep; the energy is exact for ≤ 64 offsets and otherwise a\n"+
		"Monte Carlo estimate from n sampled pairs (see -energy-samples). With -chains K the K chains run in\n"+
		"parallel and the estimates are pooled over them, with split-R̂ and bulk ESS of the two per-sweep series.\n"+
		"-checkpoint counts progress in site updates (a chromatic chain stops only between sweeps); -trace writes\n"+
		"the per-sweep measurements, not the states.")
	var f latticeFlags
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
	fs.StringVar(&f.sampler, "sampler", "pgibbs", "sampler: pgibbs, gibbs, auto, mgpmh (discrete spins), gibbs-its, gibbs-da, pgits,\n"+
		"pgda, gibbs-rejection, pg-rejection (continuous spins), or chromatic (parallel colour-class sweeps)")
	fs.StringVar(&f.update, "update", "", "site update of -sampler chromatic (default auto for discrete spins, pgda for continuous)")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "parallel workers of each chain of -sampler chromatic")
	fs.IntVar(&f.chains, "chains", 1, "independent chains, run in parallel")
	fs.Float64Var(&f.lambda, "lambda", 0, "λ, the Poisson-minibatch size parameter (default L²)")
	fs.Float64Var(&f.lambdaScale, "lambda-scale", 0, "λ as a multiple of L² (default 1 when -lambda is not set)")
	fs.IntVar(&f.sweeps, "sweeps", 1000, "measured sweeps (one measurement each; at least 4)")
	fs.IntVar(&f.burn, "burn", -1, "sweeps before measuring (default a tenth of -sweeps)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.StringVar(&f.start, "start", "hot", "initial state: hot (uniformly random) or cold (every site 0, or hi for continuous spins)")
	fs.IntVar(&f.energySamples, "energy-samples", 0, "pairs sampled per energy measurement: 0 auto (exact for ≤ 64 offsets, else one per site), -1 exact")
	fs.StringVar(&f.snapshot, "snapshot", "", "write chain 0's final configuration to this PNG file (3-D: the slice of first coordinate 0)")
	fs.IntVar(&f.snapScale, "snapshot-scale", 0, "pixels per site of -snapshot (0: enough for a picture about 512 pixels wide)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	ctl := addControlFlags(fs, "lattice")
	fs.Lookup("trace").Usage = "write each chain's measurements to this CSV file (sweep,energy_per_site,magnetisation, one row a\n" +
		"measured sweep; one file a chain: FILE, or FILE with .cK before the extension for K chains), flushed at each checkpoint"
	if err := parse(fs, args); err != nil {
		return err
	}
	// The flags given on the command line, before -resume sets them all
	// from the checkpoint (whose run passed the checks below).
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := ctl.setup(fs); err != nil {
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
		return usagef("%v", strings.TrimPrefix(err.Error(), "lattice: "))
	}
	if f.chains > 1 && int64(f.chains)*int64(l.Sites()) > latticeMaxChainSites {
		return usagef("-chains %d of %d sites: at most %d sites over all chains", f.chains, l.Sites(), latticeMaxChainSites)
	}
	var classes [][]int
	if f.sampler == "chromatic" {
		if classes, err = l.Colouring(); err != nil {
			return usagef("-sampler chromatic: %v", strings.TrimPrefix(err.Error(), "lattice: "))
		}
	}
	units := make([]unit, f.chains)
	lus := make([]*latticeUnit, f.chains)
	defer func() {
		for _, u := range lus {
			if u != nil && u.file != nil {
				u.file.close()
			}
		}
	}()
	for c := range f.chains {
		u, err := f.newUnit(l, p, classes, c, ctl)
		if err != nil {
			return err
		}
		units[c], lus[c] = u, u
	}
	setupSeconds := time.Since(setup).Seconds()
	n := int64(l.Sites())
	total := int64(f.burn+f.sweeps) * n
	start := time.Now()
	if _, err := ctl.runUnits(ctx, units, total); err != nil {
		return err
	}
	seconds := time.Since(start).Seconds()

	var (
		stats  gibbs.Stats
		states [][]float64
		es, ms []lattice.Estimate
		eq, mq [][]float64 // per-sweep series, chains × measurements
		res    lattice.Result
	)
	for _, u := range lus {
		stats.Add(u.stats())
		states = append(states, u.state())
		if res, err = u.meas.Result(); err != nil {
			return err
		}
		es, ms = append(es, res.Energy), append(ms, res.Magnetisation)
		eq, mq = append(eq, u.meas.Energies()), append(mq, u.meas.Magnetisations())
	}
	energy, mag := poolEstimates(es), poolEstimates(ms)
	conv, err := summarize([][][]float64{eq, mq})
	if err != nil {
		return err
	}

	out := latticeOutput{
		Dim: f.dim, Size: f.size, Sites: l.Sites(), Kernel: f.kernel, Cutoff: f.cutoff, Spin: f.spin, Beta: f.beta,
		Sampler: f.sampler, Seed: f.seed, Chains: f.chains, Start: f.start, L: l.L(), Offsets: l.NumOffsets(),
		PairFactors: l.PairFactors(), CouplingSum: l.CouplingSum(), Sweeps: f.sweeps, Burn: f.burn,
		Measurements:  res.Measurements,
		EnergyPerSite: energy.Mean, EnergyError: energy.Err, EnergyTau: finite(energy.Tau),
		EnergyMethod: "exact", EnergySamples: res.EnergySamples,
		Magnetisation: mag.Mean, MagnetisationError: mag.Err,
		MagnetisationTau: finite(mag.Tau), ErrorPlateau: energy.Plateau && mag.Plateau,
		SetupSeconds: setupSeconds, Seconds: seconds, Steps: stats.Steps,
		FactorsPerStep: stats.FactorsPerStep(), DrawsPerStep: stats.PicksPerStep(),
		StateSHA256: hashStates(states), convergence: conv,
	}
	if res.EnergySamples > 0 {
		out.EnergyMethod = "monte-carlo"
	}
	switch f.kernel {
	case "gaussian":
		out.Gamma = f.gamma
	case "power":
		out.Sigma = f.sigma
	}
	switch p.Spin.Kind {
	case lattice.PottsSpins:
		out.States = f.states
	case lattice.IsingSpins:
		out.States = 2
	default:
		out.Lo, out.Hi = &f.lo, &f.hi
	}
	update := f.sampler
	if f.sampler == "chromatic" {
		out.Update, out.Workers, out.Classes = f.update, f.workers, len(classes)
		update = f.update
	}
	if slices.Contains(minibatchSamplers, update) {
		out.Lambda = f.lambda
		if out.Lambda == 0 {
			scale := f.lambdaScale
			if scale == 0 {
				scale = 1
			}
			out.Lambda = scale * l.L() * l.L()
		}
	}
	if seconds > 0 {
		out.StepsPerSecond = float64(stats.Steps) / float64(f.chains) / seconds // a chain, as the other subcommands report
	}
	if f.snapshot != "" {
		if err := writeSnapshot(f.snapshot, l, states[0], f.snapScale); err != nil {
			return err
		}
		out.Snapshot = f.snapshot
	}
	if f.asJSON {
		return writeJSON(e, out)
	}
	return printLattice(e, out, l)
}

// latticeMaxChainSites bounds the sites of all chains together (each site
// costs a chain about 12 bytes besides its sampler's scratch space).
const latticeMaxChainSites = 1 << 26

// poolEstimates combines the chains' estimates of one observable. Every
// chain has as many measurements, so the pooled mean is the mean of the
// chain means; the chains are independent (distinct RNG streams), so the
// variance of that mean is Σ_c err_c²/K², and the pooled error is
// √(Σ_c err_c²)/K (for equal errors, err/√K). τ is the chains' mean τ,
// and the plateau holds if every chain's binning analysis found one. The
// per-chain errors cannot see chains that disagree (stuck in different
// phases, say): R̂ over the per-sweep series is what reports that. One
// chain's estimate is returned as it is.
func poolEstimates(es []lattice.Estimate) lattice.Estimate {
	if len(es) == 1 {
		return es[0]
	}
	var p lattice.Estimate
	p.Plateau = true
	var v float64
	taus := 0
	for _, e := range es {
		p.Mean += e.Mean
		v += e.Err * e.Err
		if !math.IsNaN(e.Tau) && !math.IsInf(e.Tau, 0) {
			p.Tau += e.Tau
			taus++
		}
		p.Plateau = p.Plateau && e.Plateau
	}
	k := float64(len(es))
	p.Mean /= k
	p.Err = math.Sqrt(v) / k
	if taus > 0 {
		p.Tau /= float64(taus)
	} else {
		p.Tau = math.NaN()
	}
	return p
}

// hashStates returns the SHA-256 of the chains' final states, as stateHash
// does for samplers.
func hashStates(states [][]float64) string {
	h := sha256.New()
	var b [8]byte
	for _, x := range states {
		for _, v := range x {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// newUnit builds chain c. Chain c of a run with w workers (w = 1 but for
// chromatic) draws from the streams gibbs.StreamSource(seed, c·(w+1) + j):
// j < w for its sampler or workers and j = w for its Measurer's Monte Carlo
// energies, so that every stream is distinct, depends on (seed, c) alone,
// and chain 0 draws what the single-chain command always drew.
func (f *latticeFlags) newUnit(l *lattice.Lattice, p lattice.Params, classes [][]int, c int, ctl *control) (*latticeUnit, error) {
	w := f.workers
	srcs := paddedSources(f.seed, c*(w+1), w+1)
	rngs := make([]*rand.Rand, w+1)
	for k, src := range srcs {
		rngs[k] = rand.New(src)
	}
	meas, err := lattice.NewMeasurer(l, rngs[w], f.energySamples)
	if err != nil {
		return nil, err
	}
	opts := gibbs.Options{Lambda: f.lambda, LambdaScale: f.lambdaScale}
	if f.start == "cold" {
		opts.Init = make([]float64, l.Sites())
		if p.Spin.Kind == lattice.ContinuousSpins {
			for i := range opts.Init {
				opts.Init[i] = f.hi
			}
		}
	}
	n := int64(l.Sites())
	u := &latticeUnit{n: n, burn: int64(f.burn), total: int64(f.burn+f.sweeps) * n, srcs: srcs[:w], msrc: srcs[w], meas: meas}
	if f.sampler == "chromatic" {
		fac, err := gibbs.FactoryOf(f.update)
		if err != nil {
			return nil, err
		}
		if u.chrom, err = gibbs.NewChromatic(fac, l, classes, rngs[:w], &opts); err != nil {
			return nil, err
		}
	} else {
		if u.s, err = gibbs.New(f.sampler, l, rngs[0], &opts); err != nil {
			return nil, err
		}
		u.runner = gibbs.Runner{Burn: u.burn * n, Scan: gibbs.SystematicScan, Observers: []gibbs.Observer{meas}, Progress: &u.count}
	}
	if ctl.trace != "" {
		path := tracePath(ctl.trace, c, f.chains)
		if ctl.resumed != nil && c < len(ctl.resumed.Chains) {
			u.file, err = openTrace(path, nil, 0, true, ctl.resumed.Chains[c].TraceBytes)
		} else {
			u.file, err = newMeasurementTrace(path)
		}
		if err != nil {
			return nil, err
		}
		if u.s != nil {
			u.runner.Observers = append(u.runner.Observers, rowWriter{u})
		}
	}
	return u, nil
}

// newMeasurementTrace creates a trace file of measurements: the traceFile
// of the other commands (its buffer, flush at checkpoints and truncation on
// resume) with the header sweep,energy_per_site,magnetisation.
func newMeasurementTrace(path string) (*traceFile, error) {
	file, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t := &traceFile{f: file, w: bufio.NewWriterSize(file, 1<<16)}
	t.write([]byte("sweep,energy_per_site,magnetisation\n"))
	return t, nil
}

// latticeUnit is one chain of `pgibbs lattice` as runUnits drives it. Its
// steps are site updates for every sampler: a chain runs total =
// (burn + sweeps)·n of them. A systematic-scan chain can stop after any
// update; a chromatic chain advances whole sweeps (n updates each), so it
// stops only at multiples of n. The measurements are taken at the end of
// each sweep past the burn-in, and the trace gets a row for each.
type latticeUnit struct {
	n, burn, total int64 // sites, burn-in sweeps, updates of a whole run

	s      gibbs.Sampler // systematic scan (nil for chromatic)
	runner gibbs.Runner
	chrom  *gibbs.Chromatic // nil but for chromatic

	srcs []*rand.PCG // the sampler's stream, or the workers'
	msrc *rand.PCG   // the Measurer's Monte Carlo energies
	meas *lattice.Measurer

	done  int64
	count atomic.Int64 // done, for the progress bar
	file  *traceFile   // nil without -trace
	rows  int          // measurements written to file
}

func (u *latticeUnit) progressCounter() *atomic.Int64 { return &u.count }

func (u *latticeUnit) advance(ctx context.Context, to int64) (int64, error) {
	if u.chrom == nil {
		r := u.runner
		r.Steps = to
		n, err := r.RunFrom(ctx, u.s, u.done)
		u.done = n
		return n, err
	}
	for u.done < to {
		if err := ctx.Err(); err != nil {
			return u.done, err
		}
		u.chrom.Sweep()
		if err := u.chrom.Err(); err != nil {
			return u.done, err
		}
		u.done += u.n
		if u.done > u.burn*u.n {
			u.meas.Measure(u.chrom.State())
			u.writeRows()
		}
		u.count.Store(u.done)
	}
	return u.done, nil
}

// writeRows appends the measurements not yet in the trace file.
func (u *latticeUnit) writeRows() {
	if u.file == nil {
		return
	}
	es, ms := u.meas.Energies(), u.meas.Magnetisations()
	for ; u.rows < len(es); u.rows++ {
		row := strconv.AppendInt(u.file.row[:0], u.burn+int64(u.rows)+1, 10)
		row = append(row, ',')
		row = strconv.AppendFloat(row, es[u.rows], 'g', -1, 64)
		row = append(row, ',')
		row = strconv.AppendFloat(row, ms[u.rows], 'g', -1, 64)
		u.file.row = append(row, '\n')
		u.file.write(u.file.row)
	}
}

// rowWriter is the observer after the Measurer of a systematic-scan chain
// with -trace: it writes the sweep's measurement to the trace.
type rowWriter struct{ u *latticeUnit }

func (w rowWriter) Observe(t int64, _ int, _ []float64) {
	if t%w.u.n == 0 {
		w.u.writeRows()
	}
}

func (u *latticeUnit) stats() gibbs.Stats {
	if u.chrom != nil {
		return u.chrom.Stats()
	}
	return u.s.Stats()
}

func (u *latticeUnit) state() []float64 {
	if u.chrom != nil {
		return u.chrom.State()
	}
	return u.s.State()
}

// save checkpoints the chain: RNG holds the sampler's (or the workers')
// PCG states one after the other, Sampler the sampler's or Chromatic's
// snapshot, and Observers the Measurer's snapshot and its PCG state.
func (u *latticeUnit) save() (chainCheck, error) {
	var cc chainCheck
	for _, src := range u.srcs {
		b, err := src.MarshalBinary()
		if err != nil {
			return cc, err
		}
		cc.RNG = append(cc.RNG, b...)
	}
	var err error
	if u.chrom != nil {
		cc.Sampler, err = u.chrom.Snapshot()
	} else if sn, ok := u.s.(gibbs.Snapshotter); ok {
		cc.Sampler, err = sn.Snapshot()
	} else {
		err = fmt.Errorf("sampler %T cannot be checkpointed", u.s)
	}
	if err != nil {
		return cc, err
	}
	ms, err := u.meas.Snapshot()
	if err != nil {
		return cc, err
	}
	mr, err := u.msrc.MarshalBinary()
	if err != nil {
		return cc, err
	}
	mrj, err := json.Marshal(mr)
	if err != nil {
		return cc, err
	}
	cc.Observers = []json.RawMessage{ms, mrj}
	if u.file != nil {
		if cc.TraceBytes, err = u.file.flush(); err != nil {
			return cc, err
		}
	}
	return cc, nil
}

func (u *latticeUnit) load(cc chainCheck) error {
	switch {
	case cc.Steps < 0 || cc.Steps > u.total:
		return fmt.Errorf("the checkpoint's chain has done %d updates, outside the run's 0 to %d", cc.Steps, u.total)
	case u.chrom != nil && cc.Steps%u.n != 0:
		return fmt.Errorf("the checkpoint's chain has done %d updates, not whole sweeps of %d sites as a chromatic chain does", cc.Steps, u.n)
	case len(cc.Observers) != 2:
		return fmt.Errorf("the checkpoint has %d measurement states, want 2 (the measurements and their generator)", len(cc.Observers))
	}
	var err error
	if u.chrom != nil {
		err = u.chrom.Restore(cc.Sampler)
	} else if sn, ok := u.s.(gibbs.Snapshotter); ok {
		err = sn.Restore(cc.Sampler)
	} else {
		err = fmt.Errorf("sampler %T cannot be checkpointed", u.s)
	}
	if err != nil {
		return err
	}
	if k := len(u.srcs); len(cc.RNG)%k != 0 {
		return fmt.Errorf("random number generators: %d bytes of state for %d generators", len(cc.RNG), k)
	}
	size := len(cc.RNG) / len(u.srcs)
	for k, src := range u.srcs {
		if err := src.UnmarshalBinary(cc.RNG[k*size : (k+1)*size]); err != nil {
			return fmt.Errorf("random number generator %d: %w", k, err)
		}
	}
	if err := u.meas.Restore(cc.Observers[0]); err != nil {
		return err
	}
	var mr []byte
	if err := json.Unmarshal(cc.Observers[1], &mr); err != nil {
		return fmt.Errorf("measurement generator: %w", err)
	}
	if err := u.msrc.UnmarshalBinary(mr); err != nil {
		return fmt.Errorf("measurement generator: %w", err)
	}
	if want := max(0, cc.Steps/u.n-u.burn); int64(len(u.meas.Energies())) != want {
		return fmt.Errorf("the checkpoint holds %d measurements after %d updates; the run takes %d by then", len(u.meas.Energies()), cc.Steps, want)
	}
	u.done = cc.Steps
	u.rows = len(u.meas.Energies()) // the trace was flushed with every row
	u.count.Store(u.done)
	return nil
}

// params turns the flags into lattice parameters, rejecting flags that do
// not apply to the chosen kernel or spins.
func (f *latticeFlags) params() (lattice.Params, error) {
	p := lattice.Params{Dim: f.dim, Size: f.size, Beta: f.beta, Cutoff: f.cutoff}
	switch f.kernel {
	case "nn":
		p.Kernel = lattice.NearestNeighbour{}
	case "gaussian":
		p.Kernel = lattice.Gaussian{Gamma: f.gamma}
	case "power":
		p.Kernel = lattice.PowerLaw{Sigma: f.sigma}
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
	if f.dim < 1 || f.dim > 3 {
		return usagef("-dim %d: want 1, 2 or 3", f.dim)
	}
	if f.size < 2 {
		return usagef("-size %d: need at least 2", f.size)
	}
	if sites := math.Pow(float64(f.size), float64(f.dim)); sites > latticeMaxSites {
		return usagef("-size %d in %d-D is %.3g sites: at most %d", f.size, f.dim, sites, latticeMaxSites)
	}
	continuous := p.Spin.Kind == lattice.ContinuousSpins
	switch {
	case f.sampler == "chromatic":
		if f.update == "" {
			f.update = "auto"
			if continuous {
				f.update = "pgda"
			}
		}
		if !slices.Contains(chromaticUpdates, f.update) {
			return usagef("-update %q: want one of %s", f.update, strings.Join(chromaticUpdates, ", "))
		}
		if continuous != isContinuousSampler(f.update) {
			return usagef("-update %s does not sample %s spins", f.update, f.spin)
		}
		if f.workers < 1 || f.workers > 1024 {
			return usagef("-workers %d: need 1 to 1024", f.workers)
		}
	case continuous && !isContinuousSampler(f.sampler):
		return usagef("-sampler %q: continuous spins need one of %s or chromatic", f.sampler, strings.Join(continuousSamplers, ", "))
	case !continuous && !slices.Contains(discreteLatticeSamplers, f.sampler):
		return usagef("-sampler %q: %s spins need one of %s or chromatic", f.sampler, f.spin, strings.Join(discreteLatticeSamplers, ", "))
	}
	if f.sampler != "chromatic" {
		if f.set["update"] || f.set["workers"] {
			return usagef("-update and -workers apply to -sampler chromatic only")
		}
		f.workers = 1
	}
	if f.chains < 1 || f.chains > 4096 {
		return usagef("-chains %d: need 1 to 4096", f.chains)
	}
	if err := checkLambdaFlags(f.lambda, f.lambdaScale); err != nil {
		return err
	}
	if f.sweeps < 4 || f.sweeps > 1<<30 {
		return usagef("-sweeps %d: need 4 to 2³⁰ measured sweeps (error bars need at least 4 measurements)", f.sweeps)
	}
	if f.burn == -1 && !f.set["burn"] {
		f.burn = f.sweeps / 10
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
	return nil
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

// paddedSources returns the sources gibbs.StreamSource(seed, first+j),
// j < k (the same sequences), each PCG state alone on a cache line, so that
// chromatic workers drawing at the same time do not invalidate each other's
// line.
func paddedSources(seed uint64, first, k int) []*rand.PCG {
	out := make([]*rand.PCG, k)
	for j := range out {
		p := &paddedPCG{PCG: *gibbs.StreamSource(seed, first+j)}
		out[j] = &p.PCG
	}
	return out
}

// paddedPCG fills the allocator's 64-byte size class, whose objects are
// 64-byte aligned.
type paddedPCG struct {
	rand.PCG
	_ [64 - 16]byte
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
	fmt.Fprintf(tw, "sampler\t%s\n", sampler)
	chains := "1 chain"
	if out.Chains > 1 {
		chains = fmt.Sprintf("%d chains", out.Chains)
	}
	fmt.Fprintf(tw, "run\t%s of %d + %d burn-in sweeps from a %s start, %d updates in %.3g s (setup %.3g s)\n",
		chains, out.Sweeps, out.Burn, out.Start, out.Steps, out.Seconds, out.SetupSeconds)
	fmt.Fprintf(tw, "speed\t%.4g steps/s a chain, %.4g factors/step, %.4g draws/step\n", out.StepsPerSecond, out.FactorsPerStep, out.DrawsPerStep)
	method := "exact"
	if out.EnergyMethod == "monte-carlo" {
		method = fmt.Sprintf("Monte Carlo, %d pairs a measurement", out.EnergySamples)
	}
	fmt.Fprintf(tw, "energy per site\t%.6g ± %.2g (%s; τ = %.3g sweeps)\n", out.EnergyPerSite, out.EnergyError, method, out.EnergyTau)
	fmt.Fprintf(tw, "magnetisation\t%.6g ± %.2g (τ = %.3g sweeps)\n", out.Magnetisation, out.MagnetisationError, out.MagnetisationTau)
	if out.ESSBulkMin > 0 {
		fmt.Fprintf(tw, "bulk ESS\t%.1f (the smaller of the energy's and the magnetisation's)\n", out.ESSBulkMin)
	}
	if out.RhatMax != nil {
		fmt.Fprintf(tw, "R̂\t%.4f (split-R̂ over %d chains, the larger of the two series')\n", *out.RhatMax, out.Chains)
	}
	if out.Note != "" {
		fmt.Fprintf(tw, "convergence\t%s\n", out.Note)
	}
	if !out.ErrorPlateau {
		fmt.Fprintf(tw, "warning\tthe binning analysis found no plateau: the run is short for its correlation time and the error bars are lower bounds\n")
	}
	if out.Snapshot != "" {
		fmt.Fprintf(tw, "snapshot\t%s\n", out.Snapshot)
	}
	return tw.Flush()
}
