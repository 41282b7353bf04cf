// Package bench holds the experiment drivers that regenerate the papers'
// figures and tables, and the `go test -bench` comparisons of the samplers.
//
// The benchmarks have benchstat-friendly names:
//
//	go test -run '^$' -bench . ./bench
//	go test -run '^$' -bench 'Step/model=potts20' -count 10 ./bench | tee new.txt
//	benchstat old.txt new.txt
//
// Besides ns/op (one op is one variable update) they report factors/op, the
// distinct factors whose conditional a step computes, and draws/op, the
// Poisson-minibatch draws of a step (each evaluates one factor at the current
// state); every benchmark also reports allocs/op, which must be 0.
//
// BenchmarkScaling grows the paper's Gaussian-kernel Potts lattice (20×20,
// 40×40, 80×80; the same kernel, so the same L = 5.0878) while the degree Δ
// grows (399, 1438, 1564): plain Gibbs's time per step follows Δ,
// Poisson-Gibbs's number of draws per step does not.
package bench
