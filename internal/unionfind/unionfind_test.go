package unionfind

import (
	"math/rand/v2"
	"testing"
)

// TestFind joins random pairs by pointing one root at the other and checks
// that Find partitions the elements as a naive relabelling does.
func TestFind(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + r.IntN(60)
		parent := make([]int32, n)
		Init(parent)
		label := make([]int, n)
		for i := range label {
			label[i] = i
		}
		for range r.IntN(2 * n) {
			a, b := int32(r.IntN(n)), int32(r.IntN(n))
			ra, rb := Find(parent, a), Find(parent, b)
			if ra != rb {
				parent[rb] = ra
			}
			la, lb := label[a], label[b]
			for i := range label {
				if label[i] == lb {
					label[i] = la
				}
			}
		}
		for i := range n {
			for j := range n {
				if (Find(parent, int32(i)) == Find(parent, int32(j))) != (label[i] == label[j]) {
					t.Fatalf("trial %d: %d and %d", trial, i, j)
				}
			}
		}
	}
}
