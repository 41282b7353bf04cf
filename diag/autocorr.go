package diag

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Autocorrelation fills dst with the sample autocorrelations of x at lags
// 0, 1, …, len(x)−1 and returns it,
//
//	ρ̂_t = γ̂_t / γ̂_0,  γ̂_t = (1/n) Σ_{i=0}^{n−1−t} (x_i − x̄)(x_{i+t} − x̄),
//
// the "biased" autocovariance estimator that Geyer (1992) recommends and Stan
// uses. It is computed with gonum's real FFT in O(n log n): x − x̄ is padded
// with zeros to a length of at least 2n−1, so the circular correlation the
// FFT computes has no wrap-around, and γ̂ is the inverse transform of the
// power spectrum. The result equals the direct O(n²) sum to rounding.
//
// If dst has too little capacity a new slice is allocated. Autocorrelation
// returns an error if x has fewer than 2 values, holds a NaN or infinite
// value, or is constant (its autocorrelation is undefined).
func Autocorrelation(dst, x []float64) ([]float64, error) {
	if len(x) < 2 {
		return nil, fmt.Errorf("diag: autocorrelation of %d values; it needs at least 2", len(x))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("diag: autocorrelation: x[%d] = %v", i, v)
		}
	}
	if cap(dst) < len(x) {
		dst = make([]float64, len(x))
	}
	dst = dst[:len(x)]
	var a autocov
	a.reset(len(x))
	a.compute(dst, x)
	g0 := dst[0]
	if g0 == 0 {
		return nil, fmt.Errorf("diag: autocorrelation of a constant sequence is undefined")
	}
	for t := range dst {
		dst[t] /= g0
	}
	return dst, nil
}

// autocov computes biased autocovariances of sequences of one length n by
// FFT, reusing its transform plan and buffers from one sequence to the next.
type autocov struct {
	n    int
	fft  *fourier.FFT
	buf  []float64
	coef []complex128
}

// reset prepares a for sequences of length n.
func (a *autocov) reset(n int) {
	if a.fft != nil && a.n == n {
		return
	}
	a.n = n
	l := fftSize(2*n - 1)
	if a.fft == nil {
		a.fft = fourier.NewFFT(l)
	} else {
		a.fft.Reset(l)
	}
	a.buf = make([]float64, l)
	a.coef = make([]complex128, l/2+1)
}

// compute writes the biased autocovariances γ̂_0 … γ̂_{n−1} of x into
// dst[:n] and returns the mean of x. len(x) and len(dst) must be a.n.
func (a *autocov) compute(dst, x []float64) (mean float64) {
	n := a.n
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	for i, v := range x {
		a.buf[i] = v - mean
	}
	clear(a.buf[n:])
	a.coef = a.fft.Coefficients(a.coef, a.buf)
	for k, c := range a.coef {
		re, im := real(c), imag(c)
		a.coef[k] = complex(re*re+im*im, 0)
	}
	a.buf = a.fft.Sequence(a.buf, a.coef)
	// Sequence is unnormalised (a factor len(buf)); the estimator divides by n.
	scale := 1 / (float64(len(a.buf)) * float64(n))
	for t := range n {
		dst[t] = a.buf[t] * scale
	}
	return mean
}

// fftSize returns the smallest integer ≥ m whose only prime factors are 2, 3
// and 5, the lengths gonum's FFTPACK port transforms fastest.
func fftSize(m int) int {
	if m <= 2 {
		return 2
	}
	for ; ; m++ {
		k := m
		for _, p := range [...]int{2, 3, 5} {
			for k%p == 0 {
				k /= p
			}
		}
		if k == 1 {
			return m
		}
	}
}
