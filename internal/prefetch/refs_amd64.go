package prefetch

// Refs prefetches x[j] for each reference r of refs, j = r for r ≥ 0 and
// ^r for r < 0 (a sign-folded index, as compiled.Ref writes a neighbour
// and the sign of its weight), skipping those out of x's range: one call
// for a variable's neighbours, not one a line.
//
//go:noescape
func Refs(x []float64, refs []int32)
