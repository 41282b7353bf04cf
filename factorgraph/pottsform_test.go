package factorgraph

import (
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/internal/compiled"
)

// TestPottsForm: pair tables c + W·δ are recognised (probability tables
// c·e^{Kδ}, Ising couplings, antiferromagnets, rounding), other tables are
// not, and Build compiles the recognised ones as Potts pairs.
func TestPottsForm(t *testing.T) {
	ising := func(j float64) []float64 { return []float64{j, -j, -j, j} } // J·s_a·s_b, s = ±1
	potts := func(q int, c, w float64) []float64 {
		v := make([]float64, q*q)
		for k := range v {
			v[k] = c
			if k/q == k%q {
				v[k] += w
			}
		}
		return v
	}
	nudge := func(v []float64, k int, d float64) []float64 { v[k] += d; return v }
	tests := []struct {
		name   string
		sizes  []int
		values []float64
		w      float64
		ok     bool
	}{
		{"q=3 Potts", []int{3, 3}, potts(3, 0.2, 1.5), 1.5, true},
		{"q=2 Ising J=0.7", []int{2, 2}, ising(0.7), 1.4, true},
		{"antiferromagnet", []int{4, 4}, potts(4, -1, -0.8), -0.8, true},
		{"rounding 1e-15", []int{3, 3}, nudge(potts(3, 0.2, 1.5), 4, 1e-15), 1.5, true},
		{"off by 1e-9", []int{3, 3}, nudge(potts(3, 0.2, 1.5), 4, 1e-9), 0, false},
		{"one off-diagonal differs", []int{3, 3}, nudge(potts(3, 0.2, 1.5), 1, 0.3), 0, false},
		{"hard zero", []int{2, 2}, []float64{0, math.Inf(-1), math.Inf(-1), 0}, 0, false},
		{"constant", []int{2, 2}, potts(2, 0.5, 0), 0, true},
		{"different sizes", []int{2, 3}, []float64{1, 0, 0, 0, 1, 0}, 0, false},
		{"three variables", []int{2, 2, 2}, make([]float64, 8), 0, false},
	}
	for _, tt := range tests {
		scope := []int{0, 1, 2}[:len(tt.sizes)]
		tab := NewTable(scope, tt.sizes, tt.values)
		w, ok := tab.PottsForm()
		if ok != tt.ok || ok && math.Abs(w-tt.w) > 1e-12 {
			t.Errorf("%s: PottsForm = %v, %v; want %v, %v", tt.name, w, ok, tt.w, tt.ok)
		}
	}
	// A probability table c·e^{Kδ} (the UAI form) is one.
	k := 0.9
	p := NewProbTable([]int{0, 1}, []int{3, 3}, []float64{2 * math.Exp(k), 2, 2, 2, 2 * math.Exp(k), 2, 2, 2, 2 * math.Exp(k)})
	if w, ok := p.PottsForm(); !ok || math.Abs(w-k) > 1e-12 {
		t.Errorf("c·e^{Kδ}: PottsForm = %v, %v; want %v", w, ok, k)
	}
	// Build compiles it as a Potts pair (ferromagnetic) and a Potts-form
	// antiferromagnet as a negative one; a general table stays a table.
	b := NewBuilder()
	b.AddVariables(4, Discrete(3))
	b.AddFactor(p)
	b.AddFactor(NewTable([]int{1, 2}, []int{3, 3}, potts(3, 0, -0.5)))
	b.AddFactor(NewTable([]int{2, 3}, []int{3, 3}, nudge(potts(3, 0, 1), 1, 0.2)))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	kg := g.kern
	for _, c := range []struct {
		i, k int
		kind compiled.Kind
		neg  bool
		ref  int32
	}{{0, 0, compiled.Potts, false, 1}, {1, 1, compiled.Potts, true, 2}, {3, 0, compiled.Table, false, 0}} {
		o := kg.SoftOp(kg.SoftStart[c.i] + c.k)
		if o.Kind != c.kind || o.Kind == compiled.Potts && (o.Neg != c.neg || o.Ref != c.ref) {
			t.Errorf("variable %d, factor %d: compiled as %+v, want kind %v neg %v ref %d", c.i, c.k, o, c.kind, c.neg, c.ref)
		}
	}
}
