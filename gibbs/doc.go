// Package gibbs holds the single-site samplers of this module: plain Gibbs
// sampling and Poisson-minibatching Gibbs sampling (Zhang & De Sa,
// "Poisson-Minibatching for Gibbs Sampling with Convergence Rate
// Guarantees", NeurIPS 2019), on any factorgraph.Model.
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
// # Running chains
//
// A [Sampler] advances by Step (random scan), Sweep (systematic scan) or
// Update(i). A [Runner] advances a sampler a number of updates, feeding
// [Observer]s such as [Marginals] (run-average marginals at O(1) a step),
// stopping on context cancellation or on the first sampler error, and runs
// independent chains in parallel goroutines (RunChains) with RNG streams
// from [Streams].
//
// # Errors and reproducibility
//
// Constructors return errors for options that cannot work (λ ≤ 0, a
// continuous variable for a discrete sampler, an initial state of zero
// probability, …). During sampling every factor value is checked against
// its declared range (the check costs one comparison a value): a value
// outside it, NaN, or a conditional with no positive mass stops the chain,
// and Err reports it, naming the factor. All randomness comes from the
// *rand.Rand the caller passes: the same seed gives the same chain, bit for
// bit.
package gibbs
