// Package harness is what every experiment of packages papers and studies
// runs on and writes with:
//
//	config.go  Config (seed, runs, parallelism, progress, cache directory), the Progress it reports to,
//	           RandStream (the seeded random streams)
//	table.go   Table (printed as Markdown, written as CSV), the number formats FmtG (tables) and Ftoa (CSV), WriteCSV
//	plot.go    the figures' frame: PlotWidth × PlotHeight, LineStyles, LogLogPlot, SavePlot (PNG and SVG), SaveRow
//
// Every random number of the experiments comes from RandStream(seed,
// stream): the seed is Config.Seed (or a data set's own), the stream a
// function of the settings and of the run, chain or data set it feeds, so
// that what an experiment measures against iterations is a function of the
// seed alone, however many runs are in flight (Config.NumWorkers) and in
// whatever order they finish. Wall times, and everything measured under a
// time budget, are not.
//
// A driver reads Config through NumRuns, NumWorkers and ProgressOrNone,
// which give the defaults of its zero fields (3 runs, GOMAXPROCS workers,
// no progress).
package harness
