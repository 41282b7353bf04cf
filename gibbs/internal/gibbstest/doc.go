// Package gibbstest is the exactness harness the Gibbs family's tests
// share: random test graphs small enough to enumerate (Graph, Graphs,
// RandomGraph, RandomClusterGraph, ContGraphs, lattices), their exact
// joint and marginals (Enumerate, MarginalsOf, LatticePi), the batch-means
// z-scores that compare a chain's marginals with them (Exactness, BatchZ,
// LatticeZ, RBZ, ZLimit), the checks that every sampler passes and every
// deliberately broken variant fails (CheckExact, CheckBroken), and the
// interruption helpers (AbortOnce, SnapshotOf). It is imported by tests
// only.
package gibbstest
