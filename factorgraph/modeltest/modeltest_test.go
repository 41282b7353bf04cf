package modeltest_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/modeltest"
	"github.com/pgibbs/pgibbs/lattice"
)

// graph is a model of every kind of factor a Graph compiles: Potts pairs
// of unequal weights, dense tables with hard zeros, a user factor,
// evidence and a continuous variable.
func graph(t testing.TB) *factorgraph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	b := factorgraph.NewBuilder()
	b.AddVariables(12, factorgraph.Discrete(3))
	b.AddVariable(factorgraph.Interval(0, 1))
	for i := range 11 {
		b.AddFactor(factorgraph.NewPotts(i, i+1, 0.5+r.Float64()))
		b.AddFactor(factorgraph.NewPotts(i, (i+5)%12, 0.1*r.Float64()))
	}
	vals := make([]float64, 9)
	for k := range vals {
		vals[k] = r.NormFloat64()
	}
	vals[4] = math.Inf(-1)
	b.AddFactor(factorgraph.NewTable([]int{2, 7}, []int{3, 3}, vals))
	b.AddFactor(factorgraph.NewFunc([]int{3, 12}, -1, 1, func(x []float64) float64 { return math.Sin(x[3] + x[12]) }))
	b.Observe(9, 2)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestModels: the module's own models keep the contract.
func TestModels(t *testing.T) {
	l, err := lattice.New(lattice.Params{Dim: 2, Size: 8, Coupling: lattice.Gaussian{Gamma: 0.5}, Spin: lattice.Potts(3), Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]factorgraph.Model{"graph": graph(t), "lattice": l} {
		t.Run(name, func(t *testing.T) { modeltest.Test(t, m, 1) })
	}
}

// broken wraps a correct model with one deliberate fault.
type broken struct {
	factorgraph.Model
	fault string
}

func (b broken) Li(i int) float64 {
	if b.fault == "Li" {
		return 1.1 * b.Model.Li(i)
	}
	return b.Model.Li(i)
}

func (b broken) MaxDegree() int {
	if b.fault == "MaxDegree" {
		return b.Model.MaxDegree() + 1
	}
	return b.Model.MaxDegree()
}

func (b broken) Pick(i int, r *rand.Rand) int {
	if b.fault == "Pick" { // uniform over A[i], not by M_φ
		soft, _ := b.Model.Degree(i)
		return r.IntN(soft)
	}
	return b.Model.Pick(i, r)
}

func (b broken) Eval(i, k int, x []float64) float64 {
	if b.fault == "Eval" && k == 0 {
		return 2*b.Model.Bound(i, k) + 1
	}
	return b.Model.Eval(i, k, x)
}

func (b broken) EvalAll(i, k int, x, dst []float64) {
	b.Model.EvalAll(i, k, x, dst)
	if b.fault == "EvalAll" {
		x[i] = float64(len(dst) - 1) // left at the last value tried
	}
}

func (b broken) Free() []int {
	if b.fault == "Free" { // the evidence too
		return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	}
	return b.Model.Free()
}

// TestBroken: Check finds each deliberate fault, saying what it is.
func TestBroken(t *testing.T) {
	g := graph(t)
	for fault, want := range map[string]string{
		"Li": "Li =", "MaxDegree": "MaxDegree =", "Pick": "Pick's frequencies", "Eval": "Eval =",
		"EvalAll": "EvalAll changed the state", "Free": "is observed",
	} {
		err := modeltest.Check(broken{g, fault}, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s fault: %v; want an error saying %q", fault, err, want)
		}
	}
	if err := modeltest.Check(broken{g, ""}, 1); err != nil {
		t.Errorf("the wrapper without a fault: %v", err)
	}
}
