package diag

import (
	"math"
	"strings"
	"testing"
)

func TestMarginalHellingerClosedForms(t *testing.T) {
	for _, tc := range []struct {
		name       string
		est, exact []float64
		want       float64
	}{
		{"identical", []float64{0.2, 0.3, 0.5}, []float64{0.2, 0.3, 0.5}, 0},
		{"point masses", []float64{1, 0}, []float64{0, 1}, 1},
		{"disjoint supports", []float64{0.5, 0.5, 0}, []float64{0, 0, 1}, 1},
		// Σ√(pq) = √0.45 + √0.05 = 3/(2√5) + 1/(2√5) = 2/√5.
		{"two values", []float64{0.5, 0.5}, []float64{0.9, 0.1}, math.Sqrt(1 - 2/math.Sqrt(5))},
		// Σ√(pq) = √0.25 = 1/2, so H = √(1/2).
		{"point mass vs spread", []float64{1, 0}, []float64{0.25, 0.75}, 1 / math.Sqrt2},
		{"one value", []float64{1}, []float64{1}, 0},
	} {
		mean, mx, err := MarginalHellinger([][]float64{tc.est}, [][]float64{tc.exact})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(mean-tc.want) > 1e-15 || mx != mean {
			t.Errorf("%s: mean %v, max %v; want %v", tc.name, mean, mx, tc.want)
		}
	}
	// Identical marginals give exactly 0, not a rounding residue.
	p := [][]float64{{0.1, 0.2, 0.7}, {1. / 3, 1. / 3, 1. / 3}, {0.999999, 0.000001}}
	if mean, mx, err := MarginalHellinger(p, p); err != nil || mean != 0 || mx != 0 {
		t.Errorf("MarginalHellinger(p, p) = %v, %v, %v; want 0, 0, nil", mean, mx, err)
	}
}

func TestMarginalHellingerVars(t *testing.T) {
	// Variable 1 is evidence (a point mass of the wrong length for the
	// exact marginal), as pgibbs uai passes it; it must be left out.
	est := [][]float64{{0.5, 0.5}, {1}, {1, 0}, {0.2, 0.3, 0.5}}
	exact := [][]float64{{0.9, 0.1}, {0, 1}, {0.25, 0.75}, {0.2, 0.3, 0.5}}
	h0, h2 := math.Sqrt(1-2/math.Sqrt(5)), 1/math.Sqrt2
	for _, tc := range []struct {
		name      string
		vars      []int
		mean, max float64
	}{
		{"free", []int{0, 2, 3}, (h0 + h2) / 3, h2},
		{"reordered", []int{3, 2, 0}, (h0 + h2) / 3, h2},
		{"one", []int{0}, h0, h0},
		{"exact one", []int{3}, 0, 0},
	} {
		mean, mx, err := MarginalHellingerVars(est, exact, tc.vars)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(mean-tc.mean) > 1e-15 || math.Abs(mx-tc.max) > 1e-15 {
			t.Errorf("%s: mean %v, max %v; want %v, %v", tc.name, mean, mx, tc.mean, tc.max)
		}
	}
	if _, _, err := MarginalHellinger(est, exact); err == nil || !strings.Contains(err.Error(), "variable 1") {
		t.Errorf("evidence included: err = %v, want one naming variable 1", err)
	}
}

// TestMarginalHellingerProperties checks, on random marginals with zeros,
// that H agrees with √(1 − Σ√(pq)) (the other form of the definition), is
// symmetric, lies in [0, 1] and obeys the triangle inequality.
func TestMarginalHellingerProperties(t *testing.T) {
	rng := newRand(16)
	random := func(d int) []float64 {
		p := make([]float64, d)
		sum := 0.0
		for v := range p {
			if rng.IntN(4) > 0 { // about a quarter of the entries are 0
				p[v] = rng.ExpFloat64()
				sum += p[v]
			}
		}
		if sum == 0 {
			p[rng.IntN(d)], sum = 1, 1
		}
		for v := range p {
			p[v] /= sum
		}
		return p
	}
	h := func(p, q []float64) float64 {
		mean, _, err := MarginalHellinger([][]float64{p}, [][]float64{q})
		if err != nil {
			t.Fatal(err)
		}
		return mean
	}
	for range 2000 {
		d := 1 + rng.IntN(6)
		p, q, r := random(d), random(d), random(d)
		hpq := h(p, q)
		bc := 0.0
		for v := range p {
			bc += math.Sqrt(p[v] * q[v])
		}
		// Compare squares: √ amplifies the rounding of 1 − BC near 0.
		if want := max(0, 1-bc); math.Abs(hpq*hpq-want) > 1e-14 {
			t.Fatalf("H(%v, %v)² = %v, 1 − BC = %v", p, q, hpq*hpq, want)
		}
		if hqp := h(q, p); hqp != hpq {
			t.Fatalf("H(p, q) = %v, H(q, p) = %v", hpq, hqp)
		}
		if hpq < 0 || hpq > 1 {
			t.Fatalf("H(%v, %v) = %v outside [0, 1]", p, q, hpq)
		}
		if hpr, hqr := h(p, r), h(q, r); hpr > hpq+hqr+1e-15 {
			t.Fatalf("triangle inequality: H(p, r) = %v > H(p, q) + H(q, r) = %v + %v", hpr, hpq, hqr)
		}
	}
	// The mean and max of several variables are those of the per-variable
	// distances.
	est, exact := make([][]float64, 50), make([][]float64, 50)
	sum, mx := 0.0, 0.0
	for i := range est {
		d := 1 + rng.IntN(5)
		est[i], exact[i] = random(d), random(d)
		hi := h(est[i], exact[i])
		sum += hi
		mx = max(mx, hi)
	}
	mean, gotMax, err := MarginalHellinger(est, exact)
	if err != nil || math.Abs(mean-sum/50) > 1e-15 || gotMax != mx {
		t.Errorf("MarginalHellinger = %v, %v, %v; want %v, %v", mean, gotMax, err, sum/50, mx)
	}
}

// TestMarginalHellingerSixDigits checks that a marginal that sums to 1 only
// within the tolerance (six-digit .MAR files) does not inflate H: the form
// √(1 − Σ√(pq)) would give ≈ 7e-4 here, the distance is ≈ 3.5e-7.
func TestMarginalHellingerSixDigits(t *testing.T) {
	exact := [][]float64{{0.333333, 0.333333, 0.333333}}
	est := [][]float64{{1. / 3, 1. / 3, 1. / 3}}
	mean, _, err := MarginalHellinger(est, exact)
	if err != nil {
		t.Fatal(err)
	}
	if want := (math.Sqrt(1./3) - math.Sqrt(0.333333)) * math.Sqrt(1.5); math.Abs(mean-want) > 1e-12 {
		t.Errorf("H = %v, want %v", mean, want)
	}
	// Disjoint supports stay at 1 when the sums exceed 1 slightly.
	if mean, _, _ := MarginalHellinger([][]float64{{1.00001, 0}}, [][]float64{{0, 1.00001}}); mean != 1 {
		t.Errorf("H of disjoint supports summing to 1.00001 = %v, want 1", mean)
	}
}
