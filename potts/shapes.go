package potts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

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

// Geometric returns a random geometric graph: n points drawn uniformly
// on the unit torus, numbered in the order they were drawn, and a pair of
// weight w between every two closer than ρ, with πρ²n = deg (mean degree
// about deg). Its pairs are local in space but not in the numbering — a
// mesh or a sensor network as a file may hold it — so a scan in storage
// order finds no locality until the variables are renumbered
// (factorgraph.LocalityOrder).
func Geometric(n int, deg float64, q int, w float64, r *rand.Rand) (*Pairs, error) {
	if n < 2 || !(deg > 0) || deg > float64(n)/4 || q < 1 {
		return nil, fmt.Errorf("potts: Geometric(n = %d, deg = %g, q = %d): want n ≥ 2, 0 < deg ≤ n/4, q ≥ 1", n, deg, q)
	}
	rho := math.Sqrt(deg / (math.Pi * float64(n)))
	cells := max(1, int(1/rho)) // cells per side, each at least ρ wide
	px, py := make([]float64, n), make([]float64, n)
	start := make([]int32, cells*cells+1) // points by cell (counting sort)
	cell := func(k int) int {
		return min(int(py[k]*float64(cells)), cells-1)*cells + min(int(px[k]*float64(cells)), cells-1)
	}
	for k := range n {
		px[k], py[k] = r.Float64(), r.Float64()
		start[cell(k)+1]++
	}
	for c := range cells * cells {
		start[c+1] += start[c]
	}
	byCell, fill := make([]int32, n), slices.Clone(start[:cells*cells])
	for k := range n {
		c := cell(k)
		byCell[fill[c]] = int32(k)
		fill[c]++
	}
	p := &Pairs{N: n, Q: q}
	torus := func(d float64) float64 { return d - math.Round(d) }
	for k := range n {
		cx, cy := min(int(px[k]*float64(cells)), cells-1), min(int(py[k]*float64(cells)), cells-1)
		for d := range 9 { // 3 cells a side at least (deg ≤ n/4): 9 distinct cells
			c := (cy+d/3-1+cells)%cells*cells + (cx+d%3-1+cells)%cells
			for _, j := range byCell[start[c]:start[c+1]] {
				if int(j) <= k {
					continue
				}
				dx, dy := torus(px[j]-px[k]), torus(py[j]-py[k])
				if dx*dx+dy*dy < rho*rho {
					p.I, p.J = append(p.I, int32(k)), append(p.J, j)
				}
			}
		}
	}
	p.W = make([]float64, len(p.I))
	for k := range p.W {
		p.W[k] = w
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
