package lattice_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/lattice"
)

// swChains runs k Swendsen–Wang chains of the lattice through package
// chain (200 sweeps of burn-in, then sweeps measured ones) and returns
// their Series.
func swChains(l *lattice.Lattice, k int, sweeps int64) ([]lattice.Series, error) {
	var out []lattice.Series
	for _, r := range chain.Streams(1, k) {
		sw, err := cluster.NewSwendsenWang(l, r, nil)
		if err != nil {
			return nil, err
		}
		m, err := lattice.NewMeasurer(l, nil, lattice.ExactEnergy)
		if err != nil {
			return nil, err
		}
		c := &chain.Chain{Kernel: sw, Burn: 200, Observers: []chain.Observer{m}}
		if err := c.Advance(context.Background(), 200+sweeps); err != nil {
			return nil, err
		}
		out = append(out, m.Series())
	}
	return out, nil
}

// The observables of finite-size scaling on a 16×16 Ising torus at the
// critical point, from two Swendsen–Wang chains pooled: the Binder
// cumulant near its critical value U* = 0.61, and ξ₂/L near 0.905.
func ExampleLattice_Observables() {
	betaC := math.Log(1+math.Sqrt2) / 2
	l, err := lattice.New(lattice.Params{Dim: 2, Size: 16, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: betaC})
	if err != nil {
		fmt.Println(err)
		return
	}
	chains, err := swChains(l, 2, 5000)
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := l.Observables(chains...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d measurements in %d blocks\n", o.Measurements, o.Blocks)
	fmt.Printf("U = %.3f ± %.3f, ξ₂/L = %.2f ± %.2f\n", o.Binder.Mean, o.Binder.Err, o.Xi.Mean/16, o.Xi.Err/16)
	fmt.Printf("χ = %.1f ± %.1f (τ %.0f), C = %.2f ± %.2f\n", o.Chi.Mean, o.Chi.Err, o.Chi.Tau, o.SpecificHeat.Mean, o.SpecificHeat.Err)
	// Output:
	// 10000 measurements in 78 blocks
	// U = 0.611 ± 0.002, ξ₂/L = 0.90 ± 0.01
	// χ = 4.2 ± 0.1 (τ 3), C = 1.48 ± 0.03
}

// One run at β₀ = 0.43 on a 16×16 Ising torus, reweighted: the window of
// β the run supports, the peak of the connected susceptibility inside it,
// and a β far outside refused.
func ExampleReweighter() {
	l, err := lattice.New(lattice.Params{Dim: 2, Size: 16, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.43})
	if err != nil {
		fmt.Println(err)
		return
	}
	chains, err := swChains(l, 2, 5000)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := l.Reweighter(chains...)
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := r.Window()
	fmt.Printf("window [%.2f, %.2f]\n", lo, hi)
	p, err := r.ChiPeak()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("χ peak inside the window: %v, at β = %.2f\n", !p.Edge, p.Beta.Mean)
	if _, err := r.At(0.6); err != nil {
		fmt.Println(err != nil)
	}
	// Output:
	// window [0.39, 0.48]
	// χ peak inside the window: true, at β = 0.42
	// true
}
