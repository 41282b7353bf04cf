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
// is not exactly 0 in float64.
func New(p Params) (*factorgraph.Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n := p.Width * p.Width
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(p.States))
	// The kernel depends on the offset only: tabulate it.
	kernel := make([]float64, 2*p.Width*p.Width)
	for dr := range p.Width {
		for dc := range p.Width {
			kernel[dr*p.Width+dc] = p.Beta * math.Exp(-p.Gamma*float64(dr*dr+dc*dc))
		}
	}
	// Allocate the factors in one slice: millions of pairs on large lattices.
	factors := make([]factorgraph.Potts, 0, n*(n-1)/2)
	for i := range n {
		ri, ci := i/p.Width, i%p.Width
		for j := i + 1; j < n; j++ {
			rj, cj := j/p.Width, j%p.Width
			w := kernel[abs(ri-rj)*p.Width+abs(ci-cj)]
			if w == 0 {
				continue
			}
			factors = append(factors, *factorgraph.NewPotts(i, j, w))
		}
	}
	for k := range factors {
		b.AddFactor(&factors[k])
	}
	return b.Build()
}

// NearestNeighbour returns the q-state Potts model on a periodic
// width×width torus: a factor β·δ(x_i, x_j) for each of the 2·width² bonds
// between nearest neighbours.
func NearestNeighbour(width, states int, beta float64) (*factorgraph.Graph, error) {
	switch {
	case width < 3:
		return nil, fmt.Errorf("potts: torus width %d < 3", width)
	case states < 2:
		return nil, fmt.Errorf("potts: %d states < 2", states)
	case !(beta >= 0) || math.IsInf(beta, 0):
		return nil, fmt.Errorf("potts: β = %v: need a finite β ≥ 0", beta)
	}
	n := width * width
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(states))
	factors := make([]factorgraph.Potts, 0, 2*n)
	for r := range width {
		for c := range width {
			i := r*width + c
			factors = append(factors,
				*factorgraph.NewPotts(i, r*width+(c+1)%width, beta),
				*factorgraph.NewPotts(i, ((r+1)%width)*width+c, beta))
		}
	}
	for k := range factors {
		b.AddFactor(&factors[k])
	}
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
