package diag

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// minRHatDraws is the fewest draws per chain the R̂ family accepts: each
// split half then has 2 draws and a within-chain variance.
const minRHatDraws = 4

// RHat returns Stan's R̂ (Vehtari et al. 2021): the larger of the bulk R̂,
// the split-R̂ of the rank-normalised draws, and the tail R̂, the split-R̂ of
// the rank-normalised folded draws |x − median(x)|. Rank normalisation makes
// it robust to heavy tails; folding makes it detect chains that differ in
// scale but not in location. Values above about 1.01 signal chains that have
// not mixed.
//
// RHat returns an error if there are no chains, the chains differ in length
// or have fewer than 4 draws, or a draw is NaN or infinite. If all draws are
// equal (or all folded draws are, so the tail R̂ is undefined), RHat is NaN,
// as in Stan's posterior package. If each chain is constant but the chains
// differ, the within-chain variance is zero and RHat is +Inf.
func RHat(chains [][]float64) (float64, error) {
	if err := checkChains(chains, minRHatDraws); err != nil {
		return 0, err
	}
	sc := getScratch()
	defer putScratch(sc)
	return sc.rhatRank(chains, sc.sortedDraws(chains)), nil
}

// rhatRank computes RHat for validated chains whose sorted draws are s.
func (sc *scratch) rhatRank(chains [][]float64, s []float64) float64 {
	bulk := sc.rhatSplit(sc.rankNormalize(sc.split(chains)))
	med := median(s)
	folded := sc.folded[:0]
	for _, x := range chains {
		for _, v := range x {
			folded = append(folded, math.Abs(v-med))
		}
	}
	sc.folded = folded
	tail := sc.rhatSplit(sc.rankNormalize(sc.split(sc.reshape(folded, len(chains)))))
	return math.Max(bulk, tail)
}

// SplitRHat returns the classic split-R̂ of Gelman et al. (BDA3, 2013) on the
// raw draws, computed on the 2M half-chains of N draws each (for an odd
// number of draws the middle one is left out):
//
//	W = (1/2M) Σ_m s²_m,  B = N·var_m(x̄_m),  R̂ = √(((N−1)/N·W + B/N) / W).
//
// Its errors, NaN and +Inf are those of [RHat]. Prefer RHat, which is robust
// to heavy tails and also compares the chains' scales.
func SplitRHat(chains [][]float64) (float64, error) {
	if err := checkChains(chains, minRHatDraws); err != nil {
		return 0, err
	}
	sc := getScratch()
	defer putScratch(sc)
	return sc.rhatSplit(sc.split(chains)), nil
}

// rhatSplit is R̂ of chains that are already split (posterior's .rhat).
func (sc *scratch) rhatSplit(chains [][]float64) float64 {
	if constant(chains) {
		return math.NaN()
	}
	n := float64(len(chains[0]))
	means := zeros(&sc.rmeans, len(chains))
	w := 0.0
	for c, x := range chains {
		mean, v := stat.MeanVariance(x, nil)
		means[c] = mean
		w += v
	}
	w /= float64(len(chains))
	b := n * stat.Variance(means, nil)
	return math.Sqrt((b/w + n - 1) / n)
}
