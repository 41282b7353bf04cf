package chebyshev

import (
	"fmt"
	"math"
)

// StandardChop returns how many leading coefficients of a Chebyshev series
// to keep so that the discarded tail is negligible at relative tolerance tol,
// following the rule of Chebfun's standardChop (Aurentz & Trefethen,
// "Chopping a Chebyshev series", ACM TOMS 43(4), 2017):
//
//  1. The normalised monotone envelope e_j = max_{k≥j} |c_k| / max_k |c_k|
//     is computed.
//  2. A plateau is sought: the first j (1-based) with e_j = 0 or
//     e_{j2}/e_j > 3(1 − log e_j / log tol), j2 = round(1.25j + 5). If
//     j2 passes the end first, or there are fewer than 17 coefficients,
//     the series is not resolved and StandardChop returns
//     len(coeffs), false.
//  3. The cutoff is placed where log10 e_i plus a straight line rising by
//     −(1/3)·log10(tol) over 1..j2 is smallest, which biases the cut
//     towards the start of the plateau.
//
// When all coefficients are zero it returns 1, true. It returns an error if
// tol is not in (0,1) or a coefficient is not finite.
func StandardChop(coeffs []float64, tol float64) (cutoff int, resolved bool, err error) {
	if err := checkTol(tol); err != nil {
		return 0, false, err
	}
	for k, c := range coeffs {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return 0, false, fmt.Errorf("chebyshev: coefficient %d is %v", k, c)
		}
	}
	n, ok := standardChop(coeffs, tol, make([]float64, len(coeffs)))
	return n, ok, nil
}

// standardChop implements StandardChop for finite coefficients and a valid
// tol, using env (len(env) == len(c)) as work space.
func standardChop(c []float64, tol float64, env []float64) (int, bool) {
	n := len(c)
	if n < 17 {
		return n, false
	}
	// Step 1: monotone envelope, normalised.
	env[n-1] = math.Abs(c[n-1])
	for j := n - 2; j >= 0; j-- {
		env[j] = math.Max(math.Abs(c[j]), env[j+1])
	}
	if env[0] == 0 {
		return 1, true
	}
	for j := n - 1; j >= 0; j-- {
		env[j] /= env[0]
	}

	// Step 2: find the plateau. Indices J, j2 are 1-based as in the paper.
	logTol := math.Log(tol)
	var plateau, j2 int
	for J := 2; ; J++ {
		j2 = int(math.Round(1.25*float64(J) + 5))
		if j2 > n {
			return n, false // no plateau: not resolved
		}
		e1, e2 := env[J-1], env[j2-1]
		if e1 == 0 || e2/e1 > 3*(1-math.Log(e1)/logTol) {
			plateau = J - 1
			break
		}
	}

	// Step 3: place the cutoff.
	if env[plateau-1] == 0 {
		return plateau, true
	}
	floor := math.Pow(tol, 7.0/6)
	j3 := 0
	for _, e := range env {
		if e >= floor {
			j3++
		}
	}
	last := math.NaN() // value replacing env[j2-1], if any
	if j3 < j2 {
		j2 = j3 + 1
		last = floor
	}
	rise := -math.Log10(tol) / 3
	best, d := math.Inf(1), 1
	for i := 1; i <= j2; i++ {
		e := env[i-1]
		if i == j2 && !math.IsNaN(last) {
			e = last
		}
		cc := math.Log10(e)
		if j2 > 1 {
			cc += rise * float64(i-1) / float64(j2-1)
		}
		if cc < best {
			best, d = cc, i
		}
	}
	return max(d-1, 1), true
}
