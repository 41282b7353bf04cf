package convplot_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/pgibbs/pgibbs/diag/convplot"
)

// Two quantities sampled by three chains: an AR(1) process that mixes,
// and one whose chains each stay near their own starting point. Only the
// worst quantity is drawn (Max 1); the running split-R̂ shows it.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	const chains, draws = 3, 500
	ar := func(phi, start float64) []float64 {
		x, v := make([]float64, draws), start
		for i := range x {
			v = phi*v + rng.NormFloat64()
			x[i] = v
		}
		return x
	}
	mixing := convplot.Quantity{Name: "theta[1]"}
	sticky := convplot.Quantity{Name: "theta[2]"}
	for k := range chains {
		mixing.Chains = append(mixing.Chains, ar(0.5, 0))
		sticky.Chains = append(sticky.Chains, ar(0.999, 20*float64(k)))
	}

	dir, err := os.MkdirTemp("", "convplot")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files, err := convplot.Write(dir, []convplot.Quantity{mixing, sticky},
		&convplot.Options{Max: 1, Width: 5 * vg.Inch, Height: 3 * vg.Inch})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// trace-theta_2_.png
	// trace-theta_2_.svg
	// rank-theta_2_.png
	// rank-theta_2_.svg
	// rhat.png
	// rhat.svg
}
