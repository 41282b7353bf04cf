package potts

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Pairs is a pairwise Potts model held as arrays, ready for the bulk path
// of factorgraph.Builder: N variables of Q states and the pair factors
// W[k]·δ(x_{I[k]}, x_{J[k]}). The random shapes below — graphs with no
// locality to find, unlike the lattice of New — are the scale study's
// (`pgibbs reproduce scale`) and BenchmarkSparse's.
type Pairs struct {
	N, Q int
	I, J []int32
	W    []float64
}

// Build returns the factor graph of p through AddPottsPairs (which keeps
// p's slices: p must not change afterwards).
func (p *Pairs) Build() (*factorgraph.Graph, error) {
	b := factorgraph.NewBuilder()
	b.AddVariables(p.N, factorgraph.Discrete(p.Q))
	b.AddPottsPairs(p.I, p.J, p.W)
	return b.Build()
}

// Sparse returns n·deg/2 pairs of weight w between uniformly random
// distinct variables (an Erdős–Rényi multigraph of mean degree deg).
func Sparse(n, deg, q int, w float64, r *rand.Rand) (*Pairs, error) {
	if n < 2 || deg < 1 || q < 1 {
		return nil, fmt.Errorf("potts: Sparse(n = %d, deg = %d, q = %d): want n ≥ 2, deg ≥ 1, q ≥ 1", n, deg, q)
	}
	p := newPairs(n, q, n*deg/2, w)
	for k := range p.W {
		i, j := r.IntN(n), r.IntN(n-1)
		if j >= i {
			j++
		}
		p.I[k], p.J[k] = int32(i), int32(j)
	}
	return p, nil
}

// PowerLaw returns about n·meanDeg/2 pairs of weight w whose endpoints are
// drawn with probability ∝ (k + k₀)^(−1/(γ−1)) for variable k (the
// Chung–Lu model): degrees with a power-law tail of exponent γ > 2, hubs
// of degree about n^(1/(γ−1)) beside many variables of degree 1 to 3.
func PowerLaw(n int, meanDeg, gamma float64, q int, w float64, r *rand.Rand) (*Pairs, error) {
	if n < 2 || !(meanDeg >= 1) || !(gamma > 2) || q < 1 {
		return nil, fmt.Errorf("potts: PowerLaw(n = %d, mean degree %g, γ = %g, q = %d): want n ≥ 2, a mean degree ≥ 1, γ > 2, q ≥ 1", n, meanDeg, gamma, q)
	}
	wt := make([]float64, n)
	for k := range wt {
		wt[k] = math.Pow(float64(k+10), -1/(gamma-1))
	}
	a, err := minibatch.NewAlias(wt)
	if err != nil {
		return nil, fmt.Errorf("potts: PowerLaw: %w", err)
	}
	p := newPairs(n, q, int(float64(n)*meanDeg/2), w)
	for k := range p.W {
		i, j := a.Pick(r), a.Pick(r)
		for j == i {
			j = a.Pick(r)
		}
		p.I[k], p.J[k] = int32(i), int32(j)
	}
	return p, nil
}

// Bipartite returns the complete bipartite graph K_{m,m} of m² pairs of
// weight w: every variable has m neighbours, a dense model.
func Bipartite(m, q int, w float64) (*Pairs, error) {
	if m < 1 || q < 1 || m > 1<<15 {
		return nil, fmt.Errorf("potts: Bipartite(m = %d, q = %d): want 1 ≤ m ≤ 32768, q ≥ 1", m, q)
	}
	p := newPairs(2*m, q, m*m, w)
	for k := range p.W {
		p.I[k], p.J[k] = int32(k/m), int32(m+k%m)
	}
	return p, nil
}

// newPairs returns n variables of q states and m pairs of weight w, their
// endpoints to be set.
func newPairs(n, q, m int, w float64) *Pairs {
	p := &Pairs{N: n, Q: q, I: make([]int32, m), J: make([]int32, m), W: make([]float64, m)}
	for k := range p.W {
		p.W[k] = w
	}
	return p
}
