package factorgraph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Graph is a compiled, immutable factor graph. It is safe for concurrent
// use by any number of samplers.
//
// For each variable i it holds A[i] in compressed sparse row form, split into
// soft factors (finite range M_φ > 0), which minibatching samplers subsample,
// and hard factors (infinite range), which every sampler evaluates exactly.
// Factors with M_φ = 0 are constants and belong to no A[i]. The soft factors
// of A[i] are ordered by decreasing M_φ, and a two-level pick table per
// variable draws one with probability M_φ/L_i in O(1), reading a few cache
// lines however large A[i] is.
//
// The neighbourhoods are stored once, in the compiled form the samplers
// read (internal/compiled): a Potts pair is its other variable and its weight
// in each of its two rows, 24 bytes, plus its own record, 16 bytes, if it
// was added with AddPottsPairs; the light factors' pick tables are the rows
// themselves. Factor returns a factor added in bulk as a new value.
type Graph struct {
	domains  domainList
	bdoms    []Domain  // the builder's domains, while Build checks and compiles
	fs       store     // the factors, in the order they were added
	objLo    []float64 // declared lower bound of the factors added as values
	objM     []float64 // and their M_φ = hi − lo
	observed []bool
	evidence []float64
	free     []int

	li      []float64 // L_i
	l, psi  float64
	maxDeg  int
	maxSize int
	// tablePotts says a Potts entry was compiled from a table of Potts
	// form: Eval reads such a factor's table (equal to the compiled
	// values to 10⁻¹² relative).
	tablePotts bool

	activeOnce  sync.Once
	active      []int32
	globalOnce  sync.Once
	globalAlias minibatch.Alias

	facOnce sync.Once
	softFac []int32 // the factor of each soft entry (built on first use)

	bipOnce sync.Once
	bip     *bipartite
	bipErr  error

	// kern is the compiled form of the neighbourhoods that the samplers of
	// this module run on (compiled.go): Potts pairs and dense tables as
	// flat typed arrays, other factors as references to the generic path.
	// form holds it for the samplers (compiled.GraphOf); its type is
	// internal to the module, and nothing of it is part of Graph's API.
	kern *compiled.Graph
	form
}

// form is compiled.Form under an unexported name.
type form = compiled.Form

var _ Model = (*Graph)(nil)

// NumVars returns the number of variables.
func (g *Graph) NumVars() int { return g.domains.Len() }

// Domain returns the domain of variable i.
func (g *Graph) Domain(i int) Domain { return g.domains.At(i) }

// Free returns the variables that are not observed, in increasing order.
// The slice must not be modified.
func (g *Graph) Free() []int { return g.free }

// Observed returns the value of variable i and true if i is evidence.
func (g *Graph) Observed(i int) (float64, bool) {
	if !g.observed[i] {
		return 0, false
	}
	return g.evidence[i], true
}

// L returns the local maximum energy L = max_i L_i over free variables.
func (g *Graph) L() float64 { return g.l }

// Li returns L_i = Σ_{φ∈A[i], soft} M_φ.
func (g *Graph) Li(i int) float64 { return g.li[i] }

// Psi returns the total maximum energy Ψ = Σ_φ M_φ over the soft factors
// that touch a free variable.
func (g *Graph) Psi() float64 { return g.psi }

// MaxDegree returns Δ = max_i |A[i]| over free variables (soft and hard).
func (g *Graph) MaxDegree() int { return g.maxDeg }

// MaxDomainSize returns the largest domain size of a discrete variable (0 if
// all are continuous).
func (g *Graph) MaxDomainSize() int { return g.maxSize }

// PairsAndFields reports whether every soft factor of g compiles as a Potts
// pair or a field (a table over one variable) and g has no hard factor:
// the rows a plain Gibbs update sums inline, in locals for a binary
// variable (about a nanosecond an entry, against several for a table).
// Tables of Potts form count as pairs (Table.PottsForm), and the UAI
// readers split the other binary pair tables into such pairs and fields.
func (g *Graph) PairsAndFields() bool {
	return (g.kern.AllPotts || g.kern.Fields) && len(g.kern.Hard) == 0
}

// Degree returns the number of soft and hard factors in A[i].
func (g *Graph) Degree(i int) (soft, hard int) {
	k := g.kern
	return k.SoftStart[i+1] - k.SoftStart[i], k.HardStart[i+1] - k.HardStart[i]
}

// op returns the k-th factor of A[i] as an Op (see compiled.Graph.SoftOp).
func (g *Graph) op(i, k int) compiled.Op {
	kg := g.kern
	if p := kg.SoftStart[i] + k; p < kg.SoftStart[i+1] {
		return kg.SoftOp(p)
	}
	return kg.Hard[kg.HardStart[i]+k-(kg.SoftStart[i+1]-kg.SoftStart[i])]
}

// Bound returns M_φ of the k-th factor of A[i] (+Inf for a hard one).
func (g *Graph) Bound(i, k int) float64 {
	kg := g.kern
	if p := kg.SoftStart[i] + k; p < kg.SoftStart[i+1] {
		return math.Abs(kg.Weight(p))
	}
	return kg.Hard[kg.HardStart[i]+k-(kg.SoftStart[i+1]-kg.SoftStart[i])].M
}

// Pick returns the local index of a soft factor of A[i] drawn with
// probability M_φ/L_i. A[i] must have a soft factor.
func (g *Graph) Pick(i int, r *rand.Rand) int { return g.kern.Pick(i, r) }

// FactorIndex returns the index (as added to the Builder) of the k-th factor
// of A[i]. For a Potts pair it reads a table of every soft entry's factor
// built on the first call (4 bytes an entry): the compiled rows do not
// keep it.
func (g *Graph) FactorIndex(i, k int) int {
	o := g.op(i, k)
	if o.Fac >= 0 {
		return int(o.Fac)
	}
	return int(g.entryFactors()[g.kern.SoftStart[i]+k])
}

// Eval returns φ̃(x) = φ(x) − lo of the k-th factor of A[i].
func (g *Graph) Eval(i, k int, x []float64) float64 {
	o := g.op(i, k)
	switch {
	case o.Kind == compiled.Potts && !g.tablePotts:
		if (x[i] == x[o.Ref]) != o.Neg {
			return o.M
		}
		return 0
	case o.Kind == compiled.Table:
		t := &g.kern.Tabs
		return t.Values(o.Ref)[t.Base(o.Ref, x, 0, 0)] - o.Lo
	}
	f := g.FactorIndex(i, k)
	lo, _ := g.FactorRange(f)
	return g.factor(f).Value(x) - lo
}

// EvalAll sets dst[v] = φ̃(x with x[i] = v), v = 0, …, len(dst)−1, for the
// k-th factor of A[i]; i must be discrete and len(dst) its domain size. It
// may write x[i] while it works and restores it before returning.
func (g *Graph) EvalAll(i, k int, x, dst []float64) {
	o := g.op(i, k)
	switch {
	case o.Kind == compiled.Potts && !g.tablePotts:
		on, off := o.M, 0.0
		if o.Neg {
			on, off = 0, o.M
		}
		for v := range dst {
			dst[v] = off
		}
		if v := int(x[o.Ref]); v >= 0 && v < len(dst) {
			dst[v] = on
		}
		return
	case o.Kind == compiled.Table:
		t := &g.kern.Tabs
		vals := t.Values(o.Ref)
		b := t.Base(o.Ref, x, o.Stride, x[i])
		for v := range dst {
			dst[v] = vals[b+v*int(o.Stride)] - o.Lo
		}
		return
	}
	f := g.FactorIndex(i, k)
	fac := g.factor(f)
	lo, _ := g.FactorRange(f)
	if cond, ok := fac.(Tabulator); ok {
		cond.Conditional(dst, x, i)
		if lo != 0 {
			for v := range dst {
				dst[v] -= lo
			}
		}
		return
	}
	save := x[i]
	for v := range dst {
		x[i] = float64(v)
		dst[v] = fac.Value(x) - lo
	}
	x[i] = save
}

// Describe returns a name for the k-th factor of A[i] for messages, such as
// "factor 17 (vars 3,9)", and its declared range.
func (g *Graph) Describe(i, k int) (name string, lo, hi float64) {
	f := g.FactorIndex(i, k)
	lo, hi = g.FactorRange(f)
	return g.FactorName(f), lo, hi
}

// NumFactors returns the number of factors, constants included.
func (g *Graph) NumFactors() int { return g.fs.n }

// Factor returns factor f: the value added with AddFactor, or for a factor
// added in bulk a new *Potts (AddPottsPairs) or *Table (AddTables) equal to
// it, made on each call.
func (g *Graph) Factor(f int) Factor { return g.factor(f) }

// factor is Factor.
func (g *Graph) factor(f int) Factor {
	s := &g.fs
	kind, r := s.locate(f)
	switch kind {
	case pottsKind:
		return NewPotts(int(s.pa[r]), int(s.pb[r]), s.pw[r])
	case tableKind:
		p := &s.pots[s.tab.Pot[r]]
		t := &Table{scope: int32s(s.tab.Vars[s.tab.Off[r]:s.tab.Off[r+1]]), sizes: p.sizes,
			values: s.tab.Pots[s.tab.Pot[r]].Values, lo: p.lo, hi: p.hi}
		t.strides = make([]int, len(t.sizes))
		for k, st := range s.tab.Pots[s.tab.Pot[r]].Strides {
			t.strides[k] = int(st)
		}
		return t
	}
	return s.obj[r]
}

// FactorVars appends the scope of factor f to dst and returns it: Factor(f).Vars()
// without making a value of a factor added in bulk.
func (g *Graph) FactorVars(dst []int, f int) []int { return g.fs.vars(dst, f) }

// FactorRange returns the declared range of factor f.
func (g *Graph) FactorRange(f int) (lo, hi float64) {
	s := &g.fs
	kind, r := s.locate(f)
	switch kind {
	case pottsKind:
		w := s.pw[r]
		return min(0, w), max(0, w)
	case tableKind:
		p := &s.pots[s.tab.Pot[r]]
		return p.lo, p.lo + (p.hi - p.lo) // as for a factor added as a value
	}
	return g.objLo[r], g.objLo[r] + g.objM[r]
}

// FactorName describes factor f for messages, e.g. "factor 17 (vars 3,9)".
func (g *Graph) FactorName(f int) string { return describe(f, g.fs.vars(nil, f)) }

// EvalFactor returns φ̃(x) = φ(x) − lo of factor f.
func (g *Graph) EvalFactor(f int, x []float64) float64 {
	s := &g.fs
	kind, r := s.locate(f)
	switch kind {
	case pottsKind:
		w := s.pw[r]
		if (x[s.pa[r]] == x[s.pb[r]]) != (w < 0) {
			return math.Abs(w)
		}
		return 0
	case tableKind:
		p := &s.pots[s.tab.Pot[r]]
		return s.tab.Values(int32(r))[s.tab.Base(int32(r), x, 0, 0)] - p.lo
	}
	return s.obj[r].Value(x) - g.objLo[r]
}

// Active returns the soft factors that touch a free variable: the factors of
// the global energy estimators of the MIN-Gibbs family (built on first
// use). The slice must not be modified.
func (g *Graph) Active() []int32 {
	g.activeOnce.Do(func() {
		var vars []int
		for f := range g.fs.n {
			if m := g.FactorBound(f); m == 0 || math.IsInf(m, 1) {
				continue
			}
			vars = g.fs.vars(vars[:0], f)
			for _, v := range vars {
				if !g.observed[v] {
					g.active = append(g.active, int32(f))
					break
				}
			}
		}
	})
	return g.active
}

// PickGlobal returns an active soft factor drawn with probability M_φ/Ψ.
// The graph must have an active soft factor (Ψ > 0).
func (g *Graph) PickGlobal(r *rand.Rand) int {
	active := g.Active()
	g.globalOnce.Do(func() {
		w := make([]float64, len(active))
		for k, f := range active {
			w[k] = g.FactorBound(int(f))
		}
		if len(w) > 0 {
			g.globalAlias, _ = minibatch.NewAlias(w)
		}
	})
	return int(active[g.globalAlias.Pick(r)])
}

// Initial returns a state for the graph: evidence at its values, the other
// variables drawn uniformly from their domains with r. It does not look at
// hard factors; see the samplers' documentation for states of zero
// probability.
func (g *Graph) Initial(r *rand.Rand) []float64 { return RandomState(g, r) }

// RandomState returns a state of m: evidence at its values, the other
// variables uniform on their domains.
func RandomState(m Model, r *rand.Rand) []float64 {
	x := make([]float64, m.NumVars())
	for i := range x {
		if v, ok := m.Observed(i); ok {
			x[i] = v
			continue
		}
		d := m.Domain(i)
		if d.IsDiscrete() {
			x[i] = float64(r.IntN(d.Size))
		} else {
			x[i] = d.Lo + (d.Hi-d.Lo)*r.Float64()
		}
	}
	return x
}

// String summarises the graph.
func (g *Graph) String() string {
	return fmt.Sprintf("factor graph: %d variables (%d free), %d factors, Δ = %d, L = %.6g, Ψ = %.6g",
		g.domains.Len(), len(g.free), g.fs.n, g.maxDeg, g.l, g.psi)
}

// FactorBound returns M_φ = hi − lo of factor f (+Inf for a hard factor).
func (g *Graph) FactorBound(f int) float64 {
	lo, hi := g.FactorRange(f)
	return hi - lo
}

// Sizes returns the domain size of every variable of m (0 for a continuous
// one): the shape chain.NewMarginals takes.
func Sizes(m Model) []int {
	out := make([]int, m.NumVars())
	for i := range out {
		out[i] = m.Domain(i).Size
	}
	return out
}

// Intervals returns the interval of every continuous variable of m (lo =
// hi = 0 for a discrete one): the shape chain.NewHistograms takes.
func Intervals(m Model) (lo, hi []float64) {
	lo, hi = make([]float64, m.NumVars()), make([]float64, m.NumVars())
	for i := range lo {
		if d := m.Domain(i); !d.IsDiscrete() {
			lo[i], hi[i] = d.Lo, d.Hi
		}
	}
	return lo, hi
}

// LogPotential returns ℓ(x) = Σ_φ φ(x), the sum of every factor's
// log-potential at x (the declared values, not shifted): the log of π(x)
// up to log Z, −Inf where a hard factor rules x out. It reads the factors
// run by run (Potts pairs, tables, Factor values), not one lookup each: a
// pass costs about a factor evaluation per factor.
func (g *Graph) LogPotential(x []float64) float64 {
	s := &g.fs
	sum := 0.0
	for k, ru := range s.runs {
		n := s.end(k) - ru.start
		switch ru.kind {
		case pottsKind:
			for r := ru.off; r < ru.off+n; r++ {
				if x[s.pa[r]] == x[s.pb[r]] {
					sum += s.pw[r]
				}
			}
		case tableKind:
			for r := ru.off; r < ru.off+n; r++ {
				sum += s.tab.Values(int32(r))[s.tab.Base(int32(r), x, 0, 0)]
			}
		default:
			for r := ru.off; r < ru.off+n; r++ {
				sum += s.obj[r].Value(x)
			}
		}
	}
	return sum
}
