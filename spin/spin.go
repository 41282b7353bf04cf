package spin

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// PaperL is the local maximum energy the paper reports for its spin model.
const PaperL = 13.71

// Params describes a continuous spin model on a Width×Width lattice with a
// Gaussian-kernel coupling between every pair of sites.
type Params struct {
	Width  int     // lattice side N
	Beta   float64 // inverse temperature β
	Gamma  float64 // kernel width: A_ij = exp(−Gamma·d²_ij)
	Lo, Hi float64 // spin interval; zero values mean [0, 1]
}

// Paper returns the parameters of the paper's experiment: 20×20, β = 1,
// spins on [0, 1], γ = PaperGamma().
func Paper() Params {
	return Params{Width: 20, Beta: 1, Gamma: PaperGamma(), Lo: 0, Hi: 1}
}

// PaperGamma returns the kernel width γ ≈ 0.2136 for which the 20×20,
// β = 1 model has L = 13.71 (see the package documentation). It is computed
// once, by GammaForL.
func PaperGamma() float64 {
	paperGammaOnce.Do(func() {
		g, err := GammaForL(20, 1, PaperL)
		if err != nil {
			panic("spin: " + err.Error()) // a fixed, valid problem
		}
		paperGamma = g
	})
	return paperGamma
}

var (
	paperGammaOnce sync.Once
	paperGamma     float64
)

func (p Params) interval() (lo, hi float64) {
	if p.Lo == 0 && p.Hi == 0 {
		return 0, 1
	}
	return p.Lo, p.Hi
}

// Validate reports parameters that cannot make a model.
func (p Params) Validate() error {
	lo, hi := p.interval()
	switch {
	case p.Width < 2:
		return fmt.Errorf("spin: width %d < 2", p.Width)
	case !(p.Beta >= 0) || math.IsInf(p.Beta, 0):
		return fmt.Errorf("spin: β = %v: need a finite β ≥ 0", p.Beta)
	case !(p.Gamma > 0) || math.IsInf(p.Gamma, 0):
		return fmt.Errorf("spin: γ = %v: need a finite γ > 0", p.Gamma)
	case math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo >= hi:
		return fmt.Errorf("spin: interval [%v, %v] is empty or not finite", lo, hi)
	}
	return nil
}

// localL returns, for the width×width lattice, L = max_i β Σ_j A_ij.
func localL(width int, beta, gamma float64) float64 {
	k := make([]float64, width) // k[d] = exp(−γd²): the kernel factorises by axis
	for d := range k {
		k[d] = math.Exp(-gamma * float64(d*d))
	}
	l := 0.0
	for r := range width {
		sr := 0.0
		for r2 := range width {
			sr += k[abs(r-r2)]
		}
		for c := range width {
			sc := 0.0
			for c2 := range width {
				sc += k[abs(c-c2)]
			}
			l = max(l, beta*(sr*sc-1)) // Σ_{j≠i} A_ij = (Σ_rows)(Σ_cols) − 1
		}
	}
	return l
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// GammaForL returns the kernel width γ at which the width×width model with
// inverse temperature β has local maximum energy l (on [0, 1], M_ij = βA_ij
// so L = max_i β Σ_j A_ij), found by bisection on the decreasing L(γ).
func GammaForL(width int, beta, l float64) (float64, error) {
	if width < 2 || !(beta > 0) || !(l > 0) {
		return 0, errors.New("GammaForL needs width ≥ 2, β > 0, L > 0")
	}
	// L(γ) decreases from β(n−1) at γ → 0 to 0 at γ → ∞.
	if n := width * width; l >= beta*float64(n-1) {
		return 0, fmt.Errorf("target L = %v is not reachable: at most β(n−1) = %v", l, beta*float64(n-1))
	}
	lo, hi := 1e-9, 1.0
	for localL(width, beta, hi) > l {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if localL(width, beta, mid) > l {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// Pair is the spin factor w·(x_a x_b + 1) on spins in [lo, hi]².
type Pair struct {
	scope  [2]int
	w      float64
	lo, hi float64 // declared range
}

// NewPair returns the factor w·(x_a·x_b + 1) for spins in [lo, hi], with its
// exact range over [lo, hi]².
func NewPair(a, b int, w, lo, hi float64) *Pair {
	prods := [4]float64{lo * lo, lo * hi, hi * lo, hi * hi}
	pmin, pmax := prods[0], prods[0]
	for _, v := range prods[1:] {
		pmin, pmax = min(pmin, v), max(pmax, v)
	}
	f1, f2 := w*(pmin+1), w*(pmax+1)
	return &Pair{scope: [2]int{a, b}, w: w, lo: min(f1, f2), hi: max(f1, f2)}
}

// Vars returns {a, b}.
func (p *Pair) Vars() []int { return p.scope[:] }

// Range returns the exact range of the factor over the spin interval.
func (p *Pair) Range() (lo, hi float64) { return p.lo, p.hi }

// Value returns w·(x_a x_b + 1).
func (p *Pair) Value(x []float64) float64 { return p.w * (x[p.scope[0]]*x[p.scope[1]] + 1) }

var _ factorgraph.Sectioner = (*Pair)(nil)

// Section implements factorgraph.Sectioner: the factor is affine in x_i,
// dst[j] = w·(at[j]·x_other + 1), the values of Value bit for bit.
func (p *Pair) Section(dst, x []float64, i int, at []float64) {
	other := x[p.scope[1]]
	if i == p.scope[1] {
		other = x[p.scope[0]]
	}
	w := p.w
	dst = dst[:len(at)]
	for j, v := range at {
		dst[j] = w * (v*other + 1)
	}
}

// New returns the fully connected Gaussian-kernel continuous spin model.
// Pairs whose coupling underflows to exactly 0 are left out (constants).
func New(p Params) (*factorgraph.Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	lo, hi := p.interval()
	n := p.Width * p.Width
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Interval(lo, hi))
	factors := make([]Pair, 0, n*(n-1)/2)
	for i := range n {
		ri, ci := i/p.Width, i%p.Width
		for j := i + 1; j < n; j++ {
			rj, cj := j/p.Width, j%p.Width
			d := float64((ri-rj)*(ri-rj) + (ci-cj)*(ci-cj))
			w := p.Beta * math.Exp(-p.Gamma*d)
			if w == 0 {
				continue
			}
			factors = append(factors, *NewPair(i, j, w, lo, hi))
		}
	}
	for k := range factors {
		b.AddFactor(&factors[k])
	}
	return b.Build()
}
