package factorgraph

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pgibbs/pgibbs/internal/compiled"
)

// factorKind is how a factor is stored.
type factorKind uint8

const (
	objectKind factorKind = iota // a Factor value (AddFactor)
	pottsKind                    // a Potts pair record (AddPottsPairs)
	tableKind                    // a table factor record (AddTables)
)

// run is a sequence of consecutive factors of one kind: factors start,
// start+1, … are the records off, off+1, … of their kind.
type run struct {
	start, off int
	kind       factorKind
}

// store holds factors in the order they were added, each kind in flat
// arrays: a Factor value per factor added with AddFactor, and for the bulk
// kinds records without a heap object per factor — a Potts pair is 16 bytes
// (its two variables and W), a table factor its scope, its potential's
// index and an offset.
type store struct {
	runs []run
	n    int

	obj []Factor

	pa, pb []int32
	pw     []float64
	// mixedW says two of pw differ (bit for bit): the pairs are not of
	// one weight (Size.OneWeight).
	mixedW bool

	tab     compiled.Tabs // the table factors' scopes and potentials (Off has a final sentinel once non-empty)
	pots    []potential   // parallel to tab.Pots
	entries int           // the entries of tab.Pots's values, each slice counted once

	objVars, objCounted int // the variables of the scopes of obj[:objCounted]
	pairEntries         int // Size.PairEntries of the bulk tables and of obj[:objCounted]
}

// potential describes one potential table of the bulk table factors.
type potential struct {
	sizes  []int
	lo, hi float64 // as Table.Range
	pottsW float64 // W if the table is of Potts form (potts)
	potts  bool
	valid  int8 // 0 unchecked, 1 valid, −1 invalid (Build)
}

// add appends count factors of kind whose first record is off.
func (s *store) add(kind factorKind, off, count int) int {
	first := s.n
	if count <= 0 {
		return first
	}
	if k := len(s.runs) - 1; k < 0 || s.runs[k].kind != kind || s.runs[k].off+(s.n-s.runs[k].start) != off {
		s.runs = append(s.runs, run{start: s.n, off: off, kind: kind})
	}
	s.n += count
	return first
}

// locate returns the kind of factor f and its record.
func (s *store) locate(f int) (factorKind, int) {
	k := sort.Search(len(s.runs), func(k int) bool { return s.runs[k].start > f }) - 1
	r := &s.runs[k]
	return r.kind, r.off + f - r.start
}

// end returns the first factor after run k.
func (s *store) end(k int) int {
	if k+1 < len(s.runs) {
		return s.runs[k+1].start
	}
	return s.n
}

// vars appends the scope of factor f to dst.
func (s *store) vars(dst []int, f int) []int {
	kind, r := s.locate(f)
	switch kind {
	case pottsKind:
		return append(dst, int(s.pa[r]), int(s.pb[r]))
	case tableKind:
		for _, v := range s.tab.Vars[s.tab.Off[r]:s.tab.Off[r+1]] {
			dst = append(dst, int(v))
		}
		return dst
	}
	return append(dst, s.obj[r].Vars()...)
}

// frozen returns the store as a graph keeps it: its slices clipped, so that
// the builder's later additions never write into the graph's arrays.
func (s *store) frozen() store {
	c := *s
	c.runs = slices.Clip(s.runs)
	c.obj = slices.Clip(s.obj)
	c.pa, c.pb, c.pw = slices.Clip(s.pa), slices.Clip(s.pb), slices.Clip(s.pw)
	c.tab.Off, c.tab.Vars, c.tab.Pot, c.tab.Pots = fitted(s.tab.Off), fitted(s.tab.Vars), fitted(s.tab.Pot), fitted(s.tab.Pots)
	c.pots = slices.Clone(s.pots) // Build records their validity
	return c
}

// fitted returns x clipped, or a copy where more than a quarter of its
// capacity is unused: room Grow reserved that the factors did not take
// (the UAI reader reserves a potential a table, and a run of one table
// shares one) is not kept by the graph.
func fitted[S ~[]E, E any](x S) S {
	if cap(x)-len(x) > len(x)/4+1024 {
		return slices.Clone(x)
	}
	return slices.Clip(x)
}

// AddPottsPairs adds the Potts pairs w[k]·δ(x_{i[k]}, x_{j[k]}),
// k = 0, …, len(i)−1: the same factors, numbered the same way, as
// AddFactor(NewPotts(int(i[k]), int(j[k]), w[k])) for each k in turn, but
// stored as 16 bytes a pair without a Factor value each. It returns the
// index of the first; they are numbered consecutively.
//
// The builder may keep the slices (it does when they are the first Potts
// pairs added): the caller must not modify them afterwards. Slices of
// different lengths, or pairs that would take the graph over the memory
// limit (see SetMaxBytes), add nothing and make Build fail, naming the
// call; the pairs themselves are checked by Build, which names a bad one
// as it names any factor ("factor 17 (vars 3,9): …").
//
// Graph.Factor returns such a pair as a new *Potts on each call.
func (b *Builder) AddPottsPairs(i, j []int32, w []float64) int {
	s := &b.fs
	if len(i) != len(j) || len(i) != len(w) {
		b.fail(fmt.Errorf("factorgraph: AddPottsPairs (after %d factors): %d, %d and %d values in i, j and w", s.n, len(i), len(j), len(w)))
		return s.n
	}
	sz := b.size()
	sz.Pairs += len(w)
	mixed := s.mixedW || !oneWeight(w) || len(s.pw) > 0 && len(w) > 0 && math.Float64bits(s.pw[0]) != math.Float64bits(w[0])
	sz.OneWeight = sz.OneWeight && !mixed
	if err := b.checkBytes(sz, func() string {
		return fmt.Sprintf("factorgraph: AddPottsPairs of %d pairs (after %d factors)", len(w), s.n)
	}); err != nil {
		b.fail(err)
		return s.n
	}
	s.mixedW = mixed
	off := len(s.pw)
	if off == 0 {
		s.pa, s.pb, s.pw = slices.Clip(i), slices.Clip(j), slices.Clip(w)
	} else {
		s.pa, s.pb, s.pw = append(s.pa, i...), append(s.pb, j...), append(s.pw, w...)
	}
	return s.add(pottsKind, off, len(w))
}

// oneWeight reports whether the weights w are all equal, bit for bit.
func oneWeight(w []float64) bool {
	for _, x := range w {
		if math.Float64bits(x) != math.Float64bits(w[0]) {
			return false
		}
	}
	return true
}

// AddTables adds table factors of one shape: with A = len(sizes) variables
// and T = Π sizes entries each, factor k has scope scopes[k·A:(k+1)·A]
// (the last variable varying fastest in the table, as in NewTable) and
// log-potentials values[t·T:(t+1)·T], where values holds either one table,
// t = 0, shared by every factor (the same coupling on every edge, the same
// field on every site: stored once), or one table per factor, t = k. They
// are the same factors, numbered the same way, as AddFactor(NewTable(scope_k,
// sizes, table_t)) for each k in turn, without a Factor value each: a
// table factor costs its scope, 4 bytes a variable, and 16 bytes, plus its
// table when it has its own. Unary terms are the case A = 1. A table of
// Potts form is compiled as a Potts pair, as NewTable's are. It returns the
// index of the first factor; they are numbered consecutively.
//
// The builder keeps values (the caller must not modify it afterwards) and
// copies scopes. Shapes that do not fit (no sizes, a size below 1, scopes
// not a multiple of A long, values neither T nor T times the number of
// factors long), and tables that would take the graph over the memory
// limit (see SetMaxBytes), add nothing and make Build fail, naming the
// call; Build checks the tables and scopes as it checks NewTable's, naming
// the factor.
//
// Graph.Factor returns such a factor as a new *Table on each call.
func (b *Builder) AddTables(scopes []int32, sizes []int, values []float64) int {
	s := &b.fs
	fail := func(format string, args ...any) int {
		b.fail(fmt.Errorf("factorgraph: AddTables (after %d factors): "+format, append([]any{s.n}, args...)...))
		return s.n
	}
	a := len(sizes)
	if a == 0 {
		return fail("no sizes")
	}
	size := 1
	for _, sz := range sizes {
		if sz < 1 {
			return fail("size %d < 1 in %v", sz, sizes)
		}
		if size > math.MaxInt32/sz {
			return fail("tables of more than %d entries (sizes %v)", math.MaxInt32, sizes)
		}
		size *= sz
	}
	if len(scopes)%a != 0 {
		return fail("%d scope variables for tables over %d variables", len(scopes), a)
	}
	nf := len(scopes) / a
	shared := len(values) == size
	if !shared && len(values) != size*nf {
		return fail("%d values for %d tables of %d entries (want %d, one table shared, or %d, one a factor)", len(values), nf, size, size, size*nf)
	}
	if nf == 0 {
		return s.n
	}
	sz := b.size()
	sz.Tables, sz.TableVars, sz.Entries = sz.Tables+nf, sz.TableVars+len(scopes), sz.Entries+len(values)
	if a == 2 && size <= MaxRowPair && (!shared || nf == 1) {
		sz.PairEntries += len(values) // at most: Potts-form and hard ones are not laid out
	}
	if shared {
		sz.Potentials++
	} else {
		sz.Potentials += nf
	}
	if err := b.checkBytes(sz, func() string {
		return fmt.Sprintf("factorgraph: AddTables of %d factors of %d entries (after %d factors)", nf, size, s.n)
	}); err != nil {
		b.fail(err)
		return s.n
	}
	sizes = slices.Clone(sizes)
	strides := make([]int32, a)
	st := 1
	for k := a - 1; k >= 0; k-- {
		strides[k] = int32(st)
		st *= sizes[k]
	}
	own := !shared || nf == 1 // each table its own potential
	newPot := func(vals []float64) {
		lo, hi := tableRange(vals)
		w, ok := pottsForm(sizes, vals)
		s.tab.Pots = append(s.tab.Pots, compiled.Pot{Values: vals, Strides: strides})
		s.entries += len(vals)
		if own && rowPair(sizes, lo, hi, ok) {
			s.pairEntries += len(vals)
		}
		s.pots = append(s.pots, potential{sizes: sizes, lo: lo, hi: hi, pottsW: w, potts: ok})
	}
	firstPot := len(s.tab.Pots)
	if shared {
		newPot(values)
	}
	off := len(s.tab.Pot)
	if len(s.tab.Off) == 0 {
		s.tab.Off = append(s.tab.Off, 0)
	}
	for k := range nf {
		p := firstPot
		if !shared {
			p = len(s.tab.Pots)
			newPot(values[k*size : (k+1)*size : (k+1)*size])
		}
		s.tab.Vars = append(s.tab.Vars, scopes[k*a:(k+1)*a]...)
		s.tab.Off = append(s.tab.Off, len(s.tab.Vars))
		s.tab.Pot = append(s.tab.Pot, int32(p))
	}
	return s.add(tableKind, off, nf)
}
