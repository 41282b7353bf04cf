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
// gibbs/cluster, gibbs/blocked) hold a Core in a [Base], which has no
// exported field or method: embedded in the package's base type, it
// promotes nothing into the samplers' API. The package reads its Core
// through [In]; its base type, which genbase writes (go generate here),
// declares the methods of the family's contract that the samplers share,
// one-line forwards to the Core, so that go doc lists them on every
// sampler. gibbs/chromatic finds the Core of a worker of the family
// through [Of] and runs its journal and interruption directly. Package
// gibbs states the contract the samplers meet.
package core
