package main

import (
	"errors"
	"math"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// checkMemory refuses a run whose model and chains are estimated to need
// more memory than -max-memory, or by default than this machine (or its
// container) has: model bytes shared by the chains, perChain bytes each
// (infer.CheckMemory). Commands call it before they allocate what it
// estimates.
func (f *runFlags) checkMemory(model, perChain float64) error {
	limit, err := f.readLimit()
	if err != nil {
		return err
	}
	return f.memoryError(infer.CheckMemory(model, perChain, len(f.indices()), limit))
}

// readLimit returns the memory limit of a command's model readers
// (uai.Options.MaxBytes, edgelist.Options.MaxBytes) and runs: -max-memory,
// or the machine's memory (+Inf when it cannot be read).
func (f *runFlags) readLimit() (float64, error) {
	if f.maxMemory != "" {
		v, err := sysmem.Parse(f.maxMemory)
		if err != nil {
			return 0, usagef("-max-memory %s: %v", f.maxMemory, err)
		}
		return v, nil
	}
	if v := sysmem.Total(); v > 0 {
		return v, nil
	}
	return math.Inf(1), nil
}

// memoryError returns err, a refusal of a model or a run above the memory
// limit (a *factorgraph.MemoryError), as a usage error that names
// -max-memory beside the limit's setting: "… more than the limit of 1 GB
// (Options.MaxBytes; -max-memory)".
func (f *runFlags) memoryError(err error) error {
	var me *factorgraph.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	flag := "-max-memory"
	if f.maxMemory == "" {
		flag = "this machine's memory; set -max-memory to override"
	}
	was := me.Error()
	me.Setting += "; " + flag
	return usagef("%s", strings.Replace(err.Error(), was, me.Error(), 1)) // err may hold was already formatted
}
