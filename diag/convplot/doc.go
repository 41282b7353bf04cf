// Package convplot draws the pictures of convergence that ArviZ and Stan
// users read next to the numbers of package diag: trace plots, rank plots
// and the running split-R̂, each as PNG and SVG, with gonum.org/v1/plot.
//
// The input is a set of tracked scalar quantities (a variable's value, the
// energy, the magnetisation, …), each sampled by K ≥ 1 chains; see
// [Quantity]. [Write] draws at most [Options.Max] of them, those with the
// largest split-R̂ (the worst mixed), into an existing directory.
//
// # Why pictures
//
// R̂ and the effective sample size compress a run into two numbers. They
// are what one should act on, but they cannot tell why a run failed: a
// chain that never left its starting mode, chains that agree on the
// location but not on the spread, a trend that has not died out, a sampler
// that sticks for long stretches. The pictures show which, for the few
// quantities that matter most.
//
// # Trace plots
//
// trace-<name> shows each chain's draws against the draw number, one
// colour per chain; its title gives split-R̂ and bulk ESS of all draws
// ([diag.SplitRHat], [diag.BulkESS]). Well-mixed chains look like
// overlapping "hairy caterpillars": stationary, the same band for every
// chain, no long flat stretches. A chain that stays apart from the others
// has not found the whole distribution (its start, or one mode of several);
// a drift means the burn-in is not over; flat runs mean a sampler that
// rejects or sticks. Trace plots are easy to misread when chains are long
// or many, which is why the rank plots exist. Long chains are drawn from at
// most 2000 points each (each run of draws replaced by its smallest and
// largest draw, so spikes survive); all statistics use every draw.
//
// # Rank plots
//
// rank-<name> is the rank plot of Vehtari, Gelman, Simpson, Carpenter &
// Bürkner (Bayesian Analysis, 2021), ArviZ's plot_rank: all draws of all
// chains are pooled and ranked, and each chain gets a panel with the
// histogram of its draws' ranks (20 bins, fewer for chains of fewer than
// 20 draws). If all chains sample the same distribution, every chain's
// ranks are uniform: the bars scatter around the dashed line, the count a
// uniform histogram would have. A chain whose bars pile up on the left or
// right sits lower or higher than the others; a ∪ shape means the chain
// spreads wider than the others, a ∩ shape narrower, which split-R̂ on the
// raw draws cannot see ([diag.RHat], the rank-normalised and folded R̂, can).
// Bars of autocorrelated chains scatter more than those of independent
// draws; what matters is a systematic shape. Tied draws (a discrete
// quantity) share their ranks evenly, so a discrete quantity that mixes
// well also gives flat histograms.
//
// # Running R̂
//
// rhat shows, for every quantity drawn, split-R̂ of the first n draws of
// every chain for 50 values of n from 20 to all draws. The axis is
// logarithmic in R̂ − 1 (from 1.0001 up), so the approach to 1 is
// visible at every scale, and the dashed line marks 1.01, the threshold
// Vehtari et al. recommend. Curves of a converging run fall below the line
// and stay there; where they cross it tells how many draws a run needs. A
// curve that levels off above the line belongs to chains that do not mix
// (stuck in different modes; R̂ above 101, such as the R̂ = ∞ of chains
// each constant at different values, is drawn at 101); a curve that rises
// again late means a chain found a region the others have not visited.
// Values of R̂ below 1.0001 (split-R̂ can dip slightly below 1) are drawn on
// the bottom edge.
//
// Split-R̂ is defined for a single chain too (its two halves are compared),
// so every picture works with K = 1; rank plots then compare nothing and
// are flat by construction, and trace plots and running R̂ show drift
// within the chain.
//
// # Files
//
// File names come from the quantities' names, see [Write]; everything is
// deterministic, so the same draws give byte-identical PNG and SVG files.
// The pictures spell R̂ as "R-hat": gonum's text rendering does not place
// combining accents over their letter.
package convplot
