package cluster

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/internal/minibatch"
	"github.com/pgibbs/pgibbs/internal/unionfind"
)

// swendsenWang performs one Swendsen–Wang update of every free variable.
// It reports false, with x and the counters unchanged, if it was
// interrupted: the bonds and the unary sums are formed before x changes,
// and the final relabelling (O(N), no long loop) is not interrupted.
func (c *clusters) swendsenWang() bool {
	c.resetUnionFind()
	var (
		nb int
		ok bool
	)
	switch {
	case c.b.fwd != nil:
		nb, ok = c.directBonds()
	case c.b.tor != nil:
		nb, ok = c.torusBonds()
	default:
		nb = c.b.events.Rand(c.core().R)
		ok = c.graphBonds(nb)
	}
	if !ok {
		return false
	}
	if c.epoch++; c.epoch == 0 { // wrapped after 2³² sweeps
		clear(c.valStamp)
		clear(c.accStamp)
		c.epoch = 1
	}
	if c.f.h != nil && !c.sumUnary() {
		return false
	}
	c.relabel()
	c.core().Stat.Steps += int64(len(c.core().Free))
	c.core().Stat.Picks += int64(nb)
	c.core().Stat.Factors += c.f.total
	return true
}

// resetUnionFind makes every free variable a component of its own,
// allocating the arrays on first use.
func (c *clusters) resetUnionFind() {
	n := len(c.core().X)
	if c.parent == nil {
		c.parent, c.compSize, c.lim = make([]int32, n), make([]int32, n), make([]int32, n)
		c.val, c.valStamp = make([]int32, n), make([]uint32, n)
		if c.f.h != nil {
			c.acc, c.accStamp = make([]float64, len(c.f.h)), make([]uint32, n)
		}
	}
	parent, size, lim := c.parent, c.compSize, c.lim
	if c.core().AllFree {
		for i := range parent {
			parent[i], size[i], lim[i] = int32(i), 1, c.core().Size[i]
		}
		return
	}
	for _, i := range c.core().Free {
		parent[i], size[i], lim[i] = int32(i), 1, c.core().Size[i]
	}
}

// find returns the root of a's component (unionfind.Find: path halving).
func (c *clusters) find(a int32) int32 { return unionfind.Find(c.parent, a) }

// union merges the components of a and b, the smaller under the larger,
// and keeps the smallest domain size of the merged component.
func (c *clusters) union(a, b int32) {
	ra, rb := c.find(a), c.find(b)
	if ra == rb {
		return
	}
	size := c.compSize
	if size[ra] < size[rb] {
		ra, rb = rb, ra
	}
	c.parent[rb] = ra
	size[ra] += size[rb]
	c.lim[ra] = min(c.lim[ra], c.lim[rb])
}

// graphBonds draws nb bond events on a graph's pairs (a variable ∝ K_i,
// then a neighbour ∝ K_ij) and joins the pairs that agree, looking at the
// interrupt channel between chunks of pollEvery events.
func (c *clusters) graphBonds(nb int) bool {
	b, r, x := &c.b, c.core().R, c.core().X
	for nb > 0 {
		chunk := min(nb, core.PollEvery)
		nb -= chunk
		for range chunk {
			i := b.top.Pick(r)
			j := b.pickNbr(r, i)
			if x[i] == x[j] {
				c.union(int32(i), j)
			}
		}
		if nb > 0 && c.core().Stop() {
			return false
		}
	}
	return true
}

// pickNbr returns a neighbour j of variable i with probability K_ij/K_i.
func (b *bonds) pickNbr(r *rand.Rand, i int) int32 {
	s := b.start[i]
	n := b.start[i+1] - s
	hi, lo := bits.Mul64(r.Uint64(), uint64(n))
	k := s + int(hi)
	if float64(lo>>11)*0x1p-53 >= b.prob[k] {
		k = s + int(b.alias[k])
	}
	return b.nbr[k]
}

// torusBonds draws the bond events of a lattice site by site and joins
// the pairs that agree: site i has Poisson(L/2) events, each to the site at
// an offset drawn ∝ K_k. Their total is the sweep's Poisson(N·L/2), each
// event on a uniform site and an offset ∝ K_k, the process of graphBonds:
// only the order differs, and the components do not depend on it. Sites
// in order keep x and the union–find arrays in cache, where uniformly
// drawn sites miss on every event of a large lattice. It returns the
// events drawn, and false if it was interrupted (looking at the channel
// each time the sites and events since the last look pass pollEvery).
func (c *clusters) torusBonds() (int, bool) {
	t, r, x := c.b.tor, c.core().R, c.core().X
	tab, half := t.Table, &c.b.half
	nb, work := 0, 0
	for i := range t.Sites {
		n := half.Rand(r)
		if work += n + 1; work >= core.PollEvery {
			if c.core().Stop() {
				return nb, false
			}
			work = 0
		}
		if n == 0 {
			continue
		}
		nb += n
		b0, b1, b2 := t.Bases(i)
		xi := x[i]
		for range n {
			if j := t.Neighbour(b0, b1, b2, tab.PickEnt(r)); x[j] == xi {
				c.union(int32(i), int32(j))
			}
		}
	}
	return nb, true
}

// directBonds tests every agreeing pair of a short-range lattice once
// (bonds.directBonds): site i, in order, tests its forward offsets, and an
// agreeing pair is bonded with probability 1 − e^{−K_k}, one uniform word.
// It returns the words drawn, and false if it was interrupted (looking at
// the channel each time the pairs looked at pass pollEvery).
func (c *clusters) directBonds() (int, bool) {
	t, r, x := c.b.tor, c.core().R, c.core().X
	fwd, thr := c.b.fwd, c.b.bondThr[:len(c.b.fwd)]
	nb, work := 0, 0
	for i := range t.Sites {
		if work += len(fwd); work >= core.PollEvery {
			if c.core().Stop() {
				return nb, false
			}
			work = 0
		}
		b0, b1, b2 := t.Bases(i)
		xi := x[i]
		for k := range fwd {
			if j := t.Neighbour(b0, b1, b2, &fwd[k]); x[j] == xi {
				nb++
				if r.Uint64() < thr[k] {
					c.union(int32(i), int32(j))
				}
			}
		}
	}
	return nb, true
}

// sumUnary adds each free variable's unary terms into its component's sum
// (acc at the root's slot, the values below the component's smallest
// domain size), looking at the interrupt channel every sweepPoll+1
// variables. It reports false if interrupted.
func (c *clusters) sumUnary() bool {
	f, epoch := &c.f, c.epoch
	for k, i := range c.core().Free {
		if k&core.SweepPoll == core.SweepPoll && c.core().Stop() {
			return false
		}
		if f.count[i] == 0 {
			continue
		}
		root := c.find(int32(i))
		lim := int(c.lim[root])
		acc := c.acc[f.start[root] : f.start[root]+lim]
		if c.accStamp[root] != epoch {
			c.accStamp[root] = epoch
			clear(acc)
		}
		for v, h := range f.h[f.start[i] : f.start[i]+lim] {
			acc[v] += h
		}
	}
	return true
}

// relabel gives every component its new value, drawn once at its root —
// ∝ exp(Σ of its members' unary terms) where it has any, uniformly
// otherwise, among the values below its smallest domain size — and sets
// the free variables to their components' values.
func (c *clusters) relabel() {
	x, epoch := c.core().X, c.epoch
	for _, i := range c.core().Free {
		root := c.find(int32(i))
		if c.valStamp[root] != epoch {
			c.valStamp[root] = epoch
			c.val[root] = int32(c.componentValue(root))
		}
		x[i] = float64(c.val[root])
	}
}

// componentValue draws the new value of the component of root.
func (c *clusters) componentValue(root int32) int {
	lim := int(c.lim[root])
	if c.f.h == nil || c.accStamp[root] != c.epoch {
		return c.core().R.IntN(lim)
	}
	s := c.f.start[root]
	v := core.SampleLog(c.core().R, c.acc[s:s+lim])
	if v < 0 {
		c.core().Fail(fmt.Errorf("the cluster of variable %d: every value has zero probability given its unary factors", root))
		return int(c.core().X[root])
	}
	return v
}

// grow performs one Wolff cluster update seeded at free variable seed:
// grow the cluster, draw its value, set it. With journal set it records
// the members' old values first (for an interrupted Step to put back). It
// reports false, with x and the counters as they were, if it was
// interrupted.
func (c *clusters) grow(seed int, journal bool) bool {
	if c.mark == nil {
		c.mark = make([]uint32, len(c.core().X))
		c.members = make([]int32, 0, len(c.core().Free))
	}
	if c.markEpoch++; c.markEpoch == 0 {
		clear(c.mark)
		c.markEpoch = 1
	}
	c.members = append(c.members[:0], int32(seed))
	c.mark[seed] = c.markEpoch
	var picks int
	var ok bool
	if c.b.tor != nil {
		picks, ok = c.growTorus()
	} else {
		picks, ok = c.growGraph()
	}
	if !ok {
		return false
	}
	a := c.core().X[seed]
	v, factors, ok := c.clusterValue(a)
	if !ok {
		return false
	}
	if journal {
		c.record(a)
	}
	x := c.core().X
	for _, m := range c.members {
		x[m] = v
	}
	c.core().Stat.Steps += int64(len(c.members))
	c.core().Stat.Picks += int64(picks)
	c.core().Stat.Factors += factors
	return true
}

// isolated reports whether members is one variable without bonds (K_i = 0:
// no free Potts neighbour), whose cluster is always itself alone.
func (c *clusters) isolated(members []int32) bool {
	return len(members) == 1 && c.b.tor == nil && c.b.k[members[0]] == 0
}

// record journals the members' value a, for the members not journalled
// yet in this step.
func (c *clusters) record(a float64) {
	if c.jStamp == nil {
		c.jStamp = make([]uint32, len(c.core().X))
	}
	for _, m := range c.members {
		if c.jStamp[m] != c.jEpoch {
			c.jStamp[m] = c.jEpoch
			c.journal = append(c.journal, m)
			c.journalV = append(c.journalV, a)
		}
	}
}

// growGraph grows the cluster of c.members[0] on a graph: each member i
// draws Poisson(K_i) events to neighbours ∝ K_ij and adds those that agree
// with the seed and are not members yet. It returns the events drawn, and
// false if it was interrupted: it looks at the channel each time the work
// of the step (c.Work: events and members, over all its clusters) passes
// pollEvery units.
func (c *clusters) growGraph() (int, bool) {
	b, r, x, mark, epoch := &c.b, c.core().R, c.core().X, c.mark, c.markEpoch
	seed := c.members[0]
	a := x[seed]
	picks := 0
	for h := 0; h < len(c.members); h++ {
		i := int(c.members[h])
		nb := minibatch.Poisson(r, b.k[i])
		picks += nb
		c.work += nb + 1
		for range nb {
			j := b.pickNbr(r, i)
			if x[j] == a && mark[j] != epoch {
				mark[j] = epoch
				c.members = append(c.members, j)
			}
		}
		if c.work >= core.PollEvery {
			c.work = 0
			if c.core().Stop() {
				return 0, false
			}
		}
	}
	return picks, true
}

// growTorus is growGraph on a lattice: Poisson(L) events a member, each to
// the site at an offset drawn ∝ K_k.
func (c *clusters) growTorus() (int, bool) {
	t, r, x, mark, epoch := c.b.tor, c.core().R, c.core().X, c.mark, c.markEpoch
	tab := t.Table
	a := x[c.members[0]]
	picks := 0
	for h := 0; h < len(c.members); h++ {
		i := int(c.members[h])
		nb := c.b.site.Rand(r)
		picks += nb
		c.work += nb + 1
		b0, b1, b2 := t.Bases(i)
		for range nb {
			j := t.Neighbour(b0, b1, b2, tab.PickEnt(r))
			if x[j] == a && mark[j] != epoch {
				mark[j] = epoch
				c.members = append(c.members, int32(j))
			}
		}
		if c.work >= core.PollEvery {
			c.work = 0
			if c.core().Stop() {
				return 0, false
			}
		}
	}
	return picks, true
}

// clusterValue draws the new value of the cluster c.members, whose value
// is a: uniformly among the other values every member has when no member
// has unary terms (among all of its values, a included, for a lone
// variable without bonds), else ∝ exp(Σ_{j∈C} h_j(v)) over the values
// every member has (a included). It returns the value, the unary factors read, and
// false if it was interrupted (looking at the channel every sweepPoll+1
// members).
func (c *clusters) clusterValue(a float64) (float64, int64, bool) {
	lim := c.core().Size[c.members[0]]
	for _, m := range c.members {
		lim = min(lim, c.core().Size[m])
	}
	f := &c.f
	var factors int64
	u := c.core().U[:lim]
	if f.h != nil {
		clear(u)
		for k, m := range c.members {
			if k&core.SweepPoll == core.SweepPoll && c.core().Stop() {
				return 0, 0, false
			}
			if f.count[m] == 0 {
				continue
			}
			factors += int64(f.count[m])
			for v, h := range f.h[f.start[m] : f.start[m]+int(lim)] {
				u[v] += h
			}
		}
	}
	if factors == 0 {
		switch {
		case lim <= 1:
			return a, 0, true
		case c.isolated(c.members):
			// A variable no bond can reach: a fresh draw from its
			// conditional, uniform over its values, a included (the flip
			// would alternate it with period 2).
			return float64(c.core().R.IntN(int(lim))), 0, true
		}
		v := c.core().R.IntN(int(lim) - 1)
		if v >= int(a) {
			v++
		}
		return float64(v), 0, true
	}
	v := core.SampleLog(c.core().R, u)
	if v < 0 {
		c.core().Fail(fmt.Errorf("the cluster of variable %d: every value has zero probability given its unary factors", c.members[0]))
		return a, factors, true
	}
	return float64(v), factors, true
}
