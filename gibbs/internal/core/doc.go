// Package core is the base every Gibbs-type sampler of the module embeds
// ([Core]): the chain's state and counters, the random scan and the
// systematic sweep, the checks and work limits of the constructors
// (limits.go), the exact conditional update (exact.go), the Poisson
// minibatch of Algorithm 2 ([PGState], poisson.go), the compiled fast
// paths on a *factorgraph.Graph (compiled.go) and a lattice (torus.go),
// interruption (step.go), Rao–Blackwellisation (conditional.go) and
// snapshots (snapshot.go).
//
// The samplers' packages (gibbs/site, gibbs/mingibbs, gibbs/continuous,
// gibbs/cluster, gibbs/blocked, gibbs/chromatic) embed Core under an
// unexported name, so its members are theirs and not part of their
// documented API; package gibbs states the contract they meet.
package core
