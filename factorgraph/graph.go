package factorgraph

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/pgibbs/pgibbs/internal/kernel"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Graph is a compiled, immutable factor graph. It is safe for concurrent
// use by any number of samplers.
//
// For each variable i it holds A[i] in compressed sparse row form, split into
// soft factors (finite range M_φ > 0), which minibatching samplers subsample,
// and hard factors (infinite range), which every sampler evaluates exactly.
// Factors with M_φ = 0 are constants and belong to no A[i]. The soft factors
// of A[i] are ordered by decreasing M_φ, and a tiered Walker alias table per
// variable draws one with probability M_φ/L_i in O(1), reading a few cache
// lines however large A[i] is.
type Graph struct {
	domains  []Domain
	factors  []Factor
	lo, m    []float64 // declared lower bound and M_φ = hi − lo per factor
	observed []bool
	evidence []float64
	free     []int

	// A[i] is soft[softStart[i]:softStart[i+1]] followed by
	// hard[hardStart[i]:hardStart[i+1]].
	softStart []int
	soft      []entry
	alias     minibatch.Alias // per-variable tier columns, parallel to soft
	topStart  []int           // tier tables of A[i] are top[topStart[i]:topStart[i+1]]
	top       minibatch.Alias
	hardStart []int
	hard      []entry

	li       []float64 // L_i
	l, psi   float64
	maxDeg   int
	maxSize  int
	active   []int32 // soft factors that touch a free variable
	maxArity int

	globalOnce  sync.Once
	globalAlias minibatch.Alias

	bipOnce sync.Once
	bip     *bipartite
	bipErr  error

	kern *kernel.Graph // the compiled neighbourhoods (compiled.go)
}

// entry is one factor of A[i] with what a minibatch draw needs once the
// factor is picked: M_φ and lo for the thinning, and the factor itself. The
// alias columns live apart, in 12 bytes a column, because a pick reads a
// uniformly random column while the entries it lands on are few (the
// heavy factors) and stay in cache: a draw costs about one cache miss
// however large the graph is.
type entry struct {
	f     Factor
	m, lo float64
	fac   int32 // index of f in the graph
}

var _ Model = (*Graph)(nil)

// compile builds the graph's neighbourhoods A[i] in CSR form (softDeg and
// hardDeg entries for each variable), their sums L_i, L and Ψ, the alias
// tables over them, and the compiled kernel.
func (g *Graph) compile(softDeg, hardDeg []int32) {
	n := len(g.domains)
	for _, fac := range g.factors {
		g.maxArity = max(g.maxArity, len(fac.Vars()))
	}
	g.softStart = make([]int, n+1)
	g.hardStart = make([]int, n+1)
	for i := range n {
		g.softStart[i+1] = g.softStart[i] + int(softDeg[i])
		g.hardStart[i+1] = g.hardStart[i] + int(hardDeg[i])
	}
	g.fillEntries()
	g.li = make([]float64, n)
	for i := range n {
		for _, e := range g.soft[g.softStart[i]:g.softStart[i+1]] {
			g.li[i] += e.m
		}
		g.maxSize = max(g.maxSize, g.domains[i].Size)
	}
	for _, i := range g.free {
		g.l = max(g.l, g.li[i])
		g.maxDeg = max(g.maxDeg, int(softDeg[i]+hardDeg[i]))
	}
	g.buildAliases(softDeg)
	g.compileKernel()
}

// fillEntries lays out the entries of every A[i], soft and hard apart, in
// factor order, and lists the active soft factors with their sum Ψ.
func (g *Graph) fillEntries() {
	n := len(g.domains)
	g.soft = make([]entry, g.softStart[n])
	g.hard = make([]entry, g.hardStart[n])
	sfill := make([]int, n)
	hfill := make([]int, n)
	isFree := make([]bool, n)
	for _, i := range g.free {
		isFree[i] = true
	}
	for f, fac := range g.factors {
		if g.m[f] == 0 {
			continue
		}
		e := entry{f: fac, m: g.m[f], lo: g.lo[f], fac: int32(f)}
		hard := math.IsInf(g.m[f], 1)
		touchesFree := false
		for _, v := range fac.Vars() {
			touchesFree = touchesFree || isFree[v]
			if hard {
				g.hard[g.hardStart[v]+hfill[v]] = e
				hfill[v]++
				continue
			}
			g.soft[g.softStart[v]+sfill[v]] = e
			sfill[v]++
		}
		if !hard && touchesFree {
			g.active = append(g.active, int32(f))
			g.psi += g.m[f]
		}
	}
}

// buildAliases builds one tiered alias table per variable over its soft
// entries ∝ M_φ, entries sorted by decreasing M_φ so the heavy ones share a
// few cache lines (see minibatch.Tiered), and the kernel that holds them.
func (g *Graph) buildAliases(softDeg []int32) {
	n := len(g.domains)
	maxSoft := 0
	g.topStart = make([]int, n+1)
	for i := range n {
		maxSoft = max(maxSoft, int(softDeg[i]))
		g.topStart[i+1] = g.topStart[i] + minibatch.NumTiers(int(softDeg[i]))
	}
	w := make([]float64, maxSoft)
	work := make([]int32, maxSoft)
	g.alias = minibatch.Alias{Prob: make([]float64, len(g.soft)), Index: make([]int32, len(g.soft))}
	g.top = minibatch.Alias{Prob: make([]float64, g.topStart[n]), Index: make([]int32, g.topStart[n])}
	g.kern = &kernel.Graph{SoftStart: g.softStart, Cols: g.alias, TopStart: g.topStart, Top: g.top}
	for i := range n {
		s, e := g.softStart[i], g.softStart[i+1]
		if s == e {
			continue
		}
		seg := g.soft[s:e]
		slices.SortStableFunc(seg, func(a, b entry) int { return cmp.Compare(b.m, a.m) })
		for k, en := range seg {
			w[k] = en.m
		}
		if err := g.tiers(i).Build(w[:e-s], work); err != nil {
			panic("factorgraph: internal error: " + err.Error()) // weights are positive and finite by construction
		}
	}
}

// NumVars returns the number of variables.
func (g *Graph) NumVars() int { return len(g.domains) }

// Domain returns the domain of variable i.
func (g *Graph) Domain(i int) Domain { return g.domains[i] }

// Free returns the variables that are not observed, in increasing order.
// The slice must not be modified.
func (g *Graph) Free() []int { return g.free }

// Observed returns the value of variable i and true if i is evidence.
func (g *Graph) Observed(i int) (float64, bool) { return g.evidence[i], g.observed[i] }

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

// Degree returns the number of soft and hard factors in A[i].
func (g *Graph) Degree(i int) (soft, hard int) {
	return g.softStart[i+1] - g.softStart[i], g.hardStart[i+1] - g.hardStart[i]
}

// at returns the k-th entry of A[i].
func (g *Graph) at(i, k int) *entry {
	if e := g.softStart[i] + k; e < g.softStart[i+1] {
		return &g.soft[e]
	}
	return &g.hard[g.hardStart[i]+k-(g.softStart[i+1]-g.softStart[i])]
}

// Bound returns M_φ of the k-th factor of A[i] (+Inf for a hard one).
func (g *Graph) Bound(i, k int) float64 { return g.at(i, k).m }

// Pick returns the local index of a soft factor of A[i] drawn with
// probability M_φ/L_i. A[i] must have a soft factor.
func (g *Graph) Pick(i int, r *rand.Rand) int {
	return g.tiers(i).Pick(r)
}

// tiers returns the tiered alias table of A[i].
func (g *Graph) tiers(i int) minibatch.Tiered { return g.kern.Tiers(i) }

// FactorIndex returns the index (as added to the Builder) of the k-th factor
// of A[i].
func (g *Graph) FactorIndex(i, k int) int { return int(g.at(i, k).fac) }

// Eval returns φ̃(x) = φ(x) − lo of the k-th factor of A[i].
func (g *Graph) Eval(i, k int, x []float64) float64 {
	e := g.at(i, k)
	return e.f.Value(x) - e.lo
}

// EvalAll sets dst[v] = φ̃(x with x[i] = v), v = 0, …, len(dst)−1, for the
// k-th factor of A[i]; i must be discrete and len(dst) its domain size. It
// may write x[i] while it works and restores it before returning.
func (g *Graph) EvalAll(i, k int, x, dst []float64) {
	e := g.at(i, k)
	if cond, ok := e.f.(Conditioner); ok {
		cond.Conditional(dst, x, i)
		if e.lo != 0 {
			for v := range dst {
				dst[v] -= e.lo
			}
		}
		return
	}
	save := x[i]
	for v := range dst {
		x[i] = float64(v)
		dst[v] = e.f.Value(x) - e.lo
	}
	x[i] = save
}

// Describe returns a name for the k-th factor of A[i] for messages, such as
// "factor 17 (vars 3,9)", and its declared range.
func (g *Graph) Describe(i, k int) (name string, lo, hi float64) {
	e := g.at(i, k)
	return describe(int(e.fac), e.f.Vars()), e.lo, e.lo + e.m
}

// NumFactors returns the number of factors, constants included.
func (g *Graph) NumFactors() int { return len(g.factors) }

// Factor returns factor f.
func (g *Graph) Factor(f int) Factor { return g.factors[f] }

// FactorRange returns the declared range of factor f.
func (g *Graph) FactorRange(f int) (lo, hi float64) { return g.lo[f], g.lo[f] + g.m[f] }

// FactorName describes factor f for messages, e.g. "factor 17 (vars 3,9)".
func (g *Graph) FactorName(f int) string { return describe(f, g.factors[f].Vars()) }

// EvalFactor returns φ̃(x) = φ(x) − lo of factor f.
func (g *Graph) EvalFactor(f int, x []float64) float64 { return g.factors[f].Value(x) - g.lo[f] }

// Active returns the soft factors that touch a free variable: the factors of
// the global energy estimators of the MIN-Gibbs family. The slice must not be
// modified.
func (g *Graph) Active() []int32 { return g.active }

// PickGlobal returns an active soft factor drawn with probability M_φ/Ψ.
// The graph must have an active soft factor (Ψ > 0).
func (g *Graph) PickGlobal(r *rand.Rand) int {
	g.globalOnce.Do(func() {
		w := make([]float64, len(g.active))
		for k, f := range g.active {
			w[k] = g.m[f]
		}
		if len(w) > 0 {
			g.globalAlias, _ = minibatch.NewAlias(w)
		}
	})
	return int(g.active[g.globalAlias.Pick(r)])
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
		len(g.domains), len(g.free), len(g.factors), g.maxDeg, g.l, g.psi)
}

// FactorBound returns M_φ = hi − lo of factor f (+Inf for a hard factor).
func (g *Graph) FactorBound(f int) float64 { return g.m[f] }

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
