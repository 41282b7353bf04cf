package factorgraph_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/spin"
	"github.com/pgibbs/pgibbs/tgm"
)

// affine is a test Sectioner: c·x_a + d·x_b on continuous variables, with
// a declared range (possibly wrong, to test range reporting).
type affine struct {
	a, b   int
	c, d   float64
	lo, hi float64
}

func (f *affine) Vars() []int               { return []int{f.a, f.b} }
func (f *affine) Range() (lo, hi float64)   { return f.lo, f.hi }
func (f *affine) Value(x []float64) float64 { return f.c*x[f.a] + f.d*x[f.b] }
func (f *affine) Section(dst, x []float64, i int, at []float64) {
	for j, v := range at {
		y := slices.Clone(x) // slow but obviously Value's arithmetic
		y[i] = v
		dst[j] = f.Value(y)
	}
}

// checkSections compares EvalSection with Eval at x_{i←at[j]} for every
// factor of A[i] of every free variable of g, bit for bit, at random states
// and random points (the Chebyshev-like counts 1, 2, 4, 21, 65), and checks
// that x is left as it was.
func checkSections(t *testing.T, name string, g *factorgraph.Graph, r *rand.Rand) {
	t.Helper()
	for range 5 {
		x := factorgraph.RandomState(g, r)
		for _, i := range g.Free() {
			d := g.Domain(i)
			soft, hard := g.Degree(i)
			for _, n := range []int{1, 2, 4, 21, 65} {
				at := make([]float64, n)
				for j := range at {
					at[j] = d.Lo + (d.Hi-d.Lo)*r.Float64()
				}
				at[0] = d.Lo // the ends of the interval
				at[n-1] = d.Hi
				dst := make([]float64, n+3)
				for k := range soft + hard {
					x0 := slices.Clone(x)
					g.EvalSection(i, k, x, at, dst)
					if !slices.Equal(x, x0) {
						t.Fatalf("%s: EvalSection(%d, %d) modified x", name, i, k)
					}
					for j, v := range at {
						y := slices.Clone(x)
						y[i] = v
						want := g.Eval(i, k, y)
						if math.Float64bits(dst[j]) != math.Float64bits(want) {
							fname, _, _ := g.Describe(i, k)
							t.Fatalf("%s: %s along x%d at %v: EvalSection %v, Eval %v", name, fname, i, v, dst[j], want)
						}
					}
					// The generic helper agrees.
					dst2 := make([]float64, n)
					factorgraph.EvalSection(g, i, k, x, at, dst2)
					if !slices.Equal(dst[:n], dst2) {
						t.Fatalf("%s: factorgraph.EvalSection differs from Graph.EvalSection", name)
					}
				}
			}
		}
	}
}

// TestEvalSection: EvalSection returns Eval's values bit for bit for
// factors without Section (Func, evaluated point by point), with their own
// Section (a test factor, the spin pair, the mixture's datum and prior
// factors), on graphs with shifted ranges (lo ≠ 0).
func TestEvalSection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))

	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(-1, 2))
	b.AddVariable(factorgraph.Interval(0, 3))
	b.AddVariable(factorgraph.Discrete(3))
	b.AddFactor(factorgraph.NewFunc([]int{0, 1}, -7, 9, func(x []float64) float64 { return math.Sin(3*x[0]) * x[1] * x[1] }))
	b.AddFactor(factorgraph.NewFunc([]int{1, 2}, 0.5, 8, func(x []float64) float64 { return 0.5 + x[1]*x[2] }))
	b.AddFactor(&affine{a: 0, b: 1, c: 1.5, d: -0.25, lo: -2.25, hi: 3})
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, "func", g, r)

	sp, err := spin.New(spin.Params{Width: 4, Beta: 1.3, Gamma: 0.4, Lo: -1, Hi: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, "spin", sp, r)

	for _, cfg := range []tgm.Config{tgm.GibbsConfig(), tgm.MHConfig()} {
		cfg.N = 40
		cfg.Beta = 0.3
		m, err := tgm.Generate(cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Graph()
		if err != nil {
			t.Fatal(err)
		}
		checkSections(t, "tgm", g, r)
	}
}

// TestEvalSectionDiscrete: along a discrete variable EvalSection agrees
// with EvalAll at the values 0, …, D−1.
func TestEvalSectionDiscrete(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(4))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1.5))
	b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{4, 4}, []float64{
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{2, 1}
	at := []float64{0, 1, 2, 3}
	for i := range 2 {
		soft, _ := g.Degree(i)
		for k := range soft {
			want, got := make([]float64, 4), make([]float64, 4)
			g.EvalAll(i, k, x, want)
			g.EvalSection(i, k, x, at, got)
			if !slices.Equal(want, got) {
				t.Errorf("variable %d factor %d: EvalSection %v, EvalAll %v", i, k, got, want)
			}
		}
	}
}
