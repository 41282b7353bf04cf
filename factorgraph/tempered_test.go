package factorgraph_test

import (
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// TestTempered: at every β the tempered graph's factors are β times the
// original's, zeros kept, for each kind of factor (table with a zero,
// Potts pair, a user's factor), with the evidence kept; bad β refused.
func TestTempered(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{2, 2}, []float64{0.5, math.Inf(-1), -1, 2}))
	b.AddFactor(factorgraph.NewPotts(1, 2, -1.5))
	b.AddFactor(factorgraph.NewFunc([]int{0, 2}, -1, 3, func(x []float64) float64 { return x[0] + 2*x[2] - 1 }))
	b.Observe(2, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, beta := range []float64{0, 0.3, 1, 2} {
		tg, err := g.Tempered(beta)
		if err != nil {
			t.Fatalf("β = %v: %v", beta, err)
		}
		if tg.NumFactors() != g.NumFactors() || len(tg.Free()) != len(g.Free()) {
			t.Fatalf("β = %v: %d factors, %d free; want %d, %d", beta, tg.NumFactors(), len(tg.Free()), g.NumFactors(), len(g.Free()))
		}
		x := make([]float64, 3)
		for s := range 8 {
			x[0], x[1], x[2] = float64(s&1), float64(s>>1&1), float64(s>>2)
			for f := range g.NumFactors() {
				want := factorgraph.Temper(beta, g.EvalFactor(f, x))
				if got := tg.EvalFactor(f, x); got != want && !(math.IsInf(got, -1) && math.IsInf(want, -1)) {
					t.Errorf("β = %v, factor %d at %v: %v, want %v", beta, f, x, got, want)
				}
			}
		}
	}
	for _, beta := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := g.Tempered(beta); err == nil {
			t.Errorf("β = %v accepted", beta)
		}
	}
}

// TestLogPotential: Graph.LogPotential is the sum of the factors' declared
// values (Factor.Value), for every kind of factor, at every state.
func TestLogPotential(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{2, 2}, []float64{0.5, math.Inf(-1), -1, 2}))
	b.AddPottsPairs([]int32{1, 0}, []int32{2, 2}, []float64{-1.5, 0.7})
	b.AddTables([]int32{0, 2}, []int{2}, []float64{0.3, -0.2, 1, 4})
	b.AddFactor(factorgraph.NewFunc([]int{0, 2}, -1, 3, func(x []float64) float64 { return x[0] + 2*x[2] - 1 }))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 3)
	for s := range 8 {
		x[0], x[1], x[2] = float64(s&1), float64(s>>1&1), float64(s>>2)
		want := 0.0
		for f := range g.NumFactors() {
			want += g.Factor(f).Value(x)
		}
		if got := g.LogPotential(x); got != want && !(math.IsInf(got, -1) && math.IsInf(want, -1)) {
			t.Errorf("at %v: %v, want %v", x, got, want)
		}
	}
}
