// Package exchange is replica exchange (parallel tempering) over the
// Gibbs family's samplers: the kernel for models with many valleys
// separated by barriers — spin glasses, strongly coupled models with weak
// fields, models whose modes differ by flipping hub variables — on which
// every local kernel freezes in one valley.
//
// K replicas sample the model at inverse temperatures 1 = β_0 > β_1 > … ≥
// 0 (factorgraph.Graph.Tempered: π^β on the states π allows, every hard
// constraint kept), each with a sampler of the family that can share its
// state (site updates, blocks, cluster moves: gibbs.Sharer), and
// neighbouring replicas exchange their states with the Metropolis
// probability of their energies, in deterministic even–odd rounds.
// Single-site replicas update the free variables in turn (a systematic
// scan; Options.RandomScan for the papers' random one). The β = 1 replica
// is a chain on the model: its marginals are the answer, Rao–Blackwellised
// where its sampler reports its conditionals. With Houdayer moves
// (Options.Houdayer) every rung has two replicas, Houdayer's cluster move
// runs between them where their clusters stay small. The chain's own
// replica may be of another kind than the others (Options.Cold; the
// registry's samplers.Config.ColdReplica): blocked Gibbs among plain Gibbs
// replicas Rao–Blackwellises the answer over its blocks while the cheap
// replicas carry states through the ladder.
//
// A swap needs the replicas' energies ℓ. Plain Gibbs replicas track theirs
// through their updates (site.Gibbs.TrackLogPotential: an update's change
// is U[new] − U[old] of the conditional it drew from), the Houdayer moves
// add the change of the factors their cluster reads, and the model is
// summed afresh only every 1024 rounds, against rounding drift: a round of
// swaps then costs O(K) instead of K sums over the model, and the rounds
// come four times a sweep, which carries twice the round trips through the
// ladder in the same time on 20×20 glasses. On models of binary variables
// with Potts pairs and fields (spin glasses, binary grids) a replica makes
// its share of a round in one loop and a Houdayer move grows and exchanges
// its cluster in one walk of the replica's rows, the energies summed
// without a branch: a replica update costs what a hand-written
// parallel-tempering loop's does (BenchmarkExchangeGlass in package bench).
//
// The ladder is tuned before New returns and fixed afterwards (an
// adaptive ladder must stop adapting before measurement begins): rungs
// with equal predicted swap acceptance, spaced evenly in the thermodynamic
// length ∫σ(β)dβ measured by two tuning rounds, as many as that takes,
// from β = 1 to 0, or with Options.HotTau to the coldest rung up to which,
// scanning from the hottest, each rung's replicas forget their energy on
// their own, without swaps, within HotTau sweeps (fewer rungs, more round
// trips, each bringing a state less fresh: an option, not the default).
// Diagnostics: Ladder (swap acceptance per pair), RoundTrips (walkers
// carried from β = 1 to the hottest rung and back: a ladder without them
// has not mixed), and the β = 1
// replica's verdict as for any chain.
//
// Where no hard factor reads a free variable, Z(0) is the number of
// states, and LogZ estimates log Z by bridge sampling between
// neighbouring rungs, with a batch-means standard error: the partition
// function where elimination cannot reach. Where the ladder stops short
// of β = 0 (HotTau), a log-Z tail carries the bridge on from its hottest rung to 0:
// replicas of their own on those temperatures, exchanging among
// themselves a round every eight of the ladder's, never with it, so that
// the chain is the ladder's alone.
//
// Exactness is tested as for every sampler of the family: the β = 1
// replica's visits and Rao–Blackwellised marginals against enumeration on
// random models with hard zeros and evidence and on frustrated glasses,
// with a fixed and a tuned ladder, over plain and blocked Gibbs and with
// a blocked chain among plain replicas (a chain at β = ½ rejected); a swap
// rule with the energy difference's sign wrong, and swaps accepted without
// the test, are rejected by the same check; the tracked energies are
// checked against sums over the model after every round, and energies
// that miss the Houdayer moves' changes are caught. The registry's "exchange"
// (gibbs/samplers) builds one over any discrete sampler it names.
package exchange
