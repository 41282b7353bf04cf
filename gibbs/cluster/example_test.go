package cluster_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/lattice"
)

// Swendsen–Wang on the 2-D Ising model at its critical point: a step is a
// sweep of cluster moves, and the energy per site matches the exact value
// of the finite torus.
func ExampleSwendsenWang() {
	bc := math.Log(1+math.Sqrt2) / 2
	l, err := lattice.New(lattice.Params{Dim: 2, Size: 16, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: bc})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := cluster.NewSwendsenWang(l, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := lattice.NewMeasurer(l, nil, lattice.ExactEnergy)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := &chain.Chain{Kernel: s, Observers: []chain.Observer{m}, Burn: 200}
	if err := c.Advance(context.Background(), 20200); err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Result()
	if err != nil {
		fmt.Println(err)
		return
	}
	exact, _ := lattice.IsingTorusEnergy(16, bc)
	fmt.Printf("energy per site %.2f (exact %.2f), within 4 errors: %v\n",
		res.Energy.Mean, exact, math.Abs(res.Energy.Mean-exact) < 4*res.Energy.Err)
	// Output:
	// energy per site -1.45 (exact -1.45), within 4 errors: true
}

// Wolff single-cluster updates, as many a step as make about one sweep's
// worth of site updates. The order is tune, burn in, measure: tuning ends
// at a stopping time (when the counts settle), so TuneClusters comes
// first (it refuses a chain that has moved) and the burn-in washes it out.
func ExampleWolff_TuneClusters() {
	l, err := lattice.New(lattice.Params{Dim: 2, Size: 32, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := cluster.NewWolff(l, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// 1. Tune: rounds of 10 sweeps' worth of clusters from the random
	// start, until the count settles (the clusters grow as the state
	// orders).
	if _, err := w.TuneClusters(context.Background(), 10); err != nil {
		fmt.Println(err)
		return
	}
	// 2. Burn in.
	for range 100 {
		w.Step()
	}
	// 3. Measure.
	m := 0.0
	for range 100 {
		w.Step()
		m += l.Magnetisation(w.State()) / 100
	}
	// Deep in the ordered phase a cluster is most of the lattice.
	fmt.Printf("clusters a step: %d; mean |m| > 0.8: %v\n", w.Clusters(), m > 0.8)
	// Tuning again, now that the chain has moved, is refused.
	_, err = w.TuneClusters(context.Background(), 10)
	fmt.Println(err != nil)
	// Output:
	// clusters a step: 1; mean |m| > 0.8: true
	// true
}
