package uai

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Model types: the first token of a .uai file.
const (
	Markov = "MARKOV" // a Markov network: any non-negative potentials
	Bayes  = "BAYES"  // a Bayesian network: factor f is the CPT of the last variable of its scope
)

// Limits of what Read accepts. They are checked against the header counts
// before anything is allocated for them, so that an absurd header is refused
// at once with a clear error instead of exhausting memory. A cardinality is
// at most factorgraph.MaxDomain (2²⁴), the domain a sampler's update can
// hold; Options.MaxBytes bounds the memory of the whole.
const (
	MaxVars      = 1 << 24 // variables in a model
	MaxFactors   = 1 << 24 // factors in a model
	MaxTableSize = 1 << 26 // entries of one table (the product of its scope's cardinalities)
	MaxTotalSize = 1 << 28 // entries of all tables together
)

// maxCard is the largest cardinality of a variable.
const maxCard = min(MaxTableSize, factorgraph.MaxDomain)

// Options bounds the memory the readers may take; the zero value gives the
// defaults, which the package-level functions (Read, ReadGraph, …) use.
type Options struct {
	// MaxBytes is the most memory, in bytes, that reading a model may take:
	// for ReadGraph, ReadGraphFile and ReadGraphProblem, reading it and
	// building its factor graph (factorgraph.Size.BuildBytes of its counts,
	// and the reader's own arrays; the builder gets the same limit); for
	// Read, ReadFile and ReadProblem, the Model's scopes and tables. It is
	// checked against the counts the file declares — its number of
	// variables, then of factors, then the table sizes of its scopes —
	// each time before anything is allocated for them, so that a model
	// that would not fit is refused with a *factorgraph.MemoryError before
	// its tables are read. 0 means factorgraph.DefaultMaxBytes(), the
	// machine's memory; +Inf, no limit.
	MaxBytes float64
	// Context, if not nil, stops a reading under way: the input is read
	// 64 KB at a time, and once Context is done the reader returns an
	// error wrapping its error (context.Canceled, DeadlineExceeded) within
	// a millisecond or so, whatever it was reading. The graph's Build after
	// the reading does not look at it.
	Context context.Context
}

// input returns r, stopped by o.Context when it has one.
func (o Options) input(r io.Reader) io.Reader {
	if o.Context == nil {
		return r
	}
	return ctxReader{o.Context, r}
}

// stopped returns err, or, if o.Context is done, an error wrapping its
// error: a reading cut short fails on whatever token it was reading, and
// the cause is the context.
func (o Options) stopped(err error) error {
	if err != nil && o.Context != nil && o.Context.Err() != nil {
		return fmt.Errorf("uai: reading stopped: %w", o.Context.Err())
	}
	return err
}

// ctxReader reads from r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// scanBytes is the scanner's buffer.
const scanBytes = 64 << 10

// modelBytes estimates the memory Read takes for a model of n variables and
// nf factors whose scopes list vars variables and whose tables hold entries
// entries: the cardinalities and marks (24 bytes a variable, the slice of
// cardinalities counted twice as it grows), a scope and a table a factor,
// each its own slice (48 bytes of headers, and the sizes, as the slices of
// factors grow, twice), their contents and the scanner's buffer.
func modelBytes(n, nf, vars, entries int) float64 {
	return 24*float64(n) + 112*float64(nf) + 8*float64(vars) + 8*float64(entries) + scanBytes
}

// checkModel refuses, at the scanner's last token, a model of the given
// counts (see modelBytes) whose Model would take more than o.MaxBytes;
// what describes the counts.
func (o Options) checkModel(s *scanner, n, nf, vars, entries int, what string) error {
	err := factorgraph.CheckBytes(modelBytes(n, nf, vars, entries), o.MaxBytes, fmt.Sprintf("uai: line %d: %s", s.tokLine, what), "Options.MaxBytes")
	var me *factorgraph.MemoryError
	if errors.As(err, &me) {
		me.Of = "the model"
	}
	return err
}

// Model is a discrete graphical model in the UAI format: variables
// 0, …, len(Cards)−1 with Cards[i] values each, and one table of
// non-negative potentials per factor,
//
//	π(x) ∝ Π_f Tables[f][index of x restricted to Scopes[f]],
//
// where the table of factor f is in row-major order over Scopes[f]: the last
// variable of the scope varies fastest. For a BAYES model, Tables[f] is the
// conditional probability table of the last variable of Scopes[f] given the
// others; the joint distribution is the same product.
type Model struct {
	Type   string      // Markov or Bayes
	Cards  []int       // domain size of each variable, ≥ 1
	Scopes [][]int     // variables of each factor, distinct, in table order
	Tables [][]float64 // potentials of each factor, finite and ≥ 0
}

// NumVars returns the number of variables.
func (m *Model) NumVars() int { return len(m.Cards) }

// TableSize returns the number of entries the table of factor f must
// have: the product of the cardinalities of its scope.
func (m *Model) TableSize(f int) int {
	size := 1
	for _, v := range m.Scopes[f] {
		size *= m.Cards[v]
	}
	return size
}

// Validate reports the first reason m is not a model Write can write and
// Read would return: an unknown type; no variables; more than MaxVars
// variables or MaxFactors factors; a cardinality < 1 or above
// factorgraph.MaxDomain; Scopes and Tables of
// different lengths; a scope variable out of range or repeated; a table
// larger than MaxTableSize or tables larger than MaxTotalSize in total; a
// table of the wrong length; a NaN, infinite or negative entry; in a
// BAYES model, a table row that does not sum to 1 (within 10⁻³).
func (m *Model) Validate() error {
	if m.Type != Markov && m.Type != Bayes {
		return fmt.Errorf("uai: model type %q: want %s or %s", m.Type, Markov, Bayes)
	}
	n := len(m.Cards)
	switch {
	case n < 1 || n > MaxVars:
		return fmt.Errorf("uai: %d variables: want 1 to %d", n, MaxVars)
	case len(m.Scopes) > MaxFactors:
		return fmt.Errorf("uai: %d factors: want at most %d", len(m.Scopes), MaxFactors)
	case len(m.Scopes) != len(m.Tables):
		return fmt.Errorf("uai: %d scopes for %d tables", len(m.Scopes), len(m.Tables))
	}
	for i, c := range m.Cards {
		if c < 1 || c > maxCard {
			return fmt.Errorf("uai: variable %d: cardinality %d: want 1 to %d (factorgraph.MaxDomain)", i, c, maxCard)
		}
	}
	seen := make([]int, n) // seen[v] = 1 + the last factor listing v
	total := 0
	for f, scope := range m.Scopes {
		size := 1
		for _, v := range scope {
			if v < 0 || v >= n {
				return fmt.Errorf("uai: factor %d: variable %d out of range [0, %d)", f, v, n)
			}
			if seen[v] == f+1 {
				return fmt.Errorf("uai: factor %d: variable %d repeated in scope", f, v)
			}
			seen[v] = f + 1
			if size > MaxTableSize/m.Cards[v] {
				return fmt.Errorf("uai: factor %d: table larger than %d entries (MaxTableSize)", f, MaxTableSize)
			}
			size *= m.Cards[v]
		}
		if total += size; total > MaxTotalSize {
			return fmt.Errorf("uai: factor %d: tables larger than %d entries in total (MaxTotalSize)", f, MaxTotalSize)
		}
		if len(m.Tables[f]) != size {
			return fmt.Errorf("uai: factor %d: table has %d entries, want %d (the product of its scope's cardinalities)", f, len(m.Tables[f]), size)
		}
		for k, p := range m.Tables[f] {
			if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
				return fmt.Errorf("uai: factor %d: entry %d is %v: want a finite non-negative number", f, k, p)
			}
		}
		if m.Type == Bayes {
			if err := checkCPT(f, scope, m.Cards, m.Tables[f]); err != nil {
				return err
			}
		}
	}
	return nil
}

// cptTolerance is how far a BAYES table's row may sum from 1 (files carry
// probabilities rounded to a few digits).
const cptTolerance = 1e-3

// checkCPT verifies that factor f of a BAYES model is a conditional
// probability table of the last variable of its scope: every row (the
// consecutive entries of one parent configuration) sums to 1.
func checkCPT(f int, scope, cards []int, table []float64) error {
	if len(scope) == 0 {
		return checkRows(f, -1, 0, table)
	}
	child := scope[len(scope)-1]
	return checkRows(f, child, cards[child], table)
}

// checkRows is checkCPT given the child of factor f (−1 for an empty scope)
// and its cardinality d: every d consecutive entries of table sum to 1.
func checkRows(f, child, d int, table []float64) error {
	if child < 0 {
		return fmt.Errorf("uai: factor %d: a BAYES factor needs a scope (its child is the last variable)", f)
	}
	for row := 0; row*d < len(table); row++ {
		sum := 0.0
		for _, p := range table[row*d : (row+1)*d] {
			sum += p
		}
		if math.Abs(sum-1) > cptTolerance {
			return fmt.Errorf("uai: factor %d, the CPT of variable %d: row %d sums to %v, not 1; a BAYES table is a conditional distribution (declare the model MARKOV if its factors are not)", f, child, row, sum)
		}
	}
	return nil
}

// chunk caps the capacity reserved ahead of the tokens that fill a slice:
// slices grow with the input, never with a header's claims.
const chunk = 4096

// Read reads a model in the UAI format: the type (MARKOV or BAYES), the
// number of variables n, n cardinalities, the number of factors F, F scopes
// (a count k and k variable indices), and F tables (a count and that many
// non-negative numbers). Tokens are separated by any white space, so lines
// may wrap anywhere; lines whose first non-blank character is 'c' are
// comments. The type is case-insensitive; anything after the last table
// other than blanks and comments is an error.
//
// Malformed input returns a *ParseError naming the line and the token: a
// token that is not a number, a count out of range (including the limits
// MaxVars, MaxFactors, MaxTableSize and MaxTotalSize, checked before any
// allocation), a cardinality < 1 or above factorgraph.MaxDomain, a scope
// variable out of range or repeated, a table count different from the
// product of its scope's cardinalities, a NaN, infinite or negative entry,
// the end of the input before the last table, trailing data. A model whose
// scopes and tables would take more memory than the machine has is
// refused with a *factorgraph.MemoryError before its tables are read (see
// Options).
func Read(r io.Reader) (*Model, error) { return Options{}.Read(r) }

// Read is the package's Read with the memory limit o.MaxBytes on the Model
// it returns, stopped by o.Context.
func (o Options) Read(r io.Reader) (*Model, error) {
	m, err := o.read(r)
	return m, o.stopped(err)
}

func (o Options) read(r io.Reader) (*Model, error) {
	s := newScanner(o.input(r), "")
	m := &Model{}
	var err error
	if m.Type, err = s.modelType(); err != nil {
		return nil, err
	}
	if m.Cards, err = s.cards(func(n int) error {
		return o.checkModel(s, n, 0, 0, 0, fmt.Sprintf("%d variables", n))
	}); err != nil {
		return nil, err
	}
	var sizes []int
	if m.Scopes, sizes, err = s.scopes(m.Cards, func(nf, vars, entries int) error {
		return o.checkModel(s, len(m.Cards), nf, vars, max(entries, nf), describe(len(m.Cards), nf, entries))
	}); err != nil {
		return nil, err
	}
	if m.Tables, err = s.tables(sizes); err != nil {
		return nil, err
	}
	if err := s.end("the last table"); err != nil {
		return nil, err
	}
	if m.Type == Bayes {
		for f, scope := range m.Scopes {
			if err := checkCPT(f, scope, m.Cards, m.Tables[f]); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// modelType reads the preamble's first token, the model type (Markov or
// Bayes, in any case).
func (s *scanner) modelType() (string, error) {
	tok, ok := s.next()
	if !ok {
		return "", s.eof("want the model type %s or %s", Markov, Bayes)
	}
	switch {
	case strings.EqualFold(string(tok), Markov):
		return Markov, nil
	case strings.EqualFold(string(tok), Bayes):
		return Bayes, nil
	}
	return "", s.fail(tok, "want the model type %s or %s", Markov, Bayes)
}

// cards reads the number of variables and their cardinalities; check
// vets the number before anything is allocated for it.
func (s *scanner) cards(check func(n int) error) ([]int, error) {
	n, err := s.int(1, MaxVars, "the number of variables")
	if err != nil {
		return nil, err
	}
	if err := check(n); err != nil {
		return nil, err
	}
	cards := make([]int, 0, min(n, chunk))
	for i := range n {
		c, err := s.int(1, maxCard, "the cardinality of variable %d", i)
		if err != nil {
			return nil, err
		}
		cards = append(cards, c)
	}
	return cards, nil
}

// scopes reads the number of factors and their scopes over variables with
// the cardinalities cards, and returns the scopes and the table size of
// each, checked against MaxTableSize and MaxTotalSize. check vets the
// counts before anything is allocated for them: the factors once their
// number is read (with no variables, and entries −1: not known yet), and
// the variables and entries of their scopes once all are.
func (s *scanner) scopes(cards []int, check func(nf, vars, entries int) error) (scopes [][]int, sizes []int, err error) {
	n := len(cards)
	nf, err := s.int(0, MaxFactors, "the number of factors")
	if err != nil {
		return nil, nil, err
	}
	if err := check(nf, 0, -1); err != nil {
		return nil, nil, err
	}
	scopes = make([][]int, 0, min(nf, chunk))
	sizes = make([]int, 0, min(nf, chunk))
	seen := make([]int, n) // seen[v] = 1 + the last factor listing v
	total := 0
	for f := range nf {
		scope, size, err := readScope[int](s, nil, f, cards, seen, &total)
		if err != nil {
			return nil, nil, err
		}
		scopes = append(scopes, scope)
		sizes = append(sizes, size)
	}
	vars := 0
	for _, sc := range scopes {
		vars += len(sc)
	}
	if err := check(nf, vars, total); err != nil {
		return nil, nil, err
	}
	return scopes, sizes, nil
}

// describe describes the counts of a model in a memory refusal: "5
// variables", "5 variables and 3 factors", "5 variables and 3 factors of
// 1000 table entries" (entries < 0: not known yet).
func describe(n, nf, entries int) string {
	if entries < 0 {
		return fmt.Sprintf("%d variables and %d factors", n, nf)
	}
	return fmt.Sprintf("%d variables and %d factors of %d table entries", n, nf, entries)
}

// readScope reads the scope of factor f and returns dst with the scope
// appended (a new slice of its size if dst is nil) and its table size;
// seen[v] = f + 1 marks the variables listed, and *total, the entries of
// the tables so far, is checked against MaxTotalSize. Read and ReadGraph
// (into one flat array) both read scopes with it.
func readScope[T int | int32](s *scanner, dst []T, f int, cards, seen []int, total *int) (scope []T, size int, err error) {
	n := len(cards)
	k, err := s.int(0, n, "the scope size of factor %d", f)
	if err != nil {
		return nil, 0, err
	}
	if dst == nil {
		dst = make([]T, 0, k)
	} else {
		dst = slices.Grow(dst, k)
	}
	size = 1
	for range k {
		v, err := s.int(0, n-1, "a variable of factor %d", f)
		if err != nil {
			return nil, 0, err
		}
		if seen[v] == f+1 {
			return nil, 0, s.fail(s.tok, "variable %d repeated in the scope of factor %d", v, f)
		}
		seen[v] = f + 1
		if size > MaxTableSize/cards[v] {
			return nil, 0, s.fail(s.tok, "factor %d: table larger than %d entries (MaxTableSize)", f, MaxTableSize)
		}
		size *= cards[v]
		dst = append(dst, T(v))
	}
	if *total += size; *total > MaxTotalSize {
		return nil, 0, s.fail(s.tok, "factor %d: tables larger than %d entries in total (MaxTotalSize)", f, MaxTotalSize)
	}
	return dst, size, nil
}

// tableCount reads the entry count of the table of factor f and checks it
// against size, the product of its scope's cardinalities.
func (s *scanner) tableCount(f, size int) error {
	cnt, err := s.int(0, MaxTableSize, "the number of entries of factor %d", f)
	if err != nil {
		return err
	}
	if cnt != size {
		return s.fail(s.tok, "factor %d has %d entries, want %d (the product of its scope's cardinalities)", f, cnt, size)
	}
	return nil
}

// tables reads the tables of the factors, sizes[f] entries each.
func (s *scanner) tables(sizes []int) ([][]float64, error) {
	tables := make([][]float64, 0, min(len(sizes), chunk))
	for f, size := range sizes {
		if err := s.tableCount(f, size); err != nil {
			return nil, err
		}
		t := make([]float64, 0, min(size, chunk))
		for k := range size {
			p, err := s.prob("entry %d of factor %d", k, f)
			if err != nil {
				return nil, err
			}
			t = append(t, p)
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// ReadFile reads the model in the named file (see Read); errors name the
// file.
func ReadFile(name string) (*Model, error) { return Options{}.ReadFile(name) }

// ReadFile is the package's ReadFile with the memory limit o.MaxBytes,
// stopped by o.Context.
func (o Options) ReadFile(name string) (*Model, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := o.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// Write writes m in the UAI format that Read reads: the header, one scope a
// line, and each table as rows over the last variable of its scope. Numbers
// are written in the shortest form that reads back exactly, so Read returns
// a model equal to m. Write returns Validate's error for an invalid model,
// before writing anything.
func (m *Model) Write(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	fmt.Fprintf(bw, "%s\n%d\n", m.Type, len(m.Cards))
	writeInts(bw, &buf, m.Cards)
	fmt.Fprintf(bw, "%d\n", len(m.Scopes))
	for _, scope := range m.Scopes {
		buf = strconv.AppendInt(buf[:0], int64(len(scope)), 10)
		for _, v := range scope {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(v), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	for f, t := range m.Tables {
		fmt.Fprintf(bw, "\n%d\n", len(t))
		row := len(t) // the cardinality of the last scope variable, or 1 value
		if sc := m.Scopes[f]; len(sc) > 0 {
			row = m.Cards[sc[len(sc)-1]]
		}
		for k := 0; k < len(t); k += row {
			buf = buf[:0]
			for j, p := range t[k : k+row] {
				if j > 0 && j%16 == 0 { // keep wide rows readable
					buf = append(buf, '\n')
				}
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, p, 'g', -1, 64)
			}
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	return bw.Flush()
}

// writeInts writes xs on one line.
func writeInts(w io.Writer, buf *[]byte, xs []int) {
	b := (*buf)[:0]
	for k, x := range xs {
		if k > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	b = append(b, '\n')
	w.Write(b)
	*buf = b
}

// WriteFile writes m to the named file (see Write).
func (m *Model) WriteFile(name string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := m.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
