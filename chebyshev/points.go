package chebyshev

import (
	"fmt"
	"math"
)

// Points fills dst with the m+1 Chebyshev points of the second kind on [a,b],
//
//	x_j = (a+b)/2 + (b−a)/2·cos(jπ/m),  j = 0..m,
//
// in that order (x_0 = b and x_m = a exactly, decreasing in between), and
// returns it. These are the nodes at which [Series.Fit] expects its values.
// cos(jπ/m) is computed as sin(π(m−2j)/(2m)), so the points are exactly
// symmetric about the midpoint of [−1,1] before scaling.
//
// If dst has capacity for m+1 values it is reused, otherwise a new slice is
// allocated. Points returns an error if m < 1, or a or b is not finite, or
// a ≥ b.
func Points(dst []float64, m int, a, b float64) ([]float64, error) {
	if m < 1 {
		return dst, fmt.Errorf("chebyshev: degree m = %d, need m ≥ 1", m)
	}
	if err := checkInterval(a, b); err != nil {
		return dst, err
	}
	dst = resize(dst, m+1)
	for j := range dst {
		dst[j] = node(j, m, a, b)
	}
	return dst, nil
}

// node returns x_j for 0 ≤ j ≤ m.
func node(j, m int, a, b float64) float64 {
	switch j {
	case 0:
		return b
	case m:
		return a
	}
	t := math.Sin(math.Pi * float64(m-2*j) / float64(2*m))
	h := (b - a) / 2
	return (a + h) + h*t
}
