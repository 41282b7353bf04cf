// Package bench reruns the papers' experiments, and holds the `go test
// -bench` comparisons of the samplers.
//
// # Experiments
//
// Each experiment is a settings value, a driver and a result. The
// XxxPaper(quick) functions return the papers' settings (quick: shorter
// runs that finish in under a minute); change any field before running.
// The drivers run the chains through package chain (chain.Chain.Advance,
// chain.Runner, chain.Parallel, its observers) and return what they
// measured:
//
//	Potts        Figs. 1a, 1b, 2a, 2b of the Poisson-Gibbs paper: marginal error of Gibbs, Poisson-Gibbs, DoubleMIN-Gibbs
//	Spin         Figs. 1c, 2c: symmetric KL of PGITS, PGDA, Gibbs-ITS, Gibbs-DA and rejection samplers on the spin model
//	TGM          Fig. 3: density estimates of PGITS, PGDA and PG-rejection on the truncated Gaussian mixture
//	TunaMHTable1 Table 1 of the TunaMH paper: average batch sizes of the minibatch MH samplers
//	RLR          ESS per second of MH, TunaMH, MH-SS, SMH, TFMH and FlyMC on robust linear regression
//	Crossover    time per update of Gibbs, Poisson-Gibbs and the hand-written loops as the degree grows
//	Clusters     τ of |m| against L at the 2-D Ising critical point for the heat bath, Poisson-Gibbs, Swendsen–Wang and Wolff, with z;
//	             seconds per Swendsen–Wang and Poisson-Gibbs sweep against size and range (nearest neighbour, Gaussian, power law)
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
//	paths, err := bench.Reproduce(ctx, "fig1a", true, "results", bench.Config{Seed: 1}, os.Stdout)
//	// paths: results/fig1-potts-summary.csv, results/fig1a.csv, .png, .svg
//
// To change a setting, call the driver yourself: every result prints its
// summary (Markdown) and writes it as CSV (WriteSummary); the results
// behind figures also write each figure as CSV data and PNG and SVG plots
// (WriteFigure):
//
//	s := bench.PottsPaper(true).Only(bench.Fig1aKeys...)
//	s.Iters = 50_000
//	res, err := bench.Potts(ctx, s, bench.Config{Seed: 1})
//	if err != nil { … }
//	fmt.Print(res.Markdown())
//	paths, err := res.WriteFigure("results", "fig1a") // results/fig1a.csv, .png, .svg
//
// # Benchmarks
//
// The benchmarks have benchstat-friendly names:
//
//	go test -run '^$' -bench . ./bench
//	go test -run '^$' -bench 'Step/model=potts20' -count 10 ./bench | tee new.txt
//	benchstat old.txt new.txt
//
// The honest baselines sit beside the library's samplers: hand-written,
// model-specific heat-bath loops (baseline.go: a CSR loop for the
// Gaussian-kernel Potts graphs, a stencil loop for translation-invariant
// lattices, a checkerboard Ising loop), benchmarked as sampler=handwritten
// (BenchmarkStep, BenchmarkScaling, BenchmarkIsingSweep, BenchmarkPowerLaw);
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
// Besides ns/op (one op is one variable update) they report factors/op, the
// distinct factors a step touches, and draws/op, the
// Poisson-minibatch draws of a step (each evaluates one factor at the current
// state); every benchmark also reports allocs/op, which must be 0.
//
// BenchmarkScaling grows the paper's Gaussian-kernel Potts lattice (20×20,
// 40×40, 80×80; the same kernel, so the same L = 5.0878) while the degree Δ
// grows (399, 1438, 1564): plain Gibbs's time per step follows Δ,
// Poisson-Gibbs's number of draws per step does not.
package bench
