// Package potts builds Potts models as factor graphs.
//
// The q-state Potts model on sites i = 0, …, n−1 with couplings J_ij ≥ 0 is
//
//	π(x) ∝ exp(β Σ_{i<j} J_ij δ(x_i, x_j)),   x_i ∈ {0, …, q−1},
//
// one pair factor β·J_ij·δ(x_i, x_j) per coupled pair, range [0, βJ_ij].
//
// [New] builds the model of the Poisson-Gibbs paper (Zhang & De Sa, NeurIPS
// 2019, §4.1, following De Sa, Chen & Wong 2018): an N×N lattice, every pair
// of sites coupled by a Gaussian kernel J_ij = exp(−γ·((Δrow)² + (Δcol)²))
// (open boundaries), with N = 20, q = D = 10, β = 4.6 and γ = 1.5 in [Paper].
// Its local maximum energy is L = 5.0878 (the paper prints 5.09), while each
// site has 399 factors: the regime where Poisson-minibatching pays. By the
// symmetry of the q colours every exact marginal is uniform, 1/q, so the ℓ2
// distance of estimated marginals to uniform measures convergence. Pairs
// whose kernel underflows to exactly 0 in float64 (γd² > 745) are constants
// and are left out.
//
// [NearestNeighbour] builds the short-range model on a periodic N×N torus
// (J_ij = 1 for the four neighbours of each site), and [Ising] the Ising
// model as the q = 2 Potts model (β_Potts = 2β_Ising, since
// 2δ(s,t) = 1 + s·t for spins ±1).
//
// [Sparse], [PowerLaw] and [Bipartite] draw pairwise models with no
// locality to find — random sparse graphs, Chung–Lu graphs with a
// power-law tail of degrees, the complete bipartite K_{m,m} — as [Pairs],
// arrays ready for factorgraph.Builder's bulk path: the shapes of the
// scale study (`pgibbs reproduce scale`) and of bench's BenchmarkSparse.
package potts
