// Package compiled holds the compiled, flat form of a factor graph's
// neighbourhoods that the samplers' hot loops run on.
//
// A factorgraph.Graph is built from factors of several kinds; a sampler
// that evaluated them through the Factor interface would pay two dynamic
// calls, a buffer round trip and a range check per factor. At Build the
// graph compiles the kinds it knows — Potts pairs W·δ(x_a, x_b) and dense
// tables — into the arrays below (structure of arrays, per variable in CSR
// order), whose ranges are proven when they are compiled: a Potts value is
// W or 0, a table value is one of its validated entries. Factors of any
// other type keep the generic path (Kind Generic: the sampler calls the
// model for them and checks their values against the declared range).
// Mixing both in one graph works: every list below may hold generic
// entries.
//
// The arrays are the graph's only copy of its neighbourhoods: a Potts pair
// costs its two entries (the other variable, 4 bytes, and the signed weight,
// 8) and nothing else per entry; the other kinds add one Op an entry.
//
// Nothing here is part of the module's public API; package factorgraph
// builds a Graph and package gibbs reads it.
package compiled

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// Kind is the kind of a compiled factor.
type Kind uint8

const (
	// Generic is a factor of a type the graph does not compile: the sampler
	// evaluates it through the model (Eval, EvalAll) and checks its range.
	Generic Kind = iota
	// Potts is W·δ(x_i, x_Ref).
	Potts
	// Table is a dense table: table factor Ref of Tabs.
	Table
)

// Op is one factor of A[i] that is not a soft Potts pair, as a hot loop
// reads it (SoftOp also describes a Potts entry as an Op, for cold paths).
type Op struct {
	Kind Kind
	// Neg says W < 0 for a Potts factor: φ̃ = M when the two variables
	// differ, 0 when they agree.
	Neg bool
	// Stride is the stride of the updated variable i in a table's entries.
	Stride int32
	// Ref is the other variable of a Potts pair, the table factor (in
	// Tabs) of a table, or the local index k in A[i] of a generic factor.
	Ref int32
	// Fac is the factor's index in the graph (−1 for a Potts entry
	// described by SoftOp).
	Fac int32
	// M is M_φ = hi − lo (+Inf for a hard factor), Lo the declared lower
	// bound: φ̃ = φ − Lo ∈ [0, M].
	M, Lo float64
}

// Pot is one potential table: entry Σ_k Strides[k]·x[scope_k] of Values.
type Pot struct {
	Values  []float64
	Strides []int32
}

// Tabs holds the graph's table factors: table factor t has scope
// Vars[Off[t]:Off[t+1]] and potential Pots[Pot[t]]. Many table factors may
// share one potential (the same coupling on every edge, the same field on
// every site) and store it once.
type Tabs struct {
	Off  []int
	Vars []int32
	Pot  []int32
	Pots []Pot
}

// Base returns the index in the potential of table factor t of its entry at
// x with the variable of stride si at 0: entry Base + v·si is the table's
// value at x_{i←v}. x[i] = xi must be an integer in its domain (a discrete
// state).
func (tb *Tabs) Base(t int32, x []float64, si int32, xi float64) int {
	p := &tb.Pots[tb.Pot[t]]
	b := 0
	for k, v := range tb.Vars[tb.Off[t]:tb.Off[t+1]] {
		b += int(p.Strides[k]) * int(x[v])
	}
	return b - int(si)*int(xi)
}

// PairRow returns, for a soft op o with a table laid out in its row
// (PairOff), the table's q values at the other variable's value in x (q
// the row's domain size); nil for the other ops.
func (g *Graph) PairRow(o int, x []float64, q int) []float64 {
	if o >= len(g.PairOff) || g.PairOff[o] < 0 { // an op added since (a test's copy) is read through Tabs
		return nil
	}
	return g.PairTab[int(g.PairOff[o])+int(x[g.PairOther[o]])*q:][:q]
}

// Values returns the entries of table factor t's potential.
func (tb *Tabs) Values(t int32) []float64 { return tb.Pots[tb.Pot[t]].Values }

// LinkFields sets FieldVals from Ops and Tabs where Fields (nil
// otherwise): the one place that derives it, for the compiler and for a
// copy whose tables changed.
func (k *Graph) LinkFields() {
	k.FieldVals = nil
	if !k.Fields || len(k.Ops) == 0 {
		return
	}
	k.FieldVals = make([][]float64, len(k.Ops))
	for o, op := range k.Ops {
		k.FieldVals[o] = k.Tabs.Values(op.Ref)
	}
}

// Graph is the compiled form of a factor graph's neighbourhoods A[i].
//
// The soft factors of A[i] are the entries SoftStart[i] ≤ p < SoftStart[i+1]
// of Nbr and W, sorted by decreasing M_φ (ties in the order the factors were
// added); the local index of entry p is k = p − SoftStart[i]. A Potts pair
// W·δ(x_i, x_j) is Nbr[p] = j ≥ 0 and W[p] = W (signed: M_φ = |W|); any
// other soft factor is Nbr[p] = ^o < 0 with Ops[o] its description and
// W[p] = M_φ > 0. The hard factors of A[i] are
// Hard[HardStart[i]:HardStart[i+1]], local indices after the soft ones.
//
// Exact updates (plain Gibbs) read the row: u[x_j] += W for a Potts pair
// (the lower bound dropped, which a conditional does not see), the Op
// otherwise, then the hard factors.
//
// Minibatch updates pick soft factors ∝ M_φ from a two-level table (see
// HeadTable): an alias table over the heavy head of each row, packed with
// what a Poisson-Gibbs pick reads, and rejection from bands of the light
// rest, which read the row itself and so cost no memory an entry.
type Graph struct {
	SoftStart []int
	Nbr       []int32
	W         []float64
	Ops       []Op
	// Li holds L_i = Σ M_φ over each variable's soft factors (the
	// graph's own array, shared).
	Li []float64
	// W0, where W is nil, is the weight of every soft entry: a graph whose
	// soft factors are all Potts pairs of one weight keeps no weight an
	// entry (8 bytes a row entry, 16 a pair, and the read of a second row
	// an update); wOne holds W0 as many times as the longest row, for Row.
	W0   float64
	wOne []float64

	HardStart []int
	Hard      []Op

	Tabs Tabs

	// AllPotts says every soft entry is a Potts pair (Ops is empty).
	AllPotts bool
	// Fields says every soft entry is a Potts pair or a field: a table of
	// the row's own variable alone (stride 1), which an exact update reads
	// inline (a glass or a Potts model with external fields).
	Fields bool
	// FieldVals, where Fields, holds each op's field values
	// (Tabs.Values(Ops[o].Ref)): one load from the row's entry to the
	// values, where Ops, Tabs.Pot and Tabs.Pots are three dependent ones.
	FieldVals [][]float64
	// PairOff, where some soft op is a table over its row's variable and
	// one other whose potential no other table shares, gives each op the
	// offset in PairTab of its table laid out for its row (−1 for the other
	// ops): entry x_j·q_i + v is the table at x_i = v, x_j = x[PairOther[o]]
	// (q_i the row's domain size), so that a row's tables are read as one
	// stream, as a hand-written loop lays them out, instead of through
	// their potentials wherever those are (nil where no op is such).
	PairOff   []int32
	PairOther []int32
	PairTab   []float64
	// Discrete says the graph has a free discrete variable.
	Discrete bool
	// Generic says some factor of the graph is of the generic kind.
	Generic bool

	// The two-level pick tables. A[i]'s soft factors, sorted by decreasing
	// M_φ, split into a head of Heads[i].H heavy factors and the light
	// rest. Its Heads[i].Cols columns from Head[HeadOff(i)] are an alias
	// table over the H heavy factors and, if there are light ones, one more
	// entry, H, standing for all of them: a pick that lands on it picks
	// again, from the light factors' bands Bands[BandStart[i]:BandStart[i+1]].
	// Every variable with a soft factor has a head (of one column, the
	// light entry, when no few factors hold most of L_i), except where its
	// row is uniform (Uniform: Potts pairs of one weight, picked from the
	// row itself, no columns). HeadLo holds the
	// columns' low threshold words, BandCols/BandLo the alias table over the
	// bands (BandStart is nil when no row has light factors). The probability of factor k is M_k/L_i either way, and the
	// head, a few cache lines, serves most picks.
	//
	// When the heads are of about one size (a lattice), each variable has
	// HeadStride columns from i·HeadStride, its own and unused ones: a
	// step finds its head from i alone, one cache miss fewer on a graph far
	// larger than the cache. Otherwise HeadStride is 0 and the heads follow
	// one another from HeadStart[i].
	Heads      []HeadInfo
	HeadStride int
	HeadStart  []int
	Head       []Col
	HeadLo     []uint32
	BandStart  []int
	Bands      []Band
	BandCols   []Col
	BandLo     []uint32

	global *lazyFactors // see Global
}

// Row returns the soft entries of A[i]: the other variables (or ^op) and
// the weights (or M_φ). The weights must not be modified.
func (g *Graph) Row(i int) ([]int32, []float64) {
	s, e := g.SoftStart[i], g.SoftStart[i+1]
	if g.W == nil {
		return g.Nbr[s:e], g.wOne[:e-s]
	}
	return g.Nbr[s:e], g.W[s:e]
}

// Weight returns the weight (or M_φ) of soft entry p.
func (g *Graph) Weight(p int) float64 {
	if g.W == nil {
		_ = g.Nbr[p]
		return g.W0
	}
	return g.W[p]
}

// SetOneWeight drops the weights of a graph whose soft entries are all
// Potts pairs of weight w0 (see W0); maxRow is the longest row.
func (g *Graph) SetOneWeight(w0 float64, maxRow int) {
	g.W, g.W0 = nil, w0
	g.wOne = make([]float64, maxRow)
	for k := range g.wOne {
		g.wOne[k] = w0
	}
}

// OneWeightBytes returns the memory of the weights a graph without W
// keeps (wOne).
func (g *Graph) OneWeightBytes() int { return 8 * cap(g.wOne) }

// SoftOp returns the soft entry p as an Op: its own for a table or generic
// factor, and for a Potts pair Kind Potts, Ref the other variable, Neg the
// sign of W, M = |W|, Lo = min(0, W) and Fac −1 (a Potts entry does not
// know its factor; the graph does).
func (g *Graph) SoftOp(p int) Op {
	if nb := g.Nbr[p]; nb < 0 {
		return g.Ops[^nb]
	}
	w := g.Weight(p)
	return Op{Kind: Potts, Neg: w < 0, Ref: g.Nbr[p], Fac: -1, M: math.Abs(w), Lo: min(0, w)}
}

// SoftOpAt returns the Op of the local soft entry j of the row starting at
// s0, which must not be a Potts pair.
func (g *Graph) SoftOpAt(s0, j int) *Op { return &g.Ops[^g.Nbr[s0+j]] }

// The light factors of a two-level table hold at most 1/LightShare of
// L_i, or if that takes more than MaxHead heavy factors at most 1/LightMax:
// at most that share of picks needs the bands.
const (
	LightShare = 1024
	LightMax   = 8
)

// MaxHead bounds the heavy factors of a two-level table with light ones.
const MaxHead = 64

// FlatMax is the largest row kept whole in its head when no few factors
// hold most of L_i: up to FlatMax columns (10 KB) an alias table is one
// pick, beyond it the row's bands are.
const FlatMax = 512

// NotPotts is the Col reference of a soft factor that is not a Potts pair.
const NotPotts = math.MinInt32

// Col is column k of a variable's alias table over the heavy soft factors
// of A[i] ∝ M_φ (and the light ones' entry), packed with what a
// Poisson-Gibbs pick reads of its two entries, so that a pick touches one
// 16-byte record (four to a cache line): with (hi, lo) the 128-bit product
// of a 64-bit random word and the number of columns, the column is hi, and
// the pick is the column's own entry k if lo < T, else Alias, where T =
// Thr·2³² + lo32 is the column's threshold ⌊p_k·2⁶⁴⌋, its low word lo32
// kept apart (HeadLo, BandLo) and read only when the high halves tie, once
// in 2³² picks. Ref[0] and Ref[1] describe the own and the alias entry: for
// a Potts pair the other variable j (W > 0) or ^j (W < 0), NotPotts for
// other kinds.
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

// Ref returns the Col reference of a soft entry with Nbr nb and weight w.
func Ref(nb int32, w float64) int32 {
	switch {
	case nb < 0:
		return NotPotts
	case w < 0:
		return ^nb
	}
	return nb
}

// PottsRef returns the Col reference of a soft factor described as an Op.
func PottsRef(o *Op) int32 {
	switch {
	case o.Kind != Potts:
		return NotPotts
	case o.Neg:
		return ^o.Ref
	}
	return o.Ref
}

// Band is a run of a variable's light factors, the local indices
// [Lo, Lo+N), whose bounds M_φ are at most Max (the first's): a pick
// chooses a band ∝ N·Max, a uniform entry k of it, and keeps k with
// probability M_k/Max, else starts again; k then has probability M_k over
// the light factors' sum. Every band but the last keeps M_k > Max/2, so a
// try is kept with probability above 1/2; the last gathers a tail too light
// to matter (its N·Max a small share of the light factors' weight).
//
// Sign is +1 (−1) when every factor of the band is a Potts pair of weight
// +Max (−Max), as a shell of a kernel that depends on the distance is: a
// pick then keeps every try and reads only the neighbour, one cache miss
// (the row is far too large for the cache). It is 0 otherwise.
type Band struct {
	Lo, N int32
	Max   float64
	Sign  int8
}

// Factor is one factor of the graph as a global energy estimator reads it:
// a Potts pair W·δ(x_A, x_B) (Neg: W < 0), table factor A, or a generic
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
	return g.Tabs.Values(f.A)[g.Tabs.Base(f.A, x, 0, 0)] - f.Lo
}

// HeadTable is a view of one variable's two-level pick table (see
// Graph.Head): H heavy factors in the head, the light ones after them; or
// of a uniform row (Graph.Uniform: Potts pairs of one weight, picked
// uniformly from the row, no columns), H −1.
type HeadTable struct {
	Head   []Col
	HeadLo []uint32
	H      int
	g      *Graph
	i      int
	// uni is a uniform row's neighbours and usgn its references' sign
	// mask (−1 for W < 0: ^j, as Ref); nil otherwise.
	uni  []int32
	usgn int32
}

// HeadInfo is the size of a variable's head: its heavy factors and its
// columns (one more when there are light factors). A variable with soft
// factors and no columns has a uniform row (Graph.Uniform); H is then its
// length, at most 65535.
type HeadInfo struct{ H, Cols uint16 }

// HeadOff returns the index in Head of variable i's first column.
func (g *Graph) HeadOff(i int) int {
	if g.HeadStride > 0 {
		return i * g.HeadStride
	}
	return g.HeadStart[i]
}

// Uniform reports whether variable i's row is uniform: soft factors that
// are all Potts pairs of one weight W (bit for bit), so that a pick ∝ M_φ
// is a uniform one, entry ⌊u·|A[i]|⌋ of the row itself. Such a row has no
// head columns (HeadInfo.Cols 0): on a graph of equal couplings (a random
// sparse one, a nearest-neighbour lattice) the pick tables cost nothing an
// entry.
func (g *Graph) Uniform(i int) bool {
	return g.Heads[i].Cols == 0 && g.SoftStart[i] < g.SoftStart[i+1]
}

// NumBands returns the number of bands over variable i's light factors.
func (g *Graph) NumBands(i int) int {
	if g.BandStart == nil {
		return 0
	}
	return g.BandStart[i+1] - g.BandStart[i]
}

// HeadTable returns the two-level table of variable i; its Head is empty
// if i has no soft factor or a uniform row.
func (g *Graph) HeadTable(i int) HeadTable {
	h := g.Heads[i]
	if h.Cols == 0 {
		s, e := g.SoftStart[i], g.SoftStart[i+1]
		t := HeadTable{H: -1, g: g, i: i}
		if s < e {
			t.uni = g.Nbr[s:e]
			if g.Weight(s) < 0 {
				t.usgn = -1
			}
		}
		return t
	}
	hs := g.HeadOff(i)
	he := hs + int(h.Cols)
	return HeadTable{Head: g.Head[hs:he], HeadLo: g.HeadLo[hs:he], H: int(h.H), g: g, i: i}
}

// PickHead returns the head entry a pick with the 64-bit random word x
// lands on, and its Col reference: a heavy factor of A[i] (with
// probability M_φ/L_i), or H, the light factors' entry, after which the
// caller picks again with PickLight; on a uniform row, entry
// ⌊x·|A[i]|/2⁶⁴⌋ and its reference.
func (t *HeadTable) PickHead(x uint64) (int, int32) {
	if t.uni != nil {
		hi, _ := bits.Mul64(x, uint64(len(t.uni)))
		return int(hi), t.uni[hi] ^ t.usgn
	}
	hi, lo := bits.Mul64(x, uint64(len(t.Head)))
	return t.Head[hi].Pick(hi, lo, t.HeadLo)
}

// PickLight returns a light factor with probability M_φ over their sum,
// and its Col reference.
func (t *HeadTable) PickLight(r *rand.Rand) (int, int32) { return t.g.PickLight(t.i, r) }

// PickLight returns a light factor of A[i] (local index) with probability
// M_φ over the light factors' sum, and its Col reference, by rejection
// from the bands (see Band): two random words a try, fewer than two tries
// on average.
func (g *Graph) PickLight(i int, r *rand.Rand) (int, int32) {
	bs, be := g.BandStart[i], g.BandStart[i+1]
	bands := g.Bands[bs:be]
	s := g.SoftStart[i]
	for {
		b := 0
		if len(bands) > 1 {
			hi, lo := bits.Mul64(r.Uint64(), uint64(len(bands)))
			b, _ = g.BandCols[bs+int(hi)].Pick(hi, lo, g.BandLo[bs:be])
		}
		band := &bands[b]
		hi, lo := bits.Mul64(r.Uint64(), uint64(band.N))
		j := int(band.Lo) + int(hi)
		switch band.Sign {
		case 1:
			return j, g.Nbr[s+j]
		case -1:
			return j, ^g.Nbr[s+j]
		}
		w := g.Weight(s + j)
		// Keep with probability M/Max: u·Max < M for the top 53 bits u of
		// the low word, which given hi is uniform and independent of it.
		if m := math.Abs(w); m < band.Max && float64(lo>>11)*0x1p-53*band.Max >= m {
			continue
		}
		return j, Ref(g.Nbr[s+j], w)
	}
}

// Pick returns a soft factor of A[i] (local index) with probability
// M_φ/L_i: a head pick, then a light one if it lands on the light entry.
// A[i] must have a soft factor.
func (g *Graph) Pick(i int, r *rand.Rand) int {
	t := g.HeadTable(i)
	j, _ := t.PickHead(r.Uint64())
	if j == t.H {
		j, _ = g.PickLight(i, r)
	}
	return j
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
