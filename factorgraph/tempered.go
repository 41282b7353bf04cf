package factorgraph

import (
	"fmt"
	"math"
	"slices"
)

// Tempered returns g at inverse temperature beta: the same variables,
// domains, evidence and factor scopes, in the same order, each factor's
// log-potential multiplied by beta, a zero of a potential (−Inf) kept a
// zero. Its distribution is π_β(x) ∝ π(x)^β on the states π allows and 0
// on the others: the replicas of parallel tempering (package
// gibbs/exchange), which keep every hard constraint at every temperature.
// beta = 1 gives a copy of g; beta = 0 the uniform distribution on the
// states the hard factors allow.
//
// Tables and Potts pairs are rebuilt scaled, in bulk (Builder.AddTables,
// AddPottsPairs: their compiled forms, in contiguous arrays); any other
// factor is wrapped (its Value, Range and Conditional, if it has one,
// scaled). beta must be finite and non-negative.
func (g *Graph) Tempered(beta float64) (*Graph, error) {
	if math.IsNaN(beta) || math.IsInf(beta, 0) || beta < 0 {
		return nil, fmt.Errorf("factorgraph: Tempered: inverse temperature %v: need a finite β ≥ 0", beta)
	}
	b := NewBuilder()
	for i := range g.NumVars() {
		b.AddVariable(g.Domain(i))
		if v, ok := g.Observed(i); ok {
			b.Observe(i, v)
		}
	}
	// Runs of Potts pairs and of tables of one shape go in bulk (one
	// contiguous array each, as a reader builds them), in the order of g.
	var run temperedRun
	for f := range g.NumFactors() {
		switch t := g.factor(f).(type) {
		case *Potts:
			run.flushTables(b)
			run.pa, run.pb = append(run.pa, int32(t.scope[0])), append(run.pb, int32(t.scope[1]))
			run.pw = append(run.pw, Temper(beta, t.W))
		case *Table:
			run.flushPotts(b)
			if !slices.Equal(run.sizes, t.sizes) {
				run.flushTables(b)
				run.sizes = t.sizes
			}
			for _, v := range t.scope {
				run.scopes = append(run.scopes, int32(v))
			}
			for _, v := range t.values {
				run.values = append(run.values, Temper(beta, v))
			}
		default:
			run.flushPotts(b)
			run.flushTables(b)
			b.AddFactor(temperFactor(t, beta))
		}
	}
	run.flushPotts(b)
	run.flushTables(b)
	return b.Build()
}

// temperedRun is the run of factors Tempered has yet to add: Potts pairs,
// or tables of one shape.
type temperedRun struct {
	pa, pb []int32
	pw     []float64
	scopes []int32
	sizes  []int
	values []float64
}

func (r *temperedRun) flushPotts(b *Builder) {
	if len(r.pw) > 0 {
		b.AddPottsPairs(r.pa, r.pb, r.pw)
		r.pa, r.pb, r.pw = nil, nil, nil
	}
}

func (r *temperedRun) flushTables(b *Builder) {
	if len(r.scopes) > 0 {
		b.AddTables(r.scopes, r.sizes, r.values)
		r.scopes, r.values = nil, nil
	}
}

// temperFactor returns f at inverse temperature beta.
func temperFactor(f Factor, beta float64) Factor {
	switch t := f.(type) {
	case *Potts:
		return NewPotts(t.scope[0], t.scope[1], Temper(beta, t.W))
	case *Table:
		v := make([]float64, len(t.values))
		for k, x := range t.values {
			v[k] = Temper(beta, x)
		}
		return NewTable(slices.Clone(t.scope), slices.Clone(t.sizes), v)
	}
	lo, hi := f.Range()
	tf := &temperedFactor{f: f, beta: beta, lo: Temper(beta, lo), hi: Temper(beta, hi)}
	if tab, ok := f.(Tabulator); ok {
		return &temperedTabulator{temperedFactor: tf, tab: tab}
	}
	return tf
}

// Temper returns beta·v, with −Inf (a zero of a potential) and +Inf (the
// upper end of a hard factor's range) kept as they are whatever beta.
func Temper(beta, v float64) float64 {
	if math.IsInf(v, 0) {
		return v
	}
	return beta * v
}

// temperedFactor is a factor of a user's type at inverse temperature beta.
type temperedFactor struct {
	f      Factor
	beta   float64
	lo, hi float64
}

func (t *temperedFactor) Vars() []int               { return t.f.Vars() }
func (t *temperedFactor) Range() (lo, hi float64)   { return t.lo, t.hi }
func (t *temperedFactor) Value(x []float64) float64 { return Temper(t.beta, t.f.Value(x)) }
func (t *temperedFactor) Validate(d []Domain) error { return validateOf(t.f, d) }

// temperedTabulator is a temperedFactor whose factor has a fast path over
// one variable's values.
type temperedTabulator struct {
	*temperedFactor
	tab Tabulator
}

func (t *temperedTabulator) Conditional(dst, x []float64, i int) {
	t.tab.Conditional(dst, x, i)
	for k, v := range dst {
		dst[k] = Temper(t.beta, v)
	}
}

// validateOf runs f's own validation, if it has one.
func validateOf(f Factor, d []Domain) error {
	if v, ok := f.(Validator); ok {
		return v.Validate(d)
	}
	return nil
}
