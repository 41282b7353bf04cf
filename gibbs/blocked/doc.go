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
// Regions. A fixed cover can split a metastable region — strongly coupled
// variables that flip as one — so that every block holds part of it and
// the rest pins it. With [Config].Regions = K a sampler watches windows of
// its own sweeps ([K/2, K), [K, 2K), …, eight at most), links neighbours
// whose moves correlate, and adds a block over each linked set no block
// holds whole, within twice the cover's work (Turek et al. 2017 block by a
// pilot's correlations). The additions happen at fixed sweeps, so the chain
// after the last window is a fixed blocked Gibbs chain; snapshots carry
// them. On the UAI Segmentation_11 model (docs/uai.md) they cut the error
// of blocks of width 4 three to five times at the median.
//
// The block construction itself (widths, forests, frozen links) is package
// blocks'; Blocked is a gibbs.Sampler with the family's options, errors,
// interruption and snapshots (see package gibbs).
//
// Construction cost. Building a sampler is blocks.Build's work and the
// compilation of each block: reading every factor incidence of its
// variables once (a factor is read from the model once for all blocks),
// grouping the factors into potentials by the block variables they read,
// and an elimination order — the one Build found, or a min-fill or
// min-weight one searched within a bound linear in the block's graph. Build
// keeps the blocks' incidences within (2 + blocks.RecoverFactor) times the
// model's, so the whole construction is near-linear in the factors on
// dense models: on K_{250,250} (62 500 pair factors), 0.3–0.4 s at widths
// 4–16 where it took 16–33 s, 1.1–1.5 s on K_{500,500} where width 4 did
// not end in 15 minutes. [BuildCost] estimates it before anything is
// built, in the nanoseconds of package infer's cost model, so that a
// caller with a deadline can pass over a candidate it cannot afford.
// Every constructor looks at Options.Context about every millisecond of
// work — the frozen-link test, the blocks, their compilation — and
// returns its error, wrapped, once it is done (NewIfSticky too, rather
// than fall back to single-site updates).
package blocked
