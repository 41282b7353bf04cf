package factorgraph

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Builder assembles a factor graph: variables with their domains, factors,
// and evidence. Build checks everything and compiles an immutable Graph.
// The zero value is an empty builder ready to use.
//
// Factors come one at a time (AddFactor, any Factor) or in bulk for the
// common kinds (AddPottsPairs, AddTables), which store them in flat arrays
// without a heap object per factor: the way to build graphs of 10⁸
// factors. Either way they are numbered in the order they were added, and
// the same factors give the same compiled graph, whichever way they came.
//
// A builder refuses a graph that would not fit in memory before allocating
// it: the bulk adds (AddVariables, AddPottsPairs, AddTables) and Build
// compare the memory of building the graph it would then hold
// (Size.BuildBytes) with a limit, by default the machine's memory
// (DefaultMaxBytes; SetMaxBytes changes it). A bulk add over the limit
// adds nothing and makes Build fail with a *MemoryError naming the call.
type Builder struct {
	domains  []Domain
	maxSize  int // the largest domain size
	fs       store
	observed map[int]float64
	maxBytes float64 // the memory limit (0: DefaultMaxBytes)
	err      error   // the first invalid call, reported by Build
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{} }

// AddVariable adds a variable with domain d and returns its index.
func (b *Builder) AddVariable(d Domain) int {
	b.domains = append(b.domains, d)
	b.maxSize = max(b.maxSize, d.Size)
	return len(b.domains) - 1
}

// AddVariables adds n variables with domain d and returns the index of the
// first; they are numbered consecutively. A negative n, or n variables
// that would take the graph over the memory limit (see SetMaxBytes), add
// nothing and make Build fail, naming the call.
func (b *Builder) AddVariables(n int, d Domain) int {
	first := len(b.domains)
	if n < 0 {
		b.fail(fmt.Errorf("factorgraph: AddVariables(%d, %v) (after %d variables): negative number of variables", n, d, first))
		return first
	}
	sz := b.size()
	sz.Vars += n
	sz.DomainSize = max(sz.DomainSize, d.Size)
	if err := b.checkBytes(sz, func() string {
		return fmt.Sprintf("factorgraph: AddVariables(%d, %v) (after %d variables)", n, d, first)
	}); err != nil {
		b.fail(err)
		return first
	}
	if n > 0 {
		b.domains = slices.Grow(b.domains, n)
		b.maxSize = max(b.maxSize, d.Size)
	}
	for range n {
		b.domains = append(b.domains, d)
	}
	return first
}

// SetMaxBytes sets the memory limit of the graph, in bytes: the bulk adds
// (AddVariables, AddPottsPairs, AddTables) and Build refuse, before
// allocating, to take the builder to a graph whose building would need
// more (Size.BuildBytes of what the builder would hold), with a
// *MemoryError naming the call, the estimate and the limit. 0 restores
// the default, DefaultMaxBytes() (the machine's memory); +Inf removes the
// limit; a negative or NaN max makes Build fail. It applies to the calls
// after it.
func (b *Builder) SetMaxBytes(max float64) { b.maxBytes = max }

// Grow reserves room in the builder's arrays for the table factors and
// factor values of sz (its Tables, TableVars and Potentials, and its
// Factors; its other counts are ignored) beyond those it holds, so that
// the AddTables and AddFactor calls that add them copy none of its arrays
// as they grow: a reader that knows its file's counts before it adds the
// factors (package uai, once it has read the scopes) builds without that
// garbage. As a bulk add, it refuses room that would take the graph over
// the memory limit: it reserves nothing and makes Build fail, naming the
// call.
func (b *Builder) Grow(sz Size) {
	s := &b.fs
	want := b.size()
	want.Tables += max(sz.Tables, 0)
	want.TableVars += max(sz.TableVars, 0)
	want.Potentials += max(sz.Potentials, 0)
	want.Factors += max(sz.Factors, 0)
	want.FactorVars += max(sz.FactorVars, 0)
	if err := b.checkBytes(want, func() string {
		return fmt.Sprintf("factorgraph: Grow(%d table factors of %d variables, %d potentials, %d factors) (after %d factors)",
			sz.Tables, sz.TableVars, sz.Potentials, sz.Factors, s.n)
	}); err != nil {
		b.fail(err)
		return
	}
	if t := max(sz.Tables, 0); t > 0 {
		s.tab.Off = slices.Grow(s.tab.Off, t+1)
		s.tab.Pot = slices.Grow(s.tab.Pot, t)
		s.tab.Vars = slices.Grow(s.tab.Vars, max(sz.TableVars, 0))
	}
	if p := max(sz.Potentials, 0); p > 0 {
		s.tab.Pots, s.pots = slices.Grow(s.tab.Pots, p), slices.Grow(s.pots, p)
	}
	if f := max(sz.Factors, 0); f > 0 {
		s.obj = slices.Grow(s.obj, f)
	}
}

// fail records err as the first invalid call, if there is none yet.
func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// size returns the Size of the graph the builder holds (counting the
// scopes of the factors added as values since the last call).
func (b *Builder) size() Size {
	s := &b.fs
	for _, f := range s.obj[s.objCounted:] {
		if f != nil { // Build names a nil factor
			s.objVars += len(f.Vars())
		}
		if t, ok := f.(*Table); ok && t != nil && len(t.scope) == 2 && len(t.sizes) == 2 {
			_, potts := t.PottsForm()
			if rowPair(t.sizes, t.lo, t.hi, potts) {
				s.pairEntries += len(t.values) // at most: one added twice is not laid out
			}
		}
	}
	s.objCounted = len(s.obj)
	return Size{
		Vars: len(b.domains), DomainSize: b.maxSize,
		Pairs:  len(s.pw),
		Tables: len(s.tab.Pot), TableVars: len(s.tab.Vars), Potentials: len(s.tab.Pots), Entries: s.entries,
		Factors: len(s.obj), FactorVars: s.objVars, PairEntries: s.pairEntries,
		OneWeight: len(s.pw) > 0 && !s.mixedW && len(s.tab.Pot) == 0 && len(s.obj) == 0,
	}
}

// checkBytes refuses a graph of size sz above the builder's memory limit;
// what names the call (formatted only for a refusal).
func (b *Builder) checkBytes(sz Size, what func() string) error {
	const setting = "Builder.SetMaxBytes"
	need := sz.BuildBytes()
	if limit, err := memoryLimit(b.maxBytes, setting); err == nil && need <= limit {
		return nil
	}
	return CheckBytes(need, b.maxBytes, what(), setting)
}

// AddFactor adds a factor and returns its index.
func (b *Builder) AddFactor(f Factor) int {
	b.fs.obj = append(b.fs.obj, f)
	return b.fs.add(objectKind, len(b.fs.obj)-1, 1)
}

// Observe clamps variable i to the value v (evidence): samplers never
// resample it, and conditionals of the other variables use v.
func (b *Builder) Observe(i int, v float64) {
	if b.observed == nil {
		b.observed = make(map[int]float64)
	}
	b.observed[i] = v
}

// NumVars returns the number of variables added so far.
func (b *Builder) NumVars() int { return len(b.domains) }

// NumFactors returns the number of factors added so far.
func (b *Builder) NumFactors() int { return b.fs.n }

// MaxFactors is the largest number of factors a graph may have (factor
// indices are 32-bit in the compiled form).
const MaxFactors = math.MaxInt32

// Build checks the graph and compiles it. It returns an error naming the
// call, factor or variable for: AddVariables with a negative count, bulk
// additions whose slices do not fit; a domain of size < 1 or above
// MaxDomain, or an empty, reversed or infinite interval; a factor scope
// that is empty, repeats a variable or names a variable out of range; a
// factor's own validation (for example a table whose size is not the
// product of its domain sizes, a NaN entry or Potts weight); a declared
// range with NaN or infinite lo, NaN hi, or lo > hi; evidence outside its
// variable's domain; more than MaxFactors factors. A graph whose building
// would need more memory than the limit (SetMaxBytes; Size.BuildBytes
// estimates it from the builder's counts) is refused with a *MemoryError
// before Build allocates anything for it, as is a bulk add that took the
// builder over it.
//
// The graph keeps the factors (and the bulk additions' arrays) as the
// builder holds them: a builder may be added to and built again, but the
// factors' values must not change.
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := len(b.domains)
	if n == 0 {
		return nil, fmt.Errorf("factorgraph: graph has no variables")
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("factorgraph: %d variables, more than %d", n, math.MaxInt32)
	}
	if b.fs.n > MaxFactors {
		return nil, fmt.Errorf("factorgraph: %d factors, more than %d (MaxFactors)", b.fs.n, MaxFactors)
	}
	for i, d := range b.domains {
		if err := d.validate(); err != nil {
			return nil, fmt.Errorf("factorgraph: variable %d: %v", i, err)
		}
	}
	if err := b.checkBytes(b.size(), func() string {
		return fmt.Sprintf("factorgraph: Build (%d variables, %d factors)", n, b.fs.n)
	}); err != nil {
		return nil, err
	}
	g := &Graph{
		domains:  newDomainList(b.domains),
		bdoms:    b.domains,
		fs:       b.fs.frozen(),
		observed: make([]bool, n),
	}
	if err := b.setEvidence(g); err != nil {
		return nil, err
	}
	c, err := g.checkFactors()
	if err != nil {
		return nil, err
	}
	g.compile(c)
	g.bdoms = nil
	return g, nil
}

// setEvidence checks the evidence and records it in g, with g's free
// variables.
func (b *Builder) setEvidence(g *Graph) error {
	n := len(b.domains)
	for i, v := range b.observed {
		if i < 0 || i >= n {
			return fmt.Errorf("factorgraph: evidence for variable %d out of range [0, %d)", i, n)
		}
		if !b.domains[i].Contains(v) {
			return fmt.Errorf("factorgraph: evidence %v for variable %d outside its domain %v", v, i, b.domains[i])
		}
		if g.evidence == nil { // only a model with evidence has the values
			g.evidence = make([]float64, n)
		}
		g.observed[i] = true
		g.evidence[i] = v
	}
	g.free = make([]int, 0, n-len(b.observed))
	for i := range n {
		if !g.observed[i] {
			g.free = append(g.free, i)
		}
	}
	return nil
}

// counts are what checkFactors learns for compile: the soft and hard
// entries of each A[i], and the soft entries that are not Potts pairs.
type counts struct {
	softDeg, hardDeg []int32
	ops              int
}

// checkFactors checks every factor, records the ranges of the factors
// added as values, and counts the entries of every A[i].
func (g *Graph) checkFactors() (counts, error) {
	n := len(g.bdoms)
	c := counts{softDeg: make([]int32, n), hardDeg: make([]int32, n)}
	s := &g.fs
	g.objLo, g.objM = make([]float64, len(s.obj)), make([]float64, len(s.obj))
	var seen []int       // seen[v] = 1 + index of the last factor that listed v
	var x, dst []float64 // checkTabulator's scratch, allocated when first needed
	for k, r := range s.runs {
		end := s.end(k)
		switch r.kind {
		case pottsKind:
			if err := g.checkPotts(r, end, &c); err != nil {
				return c, err
			}
		case tableKind:
			if err := g.checkTables(r, end, &c); err != nil {
				return c, err
			}
		default:
			if seen == nil {
				seen = make([]int, n)
			}
			for f := r.start; f < end; f++ {
				o := r.off + f - r.start
				fac := s.obj[o]
				vars, lo, hi, err := checkFactor(f, fac, g.bdoms, seen)
				if err != nil {
					return c, err
				}
				if userTabulator(fac) {
					if x == nil {
						x, dst = make([]float64, n), make([]float64, maxSize(g.bdoms))
					}
					if err := checkTabulator(f, fac, vars, g.bdoms, x, dst); err != nil {
						return c, err
					}
				}
				g.objLo[o], g.objM[o] = lo, hi-lo
				if hi-lo == 0 {
					continue // a constant never changes a conditional
				}
				_, potts := pottsPair(fac)
				c.count(vars, math.IsInf(hi, 1), potts)
			}
		}
	}
	return c, nil
}

// count counts the entries of a factor over vars.
func (c *counts) count(vars []int, hard, potts bool) {
	for _, v := range vars {
		if hard {
			c.hardDeg[v]++
		} else {
			c.softDeg[v]++
		}
	}
	if !hard && !potts {
		c.ops += len(vars)
	}
}

// checkPotts checks the Potts pair records of factors [r.start, end), as
// NewPotts's Validate and checkFactor check a *Potts, and counts their
// entries.
func (g *Graph) checkPotts(r run, end int, c *counts) error {
	s := &g.fs
	n := len(g.bdoms)
	pa, pb, pw := s.pa[r.off:r.off+end-r.start], s.pb[r.off:r.off+end-r.start], s.pw[r.off:r.off+end-r.start]
	// One discrete domain for all (the usual case): no domain to read a
	// pair, a cache miss each on a graph far larger than the cache.
	allDiscrete := g.domains.idx == nil && g.domains.all == nil && g.domains.pal[0].IsDiscrete()
	for k, w := range pw {
		a, b := pa[k], pb[k]
		if uint32(a) >= uint32(n) || uint32(b) >= uint32(n) || a == b || !allDiscrete && (!g.bdoms[a].IsDiscrete() || !g.bdoms[b].IsDiscrete()) || !(math.Abs(w) <= math.MaxFloat64) {
			return g.pottsError(r.start+k, a, b, w)
		}
		if w == 0 {
			continue
		}
		c.softDeg[a]++
		c.softDeg[b]++
	}
	return nil
}

// pottsError says what is wrong with Potts pair f.
func (g *Graph) pottsError(f int, a, b int32, w float64) error {
	n := len(g.bdoms)
	vars := []int{int(a), int(b)}
	name := describe(f, vars)
	switch {
	case a < 0 || int(a) >= n:
		return fmt.Errorf("factorgraph: %s: variable %d out of range [0, %d)", name, a, n)
	case b < 0 || int(b) >= n:
		return fmt.Errorf("factorgraph: %s: variable %d out of range [0, %d)", name, b, n)
	case a == b:
		return fmt.Errorf("factorgraph: %s: variable %d repeated in scope", name, a)
	case !g.bdoms[a].IsDiscrete():
		return fmt.Errorf("factorgraph: %s: Potts factor over continuous variable %d", name, a)
	case !g.bdoms[b].IsDiscrete():
		return fmt.Errorf("factorgraph: %s: Potts factor over continuous variable %d", name, b)
	case math.IsNaN(w):
		return fmt.Errorf("factorgraph: %s: Potts weight is NaN", name)
	}
	return fmt.Errorf("factorgraph: %s: Potts weight %v is not finite", name, w)
}

// checkTables checks the table factor records of factors [r.start, end),
// as a *Table's Validate and checkFactor check one, and counts their
// entries.
func (g *Graph) checkTables(r run, end int, c *counts) error {
	s := &g.fs
	n := len(g.bdoms)
	var vars []int
	for f := r.start; f < end; f++ {
		t := r.off + f - r.start
		scope := s.tab.Vars[s.tab.Off[t]:s.tab.Off[t+1]]
		p := &s.pots[s.tab.Pot[t]]
		vars = vars[:0]
		for k, v := range scope {
			if v < 0 || int(v) >= n {
				return fmt.Errorf("factorgraph: %s: variable %d out of range [0, %d)", describe(f, int32s(scope)), v, n)
			}
			if slices.Contains(scope[:k], v) {
				return fmt.Errorf("factorgraph: %s: variable %d repeated in scope", describe(f, int32s(scope)), v)
			}
			if d := g.bdoms[v]; d.Size != p.sizes[k] {
				if !d.IsDiscrete() {
					return fmt.Errorf("factorgraph: %s: table over continuous variable %d", describe(f, int32s(scope)), v)
				}
				return fmt.Errorf("factorgraph: %s: table size %d for variable %d whose domain has %d values", describe(f, int32s(scope)), p.sizes[k], v, d.Size)
			}
			vars = append(vars, int(v))
		}
		if p.valid == 0 {
			p.valid = 1
			if err := validValues(s.tab.Pots[s.tab.Pot[t]].Values, nil); err != nil {
				p.valid = -1
				return fmt.Errorf("factorgraph: %s: %v", describe(f, vars), err)
			}
		}
		if m := p.hi - p.lo; m != 0 {
			c.count(vars, math.IsInf(p.hi, 1), p.potts)
		}
	}
	return nil
}

// int32s returns xs as ints (for messages).
func int32s(xs []int32) []int {
	out := make([]int, len(xs))
	for k, x := range xs {
		out[k] = int(x)
	}
	return out
}

// checkFactor checks factor f (its scope over the variables of domains,
// seen[v] = f + 1 marking those it lists, its declared range and its own
// validation) and returns its scope and range.
func checkFactor(f int, fac Factor, domains []Domain, seen []int) (vars []int, lo, hi float64, err error) {
	n := len(domains)
	if fac == nil {
		return nil, 0, 0, fmt.Errorf("factorgraph: factor %d is nil", f)
	}
	vars = fac.Vars()
	if len(vars) == 0 {
		return nil, 0, 0, fmt.Errorf("factorgraph: factor %d: empty scope", f)
	}
	for _, v := range vars {
		if v < 0 || v >= n {
			return nil, 0, 0, fmt.Errorf("factorgraph: %s: variable %d out of range [0, %d)", describe(f, vars), v, n)
		}
		if seen[v] == f+1 {
			return nil, 0, 0, fmt.Errorf("factorgraph: %s: variable %d repeated in scope", describe(f, vars), v)
		}
		seen[v] = f + 1
	}
	// The factor's own validation first: it names what is wrong in its own
	// terms (a NaN Potts weight, rather than the NaN range it makes).
	if val, ok := fac.(Validator); ok {
		if err := val.Validate(domains); err != nil {
			return nil, 0, 0, fmt.Errorf("factorgraph: %s: %v", describe(f, vars), err)
		}
	}
	lo, hi = fac.Range()
	switch {
	case math.IsNaN(lo) || math.IsInf(lo, 0):
		return nil, 0, 0, fmt.Errorf("factorgraph: %s: declared lo %v is not finite", describe(f, vars), lo)
	case math.IsNaN(hi):
		return nil, 0, 0, fmt.Errorf("factorgraph: %s: declared hi is NaN", describe(f, vars))
	case lo > hi:
		return nil, 0, 0, fmt.Errorf("factorgraph: %s: declared lo %v > hi %v", describe(f, vars), lo, hi)
	}
	return vars, lo, hi, nil
}

// describe names factor f for error messages: "factor 17 (vars 3,9)".
func describe(f int, vars []int) string {
	return fmt.Sprintf("factor %d (vars %s)", f, listVars(vars, ",", func(v int) string { return fmt.Sprint(v) }))
}

// listVars formats vars, each by item, joined by sep; past ten of them it
// lists the first eight and says how many more.
func listVars(vars []int, sep string, item func(v int) string) string {
	var sb strings.Builder
	for k, v := range vars {
		if k > 0 {
			sb.WriteString(sep)
		}
		if k == 8 && len(vars) > 10 {
			fmt.Fprintf(&sb, "… %d more", len(vars)-k)
			break
		}
		sb.WriteString(item(v))
	}
	return sb.String()
}
