package minibatch

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Alias is a Walker alias table for drawing an index k ∈ [0, n) with
// probability w_k / Σ_j w_j in O(1) time (Vose's construction, O(n) to build).
//
// An Alias is a view of two slices; the zero value is empty and must not be
// picked from. Copying an Alias copies the view, not the table.
type Alias struct {
	// Prob[k] is the probability of keeping column k rather than taking
	// its alias, in [0, 1].
	Prob []float64
	// Index[k] is the alias of column k.
	Index []int32
}

// NewAlias returns an alias table for the weights w. It returns an error if
// w is empty, holds a negative, NaN or infinite weight, or sums to zero.
func NewAlias(w []float64) (Alias, error) {
	a := Alias{Prob: make([]float64, len(w)), Index: make([]int32, len(w))}
	if err := a.Build(w, make([]int32, len(w))); err != nil {
		return Alias{}, err
	}
	return a, nil
}

// Build fills the table in place for the weights w; a.Prob and a.Index must
// have len(w) elements. work is scratch space of at least len(w) elements.
// Build allocates nothing, so tables for many segments of one flat array can
// be built without garbage (see factorgraph's per-variable tables).
func (a Alias) Build(w []float64, work []int32) error {
	n := len(w)
	if n == 0 {
		return errors.New("minibatch: alias table over no weights")
	}
	if len(a.Prob) != n || len(a.Index) != n || len(work) < n {
		return fmt.Errorf("minibatch: alias table slices of length %d, %d, %d for %d weights", len(a.Prob), len(a.Index), len(work), n)
	}
	total := 0.0
	for k, wk := range w {
		if !(wk >= 0) || math.IsInf(wk, 1) {
			return fmt.Errorf("minibatch: weight %d is %v; weights must be finite and non-negative", k, wk)
		}
		total += wk
	}
	if total == 0 || math.IsInf(total, 1) {
		return fmt.Errorf("minibatch: weights sum to %v", total)
	}
	// Vose: scaled weights p_k = n·w_k/W; "small" columns (p < 1) are topped up
	// by "large" ones. work holds small indices from the front and large
	// indices from the back.
	scale := float64(n) / total
	small, large := 0, n
	for k, wk := range w {
		a.Prob[k] = wk * scale
		if a.Prob[k] < 1 {
			work[small] = int32(k)
			small++
		} else {
			large--
			work[large] = int32(k)
		}
	}
	s, l := 0, large
	for s < small && l < n {
		sk, lk := work[s], work[l]
		s++
		a.Index[sk] = lk
		a.Prob[lk] -= 1 - a.Prob[sk]
		if a.Prob[lk] < 1 {
			// lk becomes small: reuse the slot just freed at the front.
			// Slots [s, small) are pending small columns; place lk at s-1.
			s--
			work[s] = lk
			l++
		}
	}
	// Whatever remains has probability 1 up to rounding.
	for ; s < small; s++ {
		a.Prob[work[s]] = 1
		a.Index[work[s]] = work[s]
	}
	for ; l < n; l++ {
		a.Prob[work[l]] = 1
		a.Index[work[l]] = work[l]
	}
	return nil
}

// Len returns the number of columns of the table.
func (a Alias) Len() int { return len(a.Prob) }

// Pick returns an index drawn with probability proportional to its weight,
// using one 64-bit word from r (see Column).
func (a Alias) Pick(r *rand.Rand) int {
	k, lo := column(r, len(a.Prob))
	if unit(lo) < a.Prob[k] {
		return k
	}
	return int(a.Index[k])
}

// Column is the first half of an alias pick from a table of n columns: a
// uniform column k and a uniform u ∈ [0, 1) from one 64-bit word x of r.
// The 128-bit product x·n is split: its high word is k = ⌊x·n/2⁶⁴⌋, its low
// word the fraction x·n/2⁶⁴ − k, whose top 53 bits give u = (lo>>11)·2⁻⁵³,
// a float of the same resolution as r.Float64. Given k, u is uniform and
// independent of k; each column has probability 1/n and each threshold
// test u < p probability ⌈p·2⁵³⌉·2⁻⁵³, both to within n·2⁻⁶⁴. The pick is k
// if u < Prob[k], else Index[k]. Tables stored in other layouts (such as
// factorgraph's per-variable entries) finish the pick themselves.
//
// (Splitting r.Float64()·n into integer and fractional part instead, as
// this package did before, leaves u only 53 − log₂ n bits.)
func Column(r *rand.Rand, n int) (k int, u float64) {
	k, lo := column(r, n)
	return k, unit(lo)
}

// column returns Column's k and the low word it takes u from; unlike
// Column it is small enough for the compiler to inline.
func column(r *rand.Rand, n int) (int, uint64) {
	hi, lo := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi), lo
}

// unit returns the top 53 bits of x as a float in [0, 1).
func unit(x uint64) float64 { return float64(x>>11) * 0x1p-53 }
