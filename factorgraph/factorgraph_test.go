package factorgraph

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBuildErrors(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name  string
		build func(b *Builder)
		want  string // substring of the error
	}{
		{"no variables", func(b *Builder) {}, "no variables"},
		{"domain size 0", func(b *Builder) { b.AddVariable(Discrete(0)) }, "variable 0: domain size 0"},
		{"negative size", func(b *Builder) { b.AddVariable(Discrete(2)); b.AddVariable(Discrete(-1)) }, "variable 1: domain size -1 < 1"},
		{"reversed interval", func(b *Builder) { b.AddVariable(Interval(1, 0)) }, "variable 0: interval [1, 0] is empty or reversed"},
		{"empty interval", func(b *Builder) { b.AddVariable(Interval(2, 2)) }, "empty or reversed"},
		{"infinite interval", func(b *Builder) { b.AddVariable(Interval(0, inf)) }, "not finite"},
		{"scope out of range", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.AddFactor(NewPotts(0, 1, 1))
			b.AddFactor(NewPotts(1, 2, 1))
		}, "factor 1 (vars 1,2): variable 2 out of range [0, 2)"},
		{"negative scope", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.AddFactor(NewPotts(-1, 1, 1))
		}, "variable -1 out of range"},
		{"empty scope", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewFunc(nil, 0, 1, func([]float64) float64 { return 0 }))
		}, "factor 0: empty scope"},
		{"repeated scope", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.AddFactor(NewPotts(1, 1, 1))
		}, "factor 0 (vars 1,1): variable 1 repeated"},
		{"NaN lo", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewFunc([]int{0}, math.NaN(), 1, func([]float64) float64 { return 0 }))
		}, "declared lo NaN is not finite"},
		{"infinite lo", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewFunc([]int{0}, math.Inf(-1), 1, func([]float64) float64 { return 0 }))
		}, "declared lo -Inf is not finite"},
		{"lo > hi", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewFunc([]int{0}, 2, 1, func([]float64) float64 { return 0 }))
		}, "factor 0 (vars 0): declared lo 2 > hi 1"},
		{"NaN hi", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewFunc([]int{0}, 0, math.NaN(), func([]float64) float64 { return 0 }))
		}, "declared hi is NaN"},
		{"table size", func(b *Builder) {
			b.AddVariables(2, Discrete(3))
			b.AddFactor(NewTable([]int{0, 1}, []int{3, 3}, make([]float64, 8)))
		}, "table has 8 entries, want 9"},
		{"table sizes vs domain", func(b *Builder) {
			b.AddVariables(2, Discrete(3))
			b.AddFactor(NewTable([]int{0, 1}, []int{3, 2}, make([]float64, 6)))
		}, "table size 2 for variable 1 whose domain has 3 values"},
		{"table NaN", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewTable([]int{0}, []int{2}, []float64{0, math.NaN()}))
		}, "factor 0 (vars 0): table entry 1 is NaN"},
		{"negative probability", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewProbTable([]int{0}, []int{2}, []float64{0.5, -0.1}))
		}, "factor 0 (vars 0): table entry 1 is a negative probability -0.1"},
		{"NaN probability", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewProbTable([]int{0}, []int{2}, []float64{math.NaN(), 0.5}))
		}, "factor 0 (vars 0): table entry 0 is NaN"},
		{"NaN Potts weight", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.AddFactor(NewPotts(0, 1, 1))
			b.AddFactor(NewPotts(0, 1, math.NaN()))
		}, "factor 1 (vars 0,1): Potts weight is NaN"},
		{"infinite Potts weight", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.AddFactor(NewPotts(0, 1, math.Inf(-1)))
		}, "factor 0 (vars 0,1): Potts weight -Inf is not finite"},
		{"negative AddVariables", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.AddVariables(-3, Discrete(2))
			b.AddVariables(1, Discrete(2))
		}, "factorgraph: AddVariables(-3, {0..1}) (after 2 variables): negative number of variables"},
		{"all zero table", func(b *Builder) {
			b.AddVariables(1, Discrete(2))
			b.AddFactor(NewProbTable([]int{0}, []int{2}, []float64{0, 0}))
		}, "every table entry is −Inf"},
		{"table over continuous", func(b *Builder) {
			b.AddVariable(Interval(0, 1))
			b.AddFactor(NewTable([]int{0}, []int{2}, []float64{0, 0}))
		}, "table over continuous variable 0"},
		{"potts over continuous", func(b *Builder) {
			b.AddVariable(Interval(0, 1))
			b.AddVariable(Discrete(2))
			b.AddFactor(NewPotts(0, 1, 1))
		}, "Potts factor over continuous variable 0"},
		{"nil factor", func(b *Builder) {
			b.AddVariable(Discrete(2))
			b.AddFactor(nil)
		}, "factor 0 is nil"},
		{"evidence outside domain", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.Observe(1, 2)
		}, "evidence 2 for variable 1 outside its domain"},
		{"evidence not integer", func(b *Builder) {
			b.AddVariables(2, Discrete(3))
			b.Observe(0, 0.5)
		}, "evidence 0.5 for variable 0"},
		{"evidence out of range", func(b *Builder) {
			b.AddVariables(2, Discrete(2))
			b.Observe(5, 0)
		}, "evidence for variable 5 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder()
			tt.build(b)
			_, err := b.Build()
			if err == nil {
				t.Fatalf("Build succeeded, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// chain3 is x0 – x1 – x2 with Potts factors of weights 1 and 2, a unary
// table on x0 and a hard table on (x1, x2).
func chain3(t *testing.T) *Graph {
	t.Helper()
	b := NewBuilder()
	b.AddVariables(3, Discrete(3))
	b.AddFactor(NewPotts(0, 1, 1))                                                            // f0, M = 1
	b.AddFactor(NewPotts(1, 2, 2))                                                            // f1, M = 2
	b.AddFactor(NewTable([]int{0}, []int{3}, []float64{-1, 0.5, 2}))                          // f2, M = 3
	b.AddFactor(NewPotts(0, 2, 0))                                                            // f3, M = 0: dropped
	b.AddFactor(NewProbTable([]int{1, 2}, []int{3, 3}, []float64{1, 1, 0, 1, 1, 1, 0, 1, 1})) // f4, hard
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGraphQuantities(t *testing.T) {
	g := chain3(t)
	if got := g.Li(0); got != 4 {
		t.Errorf("L_0 = %v, want 4", got)
	}
	if got := g.Li(1); got != 3 {
		t.Errorf("L_1 = %v, want 3", got)
	}
	if got := g.Li(2); got != 2 {
		t.Errorf("L_2 = %v, want 2", got)
	}
	if g.L() != 4 || g.Psi() != 6 {
		t.Errorf("L = %v, Ψ = %v, want 4, 6", g.L(), g.Psi())
	}
	if g.MaxDegree() != 3 { // x1: f0, f1 soft + f4 hard
		t.Errorf("Δ = %d, want 3", g.MaxDegree())
	}
	soft, hard := g.Degree(1)
	if soft != 2 || hard != 1 {
		t.Errorf("Degree(1) = %d, %d, want 2, 1", soft, hard)
	}
	if !math.IsInf(g.Bound(1, 2), 1) {
		t.Errorf("Bound of a hard factor = %v, want +Inf", g.Bound(1, 2))
	}
	if got := g.FactorIndex(1, 2); got != 4 {
		t.Errorf("hard factor of A[1] is factor %d, want 4", got)
	}
}

// TestEvalAllMatchesEval checks the Tabulator fast paths and the generic
// path against Value, on every factor of every variable at random states.
func TestEvalAllMatchesEval(t *testing.T) {
	g := chain3(t)
	r := rand.New(rand.NewPCG(1, 1))
	dst := make([]float64, 3)
	for range 50 {
		x := g.Initial(r)
		for i := range 3 {
			soft, hard := g.Degree(i)
			for k := range soft + hard {
				g.EvalAll(i, k, x, dst)
				for v := range 3 {
					y := append([]float64(nil), x...)
					y[i] = float64(v)
					if want := g.Eval(i, k, y); dst[v] != want && !(math.IsInf(want, -1) && math.IsInf(dst[v], -1)) {
						t.Fatalf("EvalAll(%d,%d)[%d] = %v, Eval = %v", i, k, v, dst[v], want)
					}
				}
			}
		}
	}
}

func TestPickFrequenciesSmall(t *testing.T) {
	b := NewBuilder()
	b.AddVariables(5, Discrete(2))
	w := []float64{0.5, 1, 2, 4}
	for j, wj := range w {
		b.AddFactor(NewPotts(0, j+1, wj))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	count := make([]float64, 4)
	const n = 100000
	for range n {
		count[g.Pick(0, r)]++
	}
	// Local indices are ordered by decreasing M_φ.
	for k := range w {
		p := g.Bound(0, k) / 7.5
		if k > 0 && g.Bound(0, k) > g.Bound(0, k-1) {
			t.Errorf("A[0] not sorted by decreasing M: %v after %v", g.Bound(0, k), g.Bound(0, k-1))
		}
		if got := count[k] / n; math.Abs(got-p) > 5*math.Sqrt(p*(1-p)/n) {
			t.Errorf("factor %d picked with frequency %v, want %v", k, got, p)
		}
	}
}

func TestEvidence(t *testing.T) {
	b := NewBuilder()
	b.AddVariables(3, Discrete(2))
	b.AddFactor(NewPotts(0, 1, 1))
	b.AddFactor(NewPotts(1, 2, 5))
	b.Observe(2, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Free(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("Free = %v, want [0 1]", got)
	}
	if v, ok := g.Observed(2); !ok || v != 1 {
		t.Errorf("Observed(2) = %v, %v", v, ok)
	}
	if g.L() != 6 { // L over free variables: L_1 = 6
		t.Errorf("L = %v, want 6", g.L())
	}
	x := g.Initial(rand.New(rand.NewPCG(1, 2)))
	if x[2] != 1 {
		t.Errorf("initial state %v does not hold the evidence", x)
	}
}

func TestComponentsAndDOT(t *testing.T) {
	b := NewBuilder()
	b.AddVariables(6, Discrete(2))
	b.AddFactor(NewPotts(0, 3, 1))
	b.AddFactor(NewPotts(3, 4, 1))
	b.AddFactor(NewPotts(1, 2, 1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	comps, err := g.Components()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 3, 4}, {1, 2}, {5}}
	if len(comps) != len(want) {
		t.Fatalf("components %v, want %v", comps, want)
	}
	for c := range want {
		if len(comps[c]) != len(want[c]) {
			t.Fatalf("components %v, want %v", comps, want)
		}
		for k := range want[c] {
			if comps[c][k] != want[c][k] {
				t.Fatalf("components %v, want %v", comps, want)
			}
		}
	}
	var buf bytes.Buffer
	if err := g.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	dot := buf.String()
	for _, s := range []string{"graph", "x5", "f2", "--", "box"} {
		if !strings.Contains(dot, s) {
			t.Errorf("DOT output lacks %q:\n%s", s, dot)
		}
	}
}

func TestInRange(t *testing.T) {
	tests := []struct {
		s, m float64
		ok   bool
	}{
		{0, 1, true}, {1, 1, true}, {0.5, 1, true}, {-1e-12, 1, true}, {1 + 1e-12, 1, true},
		{-0.01, 1, false}, {1.01, 1, false}, {math.NaN(), 1, false},
		{math.Inf(-1), math.Inf(1), true}, {3, math.Inf(1), true},
		{math.NaN(), math.Inf(1), false}, {math.Inf(1), math.Inf(1), false},
	}
	for _, tt := range tests {
		if got := InRange(tt.s, tt.m); got != tt.ok {
			t.Errorf("InRange(%v, %v) = %v, want %v", tt.s, tt.m, got, tt.ok)
		}
	}
	g := chain3(t)
	err := CheckError(g, 0, 1, 1.5) // A[0] = {f2 (M = 3), f0 (M = 1)}
	if want := "factor 0 (vars 0,1): value 1.5 above declared hi 1"; err.Error() != want {
		t.Errorf("CheckError = %q, want %q", err, want)
	}
}
