// Package experiments reruns the papers' experiments and the project's
// studies: what `pgibbs reproduce` runs. (The `go test -bench` comparisons
// of the samplers are in package bench; the hand-written baselines both
// use are in internal/baseline.)
//
// # What `pgibbs reproduce` runs
//
// Each experiment is a settings value, a driver and a result, in a file
// named after it. The XxxPaper(quick) functions return the papers'
// settings (quick: shorter runs that finish in under a minute); change any
// field before running. The drivers run the chains through package chain
// (chain.Chain.Advance, chain.Runner, chain.Parallel, its observers) and
// return what they measured:
//
//	potts.go          Potts: Figs. 1a, 1b, 2a, 2b of the Poisson-Gibbs paper, marginal error of Gibbs, Poisson-Gibbs, DoubleMIN-Gibbs
//	spin.go           Spin: Figs. 1c, 2c, symmetric KL of PGITS, PGDA, Gibbs-ITS, Gibbs-DA and rejection samplers on the spin model
//	tgm.go            TGM: Fig. 3, density estimates of PGITS, PGDA and PG-rejection on the truncated Gaussian mixture
//	tunamh_table1.go  TunaMHTable1: Table 1 of the TunaMH paper, average batch sizes of the minibatch MH samplers
//	rlr.go            RLR: ESS per second of MH, TunaMH, MH-SS, SMH, TFMH and FlyMC on robust linear regression
//	crossover.go      Crossover: time per update of Gibbs, Poisson-Gibbs and the hand-written loops as the degree grows
//	clusters.go       Clusters: τ of |m| against L at the 2-D Ising critical point for the heat bath, Poisson-Gibbs,
//	                  Swendsen–Wang and Wolff, with z; seconds per Swendsen–Wang and Poisson-Gibbs sweep against size and range
//	uai.go            UAIScores: the MAR task on the shared UAI models
//	fss.go            FSS: finite-size scaling of 2-D Ising models by reweighting (γ/ν, Binder crossings)
//	scale.go          Scale: memory, build time and ns per update against the number of pair factors
//
// Their tables and files are in the matching _output.go files (output.go
// for the curves of Potts, Spin, TGM and RLR), the plots in plot.go, the
// shared run machinery (Config, Progress, the curves' drivers) in
// driver.go, and the names `pgibbs reproduce` takes in reproduce.go.
//
// A [Config] gives the seed, the number of runs averaged, the parallelism,
// a [Progress] display and a cache directory. Run r of curve c draws from
// chain.Source(Seed, c·Runs + r), so every number a driver reports
// against iterations is a function of the seed alone; wall times, and
// everything measured under a time budget, are not.
//
// To rerun a figure or table of the papers, call [Reproduce] with its name
// (see [Figures]): it picks the papers' settings, runs the drivers (one
// Potts run and one Spin run serve every figure that needs them), prints
// its notes and the results' tables, and writes the files. It is what
// `pgibbs reproduce` runs:
//
//	if err := os.MkdirAll("results", 0o755); err != nil { … }
//	paths, err := experiments.Reproduce(ctx, "fig1a", true, "results", experiments.Config{Seed: 1}, os.Stdout)
//	// paths: results/fig1-potts-summary.csv, results/fig1a.csv, .png, .svg
//
// To change a setting, call the driver yourself: every result prints its
// summary (Markdown) and writes it as CSV (WriteSummary); the results
// behind figures also write each figure as CSV data and PNG and SVG plots
// (WriteFigure):
//
//	s := experiments.PottsPaper(true).Only(experiments.Fig1aKeys...)
//	s.Iters = 50_000
//	res, err := experiments.Potts(ctx, s, experiments.Config{Seed: 1})
//	if err != nil { … }
//	fmt.Print(res.Markdown())
//	paths, err := res.WriteFigure("results", "fig1a") // results/fig1a.csv, .png, .svg
//
// [Crossover] times Gibbs, Poisson-Gibbs and the best hand-written loop as
// the degree grows ("pgibbs reproduce crossover"). [Clusters] measures what
// the cluster samplers buy ("pgibbs reproduce clusters"): the integrated
// autocorrelation time of |m| at the critical point of the 2-D Ising model
// against L (with Sokal's self-consistent window and Madras and Sokal's
// error) and the dynamic exponent z of each sampler, then the seconds per
// sweep of Swendsen–Wang (Poisson-process bonds) and Poisson-Gibbs up to
// 10⁶ sites and long range; package lattice's BenchmarkClusterSweep times
// the Swendsen–Wang and Wolff sweeps alone.
//
// The error messages of this package keep the prefix "bench:" of the
// package the experiments came from, so that `pgibbs reproduce` prints
// what it printed before.
package experiments
