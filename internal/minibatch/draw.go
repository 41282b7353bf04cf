package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Source supplies the two operations of a thinned Poisson draw: a pick of an
// item with probability w_k/W, and the probability of keeping a picked item.
type Source interface {
	// Pick returns an item k drawn with probability w_k/W.
	Pick(r *rand.Rand) int
	// Keep returns the probability rate_k / (total·w_k/W) of keeping a
	// pick of k, where rate_k is the Poisson mean wanted for s_k. A value
	// of 1 or more keeps k without drawing a uniform variate.
	Keep(k int) float64
}

// MaxMean bounds the mean of a draw. A step that expects more picks than
// this (10¹⁵, far beyond anything that finishes) comes from a model or an
// option that cannot work, such as a factor whose declared range is
// astronomically wide; samplers check their means against it with
// CheckMean and report an error instead of looping for ever.
const MaxMean = 1e15

// CheckMean returns an error if a draw of mean total cannot be made: NaN,
// negative, infinite or above MaxMean.
func CheckMean(total float64) error {
	if !(total >= 0) || total > MaxMean {
		return fmt.Errorf("a minibatch of mean size %g cannot be drawn (the limit is %g): the factors' ranges or λ are too large", total, float64(MaxMean))
	}
	return nil
}

// Threshold returns the integer t for which r.Uint64() < t has
// probability p, exact to 2⁻⁶⁴: t = ⌊p·2⁶⁴⌋. A p ≤ 0 (or NaN) gives 0,
// never true. A p ≥ 1 gives math.MaxUint64, true with probability
// 1 − 2⁻⁶⁴ only: a caller whose p can be 1 handles it by keeping without a
// draw, as Draw does with Keep ≥ 1. Precomputed thresholds let a hot loop
// thin with an integer comparison and no float conversion.
func Threshold(p float64) uint64 {
	if !(p > 0) {
		return 0
	}
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(p * 0x1p64) // p < 1, so p·2⁶⁴ ≤ 2⁶⁴ − 2¹¹: no overflow
}

// Draw samples independent counts s_k ~ Poisson(rate_k) by thinning
// (Statement 1 of Zhang & De Sa 2019; Appendix D of Zhang, Cooper & De Sa
// 2020): B ~ Poisson(total), B picks from src, each kept with probability
// src.Keep(k). The kept counts are accumulated into c, which Draw resets
// first. Draw returns B, the number of picks (the "batch size" of TunaMH).
//
// The rates must satisfy rate_k ≤ total·w_k/W; a Keep above 1 means the
// bound is violated and the caller's model is wrong (callers check this).
func Draw(r *rand.Rand, total float64, src Source, c *Counts) int {
	c.Reset()
	return thin(r, Poisson(r, total), src, c)
}

// thin makes b picks from src, keeps each with probability src.Keep(k)
// into c, and returns b.
func thin(r *rand.Rand, b int, src Source, c *Counts) int {
	for range b {
		k := src.Pick(r)
		if p := src.Keep(k); p >= 1 || r.Float64() < p {
			c.Add(k)
		}
	}
	return b
}

// Counts accumulates how many times each item k ∈ [0, n) was added since
// the last Reset, without hashing: a stamp per item says whether its count
// belongs to the current round, so Reset is O(1).
type Counts struct {
	stamp []uint32
	count []int32
	cur   uint32
	keys  []int32
}

// NewCounts returns counts over n items.
func NewCounts(n int) *Counts {
	return &Counts{
		stamp: make([]uint32, n),
		count: make([]int32, n),
		cur:   1,
		keys:  make([]int32, 0, min(n, 1024)), // distinct keys rarely outgrow this: no growth in steady state
	}
}

// Reset forgets all counts in O(1).
func (c *Counts) Reset() {
	c.keys = c.keys[:0]
	c.cur++
	if c.cur == 0 { // wrapped after 2^32 rounds: clear the stamps once.
		clear(c.stamp)
		c.cur = 1
	}
}

// Add counts one more copy of item k.
func (c *Counts) Add(k int) {
	if c.stamp[k] != c.cur {
		c.stamp[k] = c.cur
		c.count[k] = 1
		c.keys = append(c.keys, int32(k))
		return
	}
	c.count[k]++
}

// Keys returns the distinct items added since the last Reset, in the order
// they were first added. The slice is valid until the next Reset or Add.
func (c *Counts) Keys() []int32 { return c.keys }

// Count returns the count of item k since the last Reset.
func (c *Counts) Count(k int) int {
	if c.stamp[k] != c.cur {
		return 0
	}
	return int(c.count[k])
}

// Len returns the number of distinct items added since the last Reset.
func (c *Counts) Len() int { return len(c.keys) }

// Cap returns the number of items the counts range over.
func (c *Counts) Cap() int { return len(c.stamp) }

// Stopper supplies the picks of a thinned draw that can end early, such as
// the factorised acceptance test of TFMH and SMH (Cornish et al. 2019): each
// pick is an event with some probability, and the first event ends the
// draw.
type Stopper interface {
	// Pick returns an item k drawn with probability w_k/W.
	Pick(r *rand.Rand) int
	// Stop reports whether the pick of k is an event that ends the draw,
	// drawing from r as it needs.
	Stop(r *rand.Rand, k int) bool
}

// DrawUntil draws B ~ Poisson(total) and makes up to B picks from s,
// stopping at the first event. It returns the number of picks made (the
// batch size of TFMH) and whether an event stopped the draw. With events of
// probability p_k per pick of k, the draw has no event with probability
// exp(−total·Σ_k (w_k/W)p_k), the product of the factors the picks thin.
func DrawUntil(r *rand.Rand, total float64, s Stopper) (picks int, stopped bool) {
	b := Poisson(r, total)
	for picks < b {
		k := s.Pick(r)
		picks++
		if s.Stop(r, k) {
			return picks, true
		}
	}
	return picks, false
}
