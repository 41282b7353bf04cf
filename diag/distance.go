package diag

import (
	"fmt"
	"math"
)

// TotalVariation returns the total variation distance
//
//	TV(p, q) = ½ Σ_k |p_k/P − q_k/Q|,  P = Σ_k p_k, Q = Σ_k q_k,
//
// between two discrete distributions given on the same bins. The inputs need
// not be normalised: histogram counts are fine. The result lies in [0, 1].
//
// TotalVariation returns an error if p and q differ in length or are empty,
// hold a NaN, infinite or negative entry, or sum to zero.
func TotalVariation(p, q []float64) (float64, error) {
	sp, sq, err := checkPair(p, q)
	if err != nil {
		return 0, err
	}
	tv := 0.0
	for k := range p {
		tv += math.Abs(p[k]/sp - q[k]/sq)
	}
	return tv / 2, nil
}

// SymmetricKL returns the symmetrised Kullback–Leibler divergence
//
//	KL(p̃‖q̃) + KL(q̃‖p̃) = Σ_k (p̃_k − q̃_k)(log p̃_k − log q̃_k)
//
// between the additively smoothed versions of two discrete distributions on
// the same n bins. The smoothing is: normalise each input to sum 1, add eps to
// every bin, and renormalise,
//
//	p̃_k = (p_k/P + eps) / (1 + n·eps),
//
// and likewise for q. With eps > 0 every bin is positive and the result is
// finite even when a histogram has empty bins; eps = 0 gives the plain
// divergence, which is +Inf when one distribution puts mass on a bin the other
// leaves empty. Bins empty in both contribute zero. The inputs need not be
// normalised: histogram counts are fine. A common choice for histograms of N
// samples is an eps well below 1/N, such as 1e-10; the value changes the
// result, so report it with the figure.
//
// SymmetricKL returns an error if eps is negative, NaN or infinite, or for
// the inputs that [TotalVariation] rejects.
func SymmetricKL(p, q []float64, eps float64) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("diag: smoothing eps = %v; it must be finite and non-negative", eps)
	}
	sp, sq, err := checkPair(p, q)
	if err != nil {
		return 0, err
	}
	z := 1 + float64(len(p))*eps
	kl := 0.0
	for k := range p {
		a := (p[k]/sp + eps) / z
		b := (q[k]/sq + eps) / z
		if a == b {
			continue // also covers a bin empty in both
		}
		if a == 0 || b == 0 {
			return math.Inf(1), nil
		}
		kl += (a - b) * (math.Log(a) - math.Log(b))
	}
	return kl, nil
}

// checkPair validates two unnormalised distributions on the same bins and
// returns their sums.
func checkPair(p, q []float64) (sp, sq float64, err error) {
	if len(p) != len(q) {
		return 0, 0, fmt.Errorf("diag: distributions have %d and %d bins", len(p), len(q))
	}
	if len(p) == 0 {
		return 0, 0, fmt.Errorf("diag: distributions have no bins")
	}
	if sp, err = checkMass("p", p); err != nil {
		return 0, 0, err
	}
	if sq, err = checkMass("q", q); err != nil {
		return 0, 0, err
	}
	return sp, sq, nil
}

// checkMass checks that p is a non-negative finite vector with positive sum
// and returns the sum.
func checkMass(name string, p []float64) (float64, error) {
	sum := 0.0
	for k, x := range p {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return 0, fmt.Errorf("diag: %s[%d] = %v; entries must be finite and non-negative", name, k, x)
		}
		sum += x
	}
	if sum == 0 {
		return 0, fmt.Errorf("diag: %s sums to zero", name)
	}
	if math.IsInf(sum, 1) {
		return 0, fmt.Errorf("diag: %s sums to +Inf", name)
	}
	return sum, nil
}
