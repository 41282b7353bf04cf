package factorgraph

import (
	"math"
	"slices"
)

// PairSplitter rewrites soft tables over two binary variables that are
// not of Potts form — a restricted Boltzmann machine's exp(W·v·h), a
// binary CPT — into their Potts part and a field on each variable, so that
// the samplers compile them as Potts pairs (Table.PottsForm) instead of
// generic tables: on a K₂₅₀,₂₅₀ of such tables a plain Gibbs update takes
// 9.5 µs as generic tables (38 ns a table, read through its potential's
// record) and 0.23 µs split. In log space every table φ over binary (a,
// b) is exactly
//
//	φ(a, b) = c + W·δ(a, b) + h_a·a + h_b·b,
//	c = (φ(0,0) + φ(0,1) + φ(1,0) − φ(1,1))/2,  W = φ(0,0) − c,
//	h_a = φ(1,0) − c,  h_b = φ(0,1) − c,
//
// so Split leaves the table c + W·δ(a, b) (log Z keeps c) and sums each
// variable's fields, which AddFields adds as one table [0, Σh] over the
// variable, after the caller's factors: the graph has the same π and log Z
// as with the tables unsplit, factor f is still the caller's f (its values
// those of its Potts part where it was split), and the fields' tables
// follow. Tables with a zero entry (hard factors), of Potts form already,
// or over other domains are left as they are. The UAI readers (package
// uai) split every model they read so.
//
//	sp := factorgraph.NewPairSplitter(n)
//	for each table (scope, sizes, log-potentials t) {
//		sp.Split(scope, sizes, t) // t rewritten in place where split
//		b.AddFactor(factorgraph.NewTable(scope, sizes, t))
//	}
//	sp.AddFields(b)
type PairSplitter struct {
	field []float64 // Σ h of each variable
	has   []bool    // whether a split table gave the variable a field
	n     int       // tables split
}

// NewPairSplitter returns a splitter for a graph of n variables.
func NewPairSplitter(n int) *PairSplitter {
	return &PairSplitter{field: make([]float64, n), has: make([]bool, n)}
}

// Split rewrites t, the log-potentials of a table over scope (the last
// variable fastest; sizes its domain sizes), in place into its Potts part
// if it is a soft table over two binary variables not of Potts form, and
// records the fields; it reports whether it did.
func (sp *PairSplitter) Split(scope []int, sizes []int, t []float64) bool {
	if len(scope) != 2 || len(sizes) != 2 || sizes[0] != 2 || sizes[1] != 2 || len(t) != 4 {
		return false
	}
	for _, v := range t {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	if _, ok := pottsForm(sizes, t); ok {
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

// Splits returns the number of tables split.
func (sp *PairSplitter) Splits() int { return sp.n }

// AddFields adds to b, in bulk, a table [0, Σh] over each variable that a
// split table gave a field, in the variables' order (nothing if no table
// was split).
func (sp *PairSplitter) AddFields(b *Builder) {
	if sp.n == 0 {
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
