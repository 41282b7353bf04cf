// Package studies runs the project's own studies: what the library's
// samplers cost and buy, measured. experiments.Reproduce runs them by
// name ("crossover", "clusters", "fss", "scale", "uai", "glass"; none is
// part of "all"); most time what they run: run them alone on a quiet machine.
//
// Like the papers' experiments (package papers), each study is a settings
// value (XxxPaper(quick) gives the study's own), a driver taking a
// harness.Config and a result, in a file named after it, with the
// result's tables and files in the matching _output.go file:
//
//	crossover.go  Crossover: time per update of Gibbs, Poisson-Gibbs and the hand-written loops as the degree grows
//	clusters.go   Clusters: τ of |m| against L at the 2-D Ising critical point for the heat bath, Poisson-Gibbs,
//	              Swendsen–Wang and Wolff, with z; seconds per Swendsen–Wang and Poisson-Gibbs sweep against size and range
//	fss.go        FSS: finite-size scaling of 2-D Ising models by reweighting (γ/ν, Binder crossings)
//	scale.go      Scale: memory, build time and ns per update against the number of pair factors
//	uai.go        UAIScores: the MAR task on the shared UAI models, answered by package infer
//	glass.go      Glass: Gibbs, replica exchange (with and without Houdayer moves) and the default answer on 2-D
//	              ±J glasses, scored against exact marginals, with log Z against the exact one
//
// [Crossover] times Gibbs, Poisson-Gibbs and the best hand-written loop
// (internal/baseline) as the degree grows; its timers also serve Scale,
// and its power-law lattices ([PowerLawLattice] at [PaperL]) the
// benchmarks of package bench. [Clusters] measures what the cluster
// samplers buy: the integrated autocorrelation time of |m| at the
// critical point of the 2-D Ising model against L (with Sokal's
// self-consistent window and Madras and Sokal's error) and the dynamic
// exponent z of each sampler, then the seconds per sweep of Swendsen–Wang
// (Poisson-process bonds) and Poisson-Gibbs up to 10⁶ sites and long
// range; package lattice's BenchmarkClusterSweep times the Swendsen–Wang
// and Wolff sweeps alone. [FSS] fits γ/ν as Clusters fits z, and draws
// its figures in the same style.
package studies
