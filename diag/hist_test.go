package diag

import (
	"math"
	"strings"
	"testing"
)

func TestHist1DBinsAndOutside(t *testing.T) {
	h, err := NewHist1D(0, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{0, 0.1, 0.25, 0.5, 0.74, 0.75, 1, math.Nextafter(1, 0), -0.1, 1.1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		h.Add(x)
	}
	if want := []float64{2, 1, 2, 3}; !equal(h.Counts(), want) {
		t.Errorf("counts %v, want %v", h.Counts(), want)
	}
	below, above, nan := h.Outside()
	if below != 2 || above != 2 || nan != 1 || h.N() != 13 {
		t.Errorf("outside %d below, %d above, %d NaN of %d; want 2, 2, 1 of 13", below, above, nan, h.N())
	}
	// Fractions keep the lost mass visible: they sum to 8/13.
	p := h.Probs(nil)
	if want := []float64{2. / 13, 1. / 13, 2. / 13, 3. / 13}; !equal(p, want) {
		t.Errorf("probs %v, want %v", p, want)
	}
	d := h.Density(make([]float64, 0, 4))
	for k := range d {
		if math.Abs(d[k]-p[k]/0.25) > 1e-15 {
			t.Errorf("density[%d] = %v, want %v", k, d[k], p[k]/0.25)
		}
	}
	if h.Center(0) != 0.125 || h.Center(3) != 0.875 || h.Width() != 0.25 || h.Bins() != 4 {
		t.Errorf("geometry: centers %v %v width %v bins %d", h.Center(0), h.Center(3), h.Width(), h.Bins())
	}
	h.Reset()
	if b, a, n := h.Outside(); h.N() != 0 || b+a+n != 0 || !equal(h.Counts(), []float64{0, 0, 0, 0}) {
		t.Errorf("after Reset: N %d, counts %v", h.N(), h.Counts())
	}
	if p := h.Probs(p); !equal(p, []float64{0, 0, 0, 0}) {
		t.Errorf("probs of empty histogram %v", p)
	}
}

// TestHist1DBinIndex checks the bin of many points against the definition
// lo + k·w ≤ x < lo + (k+1)·w away from edges (where rounding may go either
// way), on an awkward range.
func TestHist1DBinIndex(t *testing.T) {
	lo, hi, n := -0.3, 2.9, 7
	h, _ := NewHist1D(lo, hi, n)
	w := (hi - lo) / float64(n)
	rng := newRand(11)
	for range 10000 {
		x := lo + (hi-lo)*rng.Float64()
		k := int(math.Floor((x - lo) / w))
		if f := (x - lo) / w; math.Abs(f-math.Round(f)) < 1e-9 {
			continue
		}
		h.Reset()
		h.Add(x)
		if h.Counts()[k] != 1 {
			t.Fatalf("x = %v landed in %v, want bin %d", x, h.Counts(), k)
		}
	}
}

func TestHist2D(t *testing.T) {
	h, err := NewHist2D(-1, 1, 2, 0, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	pts := [][2]float64{{-1, 0}, {-0.5, 2.5}, {0, 1}, {1, 3}, {0.9, 0.1}, {2, 1}, {0, -1}, {math.NaN(), 1}, {0, math.NaN()}}
	for _, p := range pts {
		h.Add(p[0], p[1])
	}
	// Cell (i, j) at i·3 + j: (0,0), (0,2), (1,1), (1,2), (1,0).
	if want := []float64{1, 0, 1, 1, 1, 1}; !equal(h.Counts(), want) {
		t.Errorf("counts %v, want %v", h.Counts(), want)
	}
	if h.Outside() != 4 || h.N() != 9 {
		t.Errorf("outside %d of %d, want 4 of 9", h.Outside(), h.N())
	}
	p := h.Probs(nil)
	d := h.Density(nil)
	wx, wy := h.Width()
	for k := range p {
		if p[k] != h.Counts()[k]/9 || math.Abs(d[k]-p[k]/(wx*wy)) > 1e-15 {
			t.Errorf("cell %d: prob %v density %v", k, p[k], d[k])
		}
	}
	if x, y := h.Center(1, 2); x != 0.5 || y != 2.5 {
		t.Errorf("center (1,2) = (%v, %v)", x, y)
	}
}

func TestHistAllocationFree(t *testing.T) {
	h1, _ := NewHist1D(0, 1, 10)
	h2, _ := NewHist2D(0, 1, 10, 0, 1, 10)
	x := 0.0
	if a := testing.AllocsPerRun(1000, func() { x += 0.37; h1.Add(x - math.Floor(x)) }); a != 0 {
		t.Errorf("Hist1D.Add allocates %v times", a)
	}
	if a := testing.AllocsPerRun(1000, func() { x += 0.37; h2.Add(x-math.Floor(x), 2) }); a != 0 {
		t.Errorf("Hist2D.Add allocates %v times", a)
	}
}

func TestHistErrors(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		bins   int
		want   string
	}{
		{1, 1, 3, "lo < hi"},
		{2, 1, 3, "lo < hi"},
		{math.NaN(), 1, 3, "finite"},
		{0, math.Inf(1), 3, "finite"},
		{0, 1, 0, "0 bins"},
		{-math.MaxFloat64, math.MaxFloat64, 3, "bin width"},
	} {
		if _, err := NewHist1D(tc.lo, tc.hi, tc.bins); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewHist1D(%v, %v, %d): err = %v, want %q", tc.lo, tc.hi, tc.bins, err, tc.want)
		}
		if _, err := NewHist2D(0, 1, 2, tc.lo, tc.hi, tc.bins); err == nil || !strings.Contains(err.Error(), "histogram y ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewHist2D y axis (%v, %v, %d): err = %v", tc.lo, tc.hi, tc.bins, err)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
