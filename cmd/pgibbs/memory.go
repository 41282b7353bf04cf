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
	limit, _, err := f.memoryLimit()
	if err != nil {
		return err
	}
	return f.memoryError(infer.CheckMemory(model, perChain, len(f.indices()), limit))
}

// memoryError returns err, an *infer.MemoryError as a usage error that
// says what to change.
func (f *runFlags) memoryError(err error) error {
	var me *infer.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	_, what, _ := f.memoryLimit()
	return usagef("the run needs about %s (the model %s and %d chain(s) of %s: sampler state, observers and traces), more than %s %s; "+
		"run fewer chains, a smaller model or shorter traces, or raise -max-memory", sysmem.String(me.Need()), sysmem.String(me.Model), me.Chains,
		sysmem.String(me.PerChain), sysmem.String(me.Limit), what)
}

// memoryLimit returns -max-memory, or the machine's memory.
func (f *runFlags) memoryLimit() (float64, string, error) {
	if f.maxMemory != "" {
		v, err := sysmem.Parse(f.maxMemory)
		if err != nil {
			return 0, "", usagef("-max-memory %s: %v", f.maxMemory, err)
		}
		return v, "(-max-memory)", nil
	}
	v := sysmem.Total()
	return v, "this machine has (set -max-memory to override)", nil
}

// readLimit returns the memory limit a command's model readers apply
// (uai.Options.MaxBytes, edgelist.Options.MaxBytes): -max-memory, or the
// machine's memory (+Inf when it cannot be read, as checkMemory then
// checks nothing). It returns -max-memory's usage error.
func (f *runFlags) readLimit() (float64, error) {
	limit, _, err := f.memoryLimit()
	if err != nil {
		return 0, err
	}
	if limit == 0 {
		return math.Inf(1), nil
	}
	return limit, nil
}

// readError returns a reader's error, a refusal of a model above the
// memory limit (a *factorgraph.MemoryError) as a usage error that names
// -max-memory beside the reader's setting, as checkMemory's do: "… more
// than the limit of 1 GB (Options.MaxBytes; -max-memory)".
func (f *runFlags) readError(err error) error {
	var me *factorgraph.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	flag := "-max-memory"
	if f.maxMemory == "" {
		flag = "this machine's memory; set -max-memory to override"
	}
	setting := "(" + me.Setting + ")"
	return usagef("%s", strings.Replace(err.Error(), setting, "("+me.Setting+"; "+flag+")", 1))
}
