package tgm_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/tgm"
)

// The Poisson-Gibbs paper's factor graph: two variables, N data factors
// with exact ranges and two prior factors.
func Example() {
	cfg := tgm.GibbsConfig()
	cfg.N = 10_000
	m, err := tgm.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := m.Range(0)
	fmt.Printf("ℓ_0 ∈ [%.6f, %.6f]\n", lo, hi)
	plo, phi := m.PriorRange(1)
	fmt.Printf("prior range of x2: %.1f\n", phi-plo)
	fmt.Printf("L = %.2f\n", m.L())
	// Output:
	// ℓ_0 ∈ [-0.001458, -0.000127]
	// prior range of x2: 18.0
	// L = 32.11
}

// TunaMH on the TunaMH paper's setting (box [−3, 3]², flat prior, β = 10⁻⁴),
// with its step size and χ.
func ExampleModel_Target() {
	cfg := tgm.MHConfig()
	cfg.N = 100_000
	m, err := tgm.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := mh.New("tunamh", m.Target(), rand.New(rand.NewPCG(3, 4)), &mh.Options{Step: 0.1, Chi: 1e-4, Init: []float64{0, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 1000 {
		s.Step()
	}
	st := s.Stats()
	fmt.Printf("acceptance %.2f, mean batch %.1f, error %v\n", st.AcceptanceRate(), st.MeanBatch(), s.Err())
	// Output:
	// acceptance 0.87, mean batch 8.4, error <nil>
}
