package chain

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Meta describes a run, for its checkpoints (as Runner.Meta) and its parts:
// the command that runs it and its settings, so that a run can be resumed
// or its parts pooled by running the same command again.
type Meta struct {
	Command string `json:"command"`
	// Args are the run's settings, canonical, as -name=value; the parts of
	// one run agree on all of them but -chain=k (Part.Chain).
	Args []string `json:"args"`
	// Trace is the run's trace file, absolute, so that a run resumed from
	// another directory writes where it wrote before (TracePath).
	Trace string `json:"trace,omitempty"`
	// Inputs are a part's input files as its run found them (a checkpoint
	// records them itself).
	Inputs []File `json:"inputs,omitempty"`
}

// Part is what one chain of a run split across processes or machines
// reports, to be pooled with the others: the run's description and the
// chain's final state, observers included (an empty State: the run needed
// no chain, its answer exact).
type Part struct {
	Meta
	Chain   int        `json:"chain"` // the chain's index k in the run: its random streams
	Of      int        `json:"of"`    // the number K of chains of the run
	Seconds float64    `json:"seconds"`
	State   ChainState `json:"state"`
}

// ReadParts reads the parts of a run, one a file, each a JSON object whose
// "parts" array holds the one part of chain k of K (the -json output of
// `pgibbs <command> -chain k -of K`). It checks that they are the K chains
// of one run, each once, and that the run's input files are still as it
// found them; errors name the file at fault. It returns the parts in chain
// order.
func ReadParts(files []string) ([]*Part, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no parts")
	}
	var parts []*Part
	for _, name := range files {
		p, err := readPart(name)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	byChain, err := orderParts(files, parts)
	if err != nil {
		return nil, err
	}
	if err := VerifyFiles(byChain[0].Inputs); err != nil {
		return nil, fmt.Errorf("%s: %w", files[0], err)
	}
	return byChain, nil
}

// readPart reads the part in the file name.
func readPart(name string) (*Part, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out struct {
		Parts []*Part `json:"parts"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: not the JSON output of a pgibbs run: %v", name, err)
	}
	if len(out.Parts) != 1 || out.Parts[0] == nil {
		return nil, fmt.Errorf("%s: not the output of a run with -chain k -of K -json", name)
	}
	return out.Parts[0], nil
}

// orderParts checks that parts, read from files, are the chains of one
// run, each once, and returns them in chain order.
func orderParts(files []string, parts []*Part) ([]*Part, error) {
	first := parts[0]
	if first.Of < 1 || first.Of > 1<<16 {
		return nil, fmt.Errorf("%s: chain %d of %d: not a part of a run", files[0], first.Chain, first.Of)
	}
	byChain := make([]*Part, first.Of)
	for n, p := range parts {
		switch {
		case p.Command != first.Command || !sameRun(p.Args, first.Args):
			return nil, fmt.Errorf("%s and %s are parts of different runs (`pgibbs %s %s` and `pgibbs %s %s`)",
				files[0], files[n], first.Command, strings.Join(first.Args, " "), p.Command, strings.Join(p.Args, " "))
		case !slices.Equal(p.Inputs, first.Inputs):
			return nil, fmt.Errorf("%s and %s are parts of runs on different input files", files[0], files[n])
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

// sameRun reports whether two parts' settings agree but for -chain.
func sameRun(a, b []string) bool {
	strip := func(args []string) []string {
		return slices.DeleteFunc(slices.Clone(args), func(s string) bool { return strings.HasPrefix(s, "-chain=") })
	}
	return slices.Equal(strip(a), strip(b))
}

// RestoreParts sets the chains, built as the run builds them (chain k
// with the streams of index k), to the final states of the parts, in
// chain order, and returns the run's wall time: the slowest part's.
func RestoreParts(parts []*Part, chains []*Chain) (seconds float64, err error) {
	if len(parts) != len(chains) {
		return 0, fmt.Errorf("%d parts for %d chains", len(parts), len(chains))
	}
	for k, p := range parts {
		if err := chains[k].Load(p.State); err != nil {
			return 0, fmt.Errorf("part of chain %d: %w", k, err)
		}
		seconds = max(seconds, p.Seconds)
	}
	return seconds, nil
}

// ReadRun reads the checkpoint at path of a run whose Runner.Meta was a
// Meta, and checks that it is a run of command.
func ReadRun(path, command string) (*Checkpoint, *Meta, error) {
	ck, err := ReadCheckpoint(path)
	if err != nil {
		return nil, nil, err
	}
	var m Meta
	if err := json.Unmarshal(ck.Meta, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: the checkpoint's description of its run is corrupt: %v", path, err)
	}
	if m.Command != command {
		return nil, nil, fmt.Errorf("%s: the checkpoint is of `pgibbs %s`, not `pgibbs %s`", path, m.Command, command)
	}
	return ck, &m, nil
}

// Settings returns the run's settings by name (Args without the dash).
func (m *Meta) Settings() map[string]string {
	out := map[string]string{}
	for _, a := range m.Args {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		out[name] = value
	}
	return out
}

// TracePath returns the trace file of chain k of a run of n chains whose
// trace is path: path itself for one chain, else path with .cK before its
// extension (trace.csv: trace.c0.csv, trace.c1.csv, …).
func TracePath(path string, k, n int) string {
	if n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.c%d%s", strings.TrimSuffix(path, ext), k, ext)
}
