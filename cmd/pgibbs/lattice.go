package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/lattice/simulation"
)

// `pgibbs lattice` is flags → lattice/simulation → output: the flags make
// a simulation.Config, the run layer runs the Simulation's chains
// (checkpoints, traces, -chain k -of K, progress) and the Result is
// printed.

func init() {
	register(&command{
		name:    "lattice",
		summary: "Potts, Ising or continuous spins on an implicit periodic lattice (nn, Gaussian or power-law couplings)",
		example: "pgibbs lattice -dim 2 -size 1000 -kernel power -sigma 1 -states 2 -beta 0.5 -sampler pgibbs -sweeps 8 -json",
		run:     runLattice,
	})
}

// latticeOutput is the JSON object of `pgibbs lattice -json`: the
// simulation's Setup, its Result's measurements, estimates, observables
// and reweighting, and the run's counters.
type latticeOutput struct {
	simulation.Setup
	Measurements int `json:"measurements"`
	MeasureEvery int `json:"measure_every,omitempty"` // Setup's, in its place
	simulation.Estimates
	SetupSeconds       float64 `json:"setup_seconds"`
	Steps              int64   `json:"steps"`
	StepsPerSecond     float64 `json:"steps_per_second"`
	FactorsPerStep     float64 `json:"factors_per_step,omitempty"`
	DrawsPerStep       float64 `json:"draws_per_step,omitempty"`
	Snapshot           string  `json:"snapshot,omitempty"`
	*simulation.Result         // its observables and reweighting
	record                     // R̂ and ESS of the energy and magnetisation series
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
	cfg, err := f.config()
	if err != nil {
		return err
	}
	setup := time.Now()
	sim, err := simulation.New(cfg)
	if err != nil {
		return configError(err)
	}
	run := &latticeRun{f: &f, sim: sim}
	o, err := f.execute(ctx, sim, constructionError)
	if err != nil {
		return err
	}
	if err := run.report(e, o, max(0, time.Since(setup).Seconds()-o.Seconds)); err != nil {
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

// latticeRun reports the chains of a Simulation the run layer ran.
type latticeRun struct {
	f   *latticeFlags
	sim *simulation.Simulation
}

// report pools the chains' measurements and prints them.
func (r *latticeRun) report(e *env, o *outcome, setupSeconds float64) error {
	f := r.f
	res, err := r.sim.Result(o.Chains)
	if err != nil {
		return err
	}
	st := res.Stats
	out := latticeOutput{Setup: r.sim.Setup(), Result: res, Measurements: res.Measurements, Estimates: res.Estimates(),
		SetupSeconds: setupSeconds, Steps: st.Steps, StepsPerSecond: stepsPerSecond(st.Steps, len(o.Chains), o.Seconds),
		FactorsPerStep: st.FactorsPerStep(), DrawsPerStep: st.PicksPerStep(),
		record: f.record(o, judged(res.Verdict, f.criteria(), simulation.NumQuantities, "")),
	}
	out.record.ClustersPerStep, out.MeasureEvery = res.ClustersPerStep, out.Setup.MeasureEvery
	if rw := res.Reweighted; rw != nil { // the flag that widens the window
		for k := range rw.Points {
			rw.Points[k].Refused = strings.Replace(rw.Points[k].Refused, "minimum fraction", "-reweight-fraction", 1)
		}
	}
	if f.snapshot != "" {
		if err := r.writeSnapshot(res.State); err != nil {
			return err
		}
		out.Snapshot = f.snapshot
	}
	if f.asJSON {
		return writeJSON(e, out)
	}
	return printLattice(e, out, r.sim.Lattice())
}

// config turns the flags into a simulation's configuration, refusing
// flags that do not apply; the configuration itself is simulation.New's
// to validate.
func (f *latticeFlags) config() (simulation.Config, error) {
	p, err := f.params()
	if err != nil {
		return simulation.Config{}, err
	}
	if err := f.check(); err != nil {
		return simulation.Config{}, err
	}
	cfg := simulation.Config{Params: p, Sampler: f.sampler, Samplers: samplers.Config{Options: f.options()},
		Chains: f.chains, Seed: f.seed, Sweeps: f.iters, Burn: f.burn, MeasureEvery: f.measureEvery,
		EnergySamples: f.energySamples, Criteria: f.criteria()}
	cfg.Samplers.Clusters = f.clusterCount()
	if f.sampler == simulation.Chromatic {
		cfg.Update, cfg.Workers = f.update, f.workers
	}
	if f.start == "cold" {
		cfg.Start = simulation.Cold
	}
	if f.reweight != "" {
		g, err := simulation.ParseGrid(f.reweight)
		if err != nil {
			return cfg, usagef("-reweight %v", err)
		}
		g.MinFraction, cfg.Reweight = f.reweightFraction, &g
	}
	return cfg, nil
}

// params turns the flags into lattice parameters, rejecting flags that do
// not apply to the chosen kernel or spins.
func (f *latticeFlags) params() (lattice.Params, error) {
	couplings := map[string]lattice.Coupling{"nn": lattice.NearestNeighbour{}, "gaussian": lattice.Gaussian{Gamma: f.gamma},
		"power": lattice.PowerLaw{Sigma: f.sigma}}
	spins := map[string]lattice.Spin{"potts": lattice.Potts(f.states), "ising": lattice.Ising(), "continuous": lattice.Continuous(f.lo, f.hi)}
	p := lattice.Params{Dim: f.dim, Size: f.size, Beta: f.beta, Cutoff: f.cutoff, Coupling: couplings[f.kernel], Spin: spins[f.spin]}
	switch _, spin := spins[f.spin]; {
	case p.Coupling == nil:
		return p, usagef("-kernel %q: want nn, gaussian or power", f.kernel)
	case f.set["gamma"] && f.kernel != "gaussian":
		return p, usagef("-gamma applies to -kernel gaussian only")
	case f.set["sigma"] && f.kernel != "power":
		return p, usagef("-sigma applies to -kernel power only")
	case !spin:
		return p, usagef("-spin %q: want potts, ising or continuous", f.spin)
	case f.spin == "ising" && f.set["states"] && f.states != 2:
		return p, usagef("-spin ising has 2 states, not -states %d", f.states)
	case f.spin == "continuous" && f.set["states"]:
		return p, usagef("-states applies to -spin potts, not continuous spins")
	case (f.set["lo"] || f.set["hi"]) && f.spin != "continuous":
		return p, usagef("-lo and -hi apply to -spin continuous only")
	}
	return p, nil
}

// check refuses flags whose values the configuration cannot tell from its
// defaults, and flags that need others.
func (f *latticeFlags) check() error {
	switch {
	case f.sampler == simulation.Chromatic && f.workers < 1:
		return usagef("-workers %d: need 1 to %d", f.workers, simulation.MaxWorkers)
	case f.sampler != simulation.Chromatic && (f.set["update"] || f.set["workers"]):
		return usagef("-update and -workers apply to -sampler chromatic only")
	case f.measureEvery < 1:
		return usagef("-measure-every %d: need 1 to -sweeps/4 = %d (error bars need at least 4 measurements)", f.measureEvery, f.iters/4)
	case f.start != "hot" && f.start != "cold":
		return usagef("-start %q: want hot or cold", f.start)
	case f.snapScale < 0 || f.snapScale > 64:
		return usagef("-snapshot-scale %d: need 0 (auto) to 64", f.snapScale)
	case f.set["snapshot-scale"] && f.snapshot == "":
		return usagef("-snapshot-scale needs -snapshot")
	case f.set["reweight-fraction"] && f.reweight == "":
		return usagef("-reweight-fraction %v: needs -reweight", f.reweightFraction)
	}
	return zeroFlags(f.set, f.fs, "reweight-fraction")
}

// configError returns simulation.New's refusal as the command's usage
// error, naming the flag of the field (Params: the lattice's reason,
// without the package's prefix).
func configError(err error) error {
	var ce *chain.ConfigError
	switch {
	case !errors.As(err, &ce):
		return err
	case ce.Field == "Params":
		return usagef("%v", cmp.Or(errors.Unwrap(ce.Err), ce.Err))
	}
	flag := regexp.MustCompile(`(.)([A-Z])`).ReplaceAllString(ce.Field, "$1-$2") // MeasureEvery: -measure-every
	return usagef("-%s %v", strings.ToLower(flag), ce.Err)
}

// pm formats an estimate as "mean ± err" ("—" where undefined).
func pm(d diag.Estimate) string {
	e := simulation.EstimateOf(d)
	if e.Mean == nil {
		return "—"
	}
	if e.Err == nil {
		return fmt.Sprintf("%.5g", *e.Mean)
	}
	return fmt.Sprintf("%.5g ± %.2g", *e.Mean, *e.Err)
}

// writeSnapshot writes state x to the -snapshot PNG file.
func (r *latticeRun) writeSnapshot(x []float64) error {
	file, err := os.Create(r.f.snapshot)
	if err != nil {
		return err
	}
	if err := r.sim.WritePNG(file, x, r.f.snapScale); err != nil {
		file.Close()
		return err
	}
	return file.Close()
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
	if len(out.record.ClustersPerStep) > 0 {
		sampler += fmt.Sprintf(", %s clusters a sweep", intList(out.record.ClustersPerStep))
	}
	fmt.Fprintf(tw, "sampler\t%s\n", sampler)
	chains := "1 chain"
	if out.record.Chains > 1 {
		chains = fmt.Sprintf("%d chains", out.record.Chains)
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
		method = fmt.Sprintf("Monte Carlo, %d pairs a measurement", out.Estimates.EnergySamples)
	}
	unit := "sweeps" // τ is in measurements
	if out.MeasureEvery > 1 {
		unit = fmt.Sprintf("measurements of one sweep in %d", out.MeasureEvery)
	}
	fmt.Fprintf(tw, "energy per site\t%.6g ± %.2g (%s; τ = %.3g %s)\n", out.EnergyPerSite, out.EnergyError, method, out.EnergyTau, unit)
	fmt.Fprintf(tw, "magnetisation\t%.6g ± %.2g (τ = %.3g %s)\n", out.Estimates.Magnetisation, out.MagnetisationError, out.MagnetisationTau, unit)
	printObservables(tw, out.Observables)
	printReweight(tw, out.Reweighted)
	if out.ESSBulkMin != nil {
		fmt.Fprintf(tw, "bulk ESS\t%.1f (the smaller of the energy's and the magnetisation's)\n", *out.ESSBulkMin)
	}
	if out.RhatMax != nil {
		fmt.Fprintf(tw, "R̂\t%.4f (rank-normalised split-R̂ over the halves of %d chain(s), the larger of the two series')\n", *out.RhatMax, out.record.Chains)
	}
	fmt.Fprintf(tw, "convergence\t%s\n", out.convergence.summary)
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
func printObservables(tw io.Writer, o *simulation.Observables) {
	if o == nil {
		return
	}
	est := func(name, def string, d diag.Estimate) {
		if e := simulation.EstimateOf(d); e.Mean != nil {
			errs := "—"
			if e.Err != nil {
				errs = fmt.Sprintf("%.2g", *e.Err)
			}
			fmt.Fprintf(tw, "%s\t%.6g ± %s (%s)\n", name, *e.Mean, errs, def)
		}
	}
	est("⟨m²⟩", "squared vector magnetisation", o.M2)
	est("susceptibility χ", "βn(⟨m²⟩ − ⟨|m|⟩²), connected", o.Chi)
	est("susceptibility χ'", "βn⟨m²⟩, disconnected", o.ChiDisconnected)
	if o.ExactEnergy {
		est("specific heat C", "β²n(⟨e²⟩ − ⟨e⟩²)", o.SpecificHeat)
	}
	est("Binder U", "1 − ⟨m⁴⟩/3⟨m²⟩², vector m", o.Binder)
	est("correlation length ξ₂", "√(n⟨m²⟩/S(k_min) − 1)/2sin(π/N)", o.Xi)
	if !o.ExactEnergy {
		fmt.Fprintf(tw, "specific heat C\tnot given: Monte Carlo energies (-energy-samples -1 for exact ones, by FFT)\n")
	}
	fmt.Fprintf(tw, "errors\tblocked jackknife, %d blocks of %d measurements\n", o.Blocks, o.Block)
}

// printReweight prints the reweighted observables and χ's peak, if any.
func printReweight(tw io.Writer, rw *simulation.Reweighted) {
	if rw == nil {
		return
	}
	fmt.Fprintf(tw, "reweighting\tfrom β0 = %g, window [%.6g, %.6g] (effective fraction ≥ %g)\n", rw.Beta0, rw.Window[0], rw.Window[1], rw.MinFraction)
	for _, pt := range rw.Points {
		if o := pt.Observables; o != nil {
			fmt.Fprintf(tw, "  β = %.6g\tχ %s, U %s, C %s, e %s\n", pt.Beta, pm(o.Chi), pm(o.Binder), pm(o.SpecificHeat), pm(o.Energy))
		} else {
			fmt.Fprintf(tw, "  β = %.6g\t%s\n", pt.Beta, pt.Refused)
		}
	}
	if p := rw.Peak; p != nil {
		fmt.Fprintf(tw, "χ peak\tβ = %s, χ = %s\n", pm(p.Beta), pm(p.Height))
	}
	for _, n := range rw.Notes {
		fmt.Fprintf(tw, "note\t%s\n", n)
	}
}
