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
type Builder struct {
	domains  []Domain
	factors  []Factor
	observed map[int]float64
	err      error // the first invalid call, reported by Build
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{} }

// AddVariable adds a variable with domain d and returns its index.
func (b *Builder) AddVariable(d Domain) int {
	b.domains = append(b.domains, d)
	return len(b.domains) - 1
}

// AddVariables adds n variables with domain d and returns the index of the
// first; they are numbered consecutively. A negative n adds nothing and
// makes Build fail, naming the call.
func (b *Builder) AddVariables(n int, d Domain) int {
	first := len(b.domains)
	if n < 0 && b.err == nil {
		b.err = fmt.Errorf("factorgraph: AddVariables(%d, %v) (after %d variables): negative number of variables", n, d, first)
	}
	for range n {
		b.domains = append(b.domains, d)
	}
	return first
}

// AddFactor adds a factor and returns its index.
func (b *Builder) AddFactor(f Factor) int {
	b.factors = append(b.factors, f)
	return len(b.factors) - 1
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
func (b *Builder) NumFactors() int { return len(b.factors) }

// Build checks the graph and compiles it. It returns an error naming the
// call, factor or variable for: AddVariables with a negative count; a domain
// of size < 1 or an empty, reversed or infinite interval; a factor scope
// that is empty, repeats a variable or names a variable out of range; a
// factor's own validation (for example a table whose size is not the
// product of its domain sizes, a NaN entry or Potts weight); a declared
// range with NaN or infinite lo, NaN hi, or lo > hi; evidence outside its
// variable's domain.
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := len(b.domains)
	if n == 0 {
		return nil, fmt.Errorf("factorgraph: graph has no variables")
	}
	for i, d := range b.domains {
		if err := d.validate(); err != nil {
			return nil, fmt.Errorf("factorgraph: variable %d: %v", i, err)
		}
	}
	g := &Graph{
		domains:  slices.Clone(b.domains),
		factors:  slices.Clone(b.factors),
		lo:       make([]float64, len(b.factors)),
		m:        make([]float64, len(b.factors)),
		observed: make([]bool, n),
		evidence: make([]float64, n),
	}
	if err := b.setEvidence(g); err != nil {
		return nil, err
	}
	softDeg, hardDeg, err := b.checkFactors(g)
	if err != nil {
		return nil, err
	}
	g.compile(softDeg, hardDeg)
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
		g.observed[i] = true
		g.evidence[i] = v
	}
	for i := range n {
		if !g.observed[i] {
			g.free = append(g.free, i)
		}
	}
	return nil
}

// checkFactors checks every factor, records its range lo ≤ φ ≤ lo + M in
// g, and counts the soft and hard entries of each A[i].
func (b *Builder) checkFactors(g *Graph) (softDeg, hardDeg []int32, err error) {
	n := len(b.domains)
	softDeg = make([]int32, n)
	hardDeg = make([]int32, n)
	seen := make([]int, n) // seen[v] = 1 + index of the last factor that listed v
	var x, dst []float64   // checkConditioner's scratch, allocated when first needed
	for f, fac := range b.factors {
		vars, lo, hi, err := checkFactor(f, fac, g.domains, seen)
		if err != nil {
			return nil, nil, err
		}
		if userConditioner(fac) {
			if x == nil {
				x, dst = make([]float64, n), make([]float64, maxSize(g.domains))
			}
			if err := checkConditioner(f, fac, vars, g.domains, x, dst); err != nil {
				return nil, nil, err
			}
		}
		g.lo[f], g.m[f] = lo, hi-lo
		if g.m[f] == 0 {
			continue // a constant never changes a conditional
		}
		for _, v := range vars {
			if math.IsInf(hi, 1) {
				hardDeg[v]++
			} else {
				softDeg[v]++
			}
		}
	}
	return softDeg, hardDeg, nil
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
