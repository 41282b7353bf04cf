package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
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
	parts, err := readParts(files)
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

// readParts reads the parts and checks that they are the K chains of one
// run, each once; it returns them in chain order.
func readParts(files []string) ([]*part, error) {
	var parts []*part
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var out struct {
			Parts []*part `json:"parts"`
		}
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, fmt.Errorf("%s: not the JSON output of a pgibbs run: %v", name, err)
		}
		if len(out.Parts) != 1 {
			return nil, fmt.Errorf("%s: not the output of a run with -chain k -of K -json", name)
		}
		parts = append(parts, out.Parts[0])
	}
	first := parts[0]
	byChain := make([]*part, first.Of)
	for n, p := range parts {
		switch {
		case p.Command != first.Command || !sameRun(p.Args, first.Args):
			return nil, fmt.Errorf("%s and %s are parts of different runs (`pgibbs %s %s` and `pgibbs %s %s`)",
				files[0], files[n], first.Command, strings.Join(first.Args, " "), p.Command, strings.Join(p.Args, " "))
		case p.Of != first.Of || p.Chain < 0 || p.Chain >= p.Of:
			return nil, fmt.Errorf("%s: chain %d of %d, %s: chain %d of %d", files[0], first.Chain, first.Of, files[n], p.Chain, p.Of)
		case byChain[p.Chain] != nil:
			return nil, fmt.Errorf("%s: chain %d is given twice", files[n], p.Chain)
		}
		byChain[p.Chain] = p
	}
	for k, p := range byChain {
		if p == nil {
			return nil, fmt.Errorf("chain %d of %d is missing", k, first.Of)
		}
	}
	return byChain, nil
}

// sameRun reports whether two parts' flags agree but for -chain.
func sameRun(a, b []string) bool {
	strip := func(args []string) []string {
		return slices.DeleteFunc(slices.Clone(args), func(s string) bool { return strings.HasPrefix(s, "-chain=") })
	}
	return slices.Equal(strip(a), strip(b))
}
