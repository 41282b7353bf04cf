//go:build linux

package elim

import (
	"context"
	"syscall"
	"unsafe"
)

// newArena returns n zeroed float64s and the function that releases them,
// or ctx's error if ctx ends while they are made ready. A large arena is an
// anonymous private mapping outside the Go heap, populated chunk by chunk
// (populateChunk bytes at a time, each mapped again over itself with
// MAP_POPULATE: the kernel fills the page tables in one pass instead of
// one fault a page on first touch, which costs microseconds a page under
// virtualisation; a gigabyte takes about a second, so ctx is looked at
// between chunks) and unmapped by release, so that the memory goes back to
// the system when Solve returns instead of waiting for a collection (the
// heap would otherwise hold it until the next garbage collection, up to
// twice Bytes across consecutive Solves). A small one, or one the kernel
// refuses to map, comes from the Go heap.
func newArena(ctx context.Context, n int) ([]float64, func(), error) {
	if !mapped(n) {
		return make([]float64, n), func() {}, nil
	}
	b, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]float64, n), func() {}, nil
	}
	release := func() { _ = syscall.Munmap(b) }
	for off := 0; off < len(b); off += populateChunk {
		if err := ctx.Err(); err != nil {
			release()
			return nil, nil, err
		}
		end := min(off+populateChunk, len(b))
		// The same anonymous pages, mapped again in place, populated.
		_, _, errno := syscall.Syscall6(syscall.SYS_MMAP, uintptr(unsafe.Pointer(&b[off])), uintptr(end-off),
			syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_FIXED|syscall.MAP_POPULATE,
			^uintptr(0), 0)
		if errno != 0 {
			break // the rest is faulted in on first touch
		}
	}
	a := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), n)
	return a, release, nil
}

// populateChunk is the bytes of an arena populated at a time: about 50 ms.
const populateChunk = 64 << 20

// mapped reports whether newArena maps an arena of n entries: from 1 MiB.
func mapped(n int) bool { return n >= 1<<17 }
