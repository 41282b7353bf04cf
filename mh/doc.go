// Package mh implements minibatch Metropolis–Hastings samplers for
// posteriors that are a product of many likelihood terms,
//
//	π(θ) ∝ π0(θ) · exp(Σ_{i<N} ℓ_i(θ)),
//
// in the log-likelihood sign convention of the design handbook (the TunaMH
// paper's energies are U_i = −ℓ_i). A Target supplies the dimension, N, the
// log prior and the per-datum log-likelihoods; the samplers that avoid
// touching all N terms per step need more, which the target declares
// through optional interfaces:
//
//   - LocalBounder, Assumption 1 of Zhang, Cooper & De Sa (NeurIPS 2020):
//     |ℓ_i(θ) − ℓ_i(θ')| ≤ c_i M(θ, θ');
//   - Ranger, global ranges lo_i ≤ ℓ_i ≤ hi_i;
//   - ControlVariates, gradients and Hessians for Taylor control variates
//     around a reference point θ̂ and a bound |r_i| ≤ c_i φ(θ̂; θ, θ') on the
//     remainder;
//   - LowerBounder, per-datum lower bounds for Firefly Monte Carlo.
//
// Two more optional interfaces are fast paths, not bounds: BatchLogLiker
// (many terms in one call) and SumLogLiker (the full-data sum). A target
// whose terms cost a few transcendental functions evaluates a batch about
// twice as fast as one LogLik call at a time (the calls of a batch overlap
// in the processor; no interface call per datum); MH's full-data sums, the
// full-data fallback steps, Poisson-MH's kept set and FlyMC's bright set
// use them. They must return LogLik's values bit for bit, so the chain is
// the same whichever path evaluated a term (tgm.Target, targets.RobustLinear
// and targets.Logistic implement both).
//
// # Samplers
//
// Exact (π is the stationary law):
//
//   - MH: standard MH, N evaluations per step.
//   - PoissonMH: Poisson-MH (TunaMH paper, Algorithm 3) with global ranges;
//     auxiliary s_i ~ Poisson(λM_i/L + φ_i(θ)).
//   - TunaMH: Algorithm 2 (χ form) and Algorithm 4 (constant λ); local
//     Poisson variables s_i ~ Poisson(χc_iCM² + ½(ℓ_i(θ) − ℓ_i(θ') + c_iM)),
//     E[B] = χC²M² + CM, asymptotically optimal among stateless exact
//     minibatch MH methods (its Theorem 3).
//   - TFMH (Cornish et al. 2019): factorised MH by Poisson thinning with early
//     rejection; SMH-1/SMH-2 (NewSMH, Options.Order 1 or 2): TFMH with
//     first/second-order control variates.
//   - MHSS (Prado, Nemeth & Sherlock 2024): MH-SS-1/MH-SS-2 (NewMHSS,
//     Options.Order 1 or 2), delayed acceptance with the control-variate
//     surrogate in stage 1 and Poisson auxiliaries s_i ~ Poisson(c_iφ − r_i⁺)
//     (γ = 0) in stage 2.
//   - FlyMC (Maclaurin & Adams 2014): brightness variables over lower bounds,
//     the bright set kept in index arrays with geometric skips.
//
// Approximate (biased, for comparison):
//
//   - Barker: the minibatch Barker test of Seita, Pan, Chen & Canny with the
//     correction distribution computed by their regularised deconvolution
//     (BarkerTable).
//   - Austere: AustereMH (Korattikara, Chen & Welling 2014), a sequential
//     t-test.
//
// Every constructor has the shape NewX(t Target, r *rand.Rand, o *Options),
// the shape of package gibbs's constructors, with a nil o meaning the zero
// Options and a nil Options.Init the zero vector; the registry has
// gibbs's shape too: New builds any sampler by name, Names lists the names
// (smh1, smh2, mhss1 and mhss2 set Options.Order), FactoryOf returns a
// name's Factory. The contract is package chain's, stated once for both
// families: a Sampler is a chain.Kernel (its Step returns chain.Any: the
// whole state may have changed) and a chain.Interrupter, and every sampler
// is also a chain.Snapshotter and a chain.Counter.
//
// # Poisson minibatches
//
// PoissonMH, TunaMH, TFMH, SMH and MH-SS all need independent counts
// s_i ~ Poisson(rate_i) with rate_i ≤ total·w_i/W. They draw them by
// thinning with internal/minibatch, the one implementation of that
// mechanism in this module: B ~ Poisson(total), B picks i ~ w_i/W from a
// Walker alias table built once, each kept with probability
// rate_i/(total·w_i/W). A step costs O(B) evaluations, independent of N.
// TFMH and SMH stop at their first rejection event, so they draw B and the
// picks from the same primitives without the aggregation.
//
// # Conventions
//
// Proposals return the log proposal ratio log q(θ|θ') − log q(θ'|θ), the
// convention of eq. (1) of the TunaMH paper, under which its reversibility
// proofs hold (its printed Algorithms 2–4 invert the ratio). The default
// proposal is a Gaussian random walk (GaussianRW); any Proposal can be
// plugged in (the bias example uses a lazy walk on integers). The prior
// enters every acceptance ratio exactly rather than being folded into the
// likelihood terms. Proposals outside the support (LogPrior = −Inf) are
// rejected before any data is touched, which matters for bounds that hold
// only on a bounded support (the truncated mixture's box).
//
// Each sampler reports Stats (Stats.Add sums those of several chains;
// AcceptanceRate is Accepted/Proposals, as in package gibbs), with the
// batch size as its own paper defines it: N for MH, B (picks before thinning) for TunaMH and Poisson-MH, picks
// evaluated until the first rejection event for TFMH/SMH, bright points for
// FlyMC, the expected batch Cφ (capped at N) for MH-SS, and the final
// minibatch size for the Barker test and AustereMH.
//
// # Bad bounds are errors
//
// A declared bound that the data violate (|ℓ_i(θ') − ℓ_i(θ)| > c_iM, a keep
// probability outside [0, 1], ℓ_i outside its declared range, a lower bound
// above ℓ_i) or a NaN makes the chain silently wrong, so the sampler records
// an error, available from Err, and stops moving. Bounds are checked on
// every datum a step evaluates, with a relative slack of 10⁻⁹ for rounding.
//
// # Interruption and bounded steps
//
// Every sampler implements chain.Interrupter: SetInterrupt gives it a
// channel whose closing stops a step. The long loops of a step (MH's pass
// over the data, the full-data fallback steps, the Poisson minibatch draws
// and the sums over their kept items, TFMH's picks, FlyMC's brightness and
// θ updates, the growing minibatches of the Barker test and AustereMH)
// look at the channel every 4096 data or draws, so a step stops within
// milliseconds. An interrupted step returns chain.Aborted and leaves
// θ, Stats and everything carried from step to step as before the step:
// most samplers change nothing of that before the step ends; FlyMC logs the
// changes of its bright set and AustereMH the swaps of its permutation, and
// undo them. The random source is restored by the caller
// (chain.Chain.Advance), so a checkpoint taken then resumes bit for bit.
// With a nil channel (the default) a look costs one comparison, and the
// chain is the same with or without a channel.
//
// Options.MaxDraws (DefaultMaxDraws = 10⁷ data; the name of gibbs's limit,
// counted here in data) bounds the expected work of
// a step: constructors refuse a sampler whose expected batch is known up
// front to exceed it, and a step whose batch depends on the state and
// would exceed it records an error before touching the data (see the
// field's comment).
//
// # Randomness and cost
//
// Every random number comes from the *rand.Rand given to the constructor;
// equal seeds give identical chains. After construction a step allocates
// nothing (the benchmarks report allocs/op).
//
// # Runs
//
// Package mh/run runs a sampler's chains on a target — streams, burn-in,
// running means, traces, verdict, pooled counters — in one call (run.Run),
// or builds them for a caller's own chain.Runner; `pgibbs mh` is that
// package behind flags.
//
// References: Zhang, Cooper & De Sa, "Asymptotically Optimal Exact Minibatch
// Metropolis-Hastings", NeurIPS 2020; Zhang & De Sa, "Poisson-Minibatching
// for Gibbs Sampling with Convergence Rate Guarantees", NeurIPS 2019;
// Cornish, Vanetti, Bouchard-Côté, Deligiannidis & Doucet, "Scalable
// Metropolis-Hastings for Exact Bayesian Inference with Large Datasets",
// ICML 2019; Prado, Nemeth & Sherlock, "Metropolis–Hastings with Scalable
// Subsampling", 2024; Maclaurin & Adams, "Firefly Monte Carlo", UAI 2014;
// Seita, Pan, Chen & Canny, "An Efficient Minibatch Acceptance Test for
// Metropolis-Hastings", UAI 2017; Korattikara, Chen & Welling, "Austerity in
// MCMC Land", ICML 2014.
package mh
