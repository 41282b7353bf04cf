package lattice

import (
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// probs returns the conditional probabilities exp(u_v)/Σ exp(u) of the
// log-conditionals u (conditional's, shifted by the factors' lo).
func probs(u []float64) []float64 {
	top := math.Inf(-1)
	for _, l := range u {
		top = max(top, l)
	}
	p := make([]float64, len(u))
	z := 0.0
	for v, l := range u {
		p[v] = math.Exp(l - top)
		z += p[v]
	}
	for v := range p {
		p[v] /= z
	}
	return p
}

// TestCouplingConvention checks the coupling table of the factorgraph
// package documentation: a lattice Ising pair β·J(r)·s_i·s_j is the Potts
// pair W = 2β·J(r) of factorgraph.NewPotts, and a lattice Potts pair
// β·J(r)·δ is W = β·J(r): the two models give the same conditionals at
// every state and site.
func TestCouplingConvention(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     Params
		scale float64 // W = scale·β·J
	}{
		{"ising-gauss", Params{Dim: 1, Size: 5, Coupling: Gaussian{Gamma: 0.4}, Spin: Ising(), Beta: 0.7}, 2},
		{"ising-nn-anti", Params{Dim: 2, Size: 3, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: -0.45}, 2},
		{"potts3-power", Params{Dim: 1, Size: 5, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 0.9}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, tc.p)
			n := l.NumVars()
			q := l.Domain(0).Size
			b := factorgraph.NewBuilder()
			b.AddVariables(n, factorgraph.Discrete(q))
			// Every pair once, J at its minimal-image squared distance.
			var ci, cj []int
			for i := range n {
				for j := i + 1; j < n; j++ {
					ci, cj = l.Coords(ci[:0], i), l.Coords(cj[:0], j)
					d2 := 0
					for a := range ci {
						c := abs(ci[a] - cj[a])
						c = min(c, tc.p.Size-c)
						d2 += c * c
					}
					if J := tc.p.Coupling.Coupling(tc.p.Dim, d2); J != 0 {
						b.AddFactor(factorgraph.NewPotts(i, j, tc.scale*tc.p.Beta*J))
					}
				}
			}
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, n)
			states := 1
			for range n {
				states *= q
			}
			for s := range min(states, 4096) {
				for i, r := 0, s; i < n; i, r = i+1, r/q {
					x[i] = float64(r % q)
				}
				for i := range n {
					got, want := probs(conditional(l, i, x)), probs(conditional(g, i, x))
					for v := range got {
						if math.Abs(got[v]-want[v]) > 1e-12 {
							t.Fatalf("state %v site %d: lattice conditional %v, NewPotts(W = %g·βJ) %v", x, i, got, tc.scale, want)
						}
					}
				}
			}
		})
	}
}
