package minibatch

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// PairMaxCells bounds the cells of a PoissonPair's joint table; a pair of
// means that needs more draws its two counts apart.
const PairMaxCells = 256

// pairTail is the largest mass a joint table leaves beyond each count's
// range: a draw falls outside its rectangle about once in 2¹⁹ and is then
// drawn from the rest of the law (PoissonPair.outside).
const pairTail = 0x1p-20

// PoissonPair draws two independent counts, Poisson(mean1) and
// Poisson(mean2), together: one 64-bit random word picks a cell (k1, k2)
// of a rectangle that holds all but about 2⁻¹⁹ of their joint law, from
// a Walker alias table over its cells and one more cell for the rest of
// the law (drawn exactly when picked, pairTable.outside). The pick has
// no data-dependent branch (the column and its threshold come from the
// one word, as in Alias.Pick), where inversion through a guide table
// (Chen & Asau 1974, as NewPoissonTable for one count) scanned a
// number of cells that varies with the word (Poisson-Gibbs's update on
// the paper's model: 0.515 → 0.459 of the hand-written loop,
// BenchmarkStepPaired). A caller that draws both counts many times —
// Poisson-Gibbs's two phases — halves its draws. Means whose rectangle
// would exceed PairMaxCells cells are drawn apart, each from its own
// generator, as is the zero value.
type PoissonPair struct {
	cols   []pairCol // the joint table's alias columns, or nil
	g1, g2 PoissonGen
	tab    *pairTable
}

// pairCol is a column of PoissonPair's alias table: its own cell and its
// alias, each packed as k1<<8 | k2 (outsideCell for the rest of the
// law), and the threshold below which the low word of the pick keeps
// the own cell.
type pairCol struct {
	thr  uint64
	cell [2]uint16 // [0] the alias, [1] the column's own cell
}

// outsideCell marks the cell of the mass beyond the rectangle; no cell
// of at most PairMaxCells has both counts 255.
const outsideCell = 0xffff

// pairTable is what the draws outside the rectangle k1 < n1, k2 < n2
// need: the laws' masses t1, t2 at and beyond n1, n2 and their
// probabilities p1, p2 at n1, n2.
type pairTable struct {
	n1, n2       int
	m1, m2       float64
	t1, t2       float64
	p1, p2       float64
	outsideShare float64 // t1 / (t1 + (1 − t1)·t2): the share of k1 ≥ n1 outside
}

// NewPoissonPair returns a generator of Poisson(mean1) and Poisson(mean2)
// counts, independent. A mean ≤ 0 gives counts that are always 0. It
// panics on a mean NewPoissonGen refuses (NaN or above MaxMean).
func NewPoissonPair(mean1, mean2 float64) PoissonPair {
	n1, n2 := pairRange(mean1), pairRange(mean2)
	if n1 == 0 || n2 == 0 || n1*n2 > PairMaxCells {
		return PairOf(NewPoissonTable(mean1), NewPoissonTable(mean2))
	}
	p := PairOf(NewPoissonGen(mean1), NewPoissonGen(mean2)) // Means
	p.cols, p.tab = newPairTable(mean1, mean2, n1, n2)
	return p
}

// PairOf returns the pair of generators g1 and g2 without a joint table
// (it allocates nothing): its counts are drawn apart.
func PairOf(g1, g2 PoissonGen) PoissonPair { return PoissonPair{g1: g1, g2: g2} }

// pairRange returns the n for which P(K ≥ n) < pairTail, n > mean, at most
// 256; 0 for a mean ≤ 0 or one that needs more.
func pairRange(mean float64) int {
	if !(mean > 0) || mean > TableMaxMean {
		return 0
	}
	p, sum := math.Exp(-mean), 0.0
	for k := 0; k < 256; k++ {
		sum += p
		if 1-sum < pairTail && float64(k) > mean {
			return k + 1
		}
		p *= mean / float64(k+1)
	}
	return 0
}

// poissonPMF returns P(K = k) for k < n, then P(K = n) and P(K ≥ n) (the
// latter summed over the tail, not as 1 − Σ).
func poissonPMF(mean float64, n int) (pmf []float64, pn, tail float64) {
	p := math.Exp(-mean)
	for k := range n {
		pmf = append(pmf, p)
		p *= mean / float64(k+1)
	}
	pn = p
	for k := n; p > 0 && p >= tail*0x1p-60; k++ {
		tail += p
		p *= mean / float64(k+1)
	}
	return pmf, pn, tail
}

// newPairTable builds the alias columns of the rectangle k1 < n1, k2 <
// n2 (row-major cells, then the cell outside) and what draws outside it
// need.
func newPairTable(mean1, mean2 float64, n1, n2 int) ([]pairCol, *pairTable) {
	pmf1, p1, t1 := poissonPMF(mean1, n1)
	pmf2, p2, t2 := poissonPMF(mean2, n2)
	t := &pairTable{n1: n1, n2: n2, m1: mean1, m2: mean2, t1: t1, t2: t2, p1: p1, p2: p2}
	inside1 := 0.0 // P(K1 < n1)
	for _, q := range pmf1 {
		inside1 += q
	}
	t.outsideShare = t1 / (t1 + inside1*t2)
	n := n1 * n2
	w := make([]float64, 0, n+1)
	cells := make([]uint16, 0, n+1)
	for k1, q1 := range pmf1 {
		for k2, q2 := range pmf2 {
			w = append(w, q1*q2)
			cells = append(cells, uint16(k1<<8|k2))
		}
	}
	// The rest of the law: 0 where both tails underflow (Rand then draws
	// again the once in 10³⁰⁰ rounding picks it).
	w = append(w, t1+inside1*t2)
	cells = append(cells, outsideCell)
	a, err := NewAlias(w)
	if err != nil {
		panic("minibatch: joint Poisson table: " + err.Error()) // the cells of means NewPoissonGen accepts are finite and not all 0
	}
	cols := make([]pairCol, len(w))
	for k := range cols {
		cols[k] = pairCol{thr: Threshold(a.Prob[k]), cell: [2]uint16{cells[a.Index[k]], cells[k]}}
	}
	return cols, t
}

// Means returns the two means the generator draws with.
func (p *PoissonPair) Means() (float64, float64) { return p.g1.Mean(), p.g2.Mean() }

// Rand returns a draw of the two counts, using only r for randomness.
func (p *PoissonPair) Rand(r *rand.Rand) (int, int) {
	cols := p.cols
	if cols == nil {
		return p.g1.Rand(r), p.g2.Rand(r)
	}
	for {
		// One word: the high half of x·n the column, the low half its
		// threshold test (Column), the cell chosen without a branch.
		hi, lo := bits.Mul64(r.Uint64(), uint64(len(cols)))
		col := &cols[hi]
		_, own := bits.Sub64(lo, col.thr, 0) // 1 if lo < thr
		if c := col.cell[own]; c != outsideCell {
			return int(c >> 8), int(c & 0xff)
		}
		if t := p.tab; t.t1 > 0 || t.t2 > 0 {
			return t.outside(r)
		}
		// Both tails underflowed (means of 1e-300): the rectangle holds
		// the whole law, and only rounding picked the cell beyond it;
		// draw again.
	}
}

// outside draws the counts given that they lie outside the rectangle (u
// fell beyond its last threshold, about once in 2¹⁹ draws): k1 ≥ n1 with
// its share of that mass, k1 then from its tail and k2 from its law; else
// k1 < n1 from its law restricted so (by rejection, which accepts at once
// but for 2⁻²⁰ of draws) and k2 from its tail.
func (t *pairTable) outside(r *rand.Rand) (int, int) {
	if r.Float64() < t.outsideShare {
		return tailDraw(r, t.m1, t.n1, t.p1, t.t1), Poisson(r, t.m2)
	}
	for {
		if k1 := Poisson(r, t.m1); k1 < t.n1 {
			return k1, tailDraw(r, t.m2, t.n2, t.p2, t.t2)
		}
	}
}

// tailDraw draws K ~ Poisson(mean) given K ≥ n, from P(K = n) = pn and
// P(K ≥ n) = tail, by sequential inversion; a search that rounding runs
// past the tail's mass starts again.
func tailDraw(r *rand.Rand, mean float64, n int, pn, tail float64) int {
	for {
		v := r.Float64() * tail
		p := pn
		for k := n; p > 0; k++ {
			if v < p {
				return k
			}
			v -= p
			p *= mean / float64(k+1)
		}
	}
}
