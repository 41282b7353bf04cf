package sysmem

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse reads 123, 500K, 16M, 8G or 1T (powers of 1024; a final B
// is allowed: 8GB).
func Parse(s string) (float64, error) {
	t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	mult := 1.0
	if n := len(t); n > 0 {
		if k := strings.IndexByte("KMGT", t[n-1]); k >= 0 {
			mult, t = math.Pow(1024, float64(k+1)), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a positive size such as 8G or 500M")
	}
	return v * mult, nil
}
