package diag

import (
	"math"
	"strings"
	"testing"
)

func TestTotalVariationKnownValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q []float64
		want float64
	}{
		// p normalises to (0.1, 0.2, 0.3, 0.4): |diff| = 0.3, 0.1, 0.1, 0.3.
		{"counts vs probabilities", []float64{1, 2, 3, 4}, []float64{0.4, 0.3, 0.2, 0.1}, 0.4},
		{"scaled counts", []float64{7, 14, 21, 28}, []float64{4, 3, 2, 1}, 0.4},
		{"disjoint", []float64{1, 0}, []float64{0, 3}, 1},
		{"equal", []float64{2, 2}, []float64{0.5, 0.5}, 0},
		{"single bin", []float64{3}, []float64{1}, 0},
	} {
		got, err := TotalVariation(tc.p, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: TV = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSymmetricKLKnownValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q []float64
		eps  float64
		want float64
	}{
		// (0.25)(ln 0.5 − ln 0.25) + (−0.25)(ln 0.5 − ln 0.75) = ¼ ln 3.
		{"no smoothing", []float64{1, 1}, []float64{1, 3}, 0, math.Log(3) / 4},
		// p̃ = (1.1, 0.1)/1.2, q̃ = (0.1, 1.1)/1.2: each bin gives (1/1.2)·ln 11.
		{"smoothed disjoint", []float64{5, 0}, []float64{0, 2}, 0.1, 2 * math.Log(11) / 1.2},
		{"disjoint unsmoothed", []float64{5, 0}, []float64{0, 2}, 0, math.Inf(1)},
		{"empty in both", []float64{1, 0, 1}, []float64{2, 0, 2}, 0, 0},
		{"equal", []float64{1, 2, 3}, []float64{2, 4, 6}, 1e-3, 0},
	} {
		got, err := SymmetricKL(tc.p, tc.q, tc.eps)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want && math.Abs(got-tc.want) > 1e-14 {
			t.Errorf("%s: symmetric KL = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSymmetricKLDefinition checks SymmetricKL against KL(p̃‖q̃) + KL(q̃‖p̃)
// written out from the smoothing rule of its documentation.
func TestSymmetricKLDefinition(t *testing.T) {
	rng := newRand(7)
	kl := func(a, b []float64) float64 {
		s := 0.0
		for k := range a {
			s += a[k] * math.Log(a[k]/b[k])
		}
		return s
	}
	smooth := func(p []float64, eps float64) []float64 {
		sum := 0.0
		for _, v := range p {
			sum += v
		}
		out := make([]float64, len(p))
		tot := 0.0
		for k, v := range p {
			out[k] = v/sum + eps
			tot += out[k]
		}
		for k := range out {
			out[k] /= tot
		}
		return out
	}
	for range 20 {
		n := 2 + rng.IntN(10)
		p, q := make([]float64, n), make([]float64, n)
		for k := range p {
			p[k] = float64(rng.IntN(5)) // counts with empty bins
			q[k] = float64(rng.IntN(5))
		}
		p[0], q[1] = 1, 1
		eps := 1e-3
		want := kl(smooth(p, eps), smooth(q, eps)) + kl(smooth(q, eps), smooth(p, eps))
		got, err := SymmetricKL(p, q, eps)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Errorf("p=%v q=%v: SymmetricKL = %v, definition gives %v", p, q, got, want)
		}
	}
}

func TestDistanceErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q []float64
		eps  float64
		want string
	}{
		{"length", []float64{1, 2}, []float64{1}, 0, "2 and 1 bins"},
		{"empty", nil, nil, 0, "no bins"},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 1}, 0, "p[1] = NaN"},
		{"negative", []float64{1, 1}, []float64{1, -1}, 0, "q[1] = -1"},
		{"infinite", []float64{1, 1}, []float64{math.Inf(1), 1}, 0, "q[0] = +Inf"},
		{"zero sum", []float64{0, 0}, []float64{1, 1}, 0, "p sums to zero"},
	} {
		_, err1 := TotalVariation(tc.p, tc.q)
		_, err2 := SymmetricKL(tc.p, tc.q, tc.eps)
		for _, err := range []error{err1, err2} {
			if err == nil || !strings.HasPrefix(err.Error(), "diag: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
			}
		}
	}
	for _, eps := range []float64{-1e-3, math.NaN(), math.Inf(1)} {
		if _, err := SymmetricKL([]float64{1}, []float64{1}, eps); err == nil || !strings.Contains(err.Error(), "eps") {
			t.Errorf("eps = %v: err = %v", eps, err)
		}
	}
}
