//go:build linux

package elim

import (
	"syscall"
	"unsafe"
)

// newArena returns n zeroed float64s and the function that releases them.
// A large arena is an anonymous private mapping outside the Go heap,
// populated when mapped (MAP_POPULATE: the kernel fills the page tables in
// one pass instead of one fault a page on first touch, which costs
// microseconds a page under virtualisation) and unmapped by release, so that
// the memory goes back to the system when Solve returns instead of waiting
// for a collection (the heap would otherwise hold it until the next garbage
// collection, up to twice Bytes across consecutive Solves). A small one, or
// one the kernel refuses to map, comes from the Go heap.
func newArena(n int) ([]float64, func()) {
	if !mapped(n) {
		return make([]float64, n), func() {}
	}
	b, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return make([]float64, n), func() {}
	}
	a := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), n)
	return a, func() { _ = syscall.Munmap(b) }
}

// mapped reports whether newArena maps an arena of n entries: from 1 MiB.
func mapped(n int) bool { return n >= 1<<17 }
