package lattice_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
)

// A 1000×1000 long-range Ising model: every pair of the 10⁶ sites is
// coupled by r^−3, yet the model stores one entry per offset and
// Poisson-Gibbs runs on it like on any factor graph.
func Example() {
	l, err := lattice.New(lattice.Params{
		Dim: 2, Size: 1000, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Ising(), Beta: 0.25,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d sites, K = %d offsets, %.3g pair factors\n", l.Sites(), l.NumOffsets(), l.PairFactors())
	fmt.Printf("Σ_j J_ij = %.4f, L = 2β·ΣJ = %.4f\n", l.CouplingSum(), l.L())
	s, err := samplers.New("pgibbs", l, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 10000 {
		s.Step()
	}
	fmt.Println("steps:", s.Stats().Steps, "error:", s.Err())
	// Output:
	// 1000000 sites, K = 999999 offsets, 5e+11 pair factors
	// Σ_j J_ij = 9.0223, L = 2β·ΣJ = 4.5112
	// steps: 10000 error: <nil>
}

// The 2-D Ising model at β = 0.6 with parallel checkerboard sweeps, against
// Onsager's energy per site u = −1.9091.
func ExampleMeasurer() {
	l, err := lattice.New(lattice.Params{Dim: 2, Size: 16, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.6})
	if err != nil {
		fmt.Println(err)
		return
	}
	classes, err := l.Colouring()
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := samplers.FactoryOf("gibbs")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := chromatic.New(f, l, classes, chain.Streams(1, 2), &gibbs.Options{Init: make([]float64, l.Sites())})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := lattice.NewMeasurer(l, nil, lattice.ExactEnergy)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A step of the chain is a parallel sweep: the Measurer measures after
	// each one past the burn-in.
	ch := &chain.Chain{Kernel: gibbs.Sweeper{Sampler: c}, Observers: []chain.Observer{m}, Burn: 200}
	if err := ch.Advance(context.Background(), 4000); err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Result()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d colour classes, %d measurements\n", len(classes), res.Measurements)
	fmt.Printf("energy per site %.2f, |m| %.2f\n", res.Energy.Mean, res.Magnetisation.Mean)
	// Output:
	// 2 colour classes, 3800 measurements
	// energy per site -1.91, |m| 0.97
}
