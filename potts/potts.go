package potts

import (
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Params describes a Potts model with a Gaussian-kernel coupling between
// every pair of sites of a Width×Width lattice.
type Params struct {
	Width  int     // lattice side N: N×N sites
	States int     // q, the number of values of each site
	Beta   float64 // inverse temperature β
	Gamma  float64 // kernel width: J_ij = exp(−Gamma·d²_ij)
}

// Paper returns the parameters of the Poisson-Gibbs paper's experiment
// (§4.1): 20×20 sites, D = 10, β = 4.6, γ = 1.5.
func Paper() Params { return Params{Width: 20, States: 10, Beta: 4.6, Gamma: 1.5} }

// Validate reports parameters that cannot make a model.
func (p Params) Validate() error {
	switch {
	case p.Width < 2:
		return fmt.Errorf("potts: width %d < 2", p.Width)
	case p.Width > MaxWidth:
		return fmt.Errorf("potts: width %d > %d", p.Width, MaxWidth)
	case p.States < 2:
		return fmt.Errorf("potts: %d states < 2", p.States)
	case !(p.Beta >= 0) || math.IsInf(p.Beta, 0):
		return fmt.Errorf("potts: β = %v: need a finite β ≥ 0", p.Beta)
	case !(p.Gamma > 0) || math.IsInf(p.Gamma, 0):
		return fmt.Errorf("potts: γ = %v: need a finite γ > 0", p.Gamma)
	}
	return nil
}

// Site returns the index of the site at (row, col).
func (p Params) Site(row, col int) int { return row*p.Width + col }

// New returns the fully connected Gaussian-kernel Potts model: one factor
// β·exp(−γ·d²)·δ(x_i, x_j) for every unordered pair of sites whose coupling
// is not exactly 0 in float64, numbered by i, then j > i (see Pairs). The
// pairs go to the builder in bulk (factorgraph.Builder.AddPottsPairs), 40
// bytes a pair in the built graph.
func New(p Params) (*factorgraph.Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	a, c, w := p.Pairs()
	b := factorgraph.NewBuilder()
	b.AddVariables(p.Width*p.Width, factorgraph.Discrete(p.States))
	b.AddPottsPairs(a, c, w)
	return b.Build()
}

// MaxWidth is the widest lattice New builds: its sites are indexed by
// 32-bit integers.
const MaxWidth = 46340

// kernel returns the couplings β·exp(−γ·(dr² + dc²)) by offset, k[dr][dc],
// and for each dr the largest dc whose coupling is not 0 (−1 for none): the
// couplings decrease with the distance, so those are contiguous.
func (p Params) kernel() (k [][]float64, reach []int) {
	for dr := range p.Width {
		row := make([]float64, 0, 8)
		for dc := range p.Width {
			w := p.Beta * math.Exp(-p.Gamma*float64(dr*dr+dc*dc))
			if w == 0 {
				break
			}
			row = append(row, w)
		}
		if len(row) == 0 {
			break
		}
		k = append(k, row)
		reach = append(reach, len(row)-1)
	}
	return k, reach
}

// NumPairs returns the number of factors New builds (pairs whose coupling is
// not 0), without building them; p must be valid.
func (p Params) NumPairs() int {
	_, reach := p.kernel()
	n := 0
	for dr, cm := range reach {
		for c := range p.Width {
			if dr == 0 {
				n += p.Width * min(cm, p.Width-1-c)
				continue
			}
			n += (p.Width - dr) * (min(c+cm, p.Width-1) - max(c-cm, 0) + 1)
		}
	}
	return n
}

// Pairs returns the model's pair factors in the bulk form of
// factorgraph.Builder.AddPottsPairs: pair k couples sites a[k] < b[k] with
// weight w[k], ordered by a, then b (the order New numbers the factors in),
// without the pairs whose coupling is 0. p must be valid, with Width at
// most MaxWidth. It takes the time of writing them: the couplings are
// tabulated by offset, and only offsets within the kernel's reach are
// visited.
func (p Params) Pairs() (a, b []int32, w []float64) {
	k, reach := p.kernel()
	np := p.NumPairs()
	a, b, w = make([]int32, 0, np), make([]int32, 0, np), make([]float64, 0, np)
	n := p.Width
	for ri := range n {
		for ci := range n {
			i := int32(ri*n + ci)
			for dr, cm := range reach {
				rj := ri + dr
				if rj >= n {
					break
				}
				lo, hi := max(ci-cm, 0), min(ci+cm, n-1)
				if dr == 0 {
					lo = ci + 1
				}
				krow := k[dr]
				base := int32(rj * n)
				for cj := lo; cj <= hi; cj++ {
					a = append(a, i)
					b = append(b, base+int32(cj))
					w = append(w, krow[abs(cj-ci)])
				}
			}
		}
	}
	return a, b, w
}

// NearestNeighbour returns the q-state Potts model on a periodic
// width×width torus: a factor β·δ(x_i, x_j) for each of the 2·width² bonds
// between nearest neighbours.
func NearestNeighbour(width, states int, beta float64) (*factorgraph.Graph, error) {
	switch {
	case width < 3:
		return nil, fmt.Errorf("potts: torus width %d < 3", width)
	case width > MaxWidth:
		return nil, fmt.Errorf("potts: torus width %d > %d", width, MaxWidth)
	case states < 2:
		return nil, fmt.Errorf("potts: %d states < 2", states)
	case !(beta >= 0) || math.IsInf(beta, 0):
		return nil, fmt.Errorf("potts: β = %v: need a finite β ≥ 0", beta)
	}
	n := width * width
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(states))
	from, to, w := make([]int32, 0, 2*n), make([]int32, 0, 2*n), make([]float64, 0, 2*n)
	for r := range width {
		for c := range width {
			i := int32(r*width + c)
			from = append(from, i, i)
			to = append(to, int32(r*width+(c+1)%width), int32(((r+1)%width)*width+c))
			w = append(w, beta, beta)
		}
	}
	b.AddPottsPairs(from, to, w)
	return b.Build()
}

// Ising returns the ferromagnetic Ising model π(s) ∝ exp(β Σ_<ij> s_i s_j)
// on a periodic width×width torus, as the 2-state Potts model with
// β_Potts = 2β (value 0 is spin −1, value 1 is spin +1).
func Ising(width int, beta float64) (*factorgraph.Graph, error) {
	return NearestNeighbour(width, 2, 2*beta)
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
