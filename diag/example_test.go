package diag_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/diag"
)

func ExampleMarginalL2() {
	est := [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}}
	exact := [][]float64{{0.8, 0.2}, {0.2, 0.2, 0.6}}
	l2, err := diag.MarginalL2(est, exact)
	if err != nil {
		fmt.Println(err)
		return
	}
	mean, max, _ := diag.MarginalAbs(est, exact)
	fmt.Printf("mean ℓ2 error %.4f, mean |error| %.2f, max |error| %.2f\n", l2, mean, max)

	// Variable 0 is evidence: leave it out.
	l2, _ = diag.MarginalL2Vars(est, exact, []int{1})
	fmt.Printf("without evidence: %.4f\n", l2)

	// A malformed estimate is an error that names the variable.
	_, err = diag.MarginalL2([][]float64{{5, 5}, {0.2, 0.3, 0.5}}, exact)
	fmt.Println(err)
	// Output:
	// mean ℓ2 error 0.2828, mean |error| 0.16, max |error| 0.30
	// without evidence: 0.1414
	// diag: variable 0: estimated marginal sums to 10, not 1
}

func ExampleSymmetricKL() {
	counts := []float64{30, 50, 20, 0} // a histogram; the last bin is empty
	exact := []float64{0.3, 0.5, 0.15, 0.05}
	tv, _ := diag.TotalVariation(counts, exact)
	kl, _ := diag.SymmetricKL(counts, exact, 1e-3)
	inf, _ := diag.SymmetricKL(counts, exact, 0)
	fmt.Printf("TV %.3f, symmetric KL (eps 1e-3) %.3f, unsmoothed %v\n", tv, kl, inf)
	// Output:
	// TV 0.050, symmetric KL (eps 1e-3) 0.210, unsmoothed +Inf
}

func ExampleHist1D() {
	h, err := diag.NewHist1D(0, 1, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range []float64{0.1, 0.3, 0.35, 0.9, 1, 1.5, -2} {
		h.Add(x)
	}
	below, above, nan := h.Outside()
	fmt.Println("counts", h.Counts())
	fmt.Println("outside", below, above, nan)
	fmt.Printf("probs %.3f\n", h.Probs(nil))
	// Output:
	// counts [1 2 0 2]
	// outside 1 1 0
	// probs [0.143 0.286 0.000 0.286]
}

// ar1 returns m chains of n draws of a stationary AR(1) process with unit
// variance and lag-1 correlation rho.
func ar1(rng *rand.Rand, m, n int, rho float64) [][]float64 {
	chains := make([][]float64, m)
	for c := range chains {
		x := make([]float64, n)
		x[0] = rng.NormFloat64()
		for t := 1; t < n; t++ {
			x[t] = rho*x[t-1] + math.Sqrt(1-rho*rho)*rng.NormFloat64()
		}
		chains[c] = x
	}
	return chains
}

func ExampleSummarize() {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, n, rho = 4, 10000, 0.9
	chains := ar1(rng, m, n, rho)

	s, err := diag.Summarize(chains)
	if err != nil {
		fmt.Println(err)
		return
	}
	exact := m * n * (1 - rho) / (1 + rho)
	fmt.Printf("ESS within 10%% of M·N(1−ρ)/(1+ρ) = %.0f: %v\n", exact, math.Abs(s.ESS/exact-1) < 0.1)
	fmt.Printf("R̂ %.2f\n", s.RHat)

	// A fourth chain stuck elsewhere.
	for i := range chains[3] {
		chains[3][i] += 3
	}
	r, _ := diag.RHat(chains)
	fmt.Println("R̂ > 1.01 with a stuck chain:", r > 1.01)
	// Output:
	// ESS within 10% of M·N(1−ρ)/(1+ρ) = 2105: true
	// R̂ 1.00
	// R̂ > 1.01 with a stuck chain: true
}

func ExampleBinningError() {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, rho = 1 << 16, 0.9
	x := ar1(rng, 1, n, rho)[0]
	b, err := diag.BinningError(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	exact := math.Sqrt((1 + rho) / (1 - rho) / n) // large-n standard error of the mean
	fmt.Printf("plateau at blocks of %d draws\n", b.Levels[b.Plateau].BlockSize)
	fmt.Printf("binning SE within 15%% of the exact %.4f: %v\n", exact, math.Abs(b.SE/exact-1) < 0.15)
	fmt.Printf("naive SE too small by %.1f (exact factor √((1+ρ)/(1−ρ)) = %.1f)\n", b.SE/b.Levels[0].SE, math.Sqrt((1+rho)/(1-rho)))
	// Output:
	// plateau at blocks of 512 draws
	// binning SE within 15% of the exact 0.0170: true
	// naive SE too small by 4.3 (exact factor √((1+ρ)/(1−ρ)) = 4.4)
}
