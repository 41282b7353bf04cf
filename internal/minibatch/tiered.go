package minibatch

import (
	"fmt"
	"math/rand/v2"
)

// TierBase is the size of the first tier of a Tiered table; tier t holds
// TierBase·2^t entries.
const TierBase = 8

// FlatMax is the largest table kept in one tier: up to FlatMax entries
// (6 KB of columns) a flat table stays in cache and one pick (one uniform
// variate) beats two.
const FlatMax = 512

// NumTiers returns the number of tiers of a Tiered table over n entries:
// 1 up to FlatMax, else tiers of 8, 16, 32, … entries.
func NumTiers(n int) int {
	if n <= FlatMax {
		return 1
	}
	t, lo := 0, 0
	for lo < n {
		lo += TierBase << t
		t++
	}
	return t
}

// TierBounds returns the entries [lo, hi) of tier t of a table over n entries.
func TierBounds(t, n int) (lo, hi int) {
	if n <= FlatMax {
		return 0, n
	}
	lo = TierBase * ((1 << t) - 1)
	return lo, min(n, lo+TierBase<<t)
}

// Tiered is an alias table split into tiers of 8, 16, 32, … consecutive
// entries (a single tier when there are at most FlatMax): a pick chooses a tier from a small alias table over the tiers'
// total weights, then an entry from the tier's own alias table. The result
// has exactly the probability w_k/Σw of one flat table.
//
// Built over weights sorted in decreasing order, a pick reads a few cache
// lines however many entries there are when a few weights hold most of the
// mass, as with a coupling kernel that decays with distance: the heavy tiers
// are small and stay in cache, the large light tiers are rarely visited. A
// flat table reads a uniformly random column of all n, one cache miss a pick
// once the table outgrows the cache.
//
// Top is the table over tiers; Cols holds one column per entry, tier t's
// columns forming a table over that tier with indices relative to the tier.
type Tiered struct {
	Top  Alias
	Cols Alias
}

// Build fills the table for weights w; Top must have NumTiers(len(w))
// columns and Cols len(w). work must have at least len(w) elements. No
// allocation.
func (a Tiered) Build(w []float64, work []int32) error {
	n := len(w)
	nt := NumTiers(n)
	if len(a.Top.Prob) != nt || len(a.Cols.Prob) != n {
		return fmt.Errorf("minibatch: tiered table with %d tier and %d entry columns for %d weights (want %d, %d)",
			len(a.Top.Prob), len(a.Cols.Prob), n, nt, n)
	}
	if n == 0 {
		return fmt.Errorf("minibatch: alias table over no weights")
	}
	// Tier totals go in the tail of work's float view: reuse Cols.Prob as
	// scratch for them is unsafe, so use a small stack array when possible.
	var totals [64]float64
	for t := range nt {
		lo, hi := TierBounds(t, n)
		s := 0.0
		for _, x := range w[lo:hi] {
			s += x
		}
		totals[t] = s
	}
	if err := a.Top.Build(totals[:nt], work); err != nil {
		return err
	}
	for t := range nt {
		lo, hi := TierBounds(t, n)
		col := Alias{Prob: a.Cols.Prob[lo:hi], Index: a.Cols.Index[lo:hi]}
		if totals[t] == 0 { // a tier of zero weight is never picked
			for k := range col.Prob {
				col.Prob[k], col.Index[k] = 1, int32(k)
			}
			continue
		}
		if err := col.Build(w[lo:hi], work); err != nil {
			return err
		}
	}
	return nil
}

// Pick returns entry k with probability w_k/Σw, from one 64-bit word of r
// for the tier (when there are several) and one for the entry (see Column).
// Two words, not one: the low word left by the tier's pick is uniform, but
// its top bits have already decided the tier's alias test (u < Prob[t]),
// so picking the entry with them would tie the entry to that decision.
func (a Tiered) Pick(r *rand.Rand) int {
	lo := 0
	n := len(a.Cols.Prob)
	if nt := len(a.Top.Prob); nt > 1 {
		t, u := column(r, nt)
		if unit(u) >= a.Top.Prob[t] {
			t = int(a.Top.Index[t])
		}
		var hi int
		lo, hi = TierBounds(t, n)
		n = hi - lo
	}
	k, u := column(r, n)
	if unit(u) < a.Cols.Prob[lo+k] {
		return lo + k
	}
	return lo + int(a.Cols.Index[lo+k])
}
