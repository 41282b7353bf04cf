package potts

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestShapes: the random shapes have the pairs, degrees and weights they
// promise, no self-pairs, and build.
func TestShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sparse, err := Sparse(1000, 10, 4, 0.2, r)
	if err != nil {
		t.Fatal(err)
	}
	power, err := PowerLaw(20000, 10, 2.5, 4, 0.2, r)
	if err != nil {
		t.Fatal(err)
	}
	bip, err := Bipartite(30, 3, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		p          *Pairs
		pairs      int
		minMax     int // the largest degree at least
		maxMax     int // and at most
		w          float64
		bipartiteM int
	}{
		{"sparse", sparse, 5000, 15, 40, 0.2, 0},
		{"power law", power, 100000, 300, 5000, 0.2, 0},
		{"bipartite", bip, 900, 30, 30, 0.05, 30},
	} {
		if len(c.p.I) != c.pairs || len(c.p.J) != c.pairs || len(c.p.W) != c.pairs {
			t.Fatalf("%s: %d pairs, want %d", c.name, len(c.p.I), c.pairs)
		}
		deg := make([]int, c.p.N)
		for k := range c.p.I {
			i, j := c.p.I[k], c.p.J[k]
			if i == j || c.p.W[k] != c.w {
				t.Fatalf("%s: pair %d = (%d, %d, %g)", c.name, k, i, j, c.p.W[k])
			}
			if c.bipartiteM > 0 && (int(i) >= c.bipartiteM || int(j) < c.bipartiteM) {
				t.Fatalf("%s: pair %d = (%d, %d) not across the halves", c.name, k, i, j)
			}
			deg[i]++
			deg[j]++
		}
		mx := 0
		for _, d := range deg {
			mx = max(mx, d)
		}
		if mx < c.minMax || mx > c.maxMax {
			t.Errorf("%s: largest degree %d, want %d to %d", c.name, mx, c.minMax, c.maxMax)
		}
		g, err := c.p.Build()
		if err != nil {
			t.Fatal(err)
		}
		if g.NumFactors() != c.pairs || g.NumVars() != c.p.N {
			t.Errorf("%s: built %d variables and %d factors", c.name, g.NumVars(), g.NumFactors())
		}
	}
	for _, err := range []error{
		func() error { _, err := Sparse(1, 10, 4, 1, r); return err }(),
		func() error { _, err := PowerLaw(100, 5, 2, 4, 1, r); return err }(),
		func() error { _, err := Bipartite(0, 2, 1); return err }(),
	} {
		if err == nil {
			t.Error("a bad shape accepted")
		}
	}
}

// TestGeometric: Geometric's pairs are exactly the pairs of points closer
// than ρ on the torus (against a scan of every pair), about n·deg/2 of
// them, and the graph builds.
func TestGeometric(t *testing.T) {
	for _, c := range []struct {
		n   int
		deg float64
	}{{1500, 8}, {40, 6}, {9, 2}} {
		p, err := Geometric(c.n, c.deg, 3, 0.4, rand.New(rand.NewPCG(4, uint64(c.n))))
		if err != nil {
			t.Fatal(err)
		}
		// The same points, drawn again from the same stream.
		r := rand.New(rand.NewPCG(4, uint64(c.n)))
		px, py := make([]float64, c.n), make([]float64, c.n)
		for k := range px {
			px[k], py[k] = r.Float64(), r.Float64()
		}
		rho := math.Sqrt(c.deg / (math.Pi * float64(c.n)))
		want := map[[2]int32]bool{}
		for i := range c.n {
			for j := i + 1; j < c.n; j++ {
				dx, dy := px[j]-px[i], py[j]-py[i]
				dx, dy = dx-math.Round(dx), dy-math.Round(dy)
				if dx*dx+dy*dy < rho*rho {
					want[[2]int32{int32(i), int32(j)}] = true
				}
			}
		}
		got := map[[2]int32]bool{}
		for k := range p.I {
			pair := [2]int32{p.I[k], p.J[k]}
			if got[pair] || !want[pair] || p.W[k] != 0.4 {
				t.Fatalf("n = %d: pair %d = %v (weight %g): repeated or not within ρ", c.n, k, pair, p.W[k])
			}
			got[pair] = true
		}
		if len(got) != len(want) {
			t.Errorf("n = %d: %d pairs, want the %d within ρ", c.n, len(got), len(want))
		}
		if c.n == 1500 && math.Abs(float64(len(got))-c.deg*float64(c.n)/2) > 0.1*c.deg*float64(c.n)/2 {
			t.Errorf("n = %d: %d pairs, want about %g", c.n, len(got), c.deg*float64(c.n)/2)
		}
		if _, err := p.Build(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Geometric(100, 0, 2, 1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("Geometric with degree 0: no error")
	}
}
