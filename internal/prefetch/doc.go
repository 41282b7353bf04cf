// Package prefetch asks the processor to bring a cache line into its
// caches ahead of its use, without waiting for it: the software prefetch
// of a random scan, which knows its next variables two steps before it
// updates them (core.Core's look-ahead). On amd64 and arm64 Line is one
// prefetch instruction (PREFETCHT0, PRFM PLDL1KEEP); elsewhere it does
// nothing. Refs prefetches a variable's neighbours' values in one call (a
// loop of PREFETCHT0 in assembly on amd64: a call a line cost as much as
// the prefetches; a loop of Line elsewhere). A prefetch never faults and changes no value: a wrong address
// costs a wasted line at most, so callers need no bounds check beyond
// pointing into memory they hold.
package prefetch
