package mh_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// TunaMH and MH-SS-2 on robust linear regression with 10⁴ data points,
// against standard MH.
func Example() {
	r := rand.New(rand.NewPCG(1, 2))
	reg, err := targets.GenerateRobustLinear(10_000, 3, 4, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	mode := make([]float64, 3)
	if err := reg.Mode(mode); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"mh", "tunamh", "mhss2"} {
		o := mh.Options{Step: 5e-3, Chi: 1e-4, Init: mode, Ref: mode}
		if name == "tunamh" {
			o.Step = 2e-4
		}
		s, err := mh.New(name, reg, rand.New(rand.NewPCG(3, 4)), &o)
		if err != nil {
			fmt.Println(err)
			return
		}
		for range 2000 {
			s.Step()
		}
		st := s.Stats()
		fmt.Printf("%-6s acceptance %.2f, mean batch %7.1f\n", name, st.AcceptanceRate(), st.MeanBatch())
	}
	// Output:
	// mh     acceptance 0.72, mean batch 10000.0
	// tunamh acceptance 0.54, mean batch     6.5
	// mhss2  acceptance 0.72, mean batch     0.2
}
