// Package blocks builds the blocks of blocked Gibbs sampling: sets of
// variables that an update draws jointly, chosen on the interaction graph
// of a factor graph's free variables (i and j linked when a factor holds
// both). It is graph algorithms only — no sampling: blocked.Blocked runs the
// blocks, package elim provides the elimination orders and widths both
// share.
//
// [Build] grows width-bounded blocks Kruskal-style along the deterministic
// links (hard factors with zeros) and then the strongest ones, each block
// within [Config]'s elimination width, table size and variable count, then
// extends them into their neighbours where that keeps the bounds. [Forests]
// builds two interleaved spanning forests instead (Hamze & de Freitas
// 2004): on a grid, the two combs, each tree a block of width 1.
//
// Frozen links. A hard factor can fix one of its variables given the
// others (the equality x0 = x1): an update set that holds the variable but
// not the rest of the factor's scope never changes it, and a chain of such
// updates is reducible. [FrozenSite] finds such a variable for single-site
// updates, [CheckCover] refuses a user's blocks that leave one frozen, and
// Build and Forests add a block of the factor's variables wherever their
// bounds would split it. [Check] validates a user's cover (free, discrete,
// every free variable covered), and [Stickiness] measures the share of
// deterministic and strong links: where single-site chains freeze and blocks
// pay (the registry's auto of package gibbs reads it).
//
// Cost. A block is checked against its bounds by the cliques of an
// elimination order, kept up to date as the block grows: a variable
// appended to the order changes only the cliques on its paths to the root
// of the elimination tree (Liu 1990), one prepended whose neighbours are a
// clique already changes none, and a whole order is rebuilt in O(|E| +
// width·size) — where a check used to simulate the block's whole
// elimination, so that growing a block of k variables cost k such
// simulations and, on a dense graph, every variable outside it too. What
// remains is bounded:
//
//   - two cores that failed to merge are never tried again, nor are the
//     cores that hold them later;
//   - the blocks' factor incidences beyond one cover of each variable are
//     at most RecoverFactor = 4 times the model's (on K_{n,n} a block of
//     width w holds w variables of one side and all of the other, and n/w
//     such blocks each touched the whole model);
//   - the fresh min-fill orders tried where the incremental ones fail
//     read at most a fixed 3·10⁷ adjacency entries plus 200 a factor
//     incidence, each at most 2²³, and are skipped where the least degree
//     exceeds the width (a lower bound on the treewidth).
//
// So Build costs O(Σ_φ |φ|² + E log E) for the E linked pairs, and its
// blocks' growth O(Σ_i |A[i]|·log) plus checks whose total is O(n·MaxVars)
// at worst on sparse models of wide blocks (infer's candidates bound
// MaxVars on large models) and near-linear in the factors on dense ones:
// on K_{250,250} (62 500 pair factors) at widths 4–16, 0.1–0.3 s where it
// took 6–24 s, growing as the factors to K_{500,500}. [EstimateWork] gives
// the cost before a build starts, from the variables' degrees alone.
//
// Every function that can run long — Build, Forests, CheckCover,
// FrozenSite, Stickiness — takes a context and looks at it about every
// millisecond of work (package internal/meter; the frozen-link searches
// through factorgraph.Graph.FeasibleStateGiven), returning its error
// wrapped (errors.Is sees context.Canceled or context.DeadlineExceeded).
// An elimination order's search does not look at it and is bounded
// instead (at most 2²³ adjacency entries read in Build). Check reads the
// blocks once and takes none.
package blocks
