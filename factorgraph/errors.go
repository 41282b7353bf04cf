package factorgraph

import (
	"fmt"
	"math"
)

// RangeError reports a factor value outside the factor's declared range, or
// not a number. Samplers return it (through their Err method) instead of
// continuing with a chain that would no longer target π.
type RangeError struct {
	Factor string  // the factor, e.g. "factor 17 (vars 3,9)"
	Value  float64 // the value φ(x) it returned
	Lo, Hi float64 // its declared range
}

func (e *RangeError) Error() string {
	switch {
	case math.IsNaN(e.Value):
		return fmt.Sprintf("%s: value is NaN", e.Factor)
	case e.Value < e.Lo:
		return fmt.Sprintf("%s: value %v below declared lo %v", e.Factor, e.Value, e.Lo)
	case e.Value > e.Hi:
		return fmt.Sprintf("%s: value %v above declared hi %v", e.Factor, e.Value, e.Hi)
	}
	return fmt.Sprintf("%s: value %v outside declared range [%v, %v]", e.Factor, e.Value, e.Lo, e.Hi)
}

// Tolerance is the slack allowed when checking a shifted value φ̃ against
// [0, M_φ]: rounding in a factor's own arithmetic can put an exact bound a
// few ulps outside. Values within Tolerance·max(1, M_φ) of the range pass.
const Tolerance = 1e-9

// InRange reports whether the shifted value s = φ(x) − lo of a factor with
// bound m = M_φ is acceptable: within [0, m] up to Tolerance for a soft
// factor, and not NaN or +Inf for a hard one (m = +Inf; −Inf is allowed).
func InRange(s, m float64) bool {
	if math.IsInf(m, 1) {
		return !math.IsNaN(s) && !math.IsInf(s, 1)
	}
	tol := Tolerance * max(1, m)
	return s >= -tol && s <= m+tol // false for NaN
}

// Limits returns the interval [lo, hi] that a shifted value of a factor
// with bound m must lie in: s passes InRange(s, m) exactly when
// lo <= s && s <= hi, a test cheap enough for inner loops. For a hard factor
// (m = +Inf) it is [−Inf, MaxFloat64], which admits −Inf and rejects +Inf
// and NaN.
func Limits(m float64) (lo, hi float64) {
	if math.IsInf(m, 1) {
		return math.Inf(-1), math.MaxFloat64
	}
	tol := Tolerance * max(1, m)
	return -tol, m + tol
}

// CheckError returns the RangeError for the shifted value s of the k-th
// factor of A[i] of m, for a value that failed InRange.
func CheckError(m Model, i, k int, s float64) error {
	name, lo, hi := m.Describe(i, k)
	return &RangeError{Factor: name, Value: s + lo, Lo: lo, Hi: hi}
}
