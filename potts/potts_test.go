package potts

import (
	"math"
	"testing"
)

// TestPaperL pins the local maximum energy of the paper's model: the
// paper prints L = 5.09; the exact value is 5.0878 for a central site.
func TestPaperL(t *testing.T) {
	g, err := New(Paper())
	if err != nil {
		t.Fatal(err)
	}
	if l := g.L(); math.Abs(l-5.0878) > 0.001 {
		t.Errorf("L = %.5f, want 5.0878 ± 0.001", l)
	}
	// L by hand: 4.6·((Σ_k e^{−1.5k²})² − 1) over the infinite lattice,
	// which a central site of a 20×20 lattice reaches to 1e−9.
	s := 0.0
	for k := -20; k <= 20; k++ {
		s += math.Exp(-1.5 * float64(k*k))
	}
	if want := 4.6 * (s*s - 1); math.Abs(g.L()-want) > 1e-6 {
		t.Errorf("L = %.9f, closed form %.9f", g.L(), want)
	}
	if g.MaxDegree() != 399 {
		t.Errorf("Δ = %d, want 399 (every other site)", g.MaxDegree())
	}
	if g.NumVars() != 400 {
		t.Errorf("%d variables, want 400", g.NumVars())
	}
}

func TestNearestNeighbour(t *testing.T) {
	g, err := NearestNeighbour(4, 3, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumFactors() != 32 || g.MaxDegree() != 4 || g.L() != 2 {
		t.Errorf("torus 4×4: %d factors, Δ = %d, L = %v; want 32, 4, 2", g.NumFactors(), g.MaxDegree(), g.L())
	}
	// Every site has 4 distinct neighbours.
	for i := range g.NumVars() {
		seen := map[int]bool{}
		soft, _ := g.Degree(i)
		for k := range soft {
			for _, v := range g.Factor(g.FactorIndex(i, k)).Vars() {
				if v != i {
					seen[v] = true
				}
			}
		}
		if len(seen) != 4 {
			t.Errorf("site %d has %d distinct neighbours, want 4", i, len(seen))
		}
	}
}

func TestParamErrors(t *testing.T) {
	bad := []Params{
		{Width: 1, States: 10, Beta: 1, Gamma: 1},
		{Width: 5, States: 1, Beta: 1, Gamma: 1},
		{Width: 5, States: 2, Beta: math.NaN(), Gamma: 1},
		{Width: 5, States: 2, Beta: -1, Gamma: 1},
		{Width: 5, States: 2, Beta: 1, Gamma: 0},
		{Width: 5, States: 2, Beta: 1, Gamma: math.Inf(1)},
	}
	for _, p := range bad {
		if _, err := New(p); err == nil {
			t.Errorf("New(%+v) succeeded", p)
		}
	}
	if _, err := NearestNeighbour(2, 2, 1); err == nil {
		t.Error("NearestNeighbour(2, …) succeeded")
	}
}

// TestPairs checks Pairs and NumPairs against every pair of sites in turn
// (New's generator before it tabulated the kernel's reach), on lattices
// where the kernel reaches the whole lattice and where it underflows.
func TestPairs(t *testing.T) {
	for _, p := range []Params{
		Paper(),
		{Width: 7, States: 3, Beta: 1, Gamma: 0.01},
		{Width: 30, States: 2, Beta: 2, Gamma: 40},    // reach 4
		{Width: 25, States: 2, Beta: 0, Gamma: 1.5},   // no pairs
		{Width: 2, States: 2, Beta: 1e-300, Gamma: 1}, // the kernel underflows at d = 1
	} {
		var wantA, wantB []int32
		var wantW []float64
		n := p.Width * p.Width
		for i := range n {
			for j := i + 1; j < n; j++ {
				dr, dc := i/p.Width-j/p.Width, i%p.Width-j%p.Width
				w := p.Beta * math.Exp(-p.Gamma*float64(dr*dr+dc*dc))
				if w == 0 {
					continue
				}
				wantA, wantB, wantW = append(wantA, int32(i)), append(wantB, int32(j)), append(wantW, w)
			}
		}
		a, b, w := p.Pairs()
		if p.NumPairs() != len(wantW) || len(a) != len(wantW) || len(b) != len(wantW) || len(w) != len(wantW) {
			t.Fatalf("%+v: NumPairs %d, Pairs %d, %d, %d; want %d", p, p.NumPairs(), len(a), len(b), len(w), len(wantW))
		}
		for k := range w {
			if a[k] != wantA[k] || b[k] != wantB[k] || w[k] != wantW[k] {
				t.Fatalf("%+v: pair %d is (%d, %d, %v), want (%d, %d, %v)", p, k, a[k], b[k], w[k], wantA[k], wantB[k], wantW[k])
			}
		}
	}
}
