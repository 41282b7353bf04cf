package lattice

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// fftEnergy computes the exact energy per site of a state in O(n log n)
// whatever the number K of coupled offsets: with the pair function written
// as a sum over channels c of products, f(x_i, x_j) = Σ_c σ_c(x_i)·σ_c(x_j)
// (Ising: one channel, s = ±1; continuous: one, x; q-state Potts: the q
// indicators δ(x, a)), ŝ_c(k) = Σ_j σ_c(x_j) e^{−ik·r_j} and
// Ĵ(k) = Σ_{r≠0} J(r) e^{−ik·r} (each other site once, at its
// minimal-image offset; J(r) = J(−r), so Ĵ is real),
//
//	H = −½ Σ_i Σ_{r≠0} J(r) f(x_i, x_{i+r}) = −(1/(2n)) Σ_c Σ_k Ĵ(k)·|ŝ_c(k)|²,
//
// by the convolution theorem; the Dim-dimensional transforms are 1-D FFTs
// along each axis (gonum's dsp/fourier). It equals Energy to rounding at a
// fraction of its O(n·K) cost on a long-range lattice (a power law couples
// every pair: K = n − 1). Not safe for concurrent use.
type fftEnergy struct {
	l     *Lattice
	jhat  []float64
	fft   *fourier.CmplxFFT
	buf   []complex128
	line  []complex128
	chans int
}

// newFFTEnergy returns the FFT energy of l.
func newFFTEnergy(l *Lattice) (*fftEnergy, error) {
	f := &fftEnergy{l: l, fft: fourier.NewCmplxFFT(l.size), buf: make([]complex128, l.n), line: make([]complex128, l.size), chans: 1}
	if l.kind == PottsSpins && l.q > 2 {
		f.chans = l.q
	}
	j := make([]complex128, l.n)
	for k := range l.w {
		j[l.Neighbour(0, k)] += complex(l.Coupling(k), 0)
	}
	f.transform(j)
	f.jhat = make([]float64, l.n)
	for k, v := range j {
		if math.Abs(imag(v)) > 1e-9*(1+cmplx.Abs(v)) {
			return nil, fmt.Errorf("lattice: FFT energy: Ĵ(%d) = %v is not real: the couplings are not symmetric", k, v)
		}
		f.jhat[k] = real(v)
	}
	return f, nil
}

// transform replaces a (the lattice's site order: axis 0 slowest) by its
// Dim-dimensional Fourier coefficients.
func (f *fftEnergy) transform(a []complex128) {
	n, side := f.l.n, f.l.size
	stride := 1
	for range f.l.dim {
		// The lines along this axis: a[start + t·stride], t < side.
		for start := range n {
			if (start/stride)%side != 0 {
				continue // not the first site of a line
			}
			for t := range side {
				f.line[t] = a[start+t*stride]
			}
			f.fft.Coefficients(f.line, f.line)
			for t := range side {
				a[start+t*stride] = f.line[t]
			}
		}
		stride *= side
	}
}

// energy returns H/n of state x.
func (f *fftEnergy) energy(x []float64) float64 {
	l := f.l
	s := 0.0
	for c := range f.chans {
		for i, v := range x[:l.n] {
			var y float64
			switch {
			case l.kind == ContinuousSpins:
				y = v
			case f.chans == 1: // Ising, or 2-state Potts
				y = 2*v - 1
			case int(v) == c:
				y = 1
			}
			f.buf[i] = complex(y, 0)
		}
		f.transform(f.buf)
		for k, v := range f.buf {
			s += f.jhat[k] * (real(v)*real(v) + imag(v)*imag(v))
		}
	}
	n := float64(l.n)
	if l.kind == PottsSpins && f.chans == 1 {
		// 2-state Potts: δ(a, b) = (1 + s_a s_b)/2.
		return -(s/(2*n) + l.jsumSigned()*n/2) / (2 * n)
	}
	return -s / (2 * n * n)
}

// jsumSigned returns Σ_k J_k over the offsets of a site (signed).
func (l *Lattice) jsumSigned() float64 {
	s := 0.0
	for k := range l.w {
		s += l.Coupling(k)
	}
	return s
}
