// Package lattice builds implicit translation-invariant lattice models —
// Potts, Ising and continuous spins on periodic lattices of dimension 1, 2
// and 3 with nearest-neighbour, Gaussian or long-range power-law couplings —
// as factorgraph.Model values whose pair factors are generated from a
// coupling kernel and never stored.
//
// # Model
//
// The sites are the N^d points of a d-dimensional torus (Params.Size = N,
// Params.Dim = d), numbered with axis 0 slowest: in 2-D, site (row, col) is
// row·N + col. The model is
//
//	π(x) ∝ exp(β Σ_{i<j} J(r_ij) f(x_i, x_j)) = exp(−β H(x)),   H(x) = −Σ_{i<j} J(r_ij) f(x_i, x_j),
//
// one pair factor φ_ij = βJ(r_ij)·f(x_i, x_j) per unordered pair {i, j},
// j ≠ i, with J(r_ij) ≠ 0, where the pair function f is
//
//   - δ(x_i, x_j) for q-state Potts spins x ∈ {0, …, q−1} (range [0, 1]), the
//     convention of package potts;
//   - s_i·s_j for Ising spins s = 2x − 1 ∈ {−1, +1} stored as x ∈ {0, 1}
//     (range [−1, 1]). Since s_i s_j = 2δ(x_i, x_j) − 1, the Ising model at β is
//     the 2-state Potts model at 2β, as in potts.Ising; energies and
//     magnetisations are reported in Ising units;
//   - x_i·x_j for continuous spins x ∈ [a, b] (range [min, max] of a², ab, b²).
//
// As factorgraph.NewPotts pairs W·δ, a Potts pair is W = βJ(r) and an Ising
// pair W = 2βJ(r) (up to a constant no conditional sees); the factorgraph
// package documentation tabulates the conventions of factorgraph, potts and
// lattice side by side ("Coupling conventions"), and TestCouplingConvention
// checks them.
//
// A factor's range is βJ·[fmin, fmax] (ordered by the sign of βJ), so
// M_φ = |βJ|·(fmax − fmin) and the engine sees φ̃ = M_φ·δ for Potts and
// Ising factors with βJ > 0, M_φ·(1 − δ) when βJ < 0 (antiferromagnetic
// couplings, from β < 0 or a kernel with negative values), and
// |βJ|·(x_i x_j − fmin) or |βJ|·(fmax − x_i x_j) for continuous spins.
// Discrete factors have an EvalAll fast path that writes one non-zero value.
//
// # Distances and offsets
//
// The distance r_ij is the minimal-image Euclidean distance on the torus:
// along each axis the coordinate difference c is taken as min(|c|, N − |c|),
// and r² is the sum of their squares, an integer. Every site sees the same
// list of K coupled offsets: one representative c_a ∈ (−N/2, N/2] per axis
// for each other site (so −⌊(N−1)/2⌋ … ⌊N/2⌋), keeping those with J ≠ 0
// within the kernel's reach and Params.Cutoff. The k-th factor of A[i] is
// the pair {i, i + o_k} (coordinates modulo N). Because each other site has
// exactly one representative, A[i] holds every coupled site exactly once; in
// particular on an even side the offsets +N/2 and −N/2 name the same site,
// and only +N/2 is listed, so that pair is coupled once, with J(N/2), not
// twice. The pair {i, j} is the k-th factor of A[i] and the k'-th of A[j],
// where o_k' ≡ −o_k, at the same distance, hence with the same value and
// range. Every site has the same L_i = L = Σ_k M_k and degree K.
//
// Couplings ([Coupling]; pgibbs lattice -kernel): [NearestNeighbour] (J = 1 at r = 1; sides N ≥ 3, so
// that the neighbours ±1 are distinct), [Gaussian] J = exp(−γr²), the
// Poisson-Gibbs paper's kernel (on the paper's 20×20 lattice with γ = 1.5 and
// β = 4.6 the periodic lattice has the paper's L = 5.0878 to 1e−9), and
// [PowerLaw] J = r^−(d+σ), σ > 0, which couples every one of the N^d − 1 other
// sites at its minimal-image distance ("full-torus sum": each pair once, at
// the nearest image; no sum over periodic images). Params.Cutoff > 0 keeps
// only the pairs with r ≤ Cutoff and makes any kernel finite-range.
//
// # Memory and cost
//
// Nothing of size n·K is stored. The model holds, per offset, its
// components premultiplied by the axes' strides and its signed bound ±M_k,
// and one Walker alias table over the offsets sorted by decreasing |J|
// (internal/compiled.TorusTable): a flat table of packed 40-byte columns over
// the 1024 heaviest offsets, which one 64-bit random word picks from and
// which stays in cache, with one bucket column for each tier of lighter
// offsets (tiers of 1024, 2048, 4096, … offsets, each with a flat table of
// its own, drawn from with a second word when its bucket comes up). One
// table serves every site. That is about 40 bytes an offset plus the
// free-variable list of n ints that factorgraph.Model requires: the
// 1000×1000 power-law lattice (K = 999 999 offsets, 5·10¹¹ implicit pair
// factors) takes 48 MB and is built in about 0.2 s (enumeration, an integer
// sort of the offsets by |J|, the alias tables). Neighbour(i, k) computes the
// coordinates of i with a multiplication-based division (no division
// instruction) and wraps the offset's components without a branch.
//
// For discrete spins the same arrays form a compiled.Torus (internal to the
// module: the Lattice holds it in package compiled's Form), which package
// gibbs's Gibbs and Poisson-Gibbs updates detect and run on directly: no
// interface call per factor, the neighbours computed inline,
// Potts and Ising pairs (whose φ̃ is M_k or 0) accumulated into per-value
// counts, the exact two-phase Poisson draw with precomputed generators
// (every site has the same L_i = L), and for nearest-neighbour Ising
// models a tabulated heat bath whose chromatic sweep runs within a factor
// 1.5 of a hand-written int8 checkerboard loop.
//
// A *Lattice is a factorgraph.Model, so every single-site sampler of package
// gibbs runs on it unchanged: Poisson-Gibbs touches O(λ + L) factors a step
// whatever K is, which is what makes 10⁶-site long-range models cost about
// what the paper's 400-site model does per step; plain Gibbs costs O(K). The
// MIN-Gibbs estimators, which need the global factor list, do not apply.
// A *Lattice also implements factorgraph.Adjacency, so chromatic.New can
// check a colouring, and [Lattice.Colouring] returns a proper colouring for
// finite-range kernels (a checkerboard for nearest neighbours on an even
// torus): colour classes are conditionally independent given the rest and
// are updated in parallel.
//
// # Observables
//
// [Lattice.Energy] is the exact energy per site H/n, O(n·K);
// [Lattice.EnergyMC] an unbiased Monte Carlo estimate from sampled pairs
// (a uniform site, an offset with probability |J_k|/Σ|J|), O(samples);
// [Lattice.Magnetisation] the order parameter: (q·max_v n_v/n − 1)/(q − 1) for
// Potts spins, |Σ s_i|/n for Ising spins, |Σ x_i|/n for continuous spins. A
// [Measurer] records the [Series] (energy, order parameter, M2 and SK) once
// a sweep, or once every k sweeps ([Measurer.SetEvery]): as a
// chain.Observer of single-site updates every n updates, of a chain whose
// steps are whole sweeps (a gibbs.Sweeper around a sampler or a Chromatic,
// a cluster sampler) every step. A measurement is one pass over the state
// with the neighbour arithmetic inline, the Fourier sums of SK taken from
// per-coordinate sums: on the 1000² nearest-neighbour Ising torus it costs
// about a tenth of a one-worker chromatic sweep (`go test -bench Measure
// ./lattice`), and [Measurer.SetWorkers] spreads it over goroutines. It
// computes the energy exactly when K ≤ [AutoExactOffsets] (the
// nearest-neighbour pairs in the same pass; other kernels O(n·K), a run of
// products a row and offset) and otherwise by EnergyMC with n pairs (O(n));
// the Monte Carlo noise is independent between measurements, so the
// binning error bars of [Measurer.Result] (diag.BinningEstimate over the
// per-sweep series) include it. Every estimate of the package is a
// diag.Estimate (mean, error, τ, plateau), and the generic estimators —
// binning, the plateau block of a blocked jackknife, the grouped jackknife
// variance, pooling of chains — are package diag's (diag.BinningEstimate,
// diag.PlateauBlock, diag.JackknifeVar, diag.PoolEstimates); this package
// adds the physics (which series, which ratios). [Measurer.Measure] checks a state it is
// given (CheckState); the state of a sweep it observes is trusted.
// [Measurer.Snapshot] and [Measurer.Restore] carry the series across a
// checkpoint (the Monte Carlo RNG is the caller's to save).
//
// The observables of finite-size scaling come from the Series of one or
// more independent chains ([Lattice.Observables], [ComputeObservables]):
// with e = H/n, M the order parameter and m² the squared vector
// magnetisation per measurement, ⟨|m|⟩ = ⟨M⟩, ⟨m²⟩, ⟨m⁴⟩, ⟨e⟩, the
// connected susceptibility χ = βn(⟨m²⟩ − ⟨|m⃗|⟩²), the disconnected
// χ' = βn⟨m²⟩, the specific heat C = β²n(⟨e²⟩ − ⟨e⟩²), the Binder cumulant
// U = 1 − ⟨m⁴⟩/(3⟨m²⟩²) and the second-moment correlation length ξ₂ (see
// [Observables] for the definitions in full), each with a blocked
// jackknife error and the τ of its linearised series, every measurement of
// every chain weighing the same. A [Reweighter] gives them at other β by
// single-histogram reweighting (Ferrenberg–Swendsen), inside a window
// where at least a tenth of the measurements carry the weights, and
// locates the peak of χ ([Reweighter.ChiPeak]) and the crossing of two
// sizes' Binder cumulants ([BinderCrossing]). For the Binder cumulant of
// a bare magnetisation series use [BinderCumulant]; Observables.Binder is the
// same estimate for Ising spins, computed from the Series with the other
// observables (for Potts spins it is that of the vector magnetisation).
//
// Critical points: the 2-D nearest-neighbour Ising model has
// β_c = ln(1 + √2)/2 = 0.4406868 (Onsager) in this package's convention
// (π ∝ exp(β Σ_{<ij>} s_i s_j)). For the power law with σ = 1 in 2-D
// (J(r) = r^−3 with J = 1 at r = 1 and π ∝ exp(β Σ_{i<j} J(r_ij) s_i s_j),
// the form J_ij = |r_ij|^−(d+σ) of Horita, Suwa and Todo; ΣJ over the
// infinite lattice is 4ζ(3/2)β(3/2) = 9.0336) the literature's value, as
// issue 25 quotes it, is β_c ≈ 0.126. `pgibbs reproduce fss` finds the
// Binder crossings of consecutive sizes from 16² to 96² drifting from
// 0.1273 to 0.1246 and the χ-peak positions extrapolating (linearly in
// 1/L) to 0.1249 (docs/RESULTS.md). The couplings here are taken at the
// minimal image only, so an L×L torus lacks the couplings beyond its
// square, 8√2/L of ΣJ (7.8% at L = 16, 1.3% at L = 96; CouplingSum): its
// pseudo-critical points lie above the infinite lattice's by a relative
// O(1/L), which an extrapolation in 1/L takes out.
//
// # Validation
//
// The tests check the invariants above on every dimension, kernel and
// parity of N; compare Poisson-Gibbs, Gibbs and MGPMH on tiny long-range
// lattices with exact enumeration (and reject lattices that list the
// offset N/2 twice or pick offsets not ∝ M); compare the 2-D
// nearest-neighbour Ising model with Onsager's energy and spontaneous
// magnetisation at β = 0.3 and 0.6; and check that the q = 3, 4 Potts models
// order above β_c = ln(1 + √q) and disorder below.
package lattice
