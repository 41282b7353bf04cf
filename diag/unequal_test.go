package diag

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSummarizeUnequal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	chains := make([][]float64, 4)
	for c, n := range []int{100, 130, 117, 100} {
		for range n {
			chains[c] = append(chains[c], r.NormFloat64())
		}
	}
	got, kept, err := SummarizeUnequal(chains)
	if err != nil || kept != 100 {
		t.Fatalf("kept %d, %v", kept, err)
	}
	cut := [][]float64{chains[0], chains[1][:100], chains[2][:100], chains[3]}
	want, err := Summarize(cut)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("SummarizeUnequal = %+v, Summarize of the first 100 draws = %+v", got, want)
	}
	if _, _, err := SummarizeUnequal([][]float64{chains[0], chains[1][:3]}); err == nil {
		t.Error("a chain of 3 draws accepted")
	}
	if _, _, err := SummarizeUnequal(nil); err == nil {
		t.Error("no chains accepted")
	}
}

// Chains that ran for the same time but at different speeds: the summary
// keeps each chain's first draws up to the shortest chain's length.
func ExampleSummarizeUnequal() {
	r := rand.New(rand.NewPCG(3, 4))
	chains := make([][]float64, 3)
	for c, n := range []int{900, 1000, 1200} {
		for range n {
			chains[c] = append(chains[c], 5+r.NormFloat64())
		}
	}
	s, kept, err := SummarizeUnequal(chains)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d draws a chain: mean %.1f, R̂ < 1.01: %v\n", kept, s.Mean, s.RHat < 1.01)
	// Output:
	// 900 draws a chain: mean 5.0, R̂ < 1.01: true
}
