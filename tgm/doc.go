// Package tgm is the truncated Gaussian mixture of the Poisson-Gibbs paper
// (Zhang & De Sa, NeurIPS 2019, §4.3) and of the minibatch MH papers (Zhang,
// Cooper & De Sa, NeurIPS 2020, §5.2; Seita et al. §6.1), after Welling &
// Teh (2011).
//
// Data y_1..y_N are drawn from
//
//	y_i ~ ½ N(x1, σ_y²) + ½ N(x1 + x2, σ_y²),  σ_y² = 2,  (x1, x2) = (0, 1),
//
// and the parameter (x1, x2) is restricted to a box ([−6, 6]² in the Gibbs
// paper, [−3, 3]² in the MH papers). The posterior is tempered by β (10⁻⁴ in
// all three papers, with N = 10⁶): each likelihood term is
//
//	ℓ_i(x1, x2) = β · log(½ N(y_i; x1, σ_y²) + ½ N(y_i; x1 + x2, σ_y²)),
//
// normalising constant included. The prior is flat on the box (the TunaMH
// paper) or x1 ~ N(0, 10), x2 ~ N(0, 1) restricted to the box (the Gibbs
// paper; the prior is not tempered). The posterior has modes near (0, 1)
// and (1, −1).
//
// # Ranges
//
// A factor-graph sampler (Poisson-Gibbs) needs, for every datum, the exact
// range [lo_i, hi_i] of ℓ_i over the box. With u = x1 ∈ [a1, b1] and
// v = x1 + x2 ∈ [u − w, u + w] for a symmetric x2-range [−w, w], the mixture
// density is f = ½φ(y − u) + ½φ(y − v) and both extremes have closed forms:
//
//   - max: u* = clamp(y, a1, b1), v* = clamp(y, u* − w, u* + w). The first
//     term is largest at u*, and the second term's best value,
//     φ(max(0, |y − u| − w)), is also largest when |y − u| is smallest.
//   - min: for fixed u the second term is unimodal in v, so its minimum is at
//     the endpoint farther from y, giving ½φ(y − u) + ½φ(|y − u| + w), which
//     decreases in |y − u|: the minimum is at the end of [a1, b1] farther from
//     y, with v = u ± w farther from y.
//
// (With an asymmetric x2-range the minimum over x1 can be interior, between
// the two bumps; New therefore requires a symmetric x2-range, which covers
// the papers' boxes.) Ranges are widened by a relative 10⁻¹² so that every
// floating-point evaluation of ℓ_i lies inside them; computing them costs a
// few exponentials per datum (tens of milliseconds for N = 10⁶).
//
// # Bounds for minibatch MH
//
// Target adapts a Model to package mh. Its local bounds are those of the
// TunaMH paper (App. J.3), generalised to the box: with W1 = max|x1| and
// W12 = max|x1 + x2| on the box,
//
//	c_i = β √(((2|y_i| + W1 + W12)/σ²)² + ((|y_i| + W12)/σ²)²),  M = ‖θ − θ'‖₂,
//
// (W1 = 3, W12 = 6 on [−3, 3]²), and its second-derivative bound is the
// paper's Ū_{2,i} = ((2|y|+W1+W12)/σ²)² + ((|y|+W1)/σ²)² + ((|y|+W12)/σ²)² + 2/σ²,
// scaled by β, used as the first-order control-variate remainder bound
// |r_i| ≤ ½βŪ_{2,i}(‖θ−θ̂‖₁² + ‖θ'−θ̂‖₁²) of SMH-1 and, at θ̂ = θ⁰, as FlyMC's
// lower bound. These bounds are loose (the true ones are several times
// smaller) but they are the ones behind the paper's Table 1 batch sizes.
//
// # Batched evaluation
//
// A term costs one exp and one log1p (log-sum-exp of the two components).
// One at a time, each log1p waits for its exp and consecutive terms
// overlap little; the batched kernels (LogLikSection, LogLiks, SumLogLik)
// compute the exponents of a block, then all its exps, then all its
// log1ps, which runs about twice as fast with the same arithmetic, so they
// return LogLik's values bit for bit. The factor graph's data and prior
// factors implement factorgraph.Sectioner with them (the continuous Gibbs
// samplers evaluate a factor at all their Chebyshev nodes in one call),
// and Target implements mh.BatchLogLiker and mh.SumLogLiker.
package tgm
