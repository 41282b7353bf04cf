package factorgraph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPairSplitter: a graph built with its binary pair tables split has
// the log-potential of the unsplit one at every state (RBM tables,
// generic ones, tables of Potts form and hard ones, a three-valued
// variable's table left alone), and reads as Potts pairs and fields; left
// without its fields (the broken variant), it does not.
func TestPairSplitter(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 21))
		const n = 7
		sizes := make([]int, n)
		for i := range sizes {
			sizes[i] = 2
		}
		sizes[n-1] = 3
		type tab struct {
			scope, sz []int
			vals      []float64
		}
		var tabs []tab
		for range 12 {
			a, b := r.IntN(n), r.IntN(n)
			if a == b {
				continue
			}
			sz := []int{sizes[a], sizes[b]}
			vals := make([]float64, sz[0]*sz[1])
			switch r.IntN(4) {
			case 0: // an RBM's exp(W·a·b)
				vals[len(vals)-1] = r.NormFloat64()
			case 1: // of Potts form
				w := r.NormFloat64()
				for k := range vals {
					if k%(sz[1]+1) == 0 {
						vals[k] = w
					}
				}
			case 2: // a hard zero
				vals[r.IntN(len(vals))] = math.Inf(-1)
			default:
				for k := range vals {
					vals[k] = r.NormFloat64()
				}
			}
			tabs = append(tabs, tab{[]int{a, b}, sz, vals})
		}
		splits := 0
		build := func(split, broken bool) *Graph {
			b := NewBuilder()
			for _, d := range sizes {
				b.AddVariable(Discrete(d))
			}
			sp := NewPairSplitter(n)
			for _, tb := range tabs {
				v := append([]float64(nil), tb.vals...)
				if split {
					sp.Split(tb.scope, tb.sz, v)
				}
				b.AddFactor(NewTable(tb.scope, tb.sz, v))
			}
			if !broken {
				sp.AddFields(b)
			}
			splits = max(splits, sp.Splits())
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		plain, split, broken := build(false, false), build(true, false), build(true, true)
		x := make([]float64, n)
		worst, worstBroken := 0.0, 0.0
		for s := range 64 * 3 {
			for i := range n - 1 {
				x[i] = float64(s >> i & 1)
			}
			x[n-1] = float64(s >> (n - 1))
			want := plain.LogPotential(x)
			for _, c := range []struct {
				g *Graph
				w *float64
			}{{split, &worst}, {broken, &worstBroken}} {
				got := c.g.LogPotential(x)
				switch {
				case math.IsInf(want, -1) != math.IsInf(got, -1):
					*c.w = math.Inf(1)
				case !math.IsInf(want, -1):
					*c.w = max(*c.w, math.Abs(got-want))
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("seed %d: split graph's log-potential off by %g", seed, worst)
		}
		if worstBroken < 1e-6 && splits > 0 {
			t.Errorf("seed %d: the broken variant (no fields) is not caught", seed)
		}
	}
	// A K₃,₃ of RBM tables reads as Potts pairs and fields once split.
	b := NewBuilder()
	b.AddVariables(6, Discrete(2))
	sp := NewPairSplitter(6)
	for i := range 3 {
		for j := 3; j < 6; j++ {
			v := []float64{0, 0, 0, 0.3}
			sp.Split([]int{i, j}, []int{2, 2}, v)
			b.AddFactor(NewTable([]int{i, j}, []int{2, 2}, v))
		}
	}
	sp.AddFields(b)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if sp.Splits() != 9 || !g.PairsAndFields() {
		t.Errorf("K3,3 split: %d tables split, PairsAndFields %v; want 9 and true", sp.Splits(), g.PairsAndFields())
	}
}
