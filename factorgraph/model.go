package factorgraph

import "math/rand/v2"

// Model is the view of a factor graph that single-site samplers work on. A
// *Graph is a Model; so are the implicit lattices of package lattice, whose
// factors are generated from a coupling kernel and never stored.
//
// The factors of A[i] are addressed by a local index k: soft factors (finite
// range) are k = 0, …, soft−1 and hard factors k = soft, …, soft+hard−1, where
// soft, hard = Degree(i). Factors with M_φ = 0 are not in any A[i]. All
// methods must be safe for concurrent use by samplers that each own their
// state slice x.
type Model interface {
	// NumVars returns the number of variables.
	NumVars() int
	// Domain returns the domain of variable i.
	Domain(i int) Domain
	// Free returns the variables samplers resample (all but evidence) in
	// increasing order; the caller must not modify the slice.
	Free() []int
	// Observed returns the clamped value of variable i and true if i is
	// evidence.
	Observed(i int) (float64, bool)

	// L returns max_i L_i over free variables.
	L() float64
	// Li returns L_i = Σ M_φ over the soft factors of A[i].
	Li(i int) float64
	// MaxDegree returns Δ = max_i |A[i]| over free variables.
	MaxDegree() int
	// Degree returns the numbers of soft and hard factors in A[i].
	Degree(i int) (soft, hard int)
	// Bound returns M_φ of the k-th factor of A[i] (+Inf if it is hard).
	Bound(i, k int) float64
	// Pick returns a soft factor of A[i] with probability M_φ/L_i, in O(1).
	Pick(i int, r *rand.Rand) int

	// Eval returns φ̃(x) = φ(x) − lo of the k-th factor of A[i]. For a soft
	// factor a correct model returns a value in [0, M_φ]; for a hard one, a
	// value in [0, +Inf) or −Inf.
	Eval(i, k int, x []float64) float64
	// EvalAll sets dst[v] = φ̃(x with x[i] = v) for v = 0, …, len(dst)−1 for
	// the k-th factor of A[i], i discrete. It may write x[i] while it works
	// and restores it before returning.
	EvalAll(i, k int, x, dst []float64)
	// Describe names the k-th factor of A[i] for error messages and returns
	// its declared range.
	Describe(i, k int) (name string, lo, hi float64)
}

// Adjacency is an optional interface of models that can list a variable's
// neighbours: the variables sharing a factor with it. Chromatic samplers use
// it to check that a colouring is proper.
type Adjacency interface {
	// Neighbours appends to dst the variables other than i that share a
	// factor with i (each once) and returns it.
	Neighbours(dst []int, i int) []int
}
