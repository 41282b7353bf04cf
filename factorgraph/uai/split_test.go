package uai

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// TestSplitBinaryPairs: on random small models whose binary pair tables
// are of every kind (Potts form, generic, with a zero entry), beside
// unary, three-valued and three-variable tables and evidence, both
// readers' graphs have, at every state, the log-potential of the file's
// tables (Σ_f log t_f(x), by enumeration, to 10⁻⁹): the split leaves π
// and log Z as they were. Every split table compiles as a Potts pair, and
// the fields come after the file's factors. Without the fields (the
// broken variant) the log-potentials differ.
func TestSplitBinaryPairs(t *testing.T) {
	check := func(t *testing.T, broken bool) (splits, bad int) {
		brokenSplit = broken
		defer func() { brokenSplit = false }()
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, 17))
			m, ev := randomSplitModel(r)
			var buf bytes.Buffer
			if err := m.Write(&buf); err != nil {
				t.Fatal(err)
			}
			g1, err := m.Graph(ev)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			g2, _, err := ReadGraph(&buf, ev)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for _, g := range []*factorgraph.Graph{g1, g2} {
				if g.NumFactors() != g1.NumFactors() {
					t.Fatalf("seed %d: %d and %d factors", seed, g1.NumFactors(), g2.NumFactors())
				}
				for f := range m.Scopes {
					tab, ok := g.Factor(f).(*factorgraph.Table)
					if !ok || len(m.Scopes[f]) != 2 || len(m.Tables[f]) != 4 || m.Tables[f][0]*m.Tables[f][1]*m.Tables[f][2]*m.Tables[f][3] == 0 {
						continue
					}
					if _, potts := tab.PottsForm(); !potts {
						t.Fatalf("seed %d: factor %d over binary %v not split: %v", seed, f, m.Scopes[f], tab.Values())
					}
				}
				splits += g.NumFactors() - len(m.Scopes)
				if d := maxLogPotentialGap(m, ev, g); d > 1e-9 {
					bad++
					if !broken {
						t.Errorf("seed %d: log-potential off by %.3g", seed, d)
					}
				}
			}
		}
		return splits, bad
	}
	splits, _ := check(t, false)
	if splits == 0 {
		t.Fatal("no table was split")
	}
	if _, bad := check(t, true); bad == 0 {
		t.Error("broken variant (fields left out) not caught")
	}
}

// randomSplitModel returns a model of 2–6 variables (binary, one in four
// three-valued) with unary tables, pair tables of Potts form, generic or
// with a zero entry, and a three-variable table, and evidence on one
// variable one time in three.
func randomSplitModel(r *rand.Rand) (*Model, Evidence) {
	n := 2 + r.IntN(5)
	m := &Model{Type: Markov, Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = 2
		if r.IntN(4) == 0 {
			m.Cards[i] = 3
		}
	}
	table := func(scope ...int) {
		size := 1
		for _, v := range scope {
			size *= m.Cards[v]
		}
		t := make([]float64, size)
		for k := range t {
			t[k] = math.Exp(2 * r.NormFloat64())
		}
		switch r.IntN(5) {
		case 0: // Potts form
			if size == 4 {
				t[3], t[2] = t[0], t[1]
			}
		case 1: // a hard zero
			t[r.IntN(size)] = 0
		}
		m.Scopes, m.Tables = append(m.Scopes, scope), append(m.Tables, t)
	}
	for range 1 + r.IntN(2*n) {
		a, b := r.IntN(n), r.IntN(n-1)
		if b >= a {
			b++
		}
		switch r.IntN(4) {
		case 0:
			table(a)
		case 1:
			if n >= 3 {
				c := r.IntN(n)
				if c != a && c != b {
					table(a, b, c)
					continue
				}
			}
			table(a, b)
		default:
			table(a, b)
		}
	}
	var ev Evidence
	if r.IntN(3) == 0 {
		v := r.IntN(n)
		ev = Evidence{{Var: v, Value: r.IntN(m.Cards[v])}}
	}
	return m, ev
}

// maxLogPotentialGap returns the largest difference, over the states of
// m that agree with ev and have positive probability, between g's
// log-potential and Σ_f log of the file's tables.
func maxLogPotentialGap(m *Model, ev Evidence, g *factorgraph.Graph) float64 {
	n := m.NumVars()
	x := make([]float64, n)
	fixed := make([]bool, n)
	for _, o := range ev {
		x[o.Var], fixed[o.Var] = float64(o.Value), true
	}
	gap := 0.0
	var walk func(i int)
	walk = func(i int) {
		if i == n {
			want := 0.0
			for f, scope := range m.Scopes {
				idx := 0
				for _, v := range scope {
					idx = idx*m.Cards[v] + int(x[v])
				}
				want += math.Log(m.Tables[f][idx])
			}
			if math.IsInf(want, -1) {
				return
			}
			gap = max(gap, math.Abs(g.LogPotential(x)-want)/max(1, math.Abs(want)))
			return
		}
		if fixed[i] {
			walk(i + 1)
			return
		}
		for v := range m.Cards[i] {
			x[i] = float64(v)
			walk(i + 1)
		}
	}
	walk(0)
	return gap
}
