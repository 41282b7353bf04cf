package its_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chebyshev"
	"github.com/pgibbs/pgibbs/its"
)

// One step of a Gibbs-ITS/PGITS update of a variable on [0,1]: the energy is
// evaluated at the m+1 Chebyshev points, a draw is made from the polynomial
// approximation, and the Metropolis–Hastings correction decides.
func ExampleSampler_FitLogDensity() {
	energy := func(x float64) float64 { return 40 * x * (1 - x) } // log of the target, unnormalised
	const m = 8
	nodes, _ := chebyshev.Points(nil, m, 0, 1)
	u := make([]float64, m+1)
	for j, x := range nodes {
		u[j] = energy(x)
	}

	var s its.Sampler
	if err := s.FitLogDensity(0, 1, u); err != nil {
		fmt.Println(err)
		return
	}
	r := rand.New(rand.NewPCG(1, 2))
	old := 0.3
	v := s.Draw(r)
	logp := s.LogAcceptRatio(old, energy(old), v, energy(v))
	accept := math.Log(r.Float64()) < logp
	fmt.Printf("degree of q: %d\n", s.Degree())
	fmt.Printf("v in [0,1]: %v, log p finite: %v, accepted: %v\n", v >= 0 && v <= 1, !math.IsInf(logp, 0), accept)
	// Output:
	// degree of q: 16
	// v in [0,1]: true, log p finite: true, accepted: true
}

// The double approximation of Gibbs-DA/PGDA: a degree-3 interpolant of the
// energy from 4 evaluations, then a degree-10 fit of exp(Ũ) with no further
// energy evaluations.
func ExampleSampler_FitEnergySeries() {
	energy := func(x float64) float64 { return 6 * x * x } // exactly quadratic
	var uHat chebyshev.Series
	if err := uHat.FitFunc(0, 1, 3, energy); err != nil {
		fmt.Println(err)
		return
	}
	var s its.Sampler
	if err := s.FitEnergySeries(&uHat, 10); err != nil {
		fmt.Println(err)
		return
	}
	// The mean of many draws approaches ∫x·e^{6x²} / ∫e^{6x²} on [0,1].
	r := rand.New(rand.NewPCG(3, 4))
	const n = 100000
	var sum float64
	for range n {
		sum += s.Draw(r)
	}
	num := math.Expm1(6) / 12 // ∫_0^1 x e^{6x²} dx
	den := quadMidpoint(func(x float64) float64 { return math.Exp(6 * x * x) })
	fmt.Printf("sample mean %.2f, exact %.2f\n", sum/n, num/den)
	// Output:
	// sample mean 0.89, exact 0.89
}

// quadMidpoint integrates f over [0,1] by the composite midpoint rule.
func quadMidpoint(f func(float64) float64) float64 {
	const n = 100000
	var s float64
	for i := range n {
		s += f((float64(i) + 0.5) / n)
	}
	return s / n
}

func ExampleSampler_Quantile() {
	// log f = 2 log x at the nodes 1 and 0 (m = 1): g(x) = x, q(x) = 3x², Q(x) = x³.
	var s its.Sampler
	if err := s.FitLogDensity(0, 1, []float64{0, math.Inf(-1)}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Quantile(0.125) = %.15f\n", s.Quantile(0.125))
	fmt.Printf("Density(0.5) = %.15f\n", s.Density(0.5))
	// Output:
	// Quantile(0.125) = 0.500000000000000
	// Density(0.5) = 0.750000000000000
}
