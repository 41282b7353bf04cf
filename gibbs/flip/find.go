package flip

import (
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Group is what one phase flip changes: the values of each pair of
// variables swapped (a founder's two alleles at each locus) and each
// binary variable flipped (the selectors of the meioses from it).
type Group struct {
	Pairs [][2]int
	Flips []int
}

// Find returns the phase groups of g: for each founder, the pairs of its
// two alleles at every locus and the selectors of the meioses from it.
// A transmission factor reads four free variables (a, b, s, c), s
// binary, a and b of one domain, and keeps its value when a and b swap
// and s flips (c copies a or b as s says; its domain may have lost values
// to the evidence): (a, b) is a parent's pair and s a selector reading
// it. A recombination factor reads two free binary variables and keeps
// its value when both flip: it links a meiosis's selectors across loci,
// also those whose transmission the evidence reduced to fewer variables.
// A group is what these links connect. Groups with a pair that is a
// transmission's child (a parent who is not a founder: the flip would
// break its own inheritance) are left out. After the founders' phase
// groups come the couple swaps of founders whose children are all full
// siblings (pedigreeInfo.coupleSwaps).
func Find(g *factorgraph.Graph) []Group {
	n := g.NumVars()
	x := make([]float64, n)
	free := func(i int) bool { _, obs := g.Observed(i); return !obs }
	type pair = [2]int
	pairOf := map[pair]int{} // pair → node
	var pairs []pair
	sel := map[int]int{} // selector → node
	child := map[int]bool{}
	meioses := map[int]meiosis{} // by selector
	parent := []int{}
	find := func(u int) int {
		for parent[u] != u {
			parent[u] = parent[parent[u]]
			u = parent[u]
		}
		return u
	}
	node := func() int { parent = append(parent, len(parent)); return len(parent) - 1 }
	union := func(u, v int) { parent[find(u)] = find(v) }
	selNode := func(s int) int {
		if k, ok := sel[s]; ok {
			return k
		}
		sel[s] = node()
		return sel[s]
	}
	var vs []int
	for f := range g.NumFactors() {
		if vs = g.FactorVars(vs[:0], f); len(vs) != 4 {
			continue // Graph.FactorVars: no factor value made for the others
		}
		fc := g.Factor(f)
		for si, s := range vs {
			if g.Domain(s).Size != 2 || !free(s) {
				continue
			}
			rest := slices.Delete(slices.Clone(vs), si, si+1)
			for ci, c := range rest {
				ab := slices.Delete(slices.Clone(rest), ci, ci+1)
				a, b := ab[0], ab[1]
				d := g.Domain(a).Size
				if g.Domain(b).Size != d || !free(a) || !free(b) || !free(c) || !transmits(fc, x, a, b, s, c, d, g.Domain(c).Size) {
					continue
				}
				p := pair{min(a, b), max(a, b)}
				k, ok := pairOf[p]
				if !ok {
					k = node()
					pairOf[p] = k
					pairs = append(pairs, p)
				}
				union(k, selNode(s))
				child[c] = true
				meioses[s] = meiosis{a, b, s, c, f}
			}
		}
	}
	// Recombination: two binary variables whose factor keeps its value
	// when both flip, one a selector: the other is the same meiosis's
	// selector at the next locus (one whose transmission factor the
	// evidence reduced to fewer variables, or removed), and joins it, to
	// a fixed point along the chain.
	if len(sel) == 0 {
		return nil // no transmission factor: not a pedigreeInfo
	}
	var pairFactors [][2]int
	for f := range g.NumFactors() {
		vs = g.FactorVars(vs[:0], f)
		if len(vs) == 2 && g.Domain(vs[0]).Size == 2 && g.Domain(vs[1]).Size == 2 && free(vs[0]) && free(vs[1]) && bothFlip(g.Factor(f), x, vs[0], vs[1]) {
			pairFactors = append(pairFactors, [2]int{vs[0], vs[1]})
		}
	}
	for grew := true; grew; {
		grew = false
		for _, vs := range pairFactors {
			u, uok := sel[vs[0]]
			v, vok := sel[vs[1]]
			switch {
			case uok && vok:
				if find(u) != find(v) {
					union(u, v)
				}
			case uok:
				union(selNode(vs[1]), u)
				grew = true
			case vok:
				union(selNode(vs[0]), v)
				grew = true
			}
		}
	}
	groups := map[int]*Group{}
	bad := map[int]bool{}
	var order []int
	for _, p := range pairs {
		r := find(pairOf[p])
		if child[p[0]] || child[p[1]] {
			bad[r] = true
		}
		if groups[r] == nil {
			groups[r] = &Group{}
			order = append(order, r)
		}
		groups[r].Pairs = append(groups[r].Pairs, p)
	}
	for s, k := range sel {
		r := find(k)
		if groups[r] == nil || child[s] {
			bad[r] = true
			continue
		}
		groups[r].Flips = append(groups[r].Flips, s)
	}
	var out []Group
	index := map[int]int{} // a good group's root → its index in out
	for _, r := range order {
		if bad[r] {
			continue
		}
		gr := groups[r]
		slices.Sort(gr.Flips)
		index[r] = len(out)
		out = append(out, *gr)
	}
	// Transmissions the evidence reduced to three variables, a parent's
	// pair merged into one (u, s → c, in scope order, s a selector of a
	// meiosis chain): the couple swaps need them.
	for f := range g.NumFactors() {
		vs = g.FactorVars(vs[:0], f)
		if len(vs) != 3 || !free(vs[0]) || !free(vs[1]) || !free(vs[2]) {
			continue
		}
		if _, ok := sel[vs[1]]; ok && g.Domain(vs[1]).Size == 2 {
			if _, known := meioses[vs[1]]; !known {
				meioses[vs[1]] = meiosis{vs[0], -1, vs[1], vs[2], f}
			}
		}
	}
	pd := &pedigreeInfo{g: g, meioses: meioses, recomb: pairFactors, founders: out,
		owner: func(s int) int {
			if k, ok := sel[s]; ok {
				if i, ok := index[find(k)]; ok {
					return i
				}
			}
			return -1
		},
		parentPair: func(u, v int) bool { _, ok := pairOf[pair{min(u, v), max(u, v)}]; return ok },
		flipsOf: func(u, v int) []int {
			if k, ok := pairOf[pair{min(u, v), max(u, v)}]; ok && groups[find(k)] != nil {
				return groups[find(k)].Flips
			}
			return nil
		}}
	return append(out, pd.coupleSwaps()...)
}

// transmits reports whether fc, read at a, b, s, c (every other variable
// of x at 0), keeps its value when a and b swap and s flips, and depends
// on s.
func transmits(fc factorgraph.Factor, x []float64, a, b, s, c, d, dc int) bool {
	dep := false
	for va := range d {
		for vb := range d {
			for vc := range dc {
				for vs := range 2 {
					x[a], x[b], x[s], x[c] = float64(va), float64(vb), float64(vs), float64(vc)
					v := fc.Value(x)
					x[a], x[b], x[s] = float64(vb), float64(va), float64(1-vs)
					w := fc.Value(x)
					x[a], x[b], x[s] = float64(va), float64(vb), float64(1-vs)
					dep = dep || fc.Value(x) != v
					if v != w {
						x[a], x[b], x[s], x[c] = 0, 0, 0, 0
						return false
					}
				}
			}
		}
	}
	x[a], x[b], x[s], x[c] = 0, 0, 0, 0
	return dep
}

// bothFlip reports whether fc over binary u, v keeps its value when both
// flip.
func bothFlip(fc factorgraph.Factor, x []float64, u, v int) bool {
	ok := true
	for vu := range 2 {
		for vv := range 2 {
			x[u], x[v] = float64(vu), float64(vv)
			a := fc.Value(x)
			x[u], x[v] = float64(1-vu), float64(1-vv)
			ok = ok && fc.Value(x) == a
		}
	}
	x[u], x[v] = 0, 0
	return ok
}
