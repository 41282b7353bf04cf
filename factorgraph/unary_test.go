package factorgraph_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

func TestNewUnary(t *testing.T) {
	u := factorgraph.NewUnary(3, []float64{0, 1.5, -2})
	if got := fmt.Sprint(u.Vars()); got != "[3]" {
		t.Errorf("Vars = %s", got)
	}
	if lo, hi := u.Range(); lo != -2 || hi != 1.5 {
		t.Errorf("Range = %v, %v", lo, hi)
	}
	x := []float64{0, 0, 0, 1}
	if v := u.Value(x); v != 1.5 {
		t.Errorf("Value at x3 = 1: %v", v)
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(4, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewUnary(0, []float64{0, 1, 2}))
	if _, err := b.Build(); err == nil {
		t.Error("a unary of 3 values on a binary variable built")
	}
	hard := factorgraph.NewUnary(0, []float64{0, math.Inf(-1)})
	if _, hi := hard.Range(); !math.IsInf(hi, 1) {
		t.Errorf("a −Inf entry gives range hi %v, want +Inf (hard)", hi)
	}
}

// A field on x0, soft evidence on x1 (a noisy reading: it says 1 and is
// right four times in five) and hard evidence x2 = 0.
func ExampleNewUnary() {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1))
	b.AddFactor(factorgraph.NewPotts(1, 2, 1))
	b.AddFactor(factorgraph.NewUnary(0, []float64{0, 0.5}))
	b.AddFactor(factorgraph.NewUnary(1, []float64{math.Log(0.2), math.Log(0.8)}))
	b.Observe(2, 0)
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("free:", g.Free())
	// Output:
	// free: [0 1]
}
