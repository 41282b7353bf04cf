package uai

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/xmath"
)

// Info is what a caller needs of a model besides its factor graph, as
// ReadGraph returns it without the model's scopes and tables.
type Info struct {
	Type        string // Markov or Bayes
	Cards       []int  // domain size of each variable
	NumFactors  int    // factors of the file: the graph's, in the file's order
	HardFactors int    // factors whose table has a zero entry (Model.HardFactors)
}

// NumVars returns the number of variables.
func (in *Info) NumVars() int { return len(in.Cards) }

// CheckEvidence reports the first observation of ev that does not fit the
// model, as Model.CheckEvidence does.
func (in *Info) CheckEvidence(ev Evidence) error { return checkEvidence(in.Cards, ev) }

// CheckMarginals reports whether p can be marginals of the model, as
// Model.CheckMarginals does.
func (in *Info) CheckMarginals(p [][]float64) error { return checkMarginals(in.Cards, p) }

// Info returns m's Info (sharing m.Cards).
func (m *Model) Info() *Info {
	return &Info{Type: m.Type, Cards: m.Cards, NumFactors: len(m.Scopes), HardFactors: m.HardFactors()}
}

// runEntries caps the table entries ReadGraph reads into one
// Builder.AddTables call: a run of consecutive factors of one shape is
// added in pieces of at most this many entries (or one table, if larger),
// each allocated at its exact size before its tokens are read — never more
// than this far ahead of the input.
const runEntries = 1 << 16

// ReadGraph reads a model in the UAI format (see Read) and compiles it with
// evidence ev (nil for none) into the same factor graph as Model.Graph —
// the same compiled arrays, so the same chains for the same seed — without
// a Model: the scopes are read into one flat int32 array, and the tables,
// turned into log-potentials as they are read (log p as
// factorgraph.NewProbTable computes it, a zero entry −Inf), go to the
// builder in bulk (factorgraph.Builder.AddTables), a run of consecutive
// factors of one shape at a time, without a heap object per factor. Besides
// the builder's arrays it holds the scopes once more while it reads (4
// bytes a scope variable and 4 a factor) and at most runEntries table
// entries ahead of the builder: the tables are never held twice, as
// probabilities and as logs, nor as one slice a factor.
//
// It returns the errors Read then Model.Graph would return, with the same
// text: a *ParseError naming the line and token for malformed input (the
// limits MaxVars, MaxFactors, MaxTableSize and MaxTotalSize checked
// before anything is allocated for them), then a BAYES table that is not
// a conditional distribution, evidence that does not fit the model (see
// Model.CheckEvidence), a constant factor 0, and Builder.Build's errors,
// which name the factor. With the graph it returns the model's Info.
//
// A model whose reading and graph would need more memory than the machine
// has (Options.MaxBytes) is refused with a *factorgraph.MemoryError before
// its tables are read; its text is not Read's (Read estimates the Model's
// memory, not the graph's).
func ReadGraph(r io.Reader, ev Evidence) (*factorgraph.Graph, *Info, error) {
	return Options{}.ReadGraph(r, ev)
}

// ReadGraph is the package's ReadGraph with the memory limit o.MaxBytes,
// stopped by o.Context.
func (o Options) ReadGraph(r io.Reader, ev Evidence) (*factorgraph.Graph, *Info, error) {
	st, err := o.readStream(r)
	if err != nil {
		return nil, nil, err
	}
	g, err := st.graph(ev)
	if err != nil {
		return nil, nil, err
	}
	return g, st.info, nil
}

// ReadGraphFile reads the model in the named file with ReadGraph; errors
// name the file.
func ReadGraphFile(name string, ev Evidence) (*factorgraph.Graph, *Info, error) {
	return Options{}.ReadGraphFile(name, ev)
}

// ReadGraphFile is the package's ReadGraphFile with the memory limit
// o.MaxBytes, stopped by o.Context.
func (o Options) ReadGraphFile(name string, ev Evidence) (*factorgraph.Graph, *Info, error) {
	st, err := o.readStreamFile(name)
	if err != nil {
		return nil, nil, err
	}
	g, err := st.graph(ev)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, st.info, nil
}

// GraphProblem is a UAI inference problem read with ReadGraphProblem: the
// model's factor graph with the evidence clamped, in place of a Model.
type GraphProblem struct {
	Graph    *factorgraph.Graph
	Info     *Info
	Evidence Evidence    // nil: no evidence
	Exact    [][]float64 // nil: not known
}

// ReadGraphProblem is ReadProblem followed by Model.Graph with the
// problem's evidence, reading the model with ReadGraph: it reads a model
// file, an evidence file (empty path: none) and an exact-marginals file
// (empty path: none), checks that they fit each other, and compiles the
// graph. Every error names the file it is about, and they come in the
// order of ReadProblem then Graph.
func ReadGraphProblem(model, evidence, marginals string) (*GraphProblem, error) {
	return Options{}.ReadGraphProblem(model, evidence, marginals)
}

// ReadGraphProblem is the package's ReadGraphProblem with the memory limit
// o.MaxBytes on reading the model and building its graph, the reading
// stopped by o.Context.
func (o Options) ReadGraphProblem(model, evidence, marginals string) (*GraphProblem, error) {
	st, err := o.readStreamFile(model)
	if err != nil {
		return nil, err
	}
	p := &GraphProblem{Info: st.info}
	if evidence != "" {
		if p.Evidence, err = ReadEvidenceFile(evidence); err != nil {
			return nil, err
		}
		if err := p.Info.CheckEvidence(p.Evidence); err != nil {
			return nil, fmt.Errorf("%s: %w", evidence, err)
		}
	}
	if marginals != "" {
		if p.Exact, err = ReadMarginalsFile(marginals); err != nil {
			return nil, err
		}
		if err := p.Info.CheckMarginals(p.Exact); err != nil {
			return nil, fmt.Errorf("%s: %w", marginals, err)
		}
	}
	if p.Graph, err = st.graph(p.Evidence); err != nil {
		return nil, fmt.Errorf("%s: %w", model, err)
	}
	return p, nil
}

// streamed is a model read by readStream: its factors in a builder.
type streamed struct {
	b    *factorgraph.Builder
	info *Info
	// gerr is the first error Model.Graph finds before Build, a constant
	// factor 0, reported after the evidence is checked, as Graph does.
	gerr  error
	logs  logMemo
	split *factorgraph.PairSplitter // the fields of the binary tables split (Model.Graph)
}

// logMemo is xmath.Log of the last two distinct entries read: a file's
// tables repeat a few values (a Potts pair's table holds two), and the
// logarithm was a tenth of reading one.
type logMemo struct{ p, l [2]float64 }

func newLogMemo() logMemo {
	return logMemo{p: [2]float64{1, 0}, l: [2]float64{xmath.Log(1), xmath.Log(0)}}
}

// log returns xmath.Log(p) for an entry p (finite, not negative: never
// NaN, so == finds it).
func (m *logMemo) log(p float64) float64 {
	switch p {
	case m.p[0]:
		return m.l[0]
	case m.p[1]:
		return m.l[1]
	}
	l := xmath.Log(p)
	m.p[1], m.l[1] = m.p[0], m.l[0]
	m.p[0], m.l[0] = p, l
	return l
}

// readStreamFile is readStream on the named file; errors name the file.
func (o Options) readStreamFile(name string) (*streamed, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := o.readStream(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return st, nil
}

// graph clamps ev and builds the graph, with the errors of Model.Graph
// after Validate.
func (st *streamed) graph(ev Evidence) (*factorgraph.Graph, error) {
	if err := st.info.CheckEvidence(ev); err != nil {
		return nil, err
	}
	if st.gerr != nil {
		return nil, st.gerr
	}
	for _, o := range ev {
		st.b.Observe(o.Var, float64(o.Value))
	}
	g, err := st.b.Build()
	if err != nil {
		return nil, fmt.Errorf("uai: %w", err)
	}
	return g, nil
}

// readStream reads a model as Read does, with the same checks and errors
// in the same order, into a builder: the variables as Model.Graph adds
// them, and the factors in bulk. The memory the model declares is checked
// against o.MaxBytes as its counts come (see streamBytes), and the builder
// has the same limit.
func (o Options) readStream(r io.Reader) (*streamed, error) {
	st, err := o.readStreamInput(r)
	return st, o.stopped(err)
}

func (o Options) readStreamInput(r io.Reader) (*streamed, error) {
	s := newScanner(o.input(r), "")
	info, vars, arity, sz, err := o.readStreamScopes(s)
	if err != nil {
		return nil, err
	}
	st := &streamed{b: variablesBuilder(info.Cards, o.MaxBytes), info: info, logs: newLogMemo(), split: factorgraph.NewPairSplitter(len(info.Cards))}
	st.b.Grow(sz) // the tables' records at their final size: the scopes are read
	// The first BAYES table that is not a CPT, reported after the end as
	// Read does.
	cptErr, err := st.readTables(s, vars, arity)
	if err != nil {
		return nil, err
	}
	if err := s.end("the last table"); err != nil {
		return nil, err
	}
	if cptErr != nil {
		return nil, cptErr
	}
	addFields(st.split, st.b) // after the file's factors, as Model.Graph adds them
	return st, nil
}

// readStreamScopes reads the preamble: the model type, the cardinalities
// and the scopes, flat (factor f's variables follow factor f−1's, arity[f]
// of them). Both slices grow with the input, never with the header's
// claims. The memory of the graph is checked against o.MaxBytes once the
// number of variables is read, once the number of factors is, and once
// the scopes are (see streamBytes); sz is the graph's Size.
func (o Options) readStreamScopes(s *scanner) (info *Info, vars, arity []int32, sz factorgraph.Size, err error) {
	info = &Info{}
	if info.Type, err = s.modelType(); err != nil {
		return nil, nil, nil, sz, err
	}
	if info.Cards, err = s.cards(func(n int) error {
		return o.checkGraph(s, factorgraph.Size{Vars: n}, 0, 0, fmt.Sprintf("%d variables", n))
	}); err != nil {
		return nil, nil, nil, sz, err
	}
	n, maxD := len(info.Cards), slices.Max(info.Cards)
	if info.NumFactors, err = s.int(0, MaxFactors, "the number of factors"); err != nil {
		return nil, nil, nil, sz, err
	}
	nf := info.NumFactors
	// Each factor a table of one entry at least.
	sz = factorgraph.Size{Vars: n, DomainSize: maxD, Tables: nf, Potentials: nf, Entries: nf}
	if err := o.checkGraph(s, sz, nf, 1, describe(n, nf, -1)); err != nil {
		return nil, nil, nil, sz, err
	}
	vars = make([]int32, 0, min(nf, chunk))
	arity = make([]int32, 0, min(nf, chunk))
	seen := make([]int, len(info.Cards))
	total, largest, consts, pairs := 0, 1, 0, 0
	for f := range nf {
		k := len(vars)
		var size int
		if vars, size, err = readScope(s, vars, f, info.Cards, seen, &total); err != nil {
			return nil, nil, nil, sz, err
		}
		arity = append(arity, int32(len(vars)-k))
		largest = max(largest, size)
		if len(vars) == k {
			consts++
		}
		if len(vars)-k == 2 && size <= factorgraph.MaxRowPair && (info.Cards[vars[k]] != 2 || info.Cards[vars[k+1]] != 2) {
			// Laid out in their rows, at most (Size.PairEntries); a binary
			// pair is split into a Potts pair and fields, or is hard.
			pairs += size
		}
	}
	// A constant is a factor value over variable 0.
	sz = factorgraph.Size{Vars: n, DomainSize: maxD, Tables: nf - consts, TableVars: len(vars), Potentials: nf - consts,
		Entries: total - consts, Factors: consts, FactorVars: consts, PairEntries: pairs}
	if err := o.checkGraph(s, sz, nf, largest, describe(n, nf, total)); err != nil {
		return nil, nil, nil, sz, err
	}
	return info, vars, arity, sz, nil
}

// streamBytes estimates the memory ReadGraph takes for a graph of size sz
// whose nf factors' largest table has largest entries: building the graph
// (factorgraph.Size.BuildBytes) and the reader's own arrays — the
// cardinalities and marks (16 bytes a variable), the flat scopes and
// arities (4 bytes a scope variable and a factor), these three five times
// over as they grow with the input, the scanner's buffer, and the entries
// of a run of tables (at most runEntries, twice, or the largest table as
// it grows).
func streamBytes(sz factorgraph.Size, nf, largest int) float64 {
	return sz.BuildBytes() + 48*float64(sz.Vars) + 20*float64(sz.TableVars) + 20*float64(nf) +
		scanBytes + 16*float64(min(sz.Entries, runEntries)) + 16*float64(largest)
}

// checkGraph refuses, at the scanner's last token, a graph of size sz (see
// streamBytes) over o.MaxBytes; what describes the counts.
func (o Options) checkGraph(s *scanner, sz factorgraph.Size, nf, largest int, what string) error {
	return factorgraph.CheckBytes(streamBytes(sz, nf, largest), o.MaxBytes, fmt.Sprintf("uai: line %d: %s", s.tokLine, what), "Options.MaxBytes")
}

// variablesBuilder returns a builder holding the variables of cardinalities
// cards, added a run of equal cardinalities at a time, with the memory
// limit maxBytes.
func variablesBuilder(cards []int, maxBytes float64) *factorgraph.Builder {
	b := factorgraph.NewBuilder()
	b.SetMaxBytes(maxBytes)
	for i := 0; i < len(cards); {
		j := i + 1
		for j < len(cards) && cards[j] == cards[i] {
			j++
		}
		b.AddVariables(j-i, factorgraph.Discrete(cards[i]))
		i = j
	}
	return b
}

// readTables reads the tables into st's builder, a run of factors of one
// shape at a time, and returns the first BAYES table that is not a CPT as
// cptErr.
func (st *streamed) readTables(s *scanner, vars, arity []int32) (cptErr, err error) {
	var sizes []int
	for f, pos := 0, 0; f < len(arity); {
		if arity[f] == 0 {
			if err := st.readConstant(s, f, &cptErr); err != nil {
				return nil, err
			}
			f++
			continue
		}
		end, endPos, err := st.readRun(s, vars, arity, f, pos, &sizes, &cptErr)
		if err != nil {
			return nil, err
		}
		f, pos = end, endPos
	}
	return cptErr, nil
}

// readConstant reads the table of factor f, of no variables.
func (st *streamed) readConstant(s *scanner, f int, cptErr *error) error {
	if err := s.tableCount(f, 1); err != nil {
		return err
	}
	p, err := s.prob("entry %d of factor %d", 0, f)
	if err != nil {
		return err
	}
	if p == 0 {
		st.info.HardFactors++
	}
	if st.info.Type == Bayes && *cptErr == nil {
		*cptErr = checkRows(f, -1, 0, nil)
	}
	if c, err := constant(f, p); err != nil {
		if st.gerr == nil {
			st.gerr = err
		}
	} else {
		st.b.AddFactor(c)
	}
	return nil
}

// readRun reads the tables of the run of factors from f (whose scope
// starts at vars[pos]) that have f's shape, at most runEntries entries in
// all, adds them in bulk, and returns the factor and scope position after
// the run. *sizes is scratch.
func (st *streamed) readRun(s *scanner, vars, arity []int32, f, pos int, sizes *[]int, cptErr *error) (end, endPos int, err error) {
	cards, nf := st.info.Cards, len(arity)
	a := int(arity[f])
	*sizes = (*sizes)[:0]
	size := 1
	for _, v := range vars[pos : pos+a] {
		*sizes = append(*sizes, cards[v])
		size *= cards[v]
	}
	end, endPos = f+1, pos+a
	for end < nf && int(arity[end]) == a && (end-f+1)*size <= runEntries && sameShape(vars[endPos:endPos+a], *sizes, cards) {
		end, endPos = end+1, endPos+a
	}
	// One larger table grows with the input; same: every table of the run
	// so far is the first's.
	values := make([]float64, 0, min((end-f)*size, runEntries))
	same := true
	for g, gpos := f, pos; g < end; g, gpos = g+1, gpos+a {
		if err := s.tableCount(g, size); err != nil {
			return 0, 0, err
		}
		start := len(values)
		for k := range size {
			p, err := s.prob("entry %d of factor %d", k, g)
			if err != nil {
				return 0, 0, err
			}
			values = append(values, p)
		}
		t := values[start:]
		if slices.Contains(t, 0) {
			st.info.HardFactors++
		}
		if st.info.Type == Bayes && *cptErr == nil {
			*cptErr = checkRows(g, int(vars[gpos+a-1]), (*sizes)[a-1], t)
		}
		for k, p := range t {
			t[k] = st.logs.log(p) // factorgraph.NewProbTable's log-potential, xmath.Log: log 0 = −Inf, correct on subnormals
		}
		if a == 2 {
			sc := [2]int{int(vars[gpos]), int(vars[gpos+1])}
			st.split.Split(sc[:], *sizes, t)
		}
		same = same && slices.Equal(t, values[:size])
	}
	switch {
	case same && end-f > 1:
		// One table for the run (a model whose factors repeat one table, a
		// lattice's coupling): one potential instead of one a factor, a
		// fifth of the graph's bytes on a Potts model of pairs.
		values = slices.Clone(values[:size])
	case cap(values) > len(values):
		values = slices.Clone(values) // the builder keeps it
	}
	st.b.AddTables(vars[pos:endPos], *sizes, values)
	return end, endPos, nil
}

// sameShape reports whether the variables of scope have the cardinalities
// sizes.
func sameShape(scope []int32, sizes, cards []int) bool {
	for k, v := range scope {
		if cards[v] != sizes[k] {
			return false
		}
	}
	return true
}
