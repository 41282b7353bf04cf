package diag

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// checkChains validates draws given as chains × draws: at least one chain,
// all of one length of at least minDraws, all values finite.
func checkChains(chains [][]float64, minDraws int) error {
	if len(chains) == 0 {
		return fmt.Errorf("diag: no chains")
	}
	n := len(chains[0])
	for c, x := range chains {
		if len(x) != n {
			return fmt.Errorf("diag: chain %d has %d draws, chain 0 has %d; chains must have equal lengths", c, len(x), n)
		}
	}
	if n < minDraws {
		return fmt.Errorf("diag: chains of %d draws; this diagnostic needs at least %d draws per chain", n, minDraws)
	}
	for c, x := range chains {
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("diag: chain %d, draw %d is %v", c, i, v)
			}
		}
	}
	return nil
}

// split returns the 2m half-chains of m chains of n draws: the first ⌊n/2⌋
// draws and the last ⌊n/2⌋ draws of each chain; for odd n the middle draw is
// left out, as in Stan. The halves are views of the input, in sc.halves
// (valid until the next split).
func (sc *scratch) split(chains [][]float64) [][]float64 {
	n := len(chains[0])
	h := n / 2
	out := sc.halves[:0]
	for _, x := range chains {
		out = append(out, x[:h], x[n-h:])
	}
	sc.halves = out
	return out
}

// constant reports whether every draw of every chain has the same value.
func constant(chains [][]float64) bool {
	v := chains[0][0]
	for _, x := range chains {
		for _, y := range x {
			if y != v {
				return false
			}
		}
	}
	return true
}

// flatten copies the draws of all chains into one slice, chain after chain
// (dst's, grown if needed).
func flatten(dst []float64, chains [][]float64) []float64 {
	out := dst[:0]
	for _, x := range chains {
		out = append(out, x...)
	}
	return out
}

// reshape cuts flat into m chains of equal length, views in sc.views (valid
// until the next reshape).
func (sc *scratch) reshape(flat []float64, m int) [][]float64 {
	n := len(flat) / m
	out := sc.views[:0]
	for c := range m {
		out = append(out, flat[c*n:(c+1)*n:(c+1)*n])
	}
	sc.views = out
	return out
}

// rankNormalize returns the rank-normalised draws z = Φ⁻¹((r − 3/8)/(S + 1/4))
// of Vehtari et al. (2021), eq. (14), where r is the rank of a draw among all
// S draws of all chains (ties get their average rank) and Φ⁻¹ the standard
// normal quantile. The result has the chain layout of the input, in sc.z
// and sc.views.
func (sc *scratch) rankNormalize(chains [][]float64) [][]float64 {
	d := sc.draws[:0]
	for _, x := range chains {
		for _, v := range x {
			d = append(d, draw{v, int32(len(d))})
		}
	}
	// The draws are finite (checked by checkChains), so < is a total order.
	slices.SortFunc(d, func(a, b draw) int { return cmp.Compare(a.v, b.v) })
	sc.draws = d
	s := len(d)
	z := slices.Grow(sc.z[:0], s)[:s]
	sc.z = z
	for lo := 0; lo < s; {
		hi := lo + 1
		for hi < s && d[hi].v == d[lo].v {
			hi++
		}
		// Ranks lo+1 … hi share the average rank (lo+1+hi)/2.
		r := float64(lo+1+hi) / 2
		q := distuv.UnitNormal.Quantile((r - 3.0/8) / (float64(s) + 1.0/4))
		for _, e := range d[lo:hi] {
			z[e.i] = q
		}
		lo = hi
	}
	return sc.reshape(z, len(chains))
}

// sortedDraws returns all draws sorted in increasing order, in sc.sorted.
func (sc *scratch) sortedDraws(chains [][]float64) []float64 {
	s := flatten(sc.sorted, chains)
	slices.Sort(s)
	sc.sorted = s
	return s
}

// quantile7 returns the p-quantile of sorted draws s by linear interpolation
// between order statistics (type 7 of Hyndman & Fan, the default of R's
// quantile, which Stan's posterior package uses), with R's arithmetic:
// index = 1 + (S−1)p, h = index − ⌊index⌋, q = (1−h)·s_lo + h·s_hi.
func quantile7(s []float64, p float64) float64 {
	index := 1 + float64(len(s)-1)*p
	lo := math.Floor(index)
	h := index - lo
	i := int(lo) - 1 // 0-based position of s_lo
	if h == 0 || i+1 >= len(s) || s[i+1] == s[i] {
		return s[i]
	}
	return float64((1-h)*s[i]) + float64(h*s[i+1]) // explicit roundings: no fused multiply-add
}

// median returns the median of sorted draws s.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
