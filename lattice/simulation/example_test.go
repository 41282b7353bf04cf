package simulation_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/lattice/simulation"
)

// A Swendsen–Wang run of the 32×32 Ising torus at the critical β_c =
// ln(1+√2)/2, in one call: |m| and the Binder cumulant (near its
// critical value U* ≈ 0.61), the energy per site (−1.434 on this torus: lattice.IsingTorusEnergy) with their blocked-jackknife errors, and the
// convergence verdict on two chains.
func Example() {
	res, err := simulation.Run(context.Background(), simulation.Config{
		Params: lattice.Params{Dim: 2, Size: 32, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(),
			Beta: math.Log(1+math.Sqrt2) / 2},
		Sampler: "sw",
		Chains:  2,
		Seed:    1,
		Sweeps:  2000,
		Burn:    200,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	o := res.Observables
	fmt.Printf("|m| = %.3f ± %.3f\n", o.AbsM.Mean, o.AbsM.Err)
	fmt.Printf("U   = %.3f ± %.3f (Binder cumulant)\n", o.Binder.Mean, o.Binder.Err)
	fmt.Printf("e   = %.3f ± %.3f (energy per site)\n", o.Energy.Mean, o.Energy.Err)
	fmt.Println("converged:", res.Verdict.Converged)
	// Output:
	// |m| = 0.645 ± 0.008
	// U   = 0.608 ± 0.004 (Binder cumulant)
	// e   = -1.428 ± 0.004 (energy per site)
	// converged: true
}
