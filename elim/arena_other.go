//go:build !linux

package elim

// newArena returns n zeroed float64s from the Go heap, and a release
// function that does nothing (the garbage collector frees them).
func newArena(n int) ([]float64, func()) { return make([]float64, n), func() {} }

// mapped reports whether newArena maps an arena of n entries: never.
func mapped(int) bool { return false }
