// Package bench holds the `go test -bench` comparisons of the samplers; it
// has no non-test code. The papers' experiments and the studies (what
// `pgibbs reproduce` runs) are in package experiments and below it.
//
// The benchmarks have benchstat-friendly names:
//
//	go test -run '^$' -bench . ./bench
//	go test -run '^$' -bench 'Step/model=potts20' -count 10 ./bench | tee new.txt
//	benchstat old.txt new.txt
//
// The honest baselines sit beside the library's samplers: hand-written,
// model-specific heat-bath loops (package internal/baseline: a CSR loop
// for the Gaussian-kernel Potts graphs, a stencil loop for
// translation-invariant lattices, a checkerboard Ising loop, a
// Swendsen–Wang Ising loop, forward filtering–backward sampling on a
// chain), benchmarked as sampler=handwritten (BenchmarkStep,
// BenchmarkScaling, BenchmarkIsingSweep, BenchmarkPowerLaw,
// BenchmarkBlockedChain); studies.Crossover (experiments/studies) times
// the same loops as the degree grows.
//
// Besides ns/op (one op is one variable update) they report factors/op, the
// distinct factors a step touches, and draws/op, the
// Poisson-minibatch draws of a step (each evaluates one factor at the current
// state); every benchmark also reports allocs/op, which must be 0.
//
// BenchmarkScaling grows the paper's Gaussian-kernel Potts lattice (20×20,
// 40×40, 80×80; the same kernel, so the same L = 5.0878) while the degree Δ
// grows (399, 1438, 1564): plain Gibbs's time per step follows Δ,
// Poisson-Gibbs's number of draws per step does not.
package bench
