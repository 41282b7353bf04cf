// Package simulation runs Monte Carlo simulations of the lattice models of
// package lattice: what `pgibbs lattice` does, as a library.
//
// A Config names the model (lattice.Params), the sampler (a name of the
// registry gibbs/samplers with its samplers.Config, or Chromatic: colour
// classes swept in parallel by Workers workers, each site updated by
// Update), the chains, the seed, the sweeps and the burn-in, what is
// measured (one sweep in MeasureEvery, the energy exact or from sampled
// pairs), the start (Hot or Cold), a reweighting Grid and the convergence
// Criteria. New validates it — a configuration that cannot run is refused
// with a *chain.ConfigError naming the field — and builds the lattice.
//
// One call runs it all:
//
//	res, err := simulation.Run(ctx, simulation.Config{
//		Params:  lattice.Params{Dim: 2, Size: 64, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.44},
//		Sampler: "sw", Chains: 4, Seed: 1, Sweeps: 2000, Burn: 200,
//	})
//
// and res holds the pooled estimates (energy per site and |m| with error
// bars), the finite-size-scaling observables (lattice.Observables: ⟨m²⟩,
// χ, C, the Binder cumulant, ξ₂, with blocked-jackknife errors), the
// reweighting (Ferrenberg & Swendsen 1988) and χ's peak, and the verdict
// (chain.Judge on the energy and magnetisation series: split-R̂ and ESS).
//
// # The kernel and what runs it
//
// As in BlackJAX, the step kernel is apart from the loop that runs it. A
// Simulation builds chain k (Chain): a chain.Chain whose kernel is a sweep
// of the sampler and whose observer is a lattice.Measurer, drawing from
// random streams that depend on (Seed, k) alone — chain k with w workers
// draws from chain.Source(Seed, k·(w+1)+j), j < w its sampler's or
// workers', j = w its Measurer's Monte Carlo energies —, so that chain k is
// the same chain, bit for bit, in a run of one chain, of many, or split
// across processes. Run drives the chains with a chain.Runner; a caller
// that wants checkpoints, resumption, trace files (Trace), a stopping rule
// on the tracked quantities (Series, Verdict) or parts of a run in other
// processes builds the chains with Chain, runs them with its own
// chain.Runner (Steps), and hands them to Result, which pools their
// measurements. `pgibbs lattice` does exactly this through its run layer,
// and prints the Result (whose JSON, with Setup's, is the command's
// record).
package simulation
