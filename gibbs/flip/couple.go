package flip

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// meiosis is one transmission factor f: the parent's alleles a, b in the
// factor's scope order (b −1 where the evidence merged the parent's pair
// into a, a transmission of three variables), its selector s and the
// child's allele c.
type meiosis struct{ a, b, s, c, f int }

// key identifies the parent's side of a meiosis: its allele pair at one
// locus.
func (m meiosis) key() [2]int { return [2]int{min(m.a, m.b), max(m.a, m.b)} }

// pedigreeInfo is what Find learned of g, for the couple swaps.
type pedigreeInfo struct {
	g       *factorgraph.Graph
	meioses map[int]meiosis // by selector
	recomb  [][2]int        // recombination factors' variables
	// founders are the phase groups found (Find's output so far), owner
	// the index in founders of the group of a selector (−1: none).
	founders []Group
	owner    func(s int) int
	// parentPair reports whether (u, v) is the allele pair of a parent
	// at one locus; flipsOf returns the flips of its group.
	parentPair func(u, v int) bool
	flipsOf    func(u, v int) []int
}

// coupleSwaps returns the swaps of founder couples: two founders, every
// child of one a child of the other (full siblings). The involution
// swaps the two parents' alleles at every locus, first with first and
// second with second in the transmissions' scope order; in each child
// its allele from one with its allele from the other and the two
// meioses' selectors, at every locus; and flips the selectors of the
// meioses from each child, whose two alleles swapped. Where the parents
// are exchangeable (equal allele frequencies, no phenotype telling them
// apart, the same recombination fractions for both, children's
// genotypes that do not say which allele came from whom) it is a
// symmetry of the model whose two modes neither a phase flip nor a
// block crosses: on linkage_13, a couple of founders with four children,
// 126 variables of exact marginal ½ held at 0.42/0.58.
//
// The two parents' loci are matched by the children who are parents
// themselves (their two alleles at a locus are a transmission's parent
// pair); a child's two meioses by what reads their alleles together (its
// own transmissions, a phenotype), or where nothing does (a child typed
// at some loci, with no children) by the transmissions' tables along
// the two chains, which must then be equal; each chain is followed
// across loci by the recombination factors, selectors whose transmission
// the evidence removed matched from their neighbours. A couple is left
// out unless every meiosis from either parent is matched.
func (pd *pedigreeInfo) coupleSwaps() []Group {
	g := pd.g
	parent := map[int]int{}
	var find func(s int) int
	find = func(s int) int {
		p, ok := parent[s]
		if !ok || p == s {
			return s
		}
		r := find(p)
		parent[s] = r
		return r
	}
	adj := map[int][]int{}
	for _, rc := range pd.recomb {
		if a, b := find(rc[0]), find(rc[1]); a != b {
			parent[a] = b
		}
		adj[rc[0]] = append(adj[rc[0]], rc[1])
		adj[rc[1]] = append(adj[rc[1]], rc[0])
	}
	isChild := map[int]bool{}
	for _, m := range pd.meioses {
		isChild[m.c] = true
	}
	seen := map[[2]int]bool{}   // children's alleles some factor reads together
	partners := map[int][]int{} // the same, by allele
	var vs []int
	for f := range g.NumFactors() {
		vs = g.FactorVars(vs[:0], f)
		for i, u := range vs {
			for _, v := range vs[i+1:] {
				if k := [2]int{min(u, v), max(u, v)}; isChild[u] && isChild[v] && !seen[k] {
					seen[k] = true
					partners[u] = append(partners[u], v)
					partners[v] = append(partners[v], u)
				}
			}
		}
	}
	bySel := map[int]int{} // a child's allele → the selector of its meiosis
	for s, m := range pd.meioses {
		bySel[m.c] = s
	}
	chains := make([]map[int][]int, len(pd.founders)) // each founder's selectors by chain
	for k, fg := range pd.founders {
		chains[k] = map[int][]int{}
		for _, s := range fg.Flips {
			chains[k][find(s)] = append(chains[k][find(s)], s)
		}
	}
	var out []Group
	for p := range pd.founders {
		c := couple{pd: pd, cp: chains[p], partners: partners, bySel: bySel, adj: adj}
		mate, ok := c.mate(p, find)
		if !ok || mate < p {
			continue // each couple once, from its first founder
		}
		c.cm = chains[mate]
		if c.loci() && c.pairLeaves() {
			if gr, ok := c.swap(); ok {
				out = append(out, gr)
			}
		}
	}
	return out
}

// couple is a couple swap under construction.
type couple struct {
	pd       *pedigreeInfo
	cp, cm   map[int][]int // the two founders' chains: selectors by chain
	partners map[int][]int // alleles some factor reads together with an allele
	bySel    map[int]int   // a child's allele → its meiosis's selector
	adj      map[int][]int
	pairing  map[int]int       // p's chain → the mate's, to one child
	locus    map[[2]int][2]int // p's pair at a locus → the mate's
}

// mate returns the founder of the chains that p's chains link to (their
// children's alleles read together), one chain each, and pairs them;
// chains that link to none are left for pairLeaves.
func (c *couple) mate(p int, find func(int) int) (int, bool) {
	mate := -1
	c.pairing = map[int]int{}
	taken := map[int]bool{}
	type cand struct{ owner, chain int }
	for _, cp := range slices.Sorted(maps.Keys(c.cp)) {
		votes := map[cand]int{}
		for _, s := range c.cp[cp] {
			m, ok := c.pd.meioses[s]
			if !ok {
				continue // a selector whose transmission the evidence removed
			}
			for _, u := range c.partners[m.c] {
				if o := c.pd.owner(c.bySel[u]); o >= 0 && o != p {
					votes[cand{o, find(c.bySel[u])}]++
				}
			}
		}
		best, most := cand{-1, -1}, 0
		for k, v := range votes {
			if v > most || v == most && (k.owner < best.owner || k.owner == best.owner && k.chain < best.chain) {
				best, most = k, v
			}
		}
		if most == 0 {
			continue // a leaf child's: pairLeaves
		}
		if taken[best.chain] || mate >= 0 && best.owner != mate {
			return -1, false
		}
		mate = best.owner
		taken[best.chain] = true
		c.pairing[cp] = best.chain
	}
	return mate, mate >= 0
}

// loci matches the two parents' pairs at each locus from the children who
// are parents themselves: their pair at a locus is one allele from each.
func (c *couple) loci() bool {
	if len(c.cp) != len(c.cm) {
		return false
	}
	c.locus = map[[2]int][2]int{}
	for a, b := range c.pairing {
		for _, sp := range c.cp[a] {
			m, ok := c.pd.meioses[sp]
			if !ok {
				continue
			}
			for _, sm := range c.cm[b] {
				n, ok := c.pd.meioses[sm]
				if !ok || !c.pd.parentPair(m.c, n.c) {
					continue
				}
				if k, ok := c.locus[m.key()]; ok && k != n.key() {
					return false
				}
				c.locus[m.key()] = n.key()
			}
		}
	}
	if len(c.locus) == 0 {
		return false
	}
	// Loci no such child shows (its alleles there typed, or merged):
	// from the selectors matched along the paired chains.
	for grew := true; grew; {
		grew = false
		for _, a := range slices.Sorted(maps.Keys(c.pairing)) {
			mt := c.match(a, c.pairing[a])
			for _, sp := range slices.Sorted(maps.Keys(mt)) {
				sm := mt[sp]
				m, ok1 := c.pd.meioses[sp]
				n, ok2 := c.pd.meioses[sm]
				if _, known := c.locus[m.key()]; ok1 && ok2 && !known {
					c.locus[m.key()] = n.key()
					grew = true
				}
			}
		}
	}
	return true
}

// match matches the selectors of p's chain a with the mate's chain b:
// those whose transmissions' loci c.locus matches, then along the
// chains, each unmatched selector next to a matched one with the
// unmatched one next to that one's match, to a fixed point.
func (c *couple) match(a, b int) map[int]int {
	with := map[int]int{}
	taken := map[int]bool{}
	inM := map[int]bool{}
	for _, sm := range c.cm[b] {
		inM[sm] = true
	}
	for _, sp := range c.cp[a] {
		m, ok := c.pd.meioses[sp]
		if !ok {
			continue
		}
		k, ok := c.locus[m.key()]
		if !ok {
			continue
		}
		hit := -1
		for _, sm := range c.cm[b] {
			if n, ok := c.pd.meioses[sm]; ok && n.key() == k {
				if hit >= 0 {
					hit = -2 // two: no match
					break
				}
				hit = sm
			}
		}
		if hit >= 0 && !taken[hit] {
			with[sp], taken[hit] = hit, true
		}
	}
	for grew := true; grew; {
		grew = false
		for _, sp := range c.cp[a] {
			if _, done := with[sp]; done {
				continue
			}
			for _, u := range c.adj[sp] {
				um, ok := with[u]
				if !ok {
					continue
				}
				var next []int
				for _, v := range c.adj[um] {
					if inM[v] && !taken[v] {
						next = append(next, v)
					}
				}
				if len(next) == 1 {
					with[sp], taken[next[0]] = next[0], true
					grew = true
					break
				}
			}
		}
	}
	return with
}

// pairLeaves pairs the chains mate left (children that nothing reads
// both alleles of) by their signatures — the tables of their
// transmissions, locus by locus —, which must be equal: chains of equal
// signatures are interchangeable.
func (c *couple) pairLeaves() bool {
	taken := map[int]bool{}
	for _, b := range c.pairing {
		taken[b] = true
	}
	sigs := map[string][]int{} // the mate's chains left, by signature
	for _, b := range slices.Sorted(maps.Keys(c.cm)) {
		if !taken[b] {
			s, ok := c.signature(c.cm[b], false)
			if !ok {
				return false
			}
			sigs[s] = append(sigs[s], b)
		}
	}
	for _, a := range slices.Sorted(maps.Keys(c.cp)) {
		if _, ok := c.pairing[a]; ok {
			continue
		}
		s, ok := c.signature(c.cp[a], true)
		if !ok || len(sigs[s]) == 0 {
			return false
		}
		c.pairing[a], sigs[s] = sigs[s][0], sigs[s][1:]
	}
	return true
}

// signature describes a chain's transmissions: for each, the mate's pair
// at its locus (mapped by c.locus on p's side), the child's domain and
// the factor's values over its scope in scope order, sorted.
func (c *couple) signature(ss []int, mapped bool) (string, bool) {
	g := c.pd.g
	var parts []string
	x := make([]float64, g.NumVars())
	for _, s := range ss {
		m, ok := c.pd.meioses[s]
		if !ok {
			continue
		}
		k := m.key()
		if mapped {
			if k, ok = c.locus[k]; !ok {
				return "", false
			}
		}
		fc := g.Factor(m.f)
		scope := fc.Vars()
		size := 1
		for _, v := range scope {
			size *= g.Domain(v).Size
		}
		if size > maxCheck {
			return "", false
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%v %d:", k, g.Domain(m.c).Size)
		for j := range size {
			r := j
			for _, v := range scope {
				x[v] = float64(r % g.Domain(v).Size)
				r /= g.Domain(v).Size
			}
			fmt.Fprintf(&b, " %g", fc.Value(x))
		}
		for _, v := range scope {
			x[v] = 0
		}
		parts = append(parts, b.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ";"), true
}

// swap builds the couple swap: selectors with transmissions matched by
// locus within paired chains, those without (transmissions the evidence
// removed) along their chains from matched neighbours.
func (c *couple) swap() (Group, bool) {
	var out Group
	with := map[int]int{}
	add := func(u, v int) bool {
		if u == v || c.pd.g.Domain(u).Size != c.pd.g.Domain(v).Size {
			return false
		}
		if w, ok := with[u]; ok {
			return w == v
		}
		if _, ok := with[v]; ok {
			return false
		}
		with[u], with[v] = v, u
		out.Pairs = append(out.Pairs, [2]int{u, v})
		return true
	}
	flipped := map[int]bool{}
	for _, a := range slices.Sorted(maps.Keys(c.pairing)) {
		b := c.pairing[a]
		mt := c.match(a, b)
		if len(c.cp[a]) != len(c.cm[b]) || len(mt) != len(c.cp[a]) {
			return Group{}, false
		}
		for _, sp := range c.cp[a] {
			sm := mt[sp]
			m, ok1 := c.pd.meioses[sp]
			n, ok2 := c.pd.meioses[sm]
			switch {
			case ok1 != ok2:
				return Group{}, false
			case !ok1: // no transmission: the selectors alone
				if !add(sp, sm) {
					return Group{}, false
				}
				continue
			}
			if (m.b < 0) != (n.b < 0) || !add(m.a, n.a) || m.b >= 0 && !add(m.b, n.b) || !add(m.s, n.s) || !add(m.c, n.c) {
				return Group{}, false
			}
			for _, f := range c.pd.flipsOf(m.c, n.c) {
				flipped[f] = true
			}
		}
	}
	for f := range flipped {
		if _, ok := with[f]; ok {
			return Group{}, false
		}
		out.Flips = append(out.Flips, f)
	}
	slices.Sort(out.Flips)
	slices.SortFunc(out.Pairs, func(p, q [2]int) int { return cmp.Compare(p[0], q[0]) })
	return out, len(out.Pairs) > 0
}
