package lattice

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStructure: M2 and SK of the reference pass against their definitions
// summed directly over the spins' vector form, on Ising, Potts and
// continuous lattices in 1, 2 and 3 dimensions; S(0) = n·M2; an ordered
// state has SK ≈ 0 and M2 = 1.
func TestStructure(t *testing.T) {
	for _, p := range []Params{
		{Dim: 2, Size: 6, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.3},
		{Dim: 2, Size: 5, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 0.3},
		{Dim: 3, Size: 4, Coupling: NearestNeighbour{}, Spin: Potts(2), Beta: 0.3},
		{Dim: 1, Size: 7, Coupling: NearestNeighbour{}, Spin: Potts(4), Beta: 0.3},
	} {
		l, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		q := l.q
		x := make([]float64, l.n)
		for i := range x {
			x[i] = float64(r.IntN(q))
		}
		m2, sk := l.structure(x)
		// Direct sums over the vector form.
		vec := func(v float64) []float64 {
			if q == 2 {
				return []float64{2*v - 1}
			}
			out := make([]float64, q)
			for a := range out {
				out[a] = -1 / float64(q)
				if int(v) == a {
					out[a]++
				}
				out[a] *= math.Sqrt(float64(q) / float64(q-1))
			}
			return out
		}
		comps := len(vec(0))
		var w2, wk float64
		for c := range comps {
			s := 0.0
			for j := range x {
				s += vec(x[j])[c]
			}
			w2 += (s / float64(l.n)) * (s / float64(l.n))
			for a := range l.dim {
				var re, im float64
				for j := range x {
					k := 2 * math.Pi * float64(l.Coords(nil, j)[a]) / float64(l.size)
					re += vec(x[j])[c] * math.Cos(k)
					im += vec(x[j])[c] * math.Sin(k)
				}
				wk += (re*re + im*im) / float64(l.n) / float64(l.dim)
			}
		}
		if math.Abs(m2-w2) > 1e-12 || math.Abs(sk-wk) > 1e-9 {
			t.Errorf("%v: M2 %v SK %v, want %v %v", p.Spin, m2, sk, w2, wk)
		}
		clear(x)
		if m2, sk := l.structure(x); math.Abs(m2-1) > 1e-12 || sk > 1e-12 {
			t.Errorf("%v: ordered state: M2 %v SK %v, want 1 and 0", p.Spin, m2, sk)
		}
	}
}
