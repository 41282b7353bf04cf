package diag

import (
	"math"
	"math/rand/v2"
)

// ar1 returns m chains of n draws of the stationary Gaussian AR(1) process
// x_{t+1} = ρ x_t + √(1−ρ²) ε_t, x_0 ~ N(0, 1), whose marginal is N(0, 1) and
// whose autocorrelation is ρ^t.
func ar1(rng *rand.Rand, m, n int, rho float64) [][]float64 {
	s := math.Sqrt(1 - rho*rho)
	out := make([][]float64, m)
	for c := range out {
		x := make([]float64, n)
		x[0] = rng.NormFloat64()
		for t := 1; t < n; t++ {
			x[t] = rho*x[t-1] + s*rng.NormFloat64()
		}
		out[c] = x
	}
	return out
}

// ar1ESS is the asymptotic ESS of the mean of m·n draws of an AR(1) chain with
// coefficient ρ: m·n·(1−ρ)/(1+ρ).
func ar1ESS(m, n int, rho float64) float64 {
	return float64(m*n) * (1 - rho) / (1 + rho)
}

// ar1MeanSE is the exact standard error of the mean of n consecutive draws of
// the stationary AR(1) chain with unit marginal variance:
// Var(x̄) = (1/n)[(1+ρ)/(1−ρ) − 2ρ(1−ρⁿ)/(n(1−ρ)²)].
func ar1MeanSE(n int, rho float64) float64 {
	fn := float64(n)
	v := ((1+rho)/(1-rho) - 2*rho*(1-math.Pow(rho, fn))/(fn*(1-rho)*(1-rho))) / fn
	return math.Sqrt(v)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }
