package compiled

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Torus is the compiled form of a translation-invariant pair model on a
// periodic lattice (package lattice): what the samplers' hot loops need to
// find the k-th coupled neighbour of a site and the pair's weight without
// an interface call. It describes discrete spins only (q-state Potts spins,
// and Ising spins, which are 2-state Potts spins for the samplers: the pair
// w·s_i·s_j has φ̃ = 2|w|·δ(x_i, x_j) when w > 0 and 2|w|·(1 − δ) when
// w < 0, exactly as a Potts pair of weight M = 2|w|).
//
// The k-th factor of A[i] (offsets in order of decreasing M_k) is the pair
// {i, j}, j = i + offset k on the torus, with φ̃ = M_k·δ(x_i, x_j) when its
// weight is positive and M_k·(1 − δ(x_i, x_j)) when it is negative: up to a
// constant, U_v gets W_k·δ(v, x_j), W_k = ±M_k.
//
// Sites are numbered with axis 0 slowest. The loops see every lattice as
// three-dimensional: a site i is the sum of its components along three
// axes, each multiplied by the axis's stride (Bases), and the neighbour at
// an offset whose components are premultiplied the same way (TorusEnt.D) is
// Σ_a wrap(b_a + D_a, Mod[a]): a lattice of dimension below 3 has leading
// axes of modulus 1 whose components are 0. The offsets' components are
// canonical, in (−N/2, N/2], so one conditional add or subtract wraps each
// axis (any component in (−N, N) would do): the ranges are proven by
// construction, no check is needed.
type Torus struct {
	Geometry
	// States is the number of values q of a site (2 for Ising spins).
	States int
	// Ising says the spins are Ising spins (for messages; the loops treat
	// them as 2-state Potts spins).
	Ising bool
	// Off[k] is the k-th offset.
	Off []TorusEnt
	// W[k] = ±M_k, the signed weight of the k-th offset's Potts pair.
	W []float64
	// L = Σ_k M_k, every site's L_i.
	L float64
	// Table picks offset k with probability M_k/L; it is the lattice's own
	// table (Lattice.Pick draws from it too).
	Table *TorusTable
	// Uniform says every W_k equals W[0] (a nearest-neighbour kernel): an
	// exact update then needs only the counts n_v of the neighbours with
	// value v, U_v = W[0]·n_v.
	Uniform bool
	// Heat, for Uniform lattices of 2 states, holds the heat-bath
	// thresholds: x_i becomes 1 with probability Heat[n_1]·2⁻⁶⁴ (to within
	// 2⁻⁶⁴), the probability 1/(1 + exp(W[0]·(K − 2n_1))) when n_1 of the K
	// neighbours are 1. ExpGap, for Uniform lattices of more states, holds
	// exp(−|W[0]|·g), g = 0, …, K: the weight of a value whose count is g
	// away from the largest (W > 0) or smallest (W < 0) count.
	Heat   []uint64
	ExpGap []float64
	// NN says the offsets are the 2·Dim unit vectors ±e_a, each once (a
	// nearest-neighbour kernel on a side of 3 or more).
	NN bool
}

// Geometry is a periodic lattice's site arithmetic in the padded
// three-axis view (see Torus).
type Geometry struct {
	// Dim is the dimension (1–3), Side the number of sites N along each
	// axis, Sites = N^Dim.
	Dim, Side, Sites int
	// Mod holds the moduli of the three axes of the padded view: N·stride
	// for the Dim axes in use, 1 for the others.
	Mod [3]int
	// Div is ⌈2⁶⁴/N⌉: ⌊a/N⌋ = ⌊Div·a/2⁶⁴⌋ for 0 ≤ a < 2³².
	Div uint64
}

// NewGeometry returns the geometry of a torus of dimension dim (1–3) and
// side n. It returns an error for a dimension out of range, a side below 2
// or 2³¹ sites or more.
func NewGeometry(dim, n int) (Geometry, error) {
	switch {
	case dim < 1 || dim > 3:
		return Geometry{}, fmt.Errorf("kernel: torus of dimension %d", dim)
	case n < 2 || int64(n) >= 1<<31:
		return Geometry{}, fmt.Errorf("kernel: torus of side %d", n)
	}
	sites := 1
	for range dim {
		if int64(sites) >= (1<<31)/int64(n) {
			return Geometry{}, fmt.Errorf("kernel: torus of %d^%d sites", n, dim)
		}
		sites *= n
	}
	g := Geometry{Dim: dim, Side: n, Sites: sites, Mod: [3]int{1, 1, 1}, Div: ^uint64(0)/uint64(n) + 1}
	stride := 1
	for a := dim - 1; a >= 0; a-- {
		g.Mod[3-dim+a] = stride * n
		stride *= n
	}
	return g, nil
}

// Components returns the components of offset e, axis 0 first (unused
// axes 0).
func (g *Geometry) Components(e *TorusEnt) [3]int32 {
	var c [3]int32
	for a := range g.Dim {
		c[a] = e.D[3-g.Dim+a] / int32(g.Mod[3-g.Dim+a]/g.Side)
	}
	return c
}

// TorusEnt is one offset as a hot loop reads it: D its components, each
// multiplied by its axis's stride, in the padded three-axis view; K its
// index k if its weight is positive, ^k if negative (φ̃ = M when the pair
// differs), or LightBucket for the light bucket of a TorusTable column.
type TorusEnt struct {
	D [3]int32
	K int32
}

// LightBucket is the TorusEnt.K of a TorusTable column entry that stands for the
// light offsets: the pick continues in TorusTable.Light.
const LightBucket = math.MinInt32

// NewEnts returns the Ents of the offsets of a lattice of dimension dim
// (1–3) and side n: offset k has the components comps[k] (axis 0 first, each
// in (−n, n); a lattice's canonical components are in (−n/2, n/2]) and a non-zero weight of the sign of w[k]. It returns an
// error for a component out of range or a zero weight.
func NewEnts(dim, n int, comps [][3]int32, w []float64) ([]TorusEnt, error) {
	switch {
	case dim < 1 || dim > 3:
		return nil, fmt.Errorf("kernel: torus of dimension %d", dim)
	case n < 2 || int64(n) >= 1<<31:
		return nil, fmt.Errorf("kernel: torus of side %d", n)
	case len(comps) != len(w) || len(comps) == 0 || len(comps) > math.MaxInt32:
		return nil, fmt.Errorf("kernel: torus with %d offsets and %d weights", len(comps), len(w))
	}
	off := make([]TorusEnt, len(comps))
	for k, c := range comps {
		stride := 1
		for a := dim - 1; a >= 0; a-- {
			v := int(c[a])
			if v <= -n || v >= n {
				return nil, fmt.Errorf("kernel: offset %d: component %d along axis %d is not in (−%d, %d)", k, v, a, n, n)
			}
			off[k].D[3-dim+a] = int32(v * stride)
			stride *= n
		}
		switch {
		case w[k] > 0:
			off[k].K = int32(k)
		case w[k] < 0:
			off[k].K = ^int32(k)
		default:
			return nil, fmt.Errorf("kernel: offset %d has weight %v", k, w[k])
		}
	}
	return off, nil
}

// NewTorus returns the compiled form of a lattice of dimension dim (1–3)
// and side n with q states per site, whose offsets are off (from NewEnts),
// with signed Potts weights W_k = ±M_k (by decreasing |W|), picked from
// table (built over the same offsets, see NewTorusTable). The Torus keeps
// off and w, which the caller must not modify. It returns an error for
// arguments the loops cannot run on.
func NewTorus(dim, n, q int, ising bool, off []TorusEnt, w []float64, table *TorusTable) (*Torus, error) {
	g, err := NewGeometry(dim, n)
	switch {
	case err != nil:
		return nil, err
	case q < 2:
		return nil, fmt.Errorf("kernel: torus with %d states", q)
	case len(off) != len(w) || len(off) == 0:
		return nil, fmt.Errorf("kernel: torus with %d offsets and %d weights", len(off), len(w))
	case table == nil || len(table.Off) != len(off):
		return nil, errors.New("kernel: torus without a pick table over its offsets")
	}
	t := &Torus{Geometry: g, States: q, Ising: ising, Off: off, W: w, Table: table}
	for k, wk := range w {
		if (wk > 0) != (off[k].K >= 0) || wk == 0 {
			return nil, fmt.Errorf("kernel: offset %d: weight %v and entry sign disagree", k, wk)
		}
		t.L += math.Abs(wk)
	}
	t.NN = isNN(dim, n, off)
	t.Uniform = len(w) <= 1<<16
	for _, wk := range w {
		if wk != w[0] {
			t.Uniform = false
			break
		}
	}
	if t.Uniform {
		kk := len(w)
		if q == 2 {
			t.Heat = make([]uint64, kk+1)
			for n1 := range t.Heat {
				t.Heat[n1] = minibatch.Threshold(1 / (1 + math.Exp(w[0]*float64(kk-2*n1))))
			}
		} else {
			t.ExpGap = make([]float64, kk+1)
			for g := range t.ExpGap {
				t.ExpGap[g] = math.Exp(-math.Abs(w[0]) * float64(g))
			}
		}
	}
	return t, nil
}

// isNN reports whether off are the 2·dim unit vectors ±e_a, each once, on
// a side of 3 or more.
func isNN(dim, n int, off []TorusEnt) bool {
	if n < 3 || len(off) != 2*dim {
		return false
	}
	var found [3][2]bool
	stride := 1
	for a := 2; a >= 3-dim; a-- {
		for _, e := range off {
			nz := 0
			for b, d := range e.D {
				if d != 0 {
					nz++
					if b != a {
						continue
					}
					switch int(d) {
					case stride:
						found[a][0] = true
					case -stride:
						found[a][1] = true
					}
				}
			}
			if nz != 1 {
				return false
			}
		}
		stride *= n
	}
	for a := 3 - dim; a < 3; a++ {
		if !found[a][0] || !found[a][1] {
			return false
		}
	}
	return true
}

// Bases returns the components of site i (0 ≤ i < Sites) in the padded
// three-axis view, each multiplied by its stride: i = b0 + b1 + b2.
func (g *Geometry) Bases(i int) (b0, b1, b2 int) {
	n := g.Side
	switch g.Dim {
	case 1:
		return 0, 0, i
	case 2:
		hi, _ := bits.Mul64(g.Div, uint64(i))
		r := int(hi) * n
		return 0, r, i - r
	}
	hi, _ := bits.Mul64(g.Div, uint64(i))
	rc := int(hi) // z·N + y
	hi, _ = bits.Mul64(g.Div, uint64(rc))
	z := int(hi)
	return z * n * n, (rc - z*n) * n, i - rc*n
}

// Neighbour returns the site at offset e of the site with bases b.
func (g *Geometry) Neighbour(b0, b1, b2 int, e *TorusEnt) int {
	return Wrap(b0+int(e.D[0]), g.Mod[0]) + Wrap(b1+int(e.D[1]), g.Mod[1]) + Wrap(b2+int(e.D[2]), g.Mod[2])
}

// Wrap brings c ∈ [−m, 2m) back to [0, m), without a branch (whether an
// offset wraps depends on the site: a branch would be mispredicted near the
// torus's seams).
func Wrap(c, m int) int {
	c += m & (c >> (bits.UintSize - 1)) // c < 0: c + m ∈ [0, m)
	d := c - m
	return d + m&(d>>(bits.UintSize-1)) // d < 0: c
}

// HeavyMax is the largest number of offsets a TorusTable keeps in its flat
// packed table: HeavyMax columns of 40 bytes (40 KB) stay in cache beside
// the state, and one 64-bit word picks among them. (Measured on the
// 10⁶-offset power-law lattice: 1024 beats 256, 4096 and 16384.)
const HeavyMax = 1024

// TorusCol is column c of a TorusTable's flat alias table, packed with the
// two entries it can return so that a pick reads one record: with (hi, lo)
// the 128-bit product of a 64-bit random word and the number of columns,
// the column is hi, and the pick is Ent[0] (the column's own entry) if
// lo < Thr, else Ent[1] (its alias).
type TorusCol struct {
	Thr uint64
	Ent [2]TorusEnt
}

// LightCol is column c of the alias table of one light tier of a
// TorusTable: the pick is the tier's entry c if lo < Thr, else Alias
// (indices within the tier).
type LightCol struct {
	Thr   uint64
	Alias int32
	_     int32
}

// TorusTable draws an offset k of a lattice with probability w_k/Σw.
//
// The first Heavy offsets (the heaviest, when the weights decrease) have a
// flat alias table of packed columns, Cols. The others are cut into tiers
// of Heavy, 2·Heavy, 4·Heavy, … consecutive offsets, each with a flat
// alias table of its own (Light, aligned with Off[Heavy:]) and one entry in
// Cols, a bucket of weight the tier's total: TorusEnt{K: LightBucket, D:
// {first, size, 0}}, first the tier's first offset relative to Heavy. A
// pick of a heavy offset costs one 64-bit word and one 40-byte record that
// stays in cache; a light one a second word, one 16-byte column and the
// offset's entry in Off. Every offset has exactly the probability w_k/Σw
// of one flat table.
type TorusTable struct {
	// Cols is the flat table over the heavy offsets and the tiers' buckets.
	Cols []TorusCol
	// Light holds the tiers' columns, aligned with Off[Heavy:].
	Light []LightCol
	// Heavy is the number of offsets of the flat table.
	Heavy int
	// Off are the K offsets (TorusEnt.K their index, or its complement).
	Off []TorusEnt
}

// lightTiers returns the bounds [lo, hi) of the light tiers of nl light
// offsets, relative to the first light one.
func lightTiers(h, nl int) [][2]int {
	var tiers [][2]int
	for lo, size := 0, h; lo < nl; lo, size = lo+size, 2*size {
		tiers = append(tiers, [2]int{lo, min(nl, lo+size)})
	}
	return tiers
}

// NewTorusTable returns a table over the offsets off (to be built).
func NewTorusTable(off []TorusEnt) *TorusTable {
	kk := len(off)
	h := min(kk, HeavyMax)
	t := &TorusTable{Heavy: h, Off: off}
	t.Cols = make([]TorusCol, h+len(lightTiers(h, kk-h)))
	t.Light = make([]LightCol, kk-h)
	return t
}

// Build fills the table in place for the weights w, one per offset; work
// is scratch space of at least len(w) elements. It returns an error for
// weights an alias table rejects.
func (t *TorusTable) Build(w []float64, work []int32) error {
	kk, h := len(t.Off), t.Heavy
	if len(w) != kk || len(work) < kk {
		return fmt.Errorf("kernel: torus table over %d offsets built with %d weights and %d scratch", kk, len(w), len(work))
	}
	// Built once per lattice: the scratch tables are not worth avoiding.
	tiers := lightTiers(h, kk-h)
	flat := make([]float64, len(t.Cols))
	copy(flat, w[:h])
	buckets := make([]TorusEnt, len(tiers))
	for b, tr := range tiers {
		lo, hi := tr[0], tr[1]
		for _, x := range w[h+lo : h+hi] {
			flat[h+b] += x
		}
		buckets[b] = TorusEnt{K: LightBucket, D: [3]int32{int32(lo), int32(hi - lo), 0}}
		if flat[h+b] == 0 { // a tier of zero weight is never picked
			for c := lo; c < hi; c++ {
				t.Light[c] = LightCol{Thr: math.MaxUint64, Alias: int32(c - lo)}
			}
			continue
		}
		a, err := minibatch.NewAlias(w[h+lo : h+hi])
		if err != nil {
			return err
		}
		for c := range a.Prob {
			t.Light[lo+c] = LightCol{Thr: threshold(a, c), Alias: a.Index[c]}
		}
	}
	a, err := minibatch.NewAlias(flat)
	if err != nil {
		return err
	}
	ent := func(c int) TorusEnt {
		if c >= h {
			return buckets[c-h]
		}
		return t.Off[c]
	}
	for c := range t.Cols {
		t.Cols[c] = TorusCol{Thr: threshold(a, c), Ent: [2]TorusEnt{ent(c), ent(int(a.Index[c]))}}
	}
	return nil
}

// threshold returns the integer threshold of column c of a: the own entry
// if the word's fraction is below it. A column that keeps its own entry
// (probability 1, alias itself) gets the largest threshold: its alias, taken
// once in 2⁶⁴ picks, is itself.
func threshold(a minibatch.Alias, c int) uint64 {
	if a.Prob[c] >= 1 || a.Index[c] == int32(c) {
		return math.MaxUint64
	}
	return minibatch.Threshold(a.Prob[c])
}

// Pick returns an offset k drawn with probability w_k/Σw.
func (t *TorusTable) Pick(r *rand.Rand) int {
	return t.PickEnt(r).Index()
}

// PickEnt returns the entry of an offset drawn with probability w_k/Σw.
func (t *TorusTable) PickEnt(r *rand.Rand) *TorusEnt {
	hi, lo := bits.Mul64(r.Uint64(), uint64(len(t.Cols)))
	col := &t.Cols[hi]
	e := &col.Ent[0]
	if lo >= col.Thr {
		e = &col.Ent[1]
	}
	if e.K == LightBucket {
		e = t.PickLight(r, e)
	}
	return e
}

// PickLight continues a pick that landed on bucket b: an offset of b's
// tier.
func (t *TorusTable) PickLight(r *rand.Rand, b *TorusEnt) *TorusEnt {
	first := int(b.D[0])
	hi, lo := bits.Mul64(r.Uint64(), uint64(b.D[1]))
	c := int(hi)
	if lc := &t.Light[first+c]; lo >= lc.Thr {
		c = int(lc.Alias)
	}
	return &t.Off[t.Heavy+first+c]
}

// Index returns the index k of the offset e (not a bucket).
func (e *TorusEnt) Index() int { return int(e.K ^ (e.K >> 31)) }
