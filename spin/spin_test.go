package spin

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPaperL(t *testing.T) {
	p := Paper()
	g, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(g.L()-PaperL) > 1e-6 {
		t.Errorf("L = %.8f, want %v", g.L(), PaperL)
	}
	if g.MaxDegree() != 399 {
		t.Errorf("Δ = %d, want 399", g.MaxDegree())
	}
	if math.Abs(p.Gamma-0.2136) > 0.001 {
		t.Errorf("γ = %v, documented as ≈ 0.2136", p.Gamma)
	}
	t.Logf("γ = %.6f, L = %.6f", p.Gamma, g.L())
}

// TestPairRange: the declared range holds on random points and is reached
// at the corners, on intervals with negative ends too.
func TestPairRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, iv := range [][2]float64{{0, 1}, {-1, 2}, {-3, -1}} {
		f := NewPair(0, 1, 0.7, iv[0], iv[1])
		lo, hi := f.Range()
		seenLo, seenHi := false, false
		for _, x := range [][]float64{{iv[0], iv[0]}, {iv[0], iv[1]}, {iv[1], iv[0]}, {iv[1], iv[1]}} {
			v := f.Value(x)
			seenLo = seenLo || v == lo
			seenHi = seenHi || v == hi
		}
		if !seenLo || !seenHi {
			t.Errorf("%v: range [%v, %v] not attained at the corners", iv, lo, hi)
		}
		for range 1000 {
			x := []float64{iv[0] + (iv[1]-iv[0])*r.Float64(), iv[0] + (iv[1]-iv[0])*r.Float64()}
			if v := f.Value(x); v < lo || v > hi {
				t.Fatalf("%v: value %v at %v outside [%v, %v]", iv, v, x, lo, hi)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	for _, p := range []Params{{Width: 1, Beta: 1, Gamma: 1}, {Width: 3, Beta: -1, Gamma: 1}, {Width: 3, Beta: 1, Gamma: 0},
		{Width: 3, Beta: 1, Gamma: 1, Lo: 2, Hi: 1}, {Width: 3, Beta: 1, Gamma: 1, Lo: math.NaN(), Hi: 1}} {
		if _, err := New(p); err == nil {
			t.Errorf("New(%+v) succeeded", p)
		}
	}
	if _, err := GammaForL(3, 1, 100); err == nil {
		t.Error("GammaForL accepted an unreachable L")
	}
}

// TestPairSection: Section along either variable returns Value's values
// bit for bit and leaves x alone.
func TestPairSection(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for range 200 {
		lo := -2 * r.Float64()
		hi := lo + 3*r.Float64() + 0.1
		p := NewPair(3, 1, 2*r.Float64()-0.5, lo, hi)
		x := make([]float64, 4)
		for k := range x {
			x[k] = lo + (hi-lo)*r.Float64()
		}
		x0 := append([]float64(nil), x...)
		at := make([]float64, 1+r.IntN(30))
		for j := range at {
			at[j] = lo + (hi-lo)*r.Float64()
		}
		dst := make([]float64, len(at))
		for _, i := range p.Vars() {
			p.Section(dst, x, i, at)
			for j, v := range at {
				y := append([]float64(nil), x...)
				y[i] = v
				if want := p.Value(y); math.Float64bits(dst[j]) != math.Float64bits(want) {
					t.Fatalf("along x%d at %v: Section %v, Value %v", i, v, dst[j], want)
				}
			}
			for k := range x {
				if x[k] != x0[k] {
					t.Fatal("Section modified x")
				}
			}
		}
	}
}
