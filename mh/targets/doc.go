// Package targets holds the posterior targets of the minibatch
// Metropolis–Hastings experiments (package mh): robust linear regression
// with Student-t errors, logistic regression, and the bias random-walk
// example of Zhang, Cooper & De Sa (NeurIPS 2020, §2.1). The truncated
// Gaussian mixture lives in package tgm.
//
// Every target implements mh.Target and the bound interfaces its
// experiments need:
//
//   - RobustLinear: ℓ_i(θ) = −((ν+1)/2) log(1 + (y_i − x_iᵀθ)²/ν) with a
//     flat prior (optionally restricted to a box). Local bounds
//     c_i = ((ν+1)/(2√ν))‖x_i‖₂, M = ‖θ − θ'‖₂ (TunaMH paper, App. J.2);
//     control variates with the remainder bounds of Prado, Nemeth & Sherlock
//     (Corollary 2: c_i^{(1)} = L1‖x_i‖², c_i^{(2)} = L2‖x_i‖³ with
//     L1 = sup|ℓ″| = (ν+1)/ν and L2 = sup|ℓ‴| in closed form) or of
//     Cornish et al. (Ū_{k+1,i} = L_k max_j |x_ij|^{k+1}); exact global ranges
//     when a box is set.
//   - Logistic: ℓ_i(θ) = log σ((2y_i − 1) x_iᵀθ), c_i = ‖x_i‖₂, L1 = 1/4,
//     L2 = √3/18, and the Jaakkola–Jordan quadratic lower bound FlyMC uses.
//   - Bias: θ ∈ {0, …, K−1}, ℓ_i(θ) = −θx_i/N with 5000 values −1 and 1000
//     values 5, so that the posterior is uniform; the lazy random-walk
//     proposal LazyWalk of the paper (its boundary moves are not symmetric).
//
// RobustLinear and Logistic also implement the batched fast paths
// mh.BatchLogLiker and mh.SumLogLiker (LogLik's values, bit for bit).
//
// Paper builds the TunaMH paper's experiments as `pgibbs mh` runs them:
// the target and its data, the start, the control variates' reference
// point, the proposal, and the paper's step sizes, χ and λ.
//
// Data generators take an explicit *rand.Rand.
package targets
