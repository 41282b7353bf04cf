// Package xmath holds the elementary functions the module needs to be
// correct where the standard library's are not (Log on subnormals), or
// faster where a sampler's hot loop waits on them (ExpNeg, the heat
// bath's e^x for x ≤ 0).
package xmath

import "math"

// Log returns the natural logarithm of x, like math.Log, but correct to
// rounding on subnormal x as well (0 < x < 2⁻¹⁰²²): math.Log on amd64
// takes the exponent of x as if x were normal there, and returns, for
// example, −709.09 for 1e-320 instead of −736.83 (golang/go#56600). A
// subnormal is scaled by 2⁵⁴ first, exactly, into the normal range; the
// other arguments (0, negative, NaN, ±Inf and normal numbers) go to
// math.Log unchanged.
func Log(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}
