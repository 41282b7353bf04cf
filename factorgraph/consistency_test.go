package factorgraph

import (
	"strings"
	"testing"
)

// pairFactor is a user factor over two variables with a Tabulator fast
// path that can be broken in several ways.
type pairFactor struct {
	vars  []int
	w     float64
	fault string // "", "shift", "top", "write", "panic"
}

func (p *pairFactor) Vars() []int               { return p.vars }
func (p *pairFactor) Range() (lo, hi float64)   { return 0, p.w }
func (p *pairFactor) Value(x []float64) float64 { return p.at(x[p.vars[0]], x[p.vars[1]]) }
func (p *pairFactor) at(a, b float64) float64 {
	if a == b {
		return p.w
	}
	return 0
}

func (p *pairFactor) Conditional(dst, x []float64, i int) {
	other := x[p.vars[1]]
	if i == p.vars[1] {
		other = x[p.vars[0]]
	}
	for v := range dst {
		dst[v] = p.at(float64(v), other)
	}
	switch p.fault {
	case "shift": // off by one everywhere
		for v := range dst {
			dst[v] = p.at(float64((v+1)%len(dst)), other)
		}
	case "top": // wrong only when the other variable is at its top value
		if int(other) == len(dst)-1 {
			clear(dst)
		}
	case "write":
		x[i] = -1
	case "panic":
		_ = dst[len(dst)]
	}
}

// TestTabulatorConsistency: Build accepts a user factor whose
// Conditional agrees with its Value, and refuses, naming the factor and
// the state, one that disagrees (everywhere, or only at the top values),
// writes the state, or panics.
func TestTabulatorConsistency(t *testing.T) {
	tests := []struct {
		fault string
		want  string
	}{
		{"", ""},
		{"shift", "factor 1 (vars 0,2): Conditional disagrees with Value at x0 = 0, x2 = 0: with variable 0 at 0, Conditional gives 0 and Value 1.5"},
		{"top", "factor 1 (vars 0,2): Conditional disagrees with Value at x0 = 2, x2 = 2"},
		{"write", "factor 1 (vars 0,2): Conditional for variable 0 modified the state"},
		{"panic", "factor 1 (vars 0,2): panicked while Build compared its Conditional with its Value"},
	}
	for _, tt := range tests {
		b := NewBuilder()
		b.AddVariables(3, Discrete(3))
		b.AddFactor(NewPotts(0, 1, 0.5))
		b.AddFactor(&pairFactor{vars: []int{0, 2}, w: 1.5, fault: tt.fault})
		_, err := b.Build()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("consistent factor refused: %v", err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one containing %q", tt.fault, err, tt.want)
		}
	}
}
