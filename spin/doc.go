// Package spin builds the continuous spin model of the Poisson-Gibbs paper
// (Zhang & De Sa, NeurIPS 2019, §4.2) as a factor graph:
//
//	π(x) ∝ exp(Σ_{i<j} β·A_ij·(x_i x_j + 1)),   x_i ∈ [0, 1],
//
// one pair factor for every pair of sites of an N×N lattice, with range
// [βA_ij·(1 + min x_i x_j), βA_ij·(1 + max x_i x_j)] = [βA_ij, 2βA_ij] on
// [0, 1].
//
// The paper gives β = 1 and L = 13.71 on its lattice but not the couplings
// A. We use the Gaussian kernel of its Potts experiment, A_ij =
// exp(−γ·d²_ij) on a 20×20 lattice with open boundaries, with the width γ
// chosen so that L = 13.71: [PaperGamma] solves L(γ) = 13.71 by bisection,
// γ ≈ 0.2136. Then Δ = 399 and every site's factors sum to at most 13.71,
// so Poisson-Gibbs with λ = L² touches about λ + L ≈ 202 factors a step
// where plain Gibbs touches 399.
package spin
