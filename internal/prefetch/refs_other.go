//go:build !amd64

package prefetch

import "unsafe"

// Refs prefetches x[j] for each reference r of refs, j = r for r ≥ 0 and
// ^r for r < 0 (a sign-folded index, as compiled.Ref writes a neighbour
// and the sign of its weight), skipping those out of x's range: one call
// for a variable's neighbours, not one a line.
func Refs(x []float64, refs []int32) {
	for _, r := range refs {
		if j := int(r ^ r>>31); uint(j) < uint(len(x)) {
			Line(unsafe.Pointer(&x[j]))
		}
	}
}
