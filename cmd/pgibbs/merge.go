package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/pgibbs/pgibbs/chain"
)

func init() {
	register(&command{
		name:    "merge",
		summary: "pool the parts of a run whose chains ran as separate processes (-chain k -of K -json)",
		example: "pgibbs merge -json c0.json c1.json c2.json c3.json",
		run:     runMerge,
	})
}

// runMerge reads the JSON outputs of `pgibbs <command> … -chain k -of K
// -json` for k = 0, …, K−1 and prints what `pgibbs <command> … -chains K`
// prints: the same pooled estimates, error bars, R̂ and ESS (timings aside:
// the run's seconds are the slowest part's).
func runMerge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "merge [flags] part.json…", "Pools the chains of a run split across processes or machines: each part is the -json\n"+
		"output of the same command line run with -chain k -of K, for every k from 0 to K−1. Prints the\n"+
		"output of that command line run with -chains K in one process.")
	asJSON := fs.Bool("json", false, "print one JSON object")
	var files []string
	for { // flags and files in any order
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return &usageError{msg: err.Error(), printed: true}
		}
		if fs.NArg() == 0 {
			break
		}
		files, args = append(files, fs.Arg(0)), fs.Args()[1:]
	}
	if len(files) == 0 {
		return usagef("no parts to merge: give the -json outputs of -chain 0 -of K … -chain K−1 -of K")
	}
	parts, err := chain.ReadParts(files)
	if err != nil {
		return err
	}
	c, ok := commands[parts[0].Command]
	if !ok || c.name == "merge" {
		return fmt.Errorf("%s: part of unknown command %q", files[0], parts[0].Command)
	}
	me := *e
	me.merged = parts
	return c.run(ctx, &me, append(slices.Clone(parts[0].Args), fmt.Sprintf("-json=%v", *asJSON)))
}
