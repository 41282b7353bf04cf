// Package cluster holds cluster moves for ferromagnetic Potts and Ising
// models (with any unary terms, hard zeros and evidence; a table of two
// binary variables is an Ising pair with unary terms, accepted when its
// coupling J = (ℓ₀₀ + ℓ₁₁ − ℓ₀₁ − ℓ₁₀)/2 is not negative): [SwendsenWang]
// (Swendsen & Wang 1987) and [Wolff] (Wolff 1989), with their bonds drawn
// as a Poisson process (Fukui & Todo, J. Comput. Phys. 228, 2009).
//
// Each pair gets Poisson(K_ij) bond events, so it is bonded with
// probability exactly 1 − e^{−K_ij} where its spins agree, and all the
// events of a sweep are one Poisson(Σ K_ij) count of alias-table picks. A
// Swendsen–Wang sweep so costs O(N + Σ_{i<j} K_ij), however long the range
// of the couplings, on a compiled graph or an implicit lattice alike (no
// pair is stored on a lattice); each step of either sampler may change many
// variables and returns −1 (chain.Any). A field-free cluster flips to
// another value (a lone variable without bonds is drawn among all its
// values instead, so that no chain is periodic), and a Wolff step makes a
// fixed number of clusters, tuned before the burn-in
// ([Wolff.TuneClusters]).
//
// Both are gibbs.Samplers with the family's options, errors, interruption
// and snapshots (see package gibbs); they refuse models that are not
// ferromagnetic pairs, naming the factor. Construction costs O(N + Σ_i
// |A[i]|) and looks at Options.Context; Wolff's tuning takes a context of
// its own and looks at it between clusters (both about every millisecond
// of work), returning its error, wrapped, once it is done.
package cluster
