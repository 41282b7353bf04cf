package infer

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// pairModel returns binary variables joined by pair tables w·s_a·s_b
// (s = ±1) over edges, with fields h_i·s_i, all drawn at random with
// scales w and h.
func pairModel(t *testing.T, n int, edges [][2]int, w, h float64, seed uint64) *factorgraph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	for _, e := range edges {
		j := w * r.NormFloat64()
		b.AddFactor(factorgraph.NewTable([]int{e[0], e[1]}, []int{2, 2}, []float64{j, -j, -j, j}))
	}
	for i := range n {
		f := h * r.NormFloat64()
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{-f, f}))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// meanAbsError returns the mean over g's free variables of |p̂(1) − p(1)|.
func meanAbsError(g *factorgraph.Graph, got, want [][]float64) float64 {
	s := 0.0
	for _, i := range g.Free() {
		s += math.Abs(got[i][1] - want[i][1])
	}
	return s / float64(len(g.Free()))
}

// TestShrink: the sampled marginals shrunk toward loopy BP's beliefs are
// far better than the chains' own where BP is all but exact (weak
// couplings of both signs on K₂₀,₂₀, an RBM's shape, too wide for the
// blocks to cover: weight near 1) and no worse where it is badly biased (a frustrated torus of
// strong couplings: weight near 0). The broken variant, which gives the
// beliefs all the weight, is caught on the torus.
func TestShrink(t *testing.T) {
	var rbm, torus [][2]int
	for i := range 20 {
		for j := 20; j < 40; j++ {
			rbm = append(rbm, [2]int{i, j})
		}
	}
	const side = 4
	for i := range side * side {
		row, col := i/side, i%side
		torus = append(torus, [2]int{i, row*side + (col+1)%side}, [2]int{i, ((row+1)%side)*side + col})
	}
	cases := []struct {
		name       string
		g          *factorgraph.Graph
		exact      func(g *factorgraph.Graph) [][]float64
		minW, maxW float64
		ratio      float64 // shrunk error / the chains' error, at most
	}{
		{"weak K20,20", pairModel(t, 40, rbm, 0.03, 0.5, 1), func(g *factorgraph.Graph) [][]float64 { return exactMarginals(t, g) }, 0.8, 1, 0.5},
		{"frustrated torus", pairModel(t, side*side, torus, 1.5, 0.2, 2), bruteMarginals, 0, 0.1, 1.1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.exact(c.g)
			run := func(noShrink bool) *Answer {
				a, err := Marginals(context.Background(), c.g, Options{Sweeps: 4000, Seed: 3, MaxBytes: 1, NoShrink: noShrink})
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			raw, shrunk := run(true), run(false)
			if raw.Shrink != nil {
				t.Errorf("NoShrink: Shrink %+v, want nil", raw.Shrink)
			}
			sh := shrunk.Shrink
			if sh == nil || sh.Why != "" {
				t.Fatalf("not shrunk: %+v", sh)
			}
			eRaw, eShrunk := meanAbsError(c.g, raw.Marginals, want), meanAbsError(c.g, shrunk.Marginals, want)
			t.Logf("%s: weight %.3g (ratio %.3g, %d coordinates, %.3g independent, %d batches): error %.3g sampled, %.3g shrunk", c.name, sh.Weight, sh.Ratio, sh.Coords, sh.Dims, sh.Batches, eRaw, eShrunk)
			if sh.Weight < c.minW || sh.Weight > c.maxW {
				t.Errorf("weight %.3g, want in [%g, %g]", sh.Weight, c.minW, c.maxW)
			}
			if eShrunk > c.ratio*eRaw {
				t.Errorf("shrunk error %.3g, sampled %.3g: want at most %g times", eShrunk, eRaw, c.ratio)
			}
			if c.name == "frustrated torus" {
				brokenShrink = true
				broken := run(false)
				brokenShrink = false
				if eb := meanAbsError(c.g, broken.Marginals, want); eb < 3*eRaw {
					t.Errorf("broken variant (the beliefs' whole weight): error %.3g, sampled %.3g: not caught", eb, eRaw)
				}
			}
		})
	}
}

// exactMarginals returns g's marginals by elimination.
func exactMarginals(t *testing.T, g *factorgraph.Graph) [][]float64 {
	a, err := Marginals(context.Background(), g, Options{Sweeps: 1})
	if err != nil || a.Method != MethodExact {
		t.Fatalf("exact answer: %v, method %v", err, a.Method)
	}
	return a.Marginals
}

// effectiveDims counts the independent directions of batch means: n for
// independent coordinates, 1 for one shift of all together.
func TestEffectiveDims(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, nb = 300, 48
	indep, common := make([][][]float64, n), make([][][]float64, n)
	shift := make([]float64, nb)
	for b := range shift {
		shift[b] = r.NormFloat64()
	}
	for k := range n {
		a, c := make([]float64, nb), make([]float64, nb)
		for b := range nb {
			a[b] = 0.5 + 0.01*r.NormFloat64()
			c[b] = 0.5 + 0.01*shift[b] + 1e-4*r.NormFloat64()
		}
		indep[k] = [][]float64{nil, a}
		common[k] = [][]float64{nil, c}
	}
	if d := effectiveDims(indep); d < n/2 {
		t.Errorf("independent coordinates: %.3g directions, want about %d", d, n)
	}
	if d := effectiveDims(common); d > 3 {
		t.Errorf("one common shift: %.3g directions, want about 1", d)
	}
}
