package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/pgibbs/pgibbs/cmd/pgibbs/internal/progress"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pgibbs/pgibbs/experiments"
	"github.com/pgibbs/pgibbs/experiments/harness"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "regenerate the papers' figures and tables (CSV, PNG, SVG): " + strings.Join(experiments.Figures(), "|"),
		example: "pgibbs reproduce fig1a -quick -out results",
		run:     runReproduce,
	})
}

const reproduceUsage = `Regenerates a figure or table of the papers and writes CSV data and PNG + SVG plots to -out:
  fig1a          marginal error vs iterations on the Potts model: Gibbs, Poisson-Gibbs, DoubleMIN-Gibbs (λ2 = L², 10⁴L²)
  fig1b          Poisson-Gibbs at λ = 0.1, 1, 5·L² on the Potts model (with Gibbs)
  fig1c          symmetric KL vs iterations on the continuous spin model: PGITS, PGDA, Gibbs-ITS, Gibbs-DA, rejection
  fig2           fig1a, fig1b and fig1c against wall time (fig2a, fig2b, fig2c; the same runs)
  fig3           density estimates of PGITS, PGDA and PG-rejection on the truncated Gaussian mixture, next to the truth
  tunamh-table1  TunaMH paper, Table 1: average batch sizes of TFMH, FlyMC, Poisson-MH, TunaMH on the mixture
  tunamh-rlr     robust linear regression (N = 10⁵, d = 10): ESS per second of MH, TunaMH, MH-SS, SMH, TFMH, FlyMC
  crossover      ns/update of Gibbs, Poisson-Gibbs and hand-written heat-bath loops as Δ grows, and the Δ from which
                 Poisson-Gibbs is faster (a timing study on one core: run it alone on a quiet machine; -runs sets
                 its repetitions, -workers is not used; not part of all)
  clusters       τ of |m| against L at the 2-D Ising critical point (heat bath, Poisson-Gibbs, Swendsen–Wang, Wolff;
                 fitted dynamic exponents z) and seconds per Swendsen–Wang / Poisson-Gibbs sweep up to 10⁶ sites and
                 long range (a study: run it alone; -runs sets the chains; not part of all)
  uai            the UAI competitions' MAR task on every shared model (../shared/data/uai) with its .MAR file: the
                 default answer (exact where an elimination fits, else the sampler its pilots choose) at 20 s a model
                 on one core, scored as UAI 2022 scores (-quick: 2 s a model; a study: run it alone; not part of all)
  fss            finite-size scaling of the 2-D Ising model (nearest neighbour, sides 16–128) and of the σ = 1
                 power law (16–96) with Swendsen–Wang and single-histogram reweighting: χ peaks and the fitted γ/ν,
                 Binder crossings against β_c, reweighted against direct runs (3 minutes on 2 cores, -quick 20 s;
                 a study: -runs sets the chains; not part of all)
  scale          bytes and build time per pair factor and ns per Poisson-Gibbs and Gibbs update on the Gaussian-kernel
                 Potts model from 10⁵ to 2·10⁸ pair factors (widths 22–516; a width whose graph would not fit half the
                 memory is skipped; about 9 GB and 3 minutes at the largest; -quick: up to width 80; a timing study:
                 run it alone; not part of all)
  all            every figure and table of the papers above (fig1a … tunamh-rlr), each run once
Full runs take minutes each (see docs/RESULTS.md); -quick finishes each figure in under a minute with
shorter runs (which it states). Figures average -runs independent runs, in parallel.`

// reproduce runs the experiments (experiments.Reproduce; the tests replace it to
// check what the flags pass).
var reproduce = experiments.Reproduce

func runReproduce(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "reproduce <name>", reproduceUsage)
	quick := fs.Bool("quick", false, "short runs: each figure in under a minute")
	out := fs.String("out", "results", "directory for the CSV and plot files (created if needed)")
	seed := fs.Uint64("seed", 1, "random seed")
	runs := fs.Int("runs", 3, "independent runs averaged per curve (the papers average 3)")
	workers := fs.Int("workers", 0, "runs in parallel (default: the number of CPUs)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	// The name may come before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return &usageError{msg: err.Error(), printed: true}
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	names := experiments.Figures()
	switch {
	case name == "":
		return usagef("which figure? want one of %s", strings.Join(names, ", "))
	case !slices.Contains(names, name):
		return usagef("unknown figure %q: want one of %s", name, strings.Join(names, ", "))
	case len(rest) > 0:
		return usagef("unexpected argument %q", rest[0])
	case *runs < 1 || *runs > 100:
		return usagef("-runs %d: need 1 to 100", *runs)
	case *workers < 0 || *workers > 4096:
		return usagef("-workers %d: need 0 to 4096", *workers)
	case *out == "":
		return usagef("-out: need a directory")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	bar := progress.New(e.stderr, *quiet)
	cfg := harness.Config{Seed: *seed, Runs: *runs, Workers: *workers, Progress: bar, Dir: *out}
	start := time.Now()
	written, err := reproduce(ctx, name, *quick, *out, cfg, e.stdout)
	bar.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n%d files written in %.1f s\n", len(written), time.Since(start).Seconds())
	return nil
}
