// Package chromatic runs a Gibbs-type sampler in parallel: a [Chromatic]
// holds one worker per RNG, each built by a gibbs.Factory, on one shared
// state, and updates the colour classes of a graph colouring one after
// the other, each class's variables split among the workers. Variables of
// one class share no factor, so updating them at once is the same chain as
// updating them in turn: the result is exact, and the same seeds give the
// same chain, bit for bit.
//
// Workers must be gibbs.Workers whose updates read only A[i] (gibbs,
// pgibbs, auto, mgpmh or a continuous sampler, or a user's own sampler
// that meets the contract); a Chromatic is a gibbs.Sampler itself, and
// wrapped in a gibbs.Sweeper each of its steps is a parallel sweep. It
// implements chain.Interrupter and chain.Snapshotter: an interrupted sweep
// puts back what it changed. The family's samplers run in their own loops
// (the torus loop of a lattice, which journals as it goes, and walks a
// share of the checkerboard of the 2-D Ising torus row by row); a user's
// worker is run through its methods, a variable at a time, the Chromatic
// journalling its share and looking at the interrupt channel between
// blocks of variables.
package chromatic
