package samplers

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// TestFrozenLinks: the single-site samplers refuse a model with a hard
// factor that fixes one of its variables given the others, and
// blocked.NewWith blocks that leave a variable so fixed in every block
// holding it; models where the link can move, or where the rest of the
// model pins it to one assignment, are accepted, and auto and built blocks
// take every one of them.
func TestFrozenLinks(t *testing.T) {
	single := []string{"gibbs", "pgibbs", "mingibbs", "mgpmh", "doublemin"}
	tests := []struct {
		name   string
		n, d   int
		hard   func(b *factorgraph.Builder)
		frozen string // the single-site refusal, "" if accepted
		// blocks and the refusal of blocked.NewWith ("" if accepted)
		blocks  [][]int
		blocked string
	}{
		{"x0 = x1", 2, 2, func(b *factorgraph.Builder) { b.AddFactor(gibbstest.Relation([]int{0, 1}, 2, gibbstest.Equal)) },
			"single-site updates never change variable 0: hard factor 1 (vars 0,1) fixes it given the factor's other variables, yet it takes more than one value in states of positive probability",
			[][]int{{0}, {1}}, "hard factor 1 (vars 0,1) fixes variable 0 in every block holding it (0 {variables [0]}) given the factor's variables outside the block"},
		{"x0 = x1, overlapping blocks", 2, 3, func(b *factorgraph.Builder) { b.AddFactor(gibbstest.Relation([]int{0, 1}, 3, gibbstest.Equal)) },
			"never change variable 0: hard factor 1 (vars 0,1)", [][]int{{0}, {0, 1}}, ""},
		{"x0 = x2 = x1 split at x1", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 2}, 2, gibbstest.Equal))
			b.AddFactor(gibbstest.Relation([]int{2, 1}, 2, gibbstest.Equal))
		}, "never change variable 0: hard factor 2 (vars 0,2)", [][]int{{0, 2}, {1}}, "hard factor 3 (vars 2,1) fixes variable 1 in every block holding it (1 {variables [1]})"},
		{"x2 = x0 xor x1", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1, 2}, 2, func(v []int) bool { return v[2] == v[0]^v[1] }))
		}, "never change variable 0: hard factor 2 (vars 0,1,2)", [][]int{{0, 1}, {2}}, "hard factor 2 (vars 0,1,2) fixes variable 2 in every block holding it (1 {variables [2]})"},
		{"x2 = x0 xor x1, blocks {0, 2} and {1, 2}", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1, 2}, 2, func(v []int) bool { return v[2] == v[0]^v[1] }))
		}, "never change variable 0", [][]int{{0, 2}, {1, 2}}, ""},
		{"x1 = x0 mod 2 over 3 values", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1}, 3, func(v []int) bool { return v[1] == v[0]%2 }))
		}, "never change variable 1: hard factor 1 (vars 0,1)", [][]int{{0}, {1}}, "fixes variable 1 in every block holding it (1 {variables [1]})"},
		{"x0 ≤ x1 and x1 ≤ x0", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1}, 3, func(v []int) bool { return v[0] <= v[1] }))
			b.AddFactor(gibbstest.Relation([]int{1, 0}, 3, func(v []int) bool { return v[0] <= v[1] }))
		}, "never change variable 0: hard factor 1 (vars 0,1)", [][]int{{1}, {0}}, "fixes variable 0 in every block holding it (1 {variables [0]})"},
		{"x0 ≠ x1 over 3 values", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1}, 3, func(v []int) bool { return v[0] != v[1] }))
		}, "", [][]int{{0}, {1}}, ""},
		{"x0 ≤ x1", 2, 3, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1}, 3, func(v []int) bool { return v[0] <= v[1] }))
		}, "", [][]int{{0}, {1}}, ""},
		{"x0 = x1 = x2, x2 pinned by a zero", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1}, 2, gibbstest.Equal))
			b.AddFactor(gibbstest.Relation([]int{1, 2}, 2, gibbstest.Equal))
			b.AddFactor(factorgraph.NewProbTable([]int{2}, []int{2}, []float64{1, 0}))
		}, "", [][]int{{0}, {1}, {2}}, ""},
		{"x0 = x1, x1 observed", 2, 2, func(b *factorgraph.Builder) {
			b.AddFactor(gibbstest.Relation([]int{0, 1}, 2, gibbstest.Equal))
			b.Observe(1, 1)
		}, "", [][]int{{0}}, ""},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		g := gibbstest.LinkModel(t, tt.n, tt.d, tt.hard)
		for _, name := range single {
			_, err := New(name, g, r, nil)
			switch {
			case tt.frozen == "" && err != nil:
				t.Errorf("%s: %s refused a chain that moves: %v", tt.name, name, err)
			case tt.frozen != "" && (err == nil || !strings.Contains(err.Error(), tt.frozen)):
				t.Errorf("%s: %s: error %v, want one containing %q", tt.name, name, err, tt.frozen)
			}
		}
		_, err := blocked.NewWith(g, r, nil, tt.blocks, blocked.Config{})
		switch {
		case tt.blocked == "" && err != nil:
			t.Errorf("%s: blocks %v refused: %v", tt.name, tt.blocks, err)
		case tt.blocked != "" && (err == nil || !strings.Contains(err.Error(), tt.blocked)):
			t.Errorf("%s: blocks %v: error %v, want one containing %q", tt.name, tt.blocks, err, tt.blocked)
		}
		// The default sampler and built blocks always move.
		for _, name := range []string{"auto", "block"} {
			if _, err := New(name, g, r, nil); err != nil {
				t.Errorf("%s: %s: %v", tt.name, name, err)
			}
		}
	}
}
