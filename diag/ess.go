package diag

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// minESSDraws is the fewest draws per chain the ESS family accepts: each
// split half then has the 3 draws Geyer's sequence needs (Stan's posterior
// package returns NA below that).
const minESSDraws = 6

// ESS returns the effective sample size of the draws of one quantity,
// given as M chains × N draws, for estimating its mean: Stan's split-chain
// ESS (ess_basic, alias ess_mean, of the posterior package) on the raw
// values. See [BulkESS] for the rank-normalised version Stan reports.
//
// Each chain is split in half (for odd N the middle draw is left out), which
// gives 2M half-chains of n = ⌊N/2⌋ draws, S = 2Mn draws in all. They are
// combined as in Vehtari et al. (2021, §3.2) and the Stan Reference Manual
// ("Effective sample size"):
//
//	W    = mean_m s²_m                        within-chain variance (s² with divisor n−1)
//	var⁺ = (n−1)/n·W + var_m(x̄_m)             var_m with divisor 2M−1, i.e. B/n
//	ρ̂_t  = 1 − (W − mean_m γ̂_{t,m}) / var⁺     combined autocorrelation at lag t
//
// where γ̂_{t,m} is the biased autocovariance of half-chain m (see
// [Autocorrelation]; the manual writes it s²_m·ρ̂_{t,m}). The ρ̂_t are taken
// in pairs ρ̂_t + ρ̂_{t+1}, t even, up to the first pair with a negative sum
// (Geyer's initial positive sequence); each pair is then capped at the one
// before it (Geyer's initial monotone sequence), and
//
//	τ̂ = −1 + 2 Σ_{t<T} ρ̂_t + ρ̂_T,   ESS = S / max(τ̂, 1/log₁₀ S),
//
// where T is the even lag of the pair that stopped the sequence. Adding
// ρ̂_T is Stan's improvement for antithetic chains; the floor on τ̂ caps ESS
// at S·log₁₀ S. For a stationary chain with autocorrelation ρ_t, ESS
// estimates S/(1 + 2Σ_{t≥1} ρ_t). The steps follow posterior's .ess line by
// line (Stan's C++ agrees except when the sequence runs into the lag limit
// n−4, where the two codes differ in the last term).
//
// ESS returns an error if there are no chains, the chains differ in length
// or have fewer than 6 draws, or a draw is NaN or infinite. If all draws are
// equal, ESS is NaN, as in Stan.
func ESS(chains [][]float64) (float64, error) {
	if err := checkChains(chains, minESSDraws); err != nil {
		return 0, err
	}
	sc := getScratch()
	defer putScratch(sc)
	return sc.essSplit(sc.split(chains)), nil
}

// BulkESS returns Stan's bulk effective sample size (Vehtari et al. 2021):
// the [ESS] of the rank-normalised split chains (each draw replaced by
// Φ⁻¹((r − 3/8)/(S + 1/4)), r its rank among all S draws, ties averaged). It
// is well defined without finite moments and measures how well the bulk of
// the distribution (mean, median) is sampled. Its errors and NaN are those
// of ESS.
func BulkESS(chains [][]float64) (float64, error) {
	if err := checkChains(chains, minESSDraws); err != nil {
		return 0, err
	}
	sc := getScratch()
	defer putScratch(sc)
	return sc.essSplit(sc.rankNormalize(sc.split(chains))), nil
}

// TailESS returns Stan's tail effective sample size (Vehtari et al. 2021):
// the smaller of the ESS of the indicators I(x ≤ q₀.₀₅) and I(x ≤ q₀.₉₅),
// where q_p is the p-quantile of all draws (linear interpolation, R's type
// 7), each computed on split chains as in [ESS]. It measures how well the 5%
// and 95% quantiles are estimated. Its errors are those of ESS. It is NaN if
// all draws are equal or if an indicator is constant (possible for a
// discrete quantity whose 5% or 95% quantile is its smallest or largest
// value): its ESS is then undefined, as in Stan.
func TailESS(chains [][]float64) (float64, error) {
	if err := checkChains(chains, minESSDraws); err != nil {
		return 0, err
	}
	sc := getScratch()
	defer putScratch(sc)
	return sc.tailESS(chains, sc.sortedDraws(chains)), nil
}

// tailESS computes TailESS for validated chains whose sorted draws are s.
func (sc *scratch) tailESS(chains [][]float64, s []float64) float64 {
	if s[0] == s[len(s)-1] {
		return math.NaN()
	}
	return math.Min(sc.quantileESS(chains, s, 0.05), sc.quantileESS(chains, s, 0.95))
}

// quantileESS is the split-chain ESS of the indicator I(x ≤ q_p), q_p the
// type-7 p-quantile of the sorted draws s (posterior's ess_quantile).
func (sc *scratch) quantileESS(chains [][]float64, s []float64, p float64) float64 {
	q := quantile7(s, p)
	halves := sc.split(chains)
	ind := sc.ind[:0]
	for _, x := range halves {
		for _, v := range x {
			if v <= q {
				ind = append(ind, 1)
			} else {
				ind = append(ind, 0)
			}
		}
	}
	sc.ind = ind
	return sc.essSplit(sc.reshape(ind, len(halves)))
}

// MCSE returns the Monte Carlo standard error of the mean of the draws,
// sd/√ESS, where sd is the standard deviation of all draws (divisor S−1) and
// ESS is [ESS] (Stan's mcse_mean). Its errors and NaN are those of ESS.
func MCSE(chains [][]float64) (float64, error) {
	ess, err := ESS(chains)
	if err != nil {
		return 0, err
	}
	return stat.StdDev(flatten(nil, chains), nil) / math.Sqrt(ess), nil
}

// essSplit is the ESS of chains that are already split (Stan Reference
// Manual, "Effective sample size"; posterior's .ess). It needs at least two
// chains of at least 3 draws each.
func (sc *scratch) essSplit(chains [][]float64) float64 {
	if constant(chains) {
		return math.NaN()
	}
	m, n := len(chains), len(chains[0])
	ac := &sc.ac
	ac.reset(n)
	gamma := zeros(&sc.gamma, n) // mean over chains of γ̂_{t,m}
	tmp := zeros(&sc.tmp, n)
	means := zeros(&sc.means, m)
	for c, x := range chains {
		means[c] = ac.compute(tmp, x)
		for t, g := range tmp {
			gamma[t] += g
		}
	}
	for t := range gamma {
		gamma[t] /= float64(m)
	}
	w := gamma[0] * float64(n) / float64(n-1)                        // W, mean of s²_m
	varPlus := w*float64(n-1)/float64(n) + stat.Variance(means, nil) // var⁺
	rhoAt := func(t int) float64 { return 1 - (w-gamma[t])/varPlus } // ρ̂_t

	// Geyer's initial positive sequence: pairs (ρ̂_t, ρ̂_{t+1}), t even,
	// while the pair sum stays positive.
	rho := zeros(&sc.rho, n)
	rho[0] = 1
	even, odd := 1.0, rhoAt(1)
	rho[1] = odd
	t := 0
	for t < n-5 && even+odd > 0 {
		t += 2
		even, odd = rhoAt(t), rhoAt(t+1)
		if even+odd >= 0 {
			rho[t], rho[t+1] = even, odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even // kept for the antithetic-chain improvement
	}
	// Geyer's initial monotone sequence: no pair exceeds the previous one.
	for t := 2; t <= maxT-2; t += 2 {
		if prev := rho[t-2] + rho[t-1]; rho[t]+rho[t+1] > prev {
			rho[t] = prev / 2
			rho[t+1] = rho[t]
		}
	}
	// τ̂ = −1 + 2Σ_{t<T} ρ̂_t + ρ̂_T. When the loop never ran (split chains
	// of fewer than 6 draws) T = 0 and Stan's code sums ρ̂_0 (posterior's
	// rho_hat_t[1:0] is ρ̂_0; Stan's C++ has T = 1): τ̂ = 2.
	tau := -1 + rho[maxT]
	for _, r := range rho[:max(maxT, 1)] {
		tau += 2 * r
	}
	total := float64(m * n)
	return total / math.Max(tau, 1/math.Log10(total))
}
