// Package blocked holds blocked Gibbs sampling ([Blocked]; Jensen, Kong &
// Kjærulff 1995): a block of variables is drawn jointly from its full
// conditional by variable elimination and backward sampling, exactly.
//
// Blocks of bounded elimination width (blocks.Build) or two interleaved
// spanning forests (blocks.Forests; Hamze & de Freitas 2004) hold together
// what deterministic tables or strong couplings tie, which no single-site
// update can move; [Config] bounds them, [New] builds them from the model
// and [NewWith] takes the caller's. The factors crossing a block's boundary
// can enter through Algorithm 2's Poisson auxiliaries ([Boundary]), and
// each update reports every block variable's marginal given the outside
// for Rao–Blackwellised estimates (Blocked.Conditionals). [NewIfSticky]
// is the registry's auto's half: blocks where single-site chains would
// freeze, none elsewhere.
//
// The block construction itself (widths, forests, frozen links) is package
// blocks'; Blocked is a gibbs.Sampler with the family's options, errors,
// interruption and snapshots (see package gibbs).
package blocked
