// Package experiments reruns the papers' experiments and the project's
// studies: [Reproduce] is what `pgibbs reproduce` runs. (The `go test
// -bench` comparisons of the samplers are in package bench; the
// hand-written baselines both use are in internal/baseline.)
//
// # Where things are
//
//	experiments                   Reproduce and Figures: the names `pgibbs reproduce` takes, each run with its notes and its files
//	experiments/papers            the papers' figures and tables: Potts, Spin, TGM (the Poisson-Gibbs paper's Figs. 1–3),
//	                              TunaMHTable1 and RLR (the TunaMH paper's Table 1 and robust regression)
//	experiments/studies           the project's studies: Crossover, Clusters, FSS, Scale, UAIScores
//	experiments/harness           what every experiment shares: Config and Progress, the seeded random streams, tables,
//	                              number formats, CSV files and plots
//	experiments/internal/exptest  what their tests share
//
// Packages papers and studies import harness and not each other; this
// package imports the three, and holds nothing else than the names and
// what each runs (reproduce.go).
//
// # Reproducing a figure
//
// To rerun a figure or table of the papers, or a study, call [Reproduce]
// with its name (see [Figures]): it picks the experiment's settings (the
// XxxPaper(quick) functions of papers and studies), runs the drivers (one
// Potts run and one Spin run serve every figure that needs them), prints
// its notes and the results' tables, and writes the files:
//
//	if err := os.MkdirAll("results", 0o755); err != nil { … }
//	paths, err := experiments.Reproduce(ctx, "fig1a", true, "results", harness.Config{Seed: 1}, os.Stdout)
//	// paths: results/fig1-potts-summary.csv, results/fig1a.csv, .png, .svg
//
// A harness.Config gives the seed, the number of runs averaged, the
// parallelism, a progress display and a cache directory; every number an
// experiment reports that is not measured against the clock is a function
// of the seed and the settings. To change a setting, call the driver in
// package papers or studies yourself.
//
// The error messages of these packages start with "experiments:" (they
// said "bench:", the package the experiments came from, before it kept
// only the benchmarks).
package experiments
