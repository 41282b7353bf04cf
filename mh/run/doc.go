// Package run runs minibatch Metropolis–Hastings experiments: what `pgibbs
// mh` does, as a library, in the shape of lattice/simulation.
//
// A Config names the target (an mh.Target, such as targets.Paper builds),
// the sampler (a name of the mh registry) with its mh.Options, the chains,
// the seed, the steps and the burn-in, and the convergence Criteria. New
// validates it — a configuration that cannot run is refused with a
// *chain.ConfigError naming the field.
//
// One call runs it all:
//
//	target, opts, err := targets.Paper(targets.Setup{Model: "bias", Sampler: "barker", K: 20}, mh.Options{})
//	...
//	res, err := run.Run(ctx, run.Config{Target: target, Sampler: "barker", Options: opts,
//		Chains: 4, Seed: 1, Steps: 5000, Burn: 500})
//
// and res holds the samplers' counters summed over the chains (acceptance,
// batch sizes, likelihood evaluations), the pooled means of θ, the tracked
// quantities (every coordinate of θ, its thinned trace) and their verdict
// (chain.Judge: split-R̂ and ESS), and for the bias example
// (*targets.Bias) the total variation to its exact, uniform, target.
//
// # The kernel and what runs it
//
// An Experiment builds chain k (Chain): a chain.Chain whose kernel is the
// sampler, drawing from the stream chain.Source(Seed, k) alone, so that
// chain k is the same chain, bit for bit, in a run of one chain, of many,
// or split across processes; its observers are the running means of θ and
// a trace of every coordinate thinned to MaxDraws draws. Run drives the
// chains with a chain.Runner; a caller that wants checkpoints, resumption,
// trace files (Trace), a stopping rule on the tracked quantities (Series)
// or parts of a run in other processes builds the chains with Chain, runs
// them with its own chain.Runner (Steps), and hands them to Result, which
// pools them. `pgibbs mh` does exactly this through its run layer.
package run
