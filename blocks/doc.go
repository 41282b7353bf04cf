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
package blocks
