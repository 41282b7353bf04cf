// Package glass builds the two-dimensional Edwards–Anderson ±J Ising spin
// glass in a random field as a factor graph: the standard hard target for
// replica exchange (parallel tempering; Swendsen & Wang 1986, Geyer 1991,
// Hukushima & Nemoto 1996).
//
// # Model
//
// The sites are the L×L points of a square lattice, site (row, col)
// numbered row·L + col, with free boundaries, or periodic ones (a torus)
// when Spec.Periodic is set. Each site holds a binary variable x_i ∈ {0, 1},
// the spin s_i = 2x_i − 1 ∈ {−1, +1}. The Edwards–Anderson glass (Edwards &
// Anderson 1975) couples nearest neighbours by quenched random couplings
// J_ij = ±1, each sign with probability 1/2, and adds quenched random fields
// h_i ~ N(0, σ²), σ = Spec.FieldSD:
//
//	π(s) ∝ exp(−βE(s)),   E(s) = −Σ_<ij> J_ij s_i s_j − Σ_i h_i s_i,
//
// the sum over the bonds <ij> between nearest neighbours: 2L(L−1) of them
// with free boundaries, 2L² on the torus. In two dimensions the glass has
// no phase transition at positive temperature, but its relaxation slows
// steeply as β grows (frustrated plaquettes, a rugged energy landscape):
// single-site Gibbs sampling at β = 2 or 3 stays for long stretches near
// one of many low-energy states. The fields break the s → −s symmetry, so
// the marginals are not all ½.
//
// # Instances
//
// A Spec fixes an instance: [Draw] draws the couplings and fields from
// rand.New(rand.NewPCG(Spec.Seed, Stream)) in a fixed order — first one
// coupling per bond, in the order of [Instance.Bonds] (by site, the bond to
// the right neighbour, then the bond to the neighbour below), J = +1 when
// IntN(2) is 1 and −1 when it is 0; then one field per site in site order,
// h_i = FieldSD·NormFloat64(). The same Spec gives the same instance on
// every run and machine; the couplings do not depend on β or FieldSD.
// With Periodic and L = 2 the wrap-around bonds join the same pairs as
// the inner ones, so each of those pairs has two bonds with independent
// couplings (its total coupling is −2, 0 or 2).
//
// # As a factor graph
//
// [New] (and [Instance.Graph]) builds, for each bond in order, the Potts
// pair W·δ(x_i, x_j) with W = 2βJ_ij (factorgraph.Builder.AddPottsPairs,
// the samplers' cheapest pair form; W < 0 for an antiferromagnetic bond),
// then, for each site with h_i ≠ 0 in site order, the one-variable table
// (−βh_i, +βh_i) over x_i = 0, 1 (factorgraph.Builder.AddTables), which is
// βh_i·s_i exactly. Since s_i s_j = 2δ(x_i, x_j) − 1 (the convention of
// potts.Ising and package lattice), each pair factor is βJ_ij·s_i s_j +
// βJ_ij, so the graph's log-potential is
//
//	Σ_φ φ(x) = −βE(s) + C,   C = β Σ_<ij> J_ij = [Instance.LogZShift],
//
// a constant no conditional and no sampler sees, and the graph's log
// partition function (elim's, infer's and the UAI PR task's log Z) is
// log Z_graph = log Z + C, where log Z = log Σ_s exp(−βE(s)) is that of
// the formula. A UAI model written from the graph has the same C.
package glass
