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

// reproduceUsage is the help of `pgibbs reproduce`: every experiment with
// its description (experiments.Describe).
func reproduceUsage() string {
	var b strings.Builder
	b.WriteString("Regenerates a figure or table of the papers and writes CSV data and PNG + SVG plots to -out:\n")
	for _, name := range experiments.Figures() {
		for k, line := range strings.Split(experiments.Describe(name), "\n") {
			if k == 0 {
				fmt.Fprintf(&b, "  %-15s%s\n", name, line)
			} else {
				fmt.Fprintf(&b, "%17s%s\n", "", line)
			}
		}
	}
	b.WriteString("Full runs take minutes each (see docs/RESULTS.md); -quick finishes each figure in under a minute with\nshorter runs (which it states). Figures average -runs independent runs, in parallel.")
	return b.String()
}

// reproduce runs the experiments (experiments.Reproduce; the tests replace it to
// check what the flags pass).
var reproduce = experiments.Reproduce

func runReproduce(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "reproduce <name>", reproduceUsage())
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
