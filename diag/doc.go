// Package diag measures how well MCMC samplers do: errors of estimated
// marginals against exact ones, distances between histograms, and the
// convergence diagnostics Stan reports (ESS, R̂, Monte Carlo standard
// errors), plus the physicists' binning analysis.
//
// # Marginal errors
//
// A discrete model's marginals are given as [][]float64, one probability
// vector per variable (domain sizes may differ). [MarginalL2] is the mean
// over variables of ‖p̂_i − p_i‖₂, the metric of Fig. 1 of Zhang & De Sa,
// "Poisson-Minibatching for Gibbs Sampling with Convergence Rate Guarantees"
// (NeurIPS 2019); [MarginalAbs] is the mean and maximum of |p̂_i(v) − p_i(v)|
// over all (variable, value) pairs, the convention of the UAI inference
// evaluations. The ...Vars variants restrict both to a set of variables, so
// that evidence variables can be left out. Malformed marginals (length
// mismatches, NaN or negative entries, vectors that do not sum to 1) are
// errors that name the variable.
//
// # Histograms and distances
//
// [Hist1D] and [Hist2D] count samples in equal-width bins on [lo, hi] and
// on a rectangle, without allocating; samples outside the range are counted
// apart and stay in the normalisation, so lost mass is visible rather than
// silently dropped. [TotalVariation] and [SymmetricKL] compare two
// histograms (or any two discrete distributions on the same bins, counts or
// probabilities); SymmetricKL smooths both by adding eps to every
// normalised bin and renormalising, and that rule is part of its result.
//
// # Convergence diagnostics
//
// Draws of one quantity are given as chains × draws. The definitions are
// those of Stan, as written in Vehtari, Gelman, Simpson, Carpenter &
// Bürkner, "Rank-normalization, folding, and localization: An improved R̂
// for assessing convergence of MCMC", Bayesian Analysis 16(2), 2021, in the
// Stan Reference Manual's "Effective sample size" section, and in the
// posterior R package, whose numbers the tests reproduce to 1e−10:
//
//   - chains are split in half, so that a trend within a chain shows up as
//     disagreement between chains;
//   - [Autocorrelation] computes autocorrelations with gonum's FFT
//     (dsp/fourier), zero-padded so that there is no circular wrap;
//   - [ESS] combines within- and between-chain variance,
//     ρ̂_t = 1 − (W − mean_m γ̂_{t,m})/var⁺, and sums the ρ̂_t with Geyer's
//     initial monotone sequence; [MCSE] = sd/√ESS;
//   - [BulkESS] is the ESS of rank-normalised draws and [TailESS] the smaller
//     ESS of the 5% and 95% quantile indicators;
//   - [RHat] is the larger of the rank-normalised split-R̂ and the
//     rank-normalised split-R̂ of the draws folded about their median;
//     [SplitRHat] is the classic split-R̂ of Gelman et al. (BDA3);
//   - [Summarize] returns all of them at once, and [SummarizeUnequal] does
//     for chains of unequal lengths (stopped by a time limit), truncating
//     every chain to the shortest one's length, the standard rule for R̂.
//
// As in Stan, these are NaN when every draw is the same value (the
// quantity may be constant by construction or the sampler may be stuck; the
// diagnostics cannot tell), and R̂ is +Inf when each chain is constant but
// the chains differ. Too few draws, chains of unequal lengths (except for
// SummarizeUnequal) and NaN or infinite draws are errors. Package chain's
// Trace and ScalarTrace record draws, and chain.TraceChains and
// chain.ScalarChains put several chains' draws in this layout.
//
// [BinningError] estimates the standard error of the mean of one correlated
// series by averaging it in blocks of doubling size (Flyvbjerg & Petersen
// 1989) and picks the plateau of the resulting curve by the criterion of
// Lee et al. (2011); it returns the whole curve as well.
//
// # Estimates
//
// [Estimate] is the module's one value-with-error-bar type (mean, standard
// error, τ, whether the binning found its plateau); package lattice's
// observables are Estimates. [BinningEstimate] is a series' mean with its
// binning error; a function of means (a ratio, a variance) takes a blocked
// jackknife, blocks of [PlateauBlock]'s length and [JackknifeVar]'s grouped
// variance; [PoolEstimates] combines independent chains' estimates.
//
// Only the histograms' Add methods are meant for the sampling loop; the
// other functions run once per analysis and allocate what they need.
package diag
