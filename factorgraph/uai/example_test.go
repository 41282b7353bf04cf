package uai_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// A model is read from its text, checked, and written back in a canonical
// layout that reads back unchanged.
func ExampleRead() {
	const text = `c two binary variables that prefer to agree, one zero
MARKOV
2
2 2
2
1 0
2 0 1
2  0.3 0.7
4  1.0 0.5
   0.0 2.0
`
	m, err := uai.Read(strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Type, m.Cards, m.Scopes, "hard factors:", m.HardFactors())
	if err := m.Write(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// MARKOV [2 2] [[0] [0 1]] hard factors: 1
	// MARKOV
	// 2
	// 2 2
	// 2
	// 1 0
	// 2 0 1
	//
	// 2
	//  0.3 0.7
	//
	// 4
	//  1 0.5
	//  0 2
}

// Malformed input is refused with the line and the token.
func ExampleParseError() {
	_, err := uai.Read(strings.NewReader("MARKOV\n1\n2\n1\n1 0\n2 0.25 O.75\n"))
	fmt.Println(err)
	// Output:
	// uai: line 6: token "O.75": want a number (entry 1 of factor 0)
}

// Evidence clamps variables: the factor graph samples only the others.
func ExampleModel_Graph() {
	m, err := uai.Read(strings.NewReader("MARKOV 3 2 2 3 2 2 0 1 2 1 2 4 1 2 3 4 6 1 1 0 2 2 2"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ev, err := uai.ReadEvidence(strings.NewReader("1 1 0"))
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := m.Graph(ev)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := g.Observed(1)
	soft, hard := g.Degree(2)
	fmt.Println("free:", g.Free(), "x1 =", v, "| A[2]:", soft, "soft,", hard, "hard")
	// Output:
	// free: [0 2] x1 = 0 | A[2]: 0 soft, 1 hard
}

// Marginals are written as UAI solvers write them.
func ExampleWriteMarginals() {
	if err := uai.WriteMarginals(os.Stdout, [][]float64{{0.25, 0.75}, {1, 0, 0}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// MAR
	// 2 2 0.25 0.75 3 1 0 0
}
