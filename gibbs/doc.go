// Package gibbs is the family of Gibbs-type samplers of this module: plain
// Gibbs sampling and Poisson-minibatching Gibbs sampling (Zhang & De Sa,
// "Poisson-Minibatching for Gibbs Sampling with Convergence Rate
// Guarantees", NeurIPS 2019) on any factorgraph.Model, the MIN-Gibbs
// family they are compared with, continuous-variable samplers, and the
// blocked and cluster updates that move where single-site chains freeze.
//
// This package is the family's contract, which every sampler meets: a
// [Sampler] (a chain.Kernel that can also Sweep and Update one variable),
// its [Options], its counters ([Stats]), a constructor's shape ([Factory])
// and the [Sweeper] that runs a sampler by systematic sweeps; and the
// optional interfaces callers check by name: [SweepRunner], an
// interruptible sweep; [StepsPerSweeper], a step that is not one
// variable's update ([StepsPerSweep] converts sweeps into steps); [Sharer],
// a sampler whose state can be a slice its caller owns and changes
// between steps (the replicas of an exchange); [Worker], a Sharer a
// chromatic.Chromatic can run on a shared state, which a user's own
// sampler can be. The samplers live in one package each:
//
//	gibbs/site        Gibbs (Algorithm 1), PoissonGibbs (Algorithm 2) and
//	                  Mixed, which picks one of the two per variable
//	gibbs/mingibbs    MINGibbs, MGPMH and DoubleMINGibbs (De Sa, Chen &
//	                  Wong 2018), the baselines of the paper
//	gibbs/continuous  PGITS, PGDA, their exact-energy twins and rejection
//	                  sampling, on continuous variables
//	gibbs/cluster     Swendsen–Wang and Wolff cluster moves, bonds drawn as
//	                  a Poisson process
//	gibbs/blocked     blocked Gibbs by variable elimination and backward
//	                  sampling, with Poisson-minibatched block boundaries
//	gibbs/chromatic   a graph colouring's classes updated in parallel
//	gibbs/exchange    replica exchange (parallel tempering) of any sampler
//	                  that can share its state, with Houdayer moves and
//	                  log Z by bridge sampling
//	gibbs/samplers    the registry: every sampler by name with what it
//	                  samples and how it runs (Lookup, Entry, Config, New,
//	                  FactoryOf) and the registry's "auto" (NewAuto)
//
// They share one base, gibbs/internal/core: the chain's state and
// counters, the compiled and lattice fast paths, the Poisson minibatch,
// the work limits, interruption and snapshots. A sampler holds it where no
// program can reach it (a core.Base, whose one field is unexported), and
// its package declares the methods of the contract the samplers share as
// one-line forwards (base.go, written by a generator from one list), so
// that go doc lists every sampler's whole method set and nothing of the
// base. A new sampler of the family goes in a package of its own beside
// these, embeds that package's base, and is added to the registry in
// gibbs/samplers.
//
// Every constructor has the shape NewX(m factorgraph.Model, r *rand.Rand,
// opt *Options), opt nil meaning the defaults, so that it is a [Factory]
// (a Chromatic's takes the factory of its workers).
//
// # Hard factors and moves
//
// Hard factors (zeros of tables, constraints) are never minibatched: every
// sampler adds them exactly, so a chain never enters a state of zero
// probability. When the random initial state is impossible, the samplers
// search for a feasible one (factorgraph.Graph.FeasibleState); evidence
// variables are clamped and never resampled. Evidence of probability zero
// is refused: a factor whose variables are all observed and which is zero
// there, named (elim.CheckEvidence, elim.ErrNoMass), or a contradiction
// through free variables the search proves (factorgraph.ErrNoFeasibleState).
// A chain must also move: a
// hard factor that fixes one of its variables given the others (the
// equality x0 = x1, a pedigree's deterministic link) can freeze it, and
// the samplers that update one variable at a time refuse such a model,
// naming the factor, as blocked.NewWith refuses blocks that leave a
// variable so fixed in every block holding it; blocks.Build and
// blocks.Forests add a block of the factor's variables instead, and the
// registry's auto chooses blocks there.
//
// # Running chains
//
// A [Sampler] advances by Step (random scan), Sweep (systematic scan) or
// Update(i); Step returns the variable it updated. Running chains lives in
// package chain: a Sampler is a step kernel (chain.Kernel) as it is, a step
// resampling one random variable, and [Sweeper] wraps it into a kernel
// whose step is one systematic Sweep (so steps count sweeps, not updates).
// With [Options].Systematic a single-site sampler's Step updates the next
// variable in turn instead: a systematic scan one variable a step, whose
// conditionals the marginals still average — on graphs far larger than
// the cache, the scan to choose (a graph numbered without locality is
// best stored in factorgraph.LocalityOrder first). From 2¹⁶ variables of
// a graph of Potts pairs, plain Gibbs's steps, in either scan, read the
// neighbours' values from a one-byte copy of the state.
// Package mh's samplers are kernels too, so chain.Chain and chain.Runner run
// both families: burn-in, observers (chain.Marginals keeps run-average
// marginals at O(1) a single-site step), step or time budgets, cancellation,
// parallel chains on independent RNG streams (chain.Streams), checkpoints
// (every sampler of the family implements chain.Snapshotter). A
// chromatic.Chromatic runs the workers a Factory builds on one shared
// state, updating the colour classes of a graph colouring in parallel, and
// is a Sampler itself; wrapped in a Sweeper, each of its steps is a
// parallel sweep.
//
// # Errors and reproducibility
//
// Constructors return errors for options that cannot work (λ ≤ 0, a
// continuous variable for a discrete sampler, a model without continuous
// variables for a continuous one, an initial state of zero probability, …)
// and for samplers whose steps would be hopeless on the model: each
// constructor computes the largest expected work of a step, in minibatch
// draws and factor evaluations, and refuses one beyond Options.MaxDraws
// (default DefaultMaxDraws = 10⁷) with an error saying what, why and what
// to use instead (Poisson-Gibbs with λ = L² when L is 10⁵; Mixed takes the
// cheaper of plain Gibbs and Poisson-Gibbs variable by variable and never
// draws more than A[i]). Rejection sampling's tries are bounded by
// Options.MaxTries. Errors start with "gibbs:" and the sampler's name,
// whichever package it is in.
//
// Every sampler, a Chromatic and a Sweeper implement chain.Interrupter: a
// run cancelled through package chain stops inside a long step, within
// milliseconds, and the step leaves the sampler exactly as it was before it
// (an interrupted sweep puts back the variables it had updated), so a
// checkpoint taken then resumes bit for bit. During sampling every factor
// value is checked against its declared range (the check costs one
// comparison a value): a value outside it, NaN, or a conditional with no
// positive mass stops the chain, and Err reports it, naming the factor. All
// randomness comes from the *rand.Rand the caller passes: the same seed
// gives the same chain, bit for bit.
package gibbs
