package diag

import (
	"math"
	"strings"
	"testing"
)

func TestMarginalKnownValues(t *testing.T) {
	est := [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}}
	exact := [][]float64{{0.8, 0.2}, {0.2, 0.2, 0.6}}
	// Variable 0: differences ±0.3, ‖·‖₂ = √0.18 = 3√2/10.
	// Variable 1: differences 0, 0.1, −0.1, ‖·‖₂ = √0.02 = √2/10.
	for _, tc := range []struct {
		name                string
		vars                []int
		l2, absMean, absMax float64
	}{
		{"all", nil, 2 * math.Sqrt2 / 10, 0.8 / 5, 0.3},
		{"var1", []int{1}, math.Sqrt2 / 10, 0.2 / 3, 0.1},
		{"var0", []int{0}, 3 * math.Sqrt2 / 10, 0.3, 0.3},
		{"reordered", []int{1, 0}, 2 * math.Sqrt2 / 10, 0.8 / 5, 0.3},
	} {
		l2, err := MarginalL2Vars(est, exact, tc.vars)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		mean, mx, err := MarginalAbsVars(est, exact, tc.vars)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(l2-tc.l2) > 1e-15 || math.Abs(mean-tc.absMean) > 1e-15 || math.Abs(mx-tc.absMax) > 1e-15 {
			t.Errorf("%s: L2 %v, abs mean %v, max %v; want %v, %v, %v", tc.name, l2, mean, mx, tc.l2, tc.absMean, tc.absMax)
		}
	}
	l2, err := MarginalL2(est, exact)
	if err != nil || math.Abs(l2-2*math.Sqrt2/10) > 1e-15 {
		t.Errorf("MarginalL2 = %v, %v", l2, err)
	}
	mean, mx, err := MarginalAbs(est, exact)
	if err != nil || math.Abs(mean-0.16) > 1e-15 || math.Abs(mx-0.3) > 1e-15 {
		t.Errorf("MarginalAbs = %v, %v, %v", mean, mx, err)
	}
	// Identical marginals have zero error.
	if l2, _ := MarginalL2(exact, exact); l2 != 0 {
		t.Errorf("MarginalL2(p, p) = %v", l2)
	}
}

func TestMarginalEvidenceLeftOut(t *testing.T) {
	// Variable 1 is evidence: its "estimate" is a point mass on a value of
	// another domain size. Leaving it out must make the inputs acceptable.
	est := [][]float64{{0.25, 0.75}, {1}, {0.5, 0.5}}
	exact := [][]float64{{0.5, 0.5}, {0, 1}, {0.5, 0.5}}
	if _, err := MarginalL2(est, exact); err == nil || !strings.Contains(err.Error(), "variable 1") {
		t.Fatalf("MarginalL2 with evidence included: err = %v, want one naming variable 1", err)
	}
	l2, err := MarginalL2Vars(est, exact, []int{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(2*0.25*0.25) / 2; math.Abs(l2-want) > 1e-15 {
		t.Errorf("L2 without evidence = %v, want %v", l2, want)
	}
}

// TestMarginalErrors: the ℓ2, absolute and Hellinger errors refuse the same
// malformed inputs with the same messages.
func TestMarginalErrors(t *testing.T) {
	good := [][]float64{{0.5, 0.5}, {0.1, 0.9}}
	for _, tc := range []struct {
		name       string
		est, exact [][]float64
		vars       []int
		want       string
	}{
		{"count mismatch", good, good[:1], nil, "2 estimated marginals for 1 exact"},
		{"length mismatch", [][]float64{{0.5, 0.5}, {0.1, 0.8, 0.1}}, good, nil, "variable 1: estimate has 3 values, exact marginal has 2"},
		{"NaN", [][]float64{{0.5, 0.5}, {math.NaN(), 0.9}}, good, nil, "variable 1: estimated marginal has p(0) = NaN"},
		{"negative", good, [][]float64{{0.5, 0.5}, {1.1, -0.1}}, nil, "variable 1: exact marginal has p(1) = -0.1"},
		{"infinite", [][]float64{{math.Inf(1), 0.5}, {0.1, 0.9}}, good, nil, "variable 0: estimated marginal has p(0) = +Inf"},
		{"counts", [][]float64{{5, 5}, {0.1, 0.9}}, good, nil, "variable 0: estimated marginal sums to 10, not 1"},
		{"empty vector", [][]float64{{}, {0.1, 0.9}}, [][]float64{{}, {0.1, 0.9}}, nil, "variable 0: estimated marginal is empty"},
		{"no variables", nil, nil, nil, "no variables"},
		{"empty vars", good, good, []int{}, "no variables"},
		{"var out of range", good, good, []int{0, 2}, "vars[1] = 2 out of range [0, 2)"},
		{"negative var", good, good, []int{-1}, "vars[0] = -1 out of range"},
		{"repeated var", good, good, []int{1, 1}, "vars[1] = 1 is repeated"},
	} {
		_, err1 := MarginalL2Vars(tc.est, tc.exact, tc.vars)
		_, _, err2 := MarginalAbsVars(tc.est, tc.exact, tc.vars)
		mean, mx, err3 := MarginalHellingerVars(tc.est, tc.exact, tc.vars)
		for _, err := range []error{err1, err2, err3} {
			if err == nil || !strings.HasPrefix(err.Error(), "diag: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
			}
		}
		if mean != 0 || mx != 0 {
			t.Errorf("%s: Hellinger mean %v, max %v returned with an error", tc.name, mean, mx)
		}
	}
	// Six-digit marginals such as UAI .MAR files are accepted.
	mar := [][]float64{{0.119203, 0.880797}, {0.333333, 0.333333, 0.333333}}
	if _, err := MarginalL2(mar, mar); err != nil {
		t.Errorf("six-digit marginals rejected: %v", err)
	}
}

// TestMARScore: exact marginals score 100, uniform ones 0, and halfway
// between (in Hellinger terms) scores in between; where the exact
// marginals are uniform only an exact answer scores.
func TestMARScore(t *testing.T) {
	exact := [][]float64{{0.9, 0.1}, {0.2, 0.3, 0.5}, {1, 0}}
	uniform := [][]float64{{0.5, 0.5}, {1. / 3, 1. / 3, 1. / 3}, {0.5, 0.5}}
	for _, tc := range []struct {
		est  [][]float64
		vars []int
		want float64
	}{
		{exact, nil, 100},
		{uniform, nil, 0},
		{uniform, []int{0, 1}, 0},
		{[][]float64{{0.1, 0.9}, {1, 0, 0}, {0, 1}}, nil, 0}, // worse than uniform: clamped
	} {
		if s, _, err := MARScore(tc.est, exact, tc.vars); err != nil || math.Abs(s-tc.want) > 1e-9 {
			t.Errorf("MARScore(%v) = %v, %v; want %v", tc.est, s, err, tc.want)
		}
	}
	mid := [][]float64{{0.7, 0.3}, {0.25, 0.3, 0.45}, {0.8, 0.2}}
	if s, h, err := MARScore(mid, exact, nil); err != nil || !(s > 0 && s < 100) || !(h > 0) {
		t.Errorf("between: score %v, error %v, %v", s, h, err)
	}
	sym := [][]float64{{0.5, 0.5}}
	if s, _, _ := MARScore(sym, sym, nil); s != 100 {
		t.Errorf("uniform truth answered exactly: %v, want 100", s)
	}
	if s, _, _ := MARScore([][]float64{{0.6, 0.4}}, sym, nil); s != 0 {
		t.Errorf("uniform truth missed: %v, want 0", s)
	}
	if _, _, err := MARScore(mid[:2], exact, nil); err == nil {
		t.Error("mismatched lengths accepted")
	}
}
