package uai

import (
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// splitter rewrites the soft tables of two binary variables that are not
// of Potts form — a restricted Boltzmann machine's exp(W·v·h), a binary
// CPT — into their Potts part and two fields, so that the samplers
// compile them as Potts pairs (factorgraph.Table.PottsForm) instead of
// generic tables: on a K₂₅₀,₂₅₀ of such tables a plain Gibbs update took
// 9.5 µs (38 ns a table, read through its potential's record), against
// 0.23 µs for the same model written as Potts pairs and fields. In log
// space every table φ over binary (a, b) is exactly
//
//	φ(a, b) = c + W·δ(a, b) + h_a·a + h_b·b,
//	c = (φ(0,0) + φ(0,1) + φ(1,0) − φ(1,1))/2,  W = φ(0,0) − c,
//	h_a = φ(1,0) − c,  h_b = φ(0,1) − c,
//
// so the table keeps c + W·δ(a, b) (log Z keeps c) and each variable's
// fields are summed into one table over it, [0, Σh], added after the
// file's factors: factor f < NumFactors is still the file's factor f, its
// values those of its Potts part where it was split. The two readers
// split alike, so their graphs are the same. Tables with a zero entry
// (hard factors) are left as they are.
type splitter struct {
	field []float64 // Σ h of each variable
	has   []bool    // whether a split table gave the variable a field
	n     int       // tables split
}

func newSplitter(n int) *splitter {
	return &splitter{field: make([]float64, n), has: make([]bool, n)}
}

// table rewrites t, the log-potentials of a table over scope (the last
// variable fastest) of sizes, in place into its Potts part if it is a soft
// table over two binary variables not of Potts form, and records the
// fields; it reports whether it did.
func (sp *splitter) table(scope []int32, sizes []int, t []float64) bool {
	if len(scope) != 2 || sizes[0] != 2 || sizes[1] != 2 || len(t) != 4 {
		return false
	}
	for _, v := range t {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	if _, ok := factorgraph.TablePottsForm(sizes, t); ok {
		return false
	}
	f00, f01, f10, f11 := t[0], t[1], t[2], t[3]
	c := (f00 + f01 + f10 - f11) / 2
	w := f00 - c
	a, b := scope[0], scope[1]
	sp.field[a] += f10 - c
	sp.field[b] += f01 - c
	sp.has[a], sp.has[b] = true, true
	t[0], t[1], t[2], t[3] = c+w, c, c, c+w
	sp.n++
	return true
}

// brokenSplit, for the tests' broken variant, leaves the fields out.
var brokenSplit bool

// addFields adds to b, in bulk, a table [0, Σh] over each variable that a
// split table gave a field, in the variables' order.
func (sp *splitter) addFields(b *factorgraph.Builder) {
	if sp.n == 0 || brokenSplit {
		return
	}
	var scopes []int32
	var values []float64
	for v, ok := range sp.has {
		if ok {
			scopes = append(scopes, int32(v))
			values = append(values, 0, sp.field[v])
		}
	}
	b.AddTables(slices.Clip(scopes), []int{2}, slices.Clip(values))
}
