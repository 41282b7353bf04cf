// Package bp runs loopy belief propagation — the sum-product algorithm of
// Pearl (1988) on a factor graph (Kschischang, Frey and Loeliger 2001) —
// on the discrete variables of a *factorgraph.Graph, and returns the
// beliefs at its fixed point.
//
// On a graph without cycles the beliefs are the exact marginals. On a
// loopy graph they are an approximation (the stationary points of the
// Bethe free energy, Yedidia, Freeman and Weiss 2005): excellent where the
// loops are weak or the evidence pins most variables, as on many
// pedigrees, and badly wrong on frustrated models with strong couplings,
// where the iteration may not even converge. Nothing in the beliefs says
// which case holds. This library does not report them as marginals: the
// default answer (package infer) uses them as a target that its sampled
// marginals are shrunk toward, by a weight the sampled run itself
// estimates (James–Stein): a target the samples contradict gets no weight.
//
// The default schedule is sequential (each factor in turn sends to all
// its variables, from the messages its variables have now), which
// converges where the parallel one oscillates more often; after half the
// iterations allowed without convergence the messages are damped by a
// half. The residual schedule (Elidan, McGraw and Koller 2006) updates
// the factor whose messages would change most next and converges on more
// loopy graphs: on the UAI 2014 pedigrees linkage_16 and linkage_20,
// where the sequential one does not, to libDAI's BP scores within a
// point. A variable's message to a factor is its belief divided by that
// factor's message (O(d), not O(d·degree)), recomputed as a product
// where a zero forbids the division: on the RBMs K₂₅₀,₂₅₀ of `pgibbs
// reproduce dense` it converges in 78 and 124 ms (`go test -run '^$'
// -bench Run ./bp`), where the product over every other factor took 1.1 s. Tables
// are tabulated once in linear space (exp of each factor's log-potential
// less its maximum), so the hard zeros of constraint tables stay exact
// zeros, and every message is normalised to sum 1.
package bp
