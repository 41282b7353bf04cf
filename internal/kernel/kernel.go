// Package kernel holds the compiled, flat form of a factor graph's
// neighbourhoods that the samplers' hot loops run on.
//
// A factorgraph.Graph is built from Factor values behind an interface; a
// sampler that evaluated them through it would pay two dynamic calls, a
// buffer round trip and a range check per factor. At Build the graph
// compiles the factor kinds it knows — Potts pairs W·δ(x_a, x_b) and dense
// tables — into the arrays below (structure of arrays, per variable in CSR
// order), whose ranges are proven when they are compiled: a Potts value is
// W or 0, a table value is one of its validated entries. Factors of any
// other type keep the generic path (Kind Generic: the sampler calls the
// model for them and checks their values against the declared range).
// Mixing both in one graph works: every list below may hold generic entries.
//
// Nothing here is part of the module's public API; package factorgraph
// builds a Graph and package gibbs reads it.
package kernel

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"

	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Kind is the kind of a compiled factor.
type Kind uint8

const (
	// Generic is a factor of a type the graph does not compile: the sampler
	// evaluates it through the model (Eval, EvalAll) and checks its range.
	Generic Kind = iota
	// Potts is W·δ(x_i, x_Ref).
	Potts
	// Table is a dense table: Tables[Ref].
	Table
)

// Op is one factor of A[i] as a hot loop reads it.
type Op struct {
	Kind Kind
	// Neg says W < 0 for a Potts factor: φ̃ = M when the two variables
	// differ, 0 when they agree.
	Neg bool
	// Stride is the stride of the updated variable i in a table's entries.
	Stride int32
	// Ref is the other variable of a Potts pair, the index in Tables of a
	// table, or the local index k in A[i] of a generic factor.
	Ref int32
	// M is M_φ = hi − lo (+Inf for a hard factor), Lo the declared lower
	// bound: φ̃ = φ − Lo ∈ [0, M].
	M, Lo float64
}

// Tab is a dense table factor: entry Σ_k Strides[k]·x[Vars[k]] of Values.
type Tab struct {
	Vars    []int32
	Strides []int32
	Values  []float64
}

// Base returns the index of the table's entry at x with the variable of
// stride si at 0: entry Base + v·si is the table's value at x_{i←v}. x[i]
// must be an integer in its domain (a discrete state).
func (t *Tab) Base(x []float64, si int32, xi float64) int {
	b := 0
	for k, v := range t.Vars {
		b += int(t.Strides[k]) * int(x[v])
	}
	return b - int(si)*int(xi)
}

// Graph is the compiled form of a factor graph's neighbourhoods A[i].
//
// Exact updates (plain Gibbs) read, for variable i, the Potts pairs
// PottsNbr/PottsW[PottsStart[i]:PottsStart[i+1]] (the other variable and
// the signed weight W: u[x_j] += W, the lower bound dropped, which a
// conditional does not see) and the other factors
// Exact[ExactStart[i]:ExactStart[i+1]] (tables, soft or hard, and generic
// factors), in that order.
//
// Minibatch updates read Soft[SoftStart[i]+k], the k-th soft factor of A[i]
// in the order of the graph's alias table (decreasing M_φ), and
// Hard[HardStart[i]:HardStart[i+1]].
type Graph struct {
	PottsStart []int32
	PottsNbr   []int32
	PottsW     []float64

	ExactStart []int32
	Exact      []int32 // j ≥ 0: Soft[j]; j < 0: Hard[^j] (see ExactOp)

	SoftStart []int
	Soft      []Op
	HardStart []int
	Hard      []Op

	Tables []Tab

	// Cols and Top are the graph's tiered alias tables over the soft
	// factors of each A[i] ∝ M_φ (Cols aligned with Soft; A[i]'s tier
	// table is Top[TopStart[i]:TopStart[i+1]]); see Tiers.
	Cols     minibatch.Alias
	TopStart []int
	Top      minibatch.Alias

	// Discrete says the graph has a free discrete variable; without one
	// (a continuous model) only the alias tables are filled.
	Discrete bool

	global *lazyFactors // see Global

	// The packed two-level tables for Poisson-Gibbs picks (see Col), of
	// the variables whose alias table is flat (one tier) and of those whose
	// heavy factors form a head; the others have no head columns
	// (HeadStart[i] = HeadStart[i+1]) and pick through Tiers. A[i]'s soft
	// factors, sorted by decreasing M_φ, split into a head of H[i] heavy
	// factors and the light rest, which together hold at most 1/LightShare
	// (or 1/LightMax) of L_i. Head[HeadStart[i]:HeadStart[i+1]] is an alias
	// table over the H[i] heavy factors and one more entry, H[i], standing
	// for all the light ones: a pick that lands on it picks again, from the
	// light factors' table Light[LightStart[i]:LightStart[i+1]], whose
	// indices are relative to H[i]. The probability of factor k is M_k/L_i
	// either way, and the head, a few cache lines, serves most picks.
	// Without light factors H[i] = |soft A[i]| and the head is the whole
	// table. HeadLo and LightLo hold the columns' low threshold words.
	HeadStart, LightStart []int
	Head, Light           []Col
	HeadLo, LightLo       []uint32
	H                     []int32

	// Generic says some factor of the graph is of the generic kind.
	Generic bool
}

// Tiers returns the tiered alias table over the soft factors of A[i].
func (g *Graph) Tiers(i int) minibatch.Tiered {
	s, e := g.SoftStart[i], g.SoftStart[i+1]
	ts, te := g.TopStart[i], g.TopStart[i+1]
	return minibatch.Tiered{
		Top:  minibatch.Alias{Prob: g.Top.Prob[ts:te], Index: g.Top.Index[ts:te]},
		Cols: minibatch.Alias{Prob: g.Cols.Prob[s:e], Index: g.Cols.Index[s:e]},
	}
}

// The light factors of a two-level table hold at most 1/LightShare of
// L_i, or if that takes more than MaxHead heavy factors at most 1/LightMax:
// at most that share of picks needs a second word.
const (
	LightShare = 64
	LightMax   = 8
)

// MaxHead bounds the heavy factors of a two-level table.
const MaxHead = 64

// NotPotts is the Col reference of a soft factor that is not a Potts pair.
const NotPotts = math.MinInt32

// Col is column k of a variable's flat alias table over the soft factors of
// A[i] ∝ M_φ, packed with what a Poisson-Gibbs pick reads of its two
// entries, so that a pick touches one 16-byte record (four to a cache
// line): with (hi, lo) the 128-bit product of a 64-bit random word and
// n = |soft A[i]|, the column is hi, and the pick is the column's own entry
// k if lo < T, else Alias, where T = Thr·2³² + lo32 is the column's
// threshold ⌊p_k·2⁶⁴⌋, its low word lo32 kept apart (HeadLo, LightLo) and
// read only when the high halves tie, once in 2³² picks. Ref[0] and Ref[1] describe the own and the alias
// entry: for a Potts pair the other variable j (W > 0) or ^j (W < 0),
// NotPotts for other kinds.
type Col struct {
	Thr   uint32
	Alias int32
	Ref   [2]int32
}

// Pick returns the entry (and its reference) a pick of column hi with
// fraction lo lands on; thrLo is the column's low threshold word.
func (c *Col) Pick(hi, lo uint64, thrLo []uint32) (j int, ref int32) {
	t := uint64(c.Thr) << 32
	if uint32(lo>>32) == c.Thr { // a tie of the high halves: once in 2³²
		t |= uint64(thrLo[hi])
	}
	// Without a branch: lo ≥ t is a coin flip to a branch predictor.
	_, own := bits.Sub64(lo, t, 0) // 1 if lo < t
	mask := own - 1                // all ones if lo ≥ t: the alias
	j = int(hi ^ ((hi ^ uint64(c.Alias)) & mask))
	return j, c.Ref[own^1]
}

// PottsRef returns the Col reference of a soft factor.
func PottsRef(o *Op) int32 {
	switch {
	case o.Kind != Potts:
		return NotPotts
	case o.Neg:
		return ^o.Ref
	}
	return o.Ref
}

// Factor is one factor of the graph as a global energy estimator reads it:
// a Potts pair W·δ(x_A, x_B) (Neg: W < 0), a table Tables[A], or a generic
// factor the estimator evaluates through the model. M and Lo as in Op.
type Factor struct {
	Kind  Kind
	Neg   bool
	A, B  int32
	M, Lo float64
}

// Value returns φ̃(x) = φ(x) − Lo of a Potts or table factor.
func (g *Graph) Value(f *Factor, x []float64) float64 {
	if f.Kind == Potts {
		if (x[f.A] == x[f.B]) != f.Neg {
			return f.M
		}
		return 0
	}
	t := &g.Tables[f.A]
	return t.Values[t.Base(x, 0, 0)] - f.Lo
}

// HeadTable is a view of one variable's two-level packed table (see
// Graph.Head): H heavy factors in the head, the light ones after them.
type HeadTable struct {
	Head, Light     []Col
	HeadLo, LightLo []uint32
	H               int
}

// HeadTable returns the two-level table of variable i; its Head is empty
// if i has none.
func (g *Graph) HeadTable(i int) HeadTable {
	hs, he := g.HeadStart[i], g.HeadStart[i+1]
	ls, le := g.LightStart[i], g.LightStart[i+1]
	return HeadTable{
		Head: g.Head[hs:he], HeadLo: g.HeadLo[hs:he],
		Light: g.Light[ls:le], LightLo: g.LightLo[ls:le],
		H: int(g.H[i]),
	}
}

// PickHead returns the head entry a pick with the 64-bit random word x
// lands on, and its Col reference: a heavy factor of A[i] (with
// probability M_φ/L_i), or H, the light factors' entry, after which the
// caller picks again with PickLight. (It takes the word, not the source,
// so that it inlines into the caller's loop.)
func (t *HeadTable) PickHead(x uint64) (int, int32) {
	hi, lo := bits.Mul64(x, uint64(len(t.Head)))
	return t.Head[hi].Pick(hi, lo, t.HeadLo)
}

// PickLight returns a light factor with probability M_φ over their sum.
func (t *HeadTable) PickLight(r *rand.Rand) (int, int32) {
	hi, lo := bits.Mul64(r.Uint64(), uint64(len(t.Light)))
	j, ref := t.Light[hi].Pick(hi, lo, t.LightLo)
	return j + t.H, ref
}

// ExactOp returns the factor an entry of Exact refers to.
func (g *Graph) ExactOp(e int32) *Op {
	if e >= 0 {
		return &g.Soft[e]
	}
	return &g.Hard[^e]
}

// lazyFactors is a []Factor built on first use.
type lazyFactors struct {
	once  sync.Once
	f     []Factor
	build func() []Factor
}

// SetGlobal sets the function Global calls once, on first use.
func (g *Graph) SetGlobal(build func() []Factor) { g.global = &lazyFactors{build: build} }

// Global describes every factor of the graph by its index, for the global
// energy estimators of the MIN-Gibbs family; it is built on first use (nil
// for a graph without discrete variables).
func (g *Graph) Global() []Factor {
	if g.global == nil {
		return nil
	}
	g.global.once.Do(func() { g.global.f = g.global.build() })
	return g.global.f
}
