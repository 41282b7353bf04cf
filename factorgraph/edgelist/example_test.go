package edgelist_test

import (
	"bytes"
	"fmt"

	"github.com/pgibbs/pgibbs/factorgraph/edgelist"
)

// A ring of four 3-state variables, its pairs written as an edge list and
// read back as a factor graph.
func Example() {
	i := []int32{0, 1, 2, 3}
	j := []int32{1, 2, 3, 0}
	w := []float64{1.5, 1.5, 1.5, -0.5}
	var buf bytes.Buffer
	if err := edgelist.Write(&buf, 4, 3, i, j, w); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(buf.Len(), "bytes")
	g, err := edgelist.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.NumVars(), "variables,", g.NumFactors(), "factors, L =", g.L())
	// Output:
	// 96 bytes
	// 4 variables, 4 factors, L = 3
}
