package lattice

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFFTEnergy: the FFT energy equals the pair sum (Energy) on Ising,
// Potts (q = 2, 3) and continuous spins, nearest-neighbour, Gaussian and
// power-law kernels, in 1, 2 and 3 dimensions, antiferromagnets included.
func TestFFTEnergy(t *testing.T) {
	for _, p := range []Params{
		{Dim: 2, Size: 8, Coupling: PowerLaw{Sigma: 1}, Spin: Ising(), Beta: 0.2},
		{Dim: 2, Size: 6, Coupling: PowerLaw{Sigma: 0.5}, Spin: Potts(3), Beta: 0.3},
		{Dim: 2, Size: 6, Coupling: Gaussian{Gamma: 0.7}, Spin: Potts(2), Beta: 0.3},
		{Dim: 1, Size: 12, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(4), Beta: -0.2},
		{Dim: 3, Size: 4, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.4},
		{Dim: 2, Size: 5, Coupling: PowerLaw{Sigma: 1}, Spin: Continuous(-1, 1), Beta: 0.2},
	} {
		l, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := newFFTEnergy(l)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		x := make([]float64, l.n)
		for try := range 3 {
			for i := range x {
				if p.Spin.Kind == ContinuousSpins {
					x[i] = 2*r.Float64() - 1
				} else {
					x[i] = float64(r.IntN(l.q))
				}
				if try == 2 && p.Spin.Kind != ContinuousSpins {
					x[i] = 0 // ordered
				}
			}
			want, got := l.Energy(x), f.energy(x)
			if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
				t.Errorf("%v %v: FFT energy %v, pair sum %v", p.Coupling, p.Spin, got, want)
			}
		}
	}
}

// TestMeasurerFFT: an exact Measurer of a power-law lattice (every pair
// coupled) measures by FFT the energy Energy sums pair by pair.
func TestMeasurerFFT(t *testing.T) {
	l, err := New(Params{Dim: 2, Size: 12, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeasurer(l, nil, ExactEnergy)
	if err != nil || m.fft == nil {
		t.Fatalf("exact measurer of %d offsets: FFT %v, %v", l.NumOffsets(), m.fft != nil, err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, l.Sites())
	for i := range x {
		x[i] = float64(r.IntN(3))
	}
	m.Measure(x)
	if got, want := m.Energies()[0], l.Energy(x); math.Abs(got-want) > 1e-10 {
		t.Errorf("FFT measurement %v, pair sum %v", got, want)
	}
}
