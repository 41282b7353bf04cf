package lattice

import (
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

func TestAxisColouring(t *testing.T) {
	for n := 1; n <= 64; n++ {
		for r := 0; r <= n/2; r++ {
			col, m := axisColouring(n, r)
			if err := checkAxis(col, r); err != nil {
				t.Fatalf("n = %d, r = %d: %v", n, r, err)
			}
			want := 1
			if r > 0 {
				b := n / (r + 1)
				want = (n + b - 1) / b
			}
			if m != want || slices.Max(col) != m-1 {
				t.Errorf("n = %d, r = %d: %d colours (largest %d), want ⌈n/⌊n/(r+1)⌋⌉ = %d", n, r, m, slices.Max(col), want)
			}
		}
	}
	// checkAxis catches a colouring that repeats within the distance.
	if err := checkAxis([]int{0, 1, 0, 1, 0}, 1); err == nil {
		t.Error("a 2-colouring of a 5-cycle passed")
	}
}

// TestColouring: the colourings are proper (chromatic.New checks them
// through the lattice's Neighbours) on every kind of finite-range lattice,
// with 2 classes for the nearest-neighbour kernel on an even torus.
func TestColouring(t *testing.T) {
	for _, tc := range []struct {
		p       Params
		classes int // 0: any
	}{
		{Params{Dim: 1, Size: 10, Coupling: NearestNeighbour{}}, 2},
		{Params{Dim: 1, Size: 11, Coupling: NearestNeighbour{}}, 3},
		{Params{Dim: 2, Size: 8, Coupling: NearestNeighbour{}}, 2},
		{Params{Dim: 2, Size: 7, Coupling: NearestNeighbour{}}, 9},
		{Params{Dim: 3, Size: 6, Coupling: NearestNeighbour{}}, 2},
		{Params{Dim: 3, Size: 5, Coupling: NearestNeighbour{}}, 27},
		{Params{Dim: 2, Size: 12, Coupling: Gaussian{Gamma: 1}, Cutoff: 2}, 9},
		{Params{Dim: 2, Size: 13, Coupling: PowerLaw{Sigma: 1}, Cutoff: 3}, 0},
		{Params{Dim: 2, Size: 9, Coupling: Gaussian{Gamma: 0.5}, Cutoff: 1.5}, 0},
		{Params{Dim: 3, Size: 9, Coupling: Gaussian{Gamma: 1}, Cutoff: 1.8}, 0},
		{Params{Dim: 1, Size: 40, Coupling: Gaussian{Gamma: 0.2}, Cutoff: 7.5}, 0},
	} {
		tc.p.Spin, tc.p.Beta = Potts(2), 0.5
		l := mustNew(t, tc.p)
		classes, err := l.Colouring()
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		if tc.classes > 0 && len(classes) != tc.classes {
			t.Errorf("%v: %d classes, want %d", l, len(classes), tc.classes)
		}
		if _, err := chromatic.New(gibbsFactory(t, "gibbs"), l, classes, chain.Streams(1, 2), nil); err != nil {
			t.Errorf("%v: %v", l, err)
		}
	}
	// The chromatic checker, fed the lattice's neighbours, refuses an
	// improper colouring: the checkerboard of an odd torus.
	l := mustNew(t, Params{Dim: 2, Size: 5, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 1})
	bad := make([][]int, 2)
	for i := range l.Sites() {
		c := l.Coords(nil, i)
		bad[(c[0]+c[1])%2] = append(bad[(c[0]+c[1])%2], i)
	}
	if _, err := chromatic.New(gibbsFactory(t, "gibbs"), l, bad, chain.Streams(1, 2), nil); err == nil || !strings.Contains(err.Error(), "share a factor") {
		t.Errorf("odd-torus checkerboard: %v", err)
	}
	// A kernel reaching across the torus has no parallel colouring.
	long := mustNew(t, Params{Dim: 2, Size: 6, Coupling: PowerLaw{Sigma: 1}, Spin: Ising(), Beta: 1})
	if _, err := long.Colouring(); err == nil || !strings.Contains(err.Error(), "its own colour") {
		t.Errorf("full-torus power law: %v", err)
	}
}

// gibbsFactory returns the factory of the gibbs sampler called name.
func gibbsFactory(t testing.TB, name string) gibbs.Factory {
	t.Helper()
	f, err := samplers.FactoryOf(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// sweeper makes a chromatic sampler's Step a whole parallel sweep.
type sweeper struct{ *chromatic.Chromatic }

func (s sweeper) Step() int  { s.Sweep(); return -1 }
func (s sweeper) Update(int) {}

// TestChromaticExactness: parallel colour-class sweeps on a finite-range
// lattice (a ring of 9 with a Gaussian kernel cut off at distance 2: 3 classes) sample the
// exact distribution, with Gibbs and Poisson-Gibbs updates.
func TestChromaticExactness(t *testing.T) {
	p := Params{Dim: 1, Size: 9, Coupling: Gaussian{Gamma: 0.3}, Spin: Ising(), Beta: 0.7, Cutoff: 2}
	l := mustNew(t, p)
	classes, err := l.Colouring()
	if err != nil {
		t.Fatal(err)
	}
	pi := exactPi(p)
	for _, name := range []string{"gibbs", "pgibbs"} {
		c, err := chromatic.New(gibbsFactory(t, name), l, classes, chain.Streams(7, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		z, where := zScore(sweeper{c}, pi, l.Sites(), 2, 50000)
		if z > zLimit {
			t.Errorf("%s (%d classes): %s: z = %.2f", name, len(classes), where, z)
		}
		t.Logf("%s, %d classes: largest z %.2f", name, len(classes), z)
	}
	// Deterministic for a fixed number of workers.
	run := func() []float64 {
		c, _ := chromatic.New(gibbsFactory(t, "pgibbs"), l, classes, chain.Streams(3, 2), nil)
		for range 200 {
			c.Sweep()
		}
		return slices.Clone(c.State())
	}
	if a, b := run(), run(); !slices.Equal(a, b) {
		t.Error("the same seeds gave different chromatic chains")
	}
}
