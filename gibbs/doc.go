// Package gibbs holds the Gibbs-type samplers of this module: plain Gibbs
// sampling and Poisson-minibatching Gibbs sampling (Zhang & De Sa,
// "Poisson-Minibatching for Gibbs Sampling with Convergence Rate
// Guarantees", NeurIPS 2019) on any factorgraph.Model, and the blocked and
// cluster updates that move where single-site chains freeze.
//
// # Samplers
//
// [Gibbs] (Algorithm 1) resamples x_i from its full conditional,
// ρ(v) ∝ exp(Σ_{φ∈A[i]} φ(x_{i←v})): every step evaluates all |A[i]|
// factors, up to Δ.
//
// [PoissonGibbs] (Algorithm 2) augments π with one Poisson variable per
// factor, s_φ | x ~ Poisson(λM_φ/L + φ̃(x)), and resamples x_i from
//
//	ρ(v) ∝ exp(Σ_{s_φ>0} s_φ log(1 + L φ̃(x_{i←v})/(λM_φ))),
//
// which involves only the factors with s_φ > 0: O(λ + L) of them in
// expectation, however large Δ is. The chain is reversible and leaves π
// invariant exactly, with no Metropolis–Hastings correction, and its
// spectral gap is within exp(−4L²/λ) of plain Gibbs's (Theorem 1); the
// default λ = L² keeps that factor constant. The counts are drawn by Poisson
// thinning from a per-variable alias table, so no step scans A[i].
//
// [Mixed] picks, per variable, a plain Gibbs update where the expected
// minibatch is not smaller than |A[i]| and a Poisson-Gibbs update elsewhere.
//
// For comparison, the MIN-Gibbs family of De Sa, Chen & Wong (ICML 2018),
// which the Poisson-Gibbs paper measures itself against: [MINGibbs] (global
// exponentially-unbiased energy estimates, cached for the current state),
// [MGPMH] (a local minibatch proposal corrected by Metropolis–Hastings with
// the exact energies of A[i]) and [DoubleMINGibbs] (the same proposal,
// corrected with a second, global estimate). All are exact; they pay for it
// with a Metropolis–Hastings step or with estimates over the whole graph
// (cost Ψ² rather than L²), and the estimates make the chains sticky unless
// their batches are large.
//
// Continuous variables are sampled by the six samplers of type
// [Continuous] (NewGibbsITS, NewGibbsDA, NewPGITS, NewPGDA,
// NewGibbsRejection, NewPGRejection): Chebyshev approximations of the
// conditional with inverse transform sampling and a Metropolis–Hastings
// correction, or rejection sampling, on exact or Poisson-minibatched
// energies.
//
// Cluster moves for ferromagnetic Potts and Ising models (with any unary
// terms, hard zeros and evidence) are [SwendsenWang] (Swendsen & Wang
// 1987) and [Wolff] (Wolff 1989), with their bonds drawn as a Poisson
// process (Fukui & Todo, J. Comput. Phys. 228, 2009): each pair gets
// Poisson(K_ij) bond events, so it is bonded with probability exactly
// 1 − e^{−K_ij} where its spins agree, and all the events of a sweep are one
// Poisson(Σ K_ij) count of alias-table picks. A Swendsen–Wang sweep so
// costs O(N + Σ_{i<j} K_ij), however long the range of the couplings, on a
// compiled graph or an implicit lattice alike (no pair is stored on a
// lattice); each step of either sampler may change many variables and
// returns −1 (chain.Any). A field-free cluster flips to another value (a
// lone variable without bonds is drawn among all its values instead, so
// that no chain is periodic), and a Wolff step makes a fixed number of
// clusters, tuned before the burn-in ([Wolff.TuneClusters]).
//
// Blocked Gibbs ([Blocked]; Jensen, Kong & Kjærulff 1995) draws a block of
// variables jointly from its full conditional by variable elimination and
// backward sampling, exactly: blocks of bounded elimination width
// ([blocks.Build]) or two interleaved spanning forests ([blocks.Forests];
// Hamze & de Freitas 2004) hold together what deterministic tables or
// strong couplings tie, which no single-site update can move. The factors
// crossing a block's boundary can enter through Algorithm 2's Poisson
// auxiliaries ([Boundary]), and each update reports every block variable's
// marginal given the outside for Rao–Blackwellised estimates. The
// registry's "auto" ([NewAuto]) runs blocks on models whose links
// would freeze single-site chains and [Mixed] elsewhere.
//
// Every constructor has the shape NewX(m factorgraph.Model, r *rand.Rand,
// opt *Options), opt nil meaning the defaults; [New] builds a sampler by
// name ([Names]) and [FactoryOf] returns a name's constructor as a
// [Factory].
//
// Hard factors (zeros of tables, constraints) are never minibatched: every
// sampler adds them exactly, so a chain never enters a state of zero
// probability. When the random initial state is impossible, the samplers
// search for a feasible one (factorgraph.Graph.FeasibleState); evidence
// variables are clamped and never resampled. A chain must also move: a
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
// Package mh's samplers are kernels too, so chain.Chain and chain.Runner run
// both families: burn-in, observers (chain.Marginals keeps run-average
// marginals at O(1) a single-site step), step or time budgets, cancellation,
// parallel chains on independent RNG streams (chain.Streams), checkpoints
// (every sampler of this package implements chain.Snapshotter). A [Chromatic]
// runs the workers a Factory builds on one shared state, updating the
// colour classes of a graph colouring in parallel, and is a Sampler itself;
// wrapped in a Sweeper, each of its steps is a parallel sweep.
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
// Options.MaxTries.
//
// Every sampler, a Chromatic and a Sweeper implement chain.Interrupter: a
// run cancelled through package chain stops inside a long step, within
// milliseconds, and the step leaves the sampler exactly as it was before it
// (an interrupted sweep puts back the variables it had updated), so a
// checkpoint taken then resumes bit for bit. During sampling every factor value is checked against
// its declared range (the check costs one comparison a value): a value
// outside it, NaN, or a conditional with no positive mass stops the chain,
// and Err reports it, naming the factor. All randomness comes from the
// *rand.Rand the caller passes: the same seed gives the same chain, bit for
// bit.
package gibbs
