package glass

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Stream is the second seed of the PCG that Draw draws an instance from:
// rand.NewPCG(Spec.Seed, Stream). It is "glass" in ASCII.
const Stream = 0x676c617373

// MaxL is the largest side New builds: the L² sites are indexed by 32-bit
// integers.
const MaxL = 46340

// Spec specifies an instance of the Edwards–Anderson ±J glass in a random
// field on an L×L square lattice (see the package documentation).
type Spec struct {
	L        int     // side: L×L sites, L ≥ 2
	Beta     float64 // inverse temperature β > 0
	FieldSD  float64 // σ ≥ 0 of the random fields h_i ~ N(0, σ²); 0 for none
	Periodic bool    // periodic boundaries (a torus) instead of free ones
	Seed     uint64  // the instance: the first seed of Draw's PCG
}

// Validate reports a Spec that cannot make a model.
func (s Spec) Validate() error {
	switch {
	case s.L < 2:
		return fmt.Errorf("glass: L = %d: need at least 2", s.L)
	case s.L > MaxL:
		return fmt.Errorf("glass: L = %d: more than %d", s.L, MaxL)
	case !(s.Beta > 0) || math.IsInf(s.Beta, 0):
		return fmt.Errorf("glass: β = %v: need a finite β > 0", s.Beta)
	case !(s.FieldSD >= 0) || math.IsInf(s.FieldSD, 0):
		return fmt.Errorf("glass: FieldSD = %v: need a finite FieldSD ≥ 0", s.FieldSD)
	}
	return nil
}

// Site returns the index of the site at (row, col): row·L + col.
func (s Spec) Site(row, col int) int { return row*s.L + col }

// NumBonds returns the number of bonds: 2L(L−1) with free boundaries,
// 2L² with periodic ones.
func (s Spec) NumBonds() int {
	if s.Periodic {
		return 2 * s.L * s.L
	}
	return 2 * s.L * (s.L - 1)
}

// Bond is a nearest-neighbour bond between sites A and B with coupling
// J = ±1.
type Bond struct {
	A, B int
	J    float64
}

// Instance is a drawn glass: the couplings and fields of a Spec.
type Instance struct {
	Spec  Spec
	Bonds []Bond    // by site A, the bond to the right, then the bond below
	Field []float64 // h_i by site
}

// Draw draws the instance of s: its couplings, then its fields, from
// rand.New(rand.NewPCG(s.Seed, Stream)) in the order the package
// documentation gives.
func Draw(s Spec) (*Instance, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(s.Seed, Stream))
	n := s.L
	in := &Instance{Spec: s, Bonds: make([]Bond, 0, s.NumBonds()), Field: make([]float64, n*n)}
	for row := range n {
		for col := range n {
			i := s.Site(row, col)
			if col+1 < n || s.Periodic {
				in.Bonds = append(in.Bonds, Bond{A: i, B: s.Site(row, (col+1)%n), J: float64(2*r.IntN(2) - 1)})
			}
			if row+1 < n || s.Periodic {
				in.Bonds = append(in.Bonds, Bond{A: i, B: s.Site((row+1)%n, col), J: float64(2*r.IntN(2) - 1)})
			}
		}
	}
	for i := range in.Field {
		in.Field[i] = s.FieldSD * r.NormFloat64()
	}
	return in, nil
}

// New returns the glass of s as a factor graph: Draw(s), then
// Instance.Graph.
func New(s Spec) (*factorgraph.Graph, error) {
	in, err := Draw(s)
	if err != nil {
		return nil, err
	}
	return in.Graph()
}

// Graph returns the instance as a factor graph over L² binary variables:
// the Potts pair 2βJ·δ(x_A, x_B) for each bond in order, then the table
// (−βh_i, βh_i) for each site i with h_i ≠ 0 in site order. Its
// log-potential is −βE(s) + LogZShift() (see the package documentation).
// It returns an error if β·h_i or 2β overflows.
func (in *Instance) Graph() (*factorgraph.Graph, error) {
	s := in.Spec
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if len(in.Field) != s.L*s.L {
		return nil, fmt.Errorf("glass: %d fields for %d sites", len(in.Field), s.L*s.L)
	}
	if math.IsInf(2*s.Beta, 0) {
		return nil, fmt.Errorf("glass: β = %v: the pair weight 2β overflows", s.Beta)
	}
	a, b, w := make([]int32, len(in.Bonds)), make([]int32, len(in.Bonds)), make([]float64, len(in.Bonds))
	for k, bd := range in.Bonds {
		a[k], b[k], w[k] = int32(bd.A), int32(bd.B), 2*s.Beta*bd.J
	}
	var scopes []int32
	var tables []float64
	for i, h := range in.Field {
		if h == 0 {
			continue
		}
		bh := s.Beta * h
		if math.IsInf(bh, 0) {
			return nil, fmt.Errorf("glass: site %d: β·h = %v·%v overflows", i, s.Beta, h)
		}
		scopes = append(scopes, int32(i))
		tables = append(tables, -bh, bh)
	}
	fb := factorgraph.NewBuilder()
	fb.AddVariables(s.L*s.L, factorgraph.Discrete(2))
	fb.AddPottsPairs(a, b, w)
	if len(scopes) > 0 {
		fb.AddTables(scopes, []int{2}, tables)
	}
	return fb.Build()
}

// LogZShift returns C = β Σ_<ij> J_ij, the constant by which the graph's
// log-potential exceeds −βE(s): log Z of the graph is log Z of the formula
// plus C.
func (in *Instance) LogZShift() float64 {
	c := 0.0
	for _, bd := range in.Bonds {
		c += bd.J
	}
	return in.Spec.Beta * c
}

// Energy returns E(s) = −Σ_<ij> J_ij s_i s_j − Σ_i h_i s_i of the state x
// of the graph's variables (s_i = 2x_i − 1), so that π ∝ exp(−βE). It
// returns NaN if x is not a state: not L² values, or a value other than 0
// and 1 (or if a bond names a site out of range).
func (in *Instance) Energy(x []float64) float64 {
	n := len(in.Field)
	if len(x) != n {
		return math.NaN()
	}
	for _, v := range x {
		if v != 0 && v != 1 {
			return math.NaN()
		}
	}
	e := 0.0
	for _, bd := range in.Bonds {
		if uint(bd.A) >= uint(n) || uint(bd.B) >= uint(n) {
			return math.NaN()
		}
		e -= bd.J * (2*x[bd.A] - 1) * (2*x[bd.B] - 1)
	}
	for i, h := range in.Field {
		e -= h * (2*x[i] - 1)
	}
	return e
}
