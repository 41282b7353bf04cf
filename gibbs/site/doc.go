// Package site holds the single-site samplers of Zhang & De Sa,
// "Poisson-Minibatching for Gibbs Sampling with Convergence Rate
// Guarantees" (NeurIPS 2019), on discrete variables of any
// factorgraph.Model.
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
// [Mixed] picks, per variable, the cheaper of a plain Gibbs update and a
// Poisson-Gibbs update by a cost model fitted on this project's benchmarks
// (never a minibatch larger than |A[i]|); it is what the registry's auto (gibbs/samplers) runs where
// blocks are not needed.
//
// All three are gibbs.Samplers and chain.Conditioners: with
// RecordConditionals on, each update reports the conditional it drew from,
// for Rao–Blackwellised marginals (chain.NewRBMarginals). On a
// *factorgraph.Graph and on a lattice they run on the compiled forms of
// the shared base (gibbs/internal/core), with no interface call per
// factor. Options, errors, interruption and snapshots are the family's
// (see package gibbs).
package site
