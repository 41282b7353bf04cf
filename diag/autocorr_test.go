package diag

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// directAutocorrelation is the O(n²) definition.
func directAutocorrelation(x []float64) []float64 {
	n := len(x)
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	out := make([]float64, n)
	for t := range n {
		s := 0.0
		for i := 0; i+t < n; i++ {
			s += (x[i] - m) * (x[i+t] - m)
		}
		out[t] = s
	}
	g0 := out[0]
	for t := range out {
		out[t] /= g0
	}
	return out
}

// circularAutocorrelation is a broken variant: the FFT without zero
// padding, so lag t also picks up the products at lag n−t.
func circularAutocorrelation(x []float64) []float64 {
	n := len(x)
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	c := make([]float64, n)
	for i, v := range x {
		c[i] = v - m
	}
	f := fourier.NewFFT(n)
	coef := f.Coefficients(nil, c)
	for k, v := range coef {
		coef[k] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	out := f.Sequence(nil, coef)
	g0 := out[0]
	for t := range out {
		out[t] /= g0
	}
	return out
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func TestAutocorrelationMatchesDirect(t *testing.T) {
	rng := newRand(3)
	const tol = 1e-12
	for _, n := range []int{2, 3, 5, 7, 16, 17, 100, 257, 1000, 1001} {
		x := ar1(rng, 1, n, 0.8)[0]
		for i := range x {
			x[i] += 5 // a non-zero mean must not matter
		}
		want := directAutocorrelation(x)
		got, err := Autocorrelation(nil, x)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(got, want); d > tol {
			t.Errorf("n = %d: FFT and direct autocorrelations differ by %g", n, d)
		}
		if got[0] != 1 {
			t.Errorf("n = %d: ρ̂_0 = %v", n, got[0])
		}
		// The same check rejects the circular (unpadded) transform.
		if n >= 16 {
			if d := maxDiff(circularAutocorrelation(x), want); d <= tol {
				t.Errorf("n = %d: the unpadded FFT passes the check (difference %g)", n, d)
			}
		}
	}
}

func TestAutocorrelationReusesDst(t *testing.T) {
	x := ar1(newRand(4), 1, 50, 0.5)[0]
	dst := make([]float64, 3, 64)
	got, err := Autocorrelation(dst, x)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 || &got[0] != &dst[0] {
		t.Errorf("dst with room was not reused")
	}
}

func TestAutocorrelationErrors(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want string
	}{
		{nil, "0 values"},
		{[]float64{1}, "1 values"},
		{[]float64{1, math.NaN(), 2}, "x[1] = NaN"},
		{[]float64{1, 2, math.Inf(-1)}, "x[2] = -Inf"},
		{[]float64{3, 3, 3}, "constant"},
	} {
		if _, err := Autocorrelation(nil, tc.x); err == nil || !strings.HasPrefix(err.Error(), "diag: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("x = %v: err = %v, want %q", tc.x, err, tc.want)
		}
	}
}

func TestFFTSize(t *testing.T) {
	for m, want := range map[int]int{1: 2, 2: 2, 3: 3, 7: 8, 11: 12, 13: 15, 19999: 20000, 2049: 2160} {
		if got := fftSize(m); got != want {
			t.Errorf("fftSize(%d) = %d, want %d", m, got, want)
		}
	}
}
