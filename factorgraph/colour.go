package factorgraph

import (
	"slices"

	"github.com/pgibbs/pgibbs/internal/compiled"
)

var _ Adjacency = (*Graph)(nil)

// Neighbours implements Adjacency: the variables sharing a factor (soft or
// hard, constants excluded) with i, in increasing order.
func (g *Graph) Neighbours(dst []int, i int) []int {
	start := len(dst)
	k := g.kern
	var vars []int
	add := func(o *compiled.Op) {
		vars = g.fs.vars(vars[:0], int(o.Fac))
		for _, v := range vars {
			if v != i {
				dst = append(dst, v)
			}
		}
	}
	for p := k.SoftStart[i]; p < k.SoftStart[i+1]; p++ {
		if nb := k.Nbr[p]; nb >= 0 {
			dst = append(dst, int(nb))
		} else {
			add(&k.Ops[^nb])
		}
	}
	for p := k.HardStart[i]; p < k.HardStart[i+1]; p++ {
		add(&k.Hard[p])
	}
	tail := dst[start:]
	slices.Sort(tail)
	return append(dst[:start], slices.Compact(tail)...)
}

// Colouring returns the free variables partitioned into classes of which no
// two share a factor (a proper colouring of the free variables, greedy in
// order of decreasing degree). Variables of one class are conditionally
// independent given the others, so they can be resampled in parallel.
func (g *Graph) Colouring() [][]int {
	order := slices.Clone(g.free)
	deg := func(i int) int { s, h := g.Degree(i); return s + h }
	slices.SortStableFunc(order, func(a, b int) int { return deg(b) - deg(a) })
	colour := make([]int, g.domains.Len())
	for i := range colour {
		colour[i] = -1
	}
	var classes [][]int
	var nb []int
	var used []bool
	for _, i := range order {
		nb = g.Neighbours(nb[:0], i)
		used = used[:0]
		for range len(classes) + 1 {
			used = append(used, false)
		}
		for _, j := range nb {
			if c := colour[j]; c >= 0 {
				used[c] = true
			}
		}
		c := slices.Index(used, false)
		if c == len(classes) {
			classes = append(classes, nil)
		}
		colour[i] = c
		classes[c] = append(classes[c], i)
	}
	for _, cl := range classes {
		slices.Sort(cl)
	}
	return classes
}
