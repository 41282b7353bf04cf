// Package papers reruns the experiments of the papers: Figs. 1–3 of the
// Poisson-Gibbs paper, and Table 1 and the robust-regression comparison of
// the TunaMH paper. experiments.Reproduce runs them by name ("fig1a" …
// "tunamh-rlr", and "all"); call the drivers yourself to change a setting.
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
//
// Potts and Spin measure a metric at checkpoints of runs averaged into a
// [Curve] per [Sampler]: driver.go holds that machinery (and the timed
// chains and per-run progress the other drivers use too). The results'
// tables and figures are written in output.go, the convergence curves and
// the heat maps drawn in plot.go, on package harness's frame.
//
// Every driver takes a harness.Config: run r of curve c draws from
// chain.Source(Seed, c·Runs + r), so every number a driver reports
// against iterations is a function of the seed alone; wall times, and
// everything measured under a time budget, are not.
//
// Every result prints its summary (Markdown) and writes it as CSV
// (WriteSummary); the results behind figures also write each figure as
// CSV data and PNG and SVG plots (WriteFigure):
//
//	s := papers.PottsPaper(true).Only(papers.Fig1aKeys...)
//	s.Iters = 50_000
//	res, err := papers.Potts(ctx, s, harness.Config{Seed: 1})
//	if err != nil { … }
//	fmt.Print(res.Markdown())
//	paths, err := res.WriteFigure("results", "fig1a") // results/fig1a.csv, .png, .svg
package papers
