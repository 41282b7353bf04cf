package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// checkMemory refuses a run whose model and chains are estimated to need
// more memory than -max-memory, or by default than this machine (or its
// container) has: model bytes shared by the chains, perChain bytes each.
// Commands call it before they allocate what it estimates.
func (f *runFlags) checkMemory(model, perChain float64) error {
	limit, what, err := f.memoryLimit()
	if err != nil || limit == 0 {
		return err
	}
	need := model + perChain*float64(len(f.indices()))
	if need <= limit {
		return nil
	}
	return usagef("the run needs about %s (the model %s and %d chain(s) of %s: sampler state, observers and traces), more than %s %s; "+
		"run fewer chains, a smaller model or shorter traces, or raise -max-memory", bytesString(need), bytesString(model), len(f.indices()),
		bytesString(perChain), bytesString(limit), what)
}

// memoryLimit returns -max-memory, or the machine's memory.
func (f *runFlags) memoryLimit() (float64, string, error) {
	if f.maxMemory != "" {
		v, err := parseBytes(f.maxMemory)
		if err != nil {
			return 0, "", usagef("-max-memory %s: %v", f.maxMemory, err)
		}
		return v, "(-max-memory)", nil
	}
	v := machineMemory()
	return v, "this machine has (set -max-memory to override)", nil
}

// parseBytes reads 123, 500K, 16M, 8G or 1T (powers of 1024; a final B
// is allowed: 8GB).
func parseBytes(s string) (float64, error) {
	t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	mult := 1.0
	if n := len(t); n > 0 {
		if k := strings.IndexByte("KMGT", t[n-1]); k >= 0 {
			mult, t = math.Pow(1024, float64(k+1)), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a positive size such as 8G or 500M")
	}
	return v * mult, nil
}

// machineMemory returns the memory available to this process (0: unknown).
func machineMemory() float64 { return sysmem.Total() }

// bytesString formats a number of bytes.
func bytesString(b float64) string { return sysmem.String(b) }
