package minibatch

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// TableMaxMean is the largest mean NewPoissonTable builds a table for.
const TableMaxMean = 256

// guideBits bounds the guide of a table to 2^guideBits entries (512
// bytes) where it gives more than two a cell.
const guideBits = 8

// tableTail is the probability mass left beyond a Poisson table: the search
// past it continues by the pmf recurrence (about once in 2⁴⁰ draws).
const tableTail = 0x1p-40

// guided is inversion with a guide table (Chen & Asau 1974; Devroye,
// Non-Uniform Random Variate Generation, §III.2.4) over the cells of a
// discrete law: one 64-bit word u, its top bits index guide, whose entry
// is the first cell whose threshold may exceed u, and a short scan finds
// the first cell k with u < cdf[k].
type guided struct {
	cdf   []uint64 // cdf[k] = ⌊P(cell ≤ k)·2⁶⁴⌋
	guide []uint16 // guide[g] = first k with cdf[k] > g·2^shift
	shift uint
}

// setGuide builds a guide of 2^bitsG entries over g.cdf.
func (g *guided) setGuide(bitsG int) {
	g.shift = uint(64 - bitsG)
	g.guide = make([]uint16, 1<<bitsG)
	k := 0
	for e := range g.guide {
		b := uint64(e) << g.shift
		for k < len(g.cdf)-1 && g.cdf[k] <= b {
			k++
		}
		g.guide[e] = uint16(k)
	}
}

// find returns the first cell k with u < cdf[k], or len(cdf) if u is at
// or above the last threshold.
func (g *guided) find(u uint64) int {
	k := int(g.guide[u>>g.shift])
	cdf := g.cdf
	for k < len(cdf) && u >= cdf[k] {
		k++
	}
	return k
}

// poissonTable is a guide table for Poisson(mean) (one fixed mean): the
// scan from a guide entry takes under one step on average.
type poissonTable struct {
	guided // cdf[k] = ⌊P(K ≤ k)·2⁶⁴⌋, up to P(K > k) < tableTail
	mean   float64
	pLast  float64 // P(K = len(cdf)−1), where the tail's recurrence starts
}

// NewPoissonTable returns a generator for Poisson(mean) that draws by
// inversion through a guide table: one 64-bit random word and a couple of
// comparisons a draw, in a few cache lines, for a mean drawn from many
// times (a per-variable minibatch size). It falls back to NewPoissonGen
// for a mean ≤ 0 or above TableMaxMean. It draws exactly from the Poisson
// distribution up to the rounding of its CDF (computed in float64: relative
// errors of a few ulps per cell); the mass beyond the table (< 2⁻⁴⁰) is
// searched by the pmf recurrence, not cut off.
func NewPoissonTable(mean float64) PoissonGen {
	if !(mean > 0 && mean <= TableMaxMean) {
		return NewPoissonGen(mean)
	}
	t := &poissonTable{mean: mean}
	p := math.Exp(-mean)
	sum := 0.0
	for k := 0; ; k++ {
		sum += p
		t.cdf = append(t.cdf, Threshold(sum))
		t.pLast = p
		if 1-sum < tableTail && float64(k) > mean {
			break
		}
		p *= mean / float64(k+1)
	}
	// A guide of at least twice as many entries as cells, the scan from a
	// guide entry crossing under one cell boundary on average; of sixteen
	// times as many up to guideBits, where the scan rarely crosses one and
	// its branch is predicted (a draw from a mean of 5: 15.5 → 11 ns).
	t.setGuide(max(bits.Len(uint(2*len(t.cdf))-1), min(bits.Len(uint(16*len(t.cdf))-1), guideBits)))
	g := NewPoissonGen(mean)
	g.tab = t
	return g
}

// rand draws from the table.
func (t *poissonTable) rand(r *rand.Rand) int {
	for {
		u := r.Uint64()
		k := t.find(u)
		cdf := t.cdf
		if k < len(cdf) {
			return k
		}
		// The tail: u is uniform on [cdf[K], 2⁶⁴); go on subtracting
		// p_{K+1}, p_{K+2}, … from its excess, as inversion does.
		v := float64(u-cdf[len(cdf)-1]) * 0x1p-64
		p := t.pLast
		for k := len(cdf); p > 0; k++ {
			p *= t.mean / float64(k)
			if v < p {
				return k
			}
			v -= p
		}
		// Rounding left v above the tail's mass: draw again.
	}
}
