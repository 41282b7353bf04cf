package core

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// exactCompiled resamples discrete variable i from its full conditional
// over the compiled A[i] (Algorithm 1): U_v = Σ_{φ∈A[i]} φ(x_{i←v}).
func (c *Core) exactCompiled(i int) {
	c.Stat.Steps++
	if c.Size[i] == 2 && !c.NoBinary && c.binaryCompiled(i) {
		return
	}
	u := c.U[:c.Size[i]]
	clear(u)
	n, ok := c.AddCompiled(i, u, true)
	if !ok {
		return
	}
	c.Stat.Factors += int64(n)
	c.set(i, u)
}

// binaryCompiled is exactCompiled for a binary variable i on a graph of
// Potts pairs (and fields) with no hard factor of i's, its two energies
// summed in locals rather than in c.U, in the order AddCompiled sums them
// (the same draws, bit for bit: TestBinaryCompiled), then set2. It
// reports false, having done nothing, where it does not apply: a row of
// other factors, a hard factor, a long row under an interrupt channel, or
// a recorded conditional (set's general path).
func (c *Core) binaryCompiled(i int) bool {
	k := c.KG
	if !k.AllPotts && !k.Fields || c.Recording || k.HardStart[i] != k.HardStart[i+1] {
		return false
	}
	nb, w := k.Row(i)
	if len(nb) > PollEvery && c.Done != nil {
		return false
	}
	c.drawBinary(i, nb, w)
	return true
}

// drawBinary draws binary variable i, whose row is nb, w, from its two
// energies (binaryEnergies): set2, or set where their difference is NaN.
func (c *Core) drawBinary(i int, nb []int32, w []float64) {
	u0, u1 := c.binaryEnergies(nb, w, true)
	c.Stat.Factors += int64(len(nb))
	c.draw2(i, u0, u1)
}

// draw2 draws binary variable i from its energies u0, u1: set2, or set
// where their difference is NaN.
func (c *Core) draw2(i int, u0, u1 float64) {
	d := u1 - u0
	if math.IsNaN(d) {
		u := c.U[:2]
		u[0], u[1] = u0, u1
		c.set(i, u)
		return
	}
	c.set2(i, u0, u1, d)
}

// binaryEnergies returns the two energies of a binary variable whose row
// of Potts pairs (and fields) is nb, w, swapped for the broken variant:
// summed as the update's general path sums them (pottsRow2 on a row of
// Potts pairs alone, pottsFields2 otherwise) if update, else in the row's
// order (pottsFields2, Assign's sums: those of Core.energies), or, where
// every variable is binary (AllBinary), by their branch-free forms — the
// same sums, bit for bit.
func (c *Core) binaryEnergies(nb []int32, w []float64, update bool) (u0, u1 float64) {
	switch k := c.KG; {
	case k.AllPotts && update && c.AllBinary:
		u0, u1 = pottsRow2Binary(c.X, nb, w)
	case k.AllPotts && update:
		u0, u1 = pottsRow2(c.X, nb, w)
	case c.AllBinary:
		u0, u1 = c.pottsFields2Binary(nb, w)
	default:
		u0, u1 = c.pottsFields2(nb, w)
	}
	if c.BrokenBinary {
		u0, u1 = u1, u0
	}
	return u0, u1
}

// pottsRow2 is addPottsRow into u = (0, 0) for a binary variable: the two
// interleaved accumulators in locals.
func pottsRow2(x []float64, nb []int32, w []float64) (u0, u1 float64) {
	var a, b [2]float64
	w = w[:len(nb)]
	p := 0
	for ; p+1 < len(nb); p += 2 {
		if v := int(x[nb[p]]); uint(v) < 2 {
			a[v] += w[p]
		}
		if v := int(x[nb[p+1]]); uint(v) < 2 {
			b[v] += w[p+1]
		}
	}
	if p < len(nb) {
		if v := int(x[nb[p]]); uint(v) < 2 {
			a[v] += w[p]
		}
	}
	return a[0] + b[0], a[1] + b[1]
}

// pottsRow2Binary is pottsRow2 where every variable is binary and every
// value of X is 0 or 1 (AllBinary): a neighbour's weight goes to u1 times
// its value and to u0 times one minus it, products that are the weight or
// a zero exactly, so the sums are pottsRow2's, in its order, to the sign
// of a zero — with no branch on the value and no store to an array it
// indexes, whose round trip through memory was most of an update's cost
// (BenchmarkGibbsGlass, BenchmarkExchangeGlass).
func pottsRow2Binary[S uint8 | float64](x []S, nb []int32, w []float64) (u0, u1 float64) {
	var a0, a1, b0, b1 float64
	w = w[:len(nb)]
	p := 0
	for ; p+1 < len(nb); p += 2 {
		v, u := float64(x[nb[p]]), float64(x[nb[p+1]])
		a0 += w[p] * (1 - v)
		a1 += w[p] * v
		b0 += w[p+1] * (1 - u)
		b1 += w[p+1] * u
	}
	if p < len(nb) {
		v := float64(x[nb[p]])
		a0 += w[p] * (1 - v)
		a1 += w[p] * v
	}
	return a0 + b0, a1 + b1
}

// pottsFields2 is addPottsFields into u = (0, 0) for a binary variable.
func (c *Core) pottsFields2(nb []int32, w []float64) (u0, u1 float64) {
	k, x := c.KG, c.X
	var a [2]float64
	w = w[:len(nb)]
	for p, j := range nb {
		if j >= 0 {
			if v := int(x[j]); uint(v) < 2 {
				a[v] += w[p]
			}
			continue
		}
		vals := k.FieldVals[^j][:2]
		a[0] += vals[0]
		a[1] += vals[1]
	}
	return a[0], a[1]
}

// AddCompiled adds Σ φ(x_{i←v}) over the soft factors of A[i] (and the hard
// ones if hard is set) to u[v] for every v, lower bounds left out, using
// c.Buf2 as scratch (u must be another slice). It returns the number of
// factors, or false after recording an error of a generic factor.
func (c *Core) AddCompiled(i int, u []float64, hard bool) (int, bool) {
	k := c.KG
	nb, w := k.Row(i)
	n := len(nb)
	switch {
	case !k.AllPotts && !k.Fields || len(nb) > PollEvery && c.Done != nil:
		if !c.addRowChunked(i, nb, w, u) {
			return 0, false
		}
	case k.AllPotts:
		addPottsRow(c.X, nb, w, u, c.Buf2)
	default:
		c.addPottsFields(nb, w, u)
	}
	if hard {
		for o := range k.Hard[k.HardStart[i]:k.HardStart[i+1]] {
			if !c.addOp(i, &k.Hard[k.HardStart[i]+o], u) || c.Spend(len(u)) {
				return 0, false
			}
			n++
		}
	}
	return n, true
}

// addPottsRow adds a row of Potts pairs to u, u[x_j] += W (W·δ(v, x_j)),
// reading the neighbours' values from x (the state, or its one-byte copy
// in a byte sweep), in two interleaved accumulators (ub is scratch) so
// that consecutive neighbours with equal values do not wait on each other.
func addPottsRow[S uint8 | float64](x []S, nb []int32, w, u, ub []float64) {
	ub = ub[:len(u)]
	clear(ub)
	w = w[:len(nb)]
	p := 0
	for ; p+1 < len(nb); p += 2 {
		if v := int(x[nb[p]]); uint(v) < uint(len(u)) {
			u[v] += w[p]
		}
		if v := int(x[nb[p+1]]); uint(v) < uint(len(ub)) {
			ub[v] += w[p+1]
		}
	}
	if p < len(nb) {
		if v := int(x[nb[p]]); uint(v) < uint(len(u)) {
			u[v] += w[p]
		}
	}
	for v := range u {
		u[v] += ub[v]
	}
}

// addPottsFields adds a row of Potts pairs and fields (Graph.Fields) to
// u: u[x_j] += W for a pair, a field's entries read inline (stride 1).
func (c *Core) addPottsFields(nb []int32, w, u []float64) {
	k, x := c.KG, c.X
	w = w[:len(nb)]
	for p, j := range nb {
		if j >= 0 {
			if v := int(x[j]); uint(v) < uint(len(u)) {
				u[v] += w[p]
			}
			continue
		}
		vals := k.FieldVals[^j][:len(u)]
		for v, f := range vals {
			u[v] += f
		}
	}
}

// addRowChunked is the row loop of addCompiled for rows with tables or
// generic factors (each counted as work, see spend), or long rows under an
// interrupt channel: blocks of pollEvery entries, looking at the channel
// between them. It reports false if the update must stop.
func (c *Core) addRowChunked(i int, nb []int32, w, u []float64) bool {
	k, x, q := c.KG, c.X, len(u)
	for len(nb) > 0 {
		blk := min(len(nb), PollEvery)
		for p, j := range nb[:blk] {
			if j < 0 {
				// A table laid out in the row: compiled.Graph.PairRow written
				// out (the call, inlined, left its slice and nil test in the
				// loop: 1.18 against 0.92 µs an update on K250,250 of pair
				// tables, BenchmarkPairTables).
				if o := int(^j); o < len(k.PairOff) && k.PairOff[o] >= 0 {
					t := k.PairTab[int(k.PairOff[o])+int(x[k.PairOther[o]])*q:][:q]
					for v := range u {
						u[v] += t[v]
					}
					if c.Spend(q) {
						return false
					}
					continue
				}
				if !c.addOp(i, &k.Ops[^j], u) || c.Spend(len(u)) {
					return false
				}
				continue
			}
			if v := int(c.X[j]); uint(v) < uint(len(u)) {
				u[v] += w[p]
			}
		}
		if nb, w = nb[blk:], w[blk:]; len(nb) > 0 && c.Stop() {
			return false
		}
	}
	return true
}

// HardCompiled sets h to the sum of the hard factors of A[i] at x_{i←v}.
func (c *Core) HardCompiled(i int, h []float64) bool {
	clear(h)
	hard := c.KG.Hard[c.KG.HardStart[i]:c.KG.HardStart[i+1]]
	for o := range hard {
		if !c.addOp(i, &hard[o], h) || c.Spend(len(h)) {
			return false
		}
	}
	c.Stat.Factors += int64(len(hard))
	return true
}

// addSoftOp is addOp for soft op o of A[i], a table laid out in the row
// (compiled.Graph.PairRow) read from there.
func (c *Core) addSoftOp(i, o int, u []float64) bool {
	if t := c.KG.PairRow(o, c.X, len(u)); t != nil {
		for v := range u {
			u[v] += t[v]
		}
		return true
	}
	return c.addOp(i, &c.KG.Ops[o], u)
}

// addOp adds the values of a compiled table or generic factor of A[i] at
// every value of variable i to u (a table's lower bound left out: a
// conditional does not see constants). It reports false after recording
// an error of a generic factor.
func (c *Core) addOp(i int, o *compiled.Op, u []float64) bool {
	if o.Kind != compiled.Table {
		return c.addExact(i, int(o.Ref), u)
	}
	t := &c.KG.Tabs
	vals, st := t.Values(o.Ref), int(o.Stride)
	if t.Off[o.Ref+1]-t.Off[o.Ref] == 1 { // a table of i alone (a field): entry v·stride
		for v := range u {
			u[v] += vals[v*st]
		}
		return true
	}
	b := t.Base(o.Ref, c.X, o.Stride, c.X[i])
	for v := range u {
		u[v] += vals[b+v*st]
	}
	return true
}

// compiledUpdate resamples discrete variable i by Poisson-Gibbs over the
// compiled A[i] (Algorithm 2).
//
// The counts s_φ ~ Poisson(aM_φ + φ̃(x)), a = λ/L, are drawn as the sum of
// two independent thinned processes (Statement 1, split by superposition):
// B1 ~ Poisson(a·L_i) picks ∝ M_φ, all kept, give Poisson(aM_φ) copies of
// each φ; B2 ~ Poisson(L_i) picks ∝ M_φ, each kept with probability
// φ̃(x)/M_φ, give Poisson(φ̃(x)) more. The sum is Poisson(aM_φ + φ̃(x)),
// independent across φ, exactly as the single thinned draw of DESIGN §5.2,
// with the same expected number of picks, L_i(a + 1). For a Potts pair φ̃/M_φ
// is 0 or 1, so its picks need no uniform variate at all, and its term of
// U_v is s_φ·log(1 + 1/a) at one value of v: the conditional of a variable
// whose kept factors are all Potts pairs is ∝ (1 + 1/a)^{n_v}, n_v the kept
// counts pointing at v, and needs no exp or log1p per value.
func (p *PGState) compiledUpdate(c *Core, i int) {
	if p.Rec != nil { // one block of a cache line or two a variable, from i alone
		r := p.Rec[i*p.recLen : (i+1)*p.recLen : (i+1)*p.recLen]
		if h := r[recH]; h >= 0 {
			v := pgVar{a: math.Float64frombits(uint64(uint32(r[recA])) | uint64(uint32(r[recA+1]))<<32),
				shape: r[recShape], h: h, lgen: r[recLgen], size: r[recSize], nhard: r[recNhard]}
			p.directUpdate(c, i, &v, r[recRefs:recRefs+h])
			return
		}
	} else if p.Hot != nil && p.Hot[i].h >= 0 {
		v := &p.Hot[i]
		p.directUpdate(c, i, v, p.refs[v.refs:v.refs+v.h])
		return
	}
	k := c.KG
	c.Stat.Steps++
	u := c.U[:c.Size[i]]
	if !c.HardCompiled(i, u) {
		return
	}
	nhard := k.HardStart[i+1] - k.HardStart[i]
	s0, s1 := k.SoftStart[i], k.SoftStart[i+1]
	if s0 == s1 {
		c.set(i, u)
		return
	}
	xi := c.X[i]
	gen := p.gen(c, i)
	p.a = gen.a
	b1, b2 := gen.B.Rand(c.R)
	c.Stat.Picks += int64(b1 + b2)
	n := p.n[:len(u)]
	p.beginDraw(n)
	distinct, ok := p.drawHead(c, i, xi, n, b1, b2)
	if !ok {
		return
	}
	// The paper's "factors evaluated": the distinct factors picked.
	c.Stat.Factors += int64(distinct)
	p.setKept(c, i, u, nhard > 0)
}

// beginDraw clears the tallies of a compiled Poisson-Gibbs draw: the
// Potts counts per value n, the counts s_φ of the other kinds, and the
// marks of the factors picked (by a new epoch).
//
// A kept copy of a Potts pair adds ±log(1 + 1/a) at the value of its
// other variable: it goes straight into n. Other kinds collect their
// counts s_φ for the per-value terms of setKept.
func (p *PGState) beginDraw(n []int32) {
	clear(n)
	p.Counts.Reset()
	if p.epoch++; p.epoch == 0 { // wrapped after 2³² updates
		clear(p.seen)
		p.epoch = 1
	}
}

// drawHead draws the B1 + B2 picks of compiledUpdate from a two-level
// packed table (one 64-bit word and one 16-byte head column a pick, a
// second word for the light factors), xi = x_i (drawPicks).
func (p *PGState) drawHead(c *Core, i int, xi float64, n []int32, b1, b2 int) (int, bool) {
	tab := c.KG.HeadTable(i)
	if b1 <= PollEvery && b2 <= PollEvery { // one chunk each, the usual case: straight calls
		distinct := p.keepHead(c, &tab, n, b1)
		d, ok := p.thinHead(c, i, xi, &tab, n, b2)
		return distinct + d, ok
	}
	return p.drawPicks(c, i, xi, &tab, n, b1, b2, false)
}

// drawPicks draws b1 picks kept (phase 1) and b2 kept with probability
// φ̃(x)/M_φ (phase 2) from tab — its head, or its light factors' bands if
// light —, in chunks of at most pollEvery picks between which it looks at
// the interrupt channel. It returns the distinct factors picked, or false
// after recording an error or if the update must stop.
func (p *PGState) drawPicks(c *Core, i int, xi float64, tab *compiled.HeadTable, n []int32, b1, b2 int, light bool) (int, bool) {
	distinct := 0
	for b1 > 0 {
		k := min(b1, PollEvery)
		if light {
			distinct += p.keepLight(c, tab, n, k)
		} else {
			distinct += p.keepHead(c, tab, n, k)
		}
		if b1 -= k; b1 > 0 && c.Stop() {
			return 0, false
		}
	}
	for b2 > 0 {
		k := min(b2, PollEvery)
		var d int
		ok := true
		if light {
			d, ok = p.thinLight(c, i, xi, tab, n, k)
		} else {
			d, ok = p.thinHead(c, i, xi, tab, n, k)
		}
		if !ok {
			return 0, false
		}
		distinct += d
		if b2 -= k; b2 > 0 && c.Stop() {
			return 0, false
		}
	}
	return distinct, true
}

// keepHead draws phase 1 from a head table: b picks ∝ M_φ, every pick
// kept (Poisson(aM_φ) copies of each φ). It returns the distinct factors
// newly picked.
func (p *PGState) keepHead(c *Core, tab *compiled.HeadTable, n []int32, b int) int {
	r, x := c.R, c.X
	counts, seen, epoch := p.Counts, p.seen, p.epoch
	distinct := 0
	for range b {
		j, ref := tab.PickHead(r.Uint64())
		if j == tab.H { // one of the light factors
			j, ref = tab.PickLight(r)
		}
		distinct += newPick(seen, j, epoch)
		if ref == compiled.NotPotts {
			counts.Add(j)
			continue
		}
		sgn := ref >> 31 // 0 for W > 0, −1 for W < 0
		if v := int(x[ref^sgn]); uint(v) < uint(len(n)) {
			n[v] += 1 + 2*sgn
		}
	}
	return distinct
}

// thinHead draws phase 2 from a head table: b picks ∝ M_φ, each kept with
// probability φ̃(x)/M_φ (Statement 1's thinning). A Potts pick is kept
// where φ̃ = M_φ, a W > 0 pair that agrees or a W < 0 pair that differs,
// with no uniform variate. It returns the distinct factors newly picked,
// or false after recording an error.
func (p *PGState) thinHead(c *Core, i int, xi float64, tab *compiled.HeadTable, n []int32, b int) (int, bool) {
	r, x := c.R, c.X
	s0 := c.KG.SoftStart[i]
	seen, epoch := p.seen, p.epoch
	distinct := 0
	for range b {
		j, ref := tab.PickHead(r.Uint64())
		if j == tab.H { // one of the light factors
			j, ref = tab.PickLight(r)
		}
		distinct += newPick(seen, j, epoch)
		if ref == compiled.NotPotts {
			if !p.thin(c, i, j, c.KG.SoftOpAt(s0, j), xi) {
				return distinct, false
			}
			continue
		}
		sgn := ref >> 31
		xj := x[ref^sgn]
		if v := int(xj); uint(v) < uint(len(n)) {
			keep := int32(0)
			if (xj == xi) != (sgn != 0) {
				keep = 1
			}
			n[v] += keep * (1 + 2*sgn)
		}
	}
	return distinct, true
}

// setKept finishes compiledUpdate from the kept counts (Algorithm 2):
// U_v = Σ s_φ log(1 + φ̃(x_{i←v})/(aM_φ)), Potts pairs in p.n (counts of
// log(1 + 1/a), up to a constant), the other kinds added to u (which holds
// the hard factors' sum; hard reports whether i has any), then the draw.
func (p *PGState) setKept(c *Core, i int, u []float64, hard bool) {
	n := p.n[:len(u)]
	a, full, pow := p.a, p.full, p.pow
	if p.perVariable {
		full, pow = math.Log1p(1/a), nil
	}
	counts := p.Counts
	mixed := hard
	for _, j32 := range counts.Keys() {
		j := int(j32)
		mixed = true
		if !p.addSoft(c, i, c.KG.SoftOpAt(c.KG.SoftStart[i], j), float64(counts.Count(j)), a, full, u) || c.Spend(len(u)) {
			return
		}
	}
	if !mixed && pow != nil {
		c.setPow(i, n, pow, full)
		return
	}
	for v, nv := range n {
		if nv != 0 {
			u[v] += float64(nv) * full
		}
	}
	c.set(i, u)
}

// newPick marks the k-th soft factor as picked in this update and returns 1
// if it was not yet, without a branch.
func newPick(seen []uint32, k int, epoch uint32) int {
	d := seen[k] ^ epoch
	seen[k] = epoch
	return int((d | -d) >> 31)
}

// thin keeps a phase-2 pick of the table or generic soft factor j of A[i]
// with probability φ̃(x)/M_φ. It reports false after recording an error.
func (p *PGState) thin(c *Core, i, j int, o *compiled.Op, xi float64) bool {
	t, ok := p.softValue(c, i, o, xi)
	if !ok {
		return false
	}
	if t >= o.M || c.R.Float64()*o.M < t {
		p.Counts.Add(j)
	}
	return true
}

// directUpdate is compiledUpdate for a variable whose heavy factors' counts
// are drawn directly (v, see initDirect). By Poisson splitting the B1 and
// B2 picks ∝ M_φ give each factor independent counts, Poisson(aM_φ) in
// phase 1 and Poisson(M_φ) in phase 2, of which phase 2's are kept with
// probability φ̃(x)/M_φ: so each heavy factor gets its two counts from
// guide tables shared by equal means (a run of equal small ones one count
// for the run, each copy on a uniform member), a Potts pair keeps its
// phase-2 copies where φ̃ = M_φ, and only the light factors are picked,
// Poisson(a·Σ_light M_φ) and Poisson(Σ_light M_φ) times from their bands.
// The counts, picks and distinct factors have the laws of compiledUpdate's,
// and the update reads the variable's block and its heavy neighbours'
// values, not its alias table: on a graph far larger than the cache, a
// few cache misses fewer a step.
func (p *PGState) directUpdate(c *Core, i int, v *pgVar, refs []int32) {
	c.Stat.Steps++
	u := c.U[:v.size]
	if v.nhard > 0 {
		if !c.HardCompiled(i, u) {
			return
		}
	} else {
		clear(u)
	}
	xi := c.X[i]
	p.a = v.a
	n := p.n[:len(u)]
	p.beginDraw(n)
	r, x := c.R, c.X
	pairs := p.Pairs
	seen, epoch := p.seen, p.epoch
	picks, distinct := 0, 0
	gens := p.shapes[v.shape : int(v.shape)+len(refs)]
	// The heavy neighbours' values first, unless the look-ahead prefetched
	// them a step ago (a loop of loads would then only add to the step).
	gather := p.Gather && c.Prefetch == nil
	xs := p.gatherHeavy(x, refs, gens, gather)
	for kk := 0; kk < len(refs); kk++ {
		gen := gens[kk]
		if gen < 0 { // a run of m factors of equal M_φ: its counts, on uniform members
			g, m := runOf(gen)
			t1, t2 := pairs[g].Rand(r)
			if t1+t2 > 0 { // most often not: the run's means are small
				d, ok := p.drawRun(c, i, kk, m, refs, xi, n, t1, t2)
				if !ok {
					return
				}
				picks += t1 + t2
				distinct += d
			}
			kk += m - 1
			continue
		}
		ref := refs[kk]
		if ref == compiled.NotPotts {
			s1, s2 := pairs[gen].Rand(r)
			if s1+s2 == 0 {
				continue
			}
			picks += s1 + s2
			distinct += newPick(seen, kk, epoch)
			if !p.addCount(c, kk, s1) || !p.thinCount(c, i, kk, s2, xi) {
				return
			}
			continue
		}
		sgn := ref >> 31 // 0 for W > 0, −1 for W < 0
		xj := xs[kk]
		if !gather {
			xj = x[ref^sgn]
		}
		kept, s2 := pairs[gen].Rand(r)
		all := kept + s2
		if (xj == xi) != (sgn != 0) { // φ̃ = M_φ: phase 2's copies are kept too
			kept = all
		}
		if all == 0 {
			continue
		}
		picks += all
		distinct++ // factor kk is drawn here only
		if v := int(xj); uint(v) < uint(len(n)) {
			n[v] += int32(kept) * (1 + 2*sgn)
		}
	}
	if v.lgen >= 0 { // the light factors' counts, then their picks (most often none)
		if b1, b2 := pairs[v.lgen].Rand(r); b1+b2 > 0 {
			d, ok := p.drawLight(c, i, xi, n, b1, b2)
			if !ok {
				return
			}
			picks += b1 + b2
			distinct += d
		}
	}
	c.Stat.Picks += int64(picks)
	c.Stat.Factors += int64(distinct)
	p.setKept(c, i, u, v.nhard > 0)
}

// gatherHeavy reads the values of the other variables of directUpdate's
// heavy Potts pairs into p.xs (when gather) in a loop of loads alone: on
// a graph larger than the cache they miss, and issued together they wait
// once, not once each. (A run's members are read if they are drawn.)
func (p *PGState) gatherHeavy(x []float64, refs, gens []int32, gather bool) []float64 {
	xs := p.xs[:len(refs)]
	if gather {
		for kk, ref := range refs {
			if ref != compiled.NotPotts && gens[kk] >= 0 {
				xs[kk] = x[ref^(ref>>31)]
			}
		}
	}
	return xs
}

// drawRun places directUpdate's t1 + t2 copies (phases 1 and 2) of the
// run of m heavy factors of equal M_φ that starts at kk, each on a uniform
// member. It returns the distinct factors newly picked, or false after
// recording an error.
func (p *PGState) drawRun(c *Core, i, kk, m int, refs []int32, xi float64, n []int32, t1, t2 int) (distinct int, ok bool) {
	r := c.R
	for t := range t1 + t2 {
		hi, _ := bits.Mul64(r.Uint64(), uint64(m))
		j := kk + int(hi)
		distinct += newPick(p.seen, j, p.epoch)
		if !p.addCopy(c, i, j, refs[j], xi, n, t >= t1) {
			return 0, false
		}
	}
	return distinct, true
}

// drawLight draws directUpdate's b1 + b2 picks of the light factors of
// A[i] (drawPicks on their bands).
func (p *PGState) drawLight(c *Core, i int, xi float64, n []int32, b1, b2 int) (int, bool) {
	tab := c.KG.HeadTable(i)
	return p.drawPicks(c, i, xi, &tab, n, b1, b2, true)
}

// addCopy adds one copy of the heavy factor j of A[i] (Col reference ref)
// to the counts: kept for phase 1, kept where φ̃ = M_φ (a Potts pair) or
// with probability φ̃/M_φ (thin) for phase 2. It reports false after
// recording an error.
func (p *PGState) addCopy(c *Core, i, j int, ref int32, xi float64, n []int32, phase2 bool) bool {
	if ref == compiled.NotPotts {
		if !phase2 {
			p.Counts.Add(j)
			return true
		}
		return p.thin(c, i, j, c.KG.SoftOpAt(c.KG.SoftStart[i], j), xi)
	}
	sgn := ref >> 31
	xj := c.X[ref^sgn]
	if phase2 && (xj == xi) == (sgn != 0) {
		return true // φ̃ = 0: not kept
	}
	if v := int(xj); uint(v) < uint(len(n)) {
		n[v] += 1 + 2*sgn
	}
	return true
}

// thinCount keeps each of s phase-2 copies of the table or generic soft
// factor k of A[i] with probability φ̃(x)/M_φ (one evaluation for all),
// looking at the interrupt channel every pollEvery copies. It reports false
// after recording an error or if the update must stop.
func (p *PGState) thinCount(c *Core, i, k, s int, xi float64) bool {
	if s == 0 {
		return true
	}
	o := c.KG.SoftOpAt(c.KG.SoftStart[i], k)
	t, ok := p.softValue(c, i, o, xi)
	if !ok {
		return false
	}
	for s > 0 {
		m := min(s, PollEvery)
		for range m {
			if t >= o.M || c.R.Float64()*o.M < t {
				p.Counts.Add(k)
			}
		}
		if s -= m; s > 0 && c.Stop() {
			return false
		}
	}
	return true
}

// thinLight draws b phase-2 picks of directUpdate's light factors, each
// kept with probability φ̃(x)/M_φ. It returns the distinct factors newly
// picked, or false after recording an error.
func (p *PGState) thinLight(c *Core, i int, xi float64, tab *compiled.HeadTable, n []int32, b int) (int, bool) {
	seen, epoch := p.seen, p.epoch
	distinct := 0
	for range b {
		j, ref := tab.PickLight(c.R)
		distinct += newPick(seen, j, epoch)
		if !p.addCopy(c, i, j, ref, xi, n, true) {
			return distinct, false
		}
	}
	return distinct, true
}

// addCount adds s copies of the k-th soft factor to the counts, looking at
// the interrupt channel every pollEvery copies. It reports false if the
// update must stop.
func (p *PGState) addCount(c *Core, k, s int) bool {
	for s > 0 {
		m := min(s, PollEvery)
		for range m {
			p.Counts.Add(k)
		}
		if s -= m; s > 0 && c.Stop() {
			return false
		}
	}
	return true
}

// keepLight draws b picks of directHead's light factors, every pick kept.
// It returns the distinct factors newly picked.
func (p *PGState) keepLight(c *Core, tab *compiled.HeadTable, n []int32, b int) int {
	r, x := c.R, c.X
	seen, epoch := p.seen, p.epoch
	distinct := 0
	for range b {
		j, ref := tab.PickLight(r)
		distinct += newPick(seen, j, epoch)
		if ref == compiled.NotPotts {
			p.Counts.Add(j)
			continue
		}
		sgn := ref >> 31
		if v := int(x[ref^sgn]); uint(v) < uint(len(n)) {
			n[v] += 1 + 2*sgn
		}
	}
	return distinct
}

// The direct counts of a run of heavy factors with equal M_φ whose total
// phase-1 mean is at most maxGroupMean are drawn as one count for the run
// in each phase (one draw for several factors, most often 0: the shells of
// a kernel that depends on the distance). In a shape the run's first
// factor holds ^(g | m<<16), g its generators and m its length (runOf),
// and the others groupMember.
const (
	maxGroupMean = 1
	groupMember  = math.MinInt32
)

// runOf returns the generators and the length of the run whose first
// factor's entry in a shape is gen.
func runOf(gen int32) (g int32, m int) {
	x := ^gen
	return x & 0xffff, int(x >> 16)
}

// pgVar is what directUpdate reads of variable i, in one place: its a =
// λ/L (λ_i/L_i per variable), the domain size, the number of hard factors,
// its h heavy factors (h < 0: not direct) — their Col references from
// p.refs[refs] (or, recordLayout, one record with them) and their generators from p.shapes[shape] —
// and the generators lgen of its light factors' picks (−1: none).
//
// The generators of a variable's heavy factors depend on their bounds M_φ
// alone, which the variables of a lattice share: they are stored once for
// each distinct sequence (a shape), and a step reads its variable's
// references (4 bytes a factor) and a shape that stays in cache.
type pgVar struct {
	a     float64
	refs  int32
	shape int32
	h     int32
	lgen  int32
	size  int32
	nhard int32
}

// gatherBytes is the state size from which directUpdate reads the heavy
// neighbours' values in a loop of their own (the state no longer fits the
// cache nearest the core; below, the extra loop costs more than it saves).
const gatherBytes = 1 << 20

// initDirect chooses the variables of vars whose counts directUpdate draws:
// a head of h ≤ compiled.MaxHead heavy factors, and h direct counts cheaper
// than the a·L_i phase-1 picks they replace (h ≤ a·L_i, a draw from a
// table costing about what a pick does). Their generators are shared by
// equal means; past maxGens distinct means, no variable draws directly.
func (p *PGState) initDirect(c *Core, vars []int) {
	k := c.KG
	ids := make(genIDs)
	shapes := make(map[string]int32)
	var shape []int32
	p.Hot = make([]pgVar, c.M.NumVars())
	for i := range p.Hot {
		p.Hot[i].h = -1
	}
	direct := false
	for _, i := range vars {
		s0, s1 := k.SoftStart[i], k.SoftStart[i+1]
		h := int(k.Heads[i].H)
		if s0 == s1 || h > compiled.MaxHead {
			continue
		}
		l, lambda := p.scale(c.M, i)
		a := lambda / l
		if float64(h) > a*p.li[i] {
			continue
		}
		v := &p.Hot[i]
		*v = pgVar{a: a, refs: int32(len(p.refs)), h: int32(h), lgen: -1, size: c.Size[i],
			nhard: int32(k.HardStart[i+1] - k.HardStart[i])}
		nb, w := k.Row(i)
		shape = p.appendShape(shape[:0], ids, nb, w, h, a)
		v.shape = p.internShape(shapes, shape)
		if h < len(w) {
			light := 0.0
			for _, x := range w[h:] {
				light += math.Abs(x)
			}
			v.lgen = p.genOf(ids, a*light, light)
		}
		direct = true
		if len(p.Pairs) > maxGens || len(p.shapes) > maxGens*compiled.MaxHead {
			p.Pairs, p.refs, p.shapes, p.Hot = nil, nil, nil, nil
			return
		}
	}
	if !direct {
		p.Hot = nil
		return
	}
	p.xs = make([]float64, compiled.MaxHead)
	p.Gather = 8*c.M.NumVars() > gatherBytes
	p.recordLayout()
}

// genIDs maps the means (phase 1, phase 2) of initDirect's generators to
// their index in p.Pairs.
type genIDs map[[2]float64]int32

// genOf returns the index in p.Pairs of the generator of Poisson(mean1)
// and Poisson(mean2) counts (phases 1 and 2), adding it if no earlier
// variable needed those means.
func (p *PGState) genOf(ids genIDs, mean1, mean2 float64) int32 {
	g, ok := ids[[2]float64{mean1, mean2}]
	if !ok {
		g = int32(len(p.Pairs))
		p.Pairs = append(p.Pairs, p.newPair(mean1, mean2))
		ids[[2]float64{mean1, mean2}] = g
	}
	return g
}

// appendShape appends to p.refs the Col references of the h heavy factors
// of a variable's row (nb, w), and to shape their generators: each
// factor's own, or for a run of equal bounds whose phase-1 mean is at most
// maxGroupMean the run's (^(g | m<<16) on its first factor, groupMember on the
// others). It returns the extended shape.
func (p *PGState) appendShape(shape []int32, ids genIDs, nb []int32, w []float64, h int, a float64) []int32 {
	for kk := 0; kk < h; {
		mk := math.Abs(w[kk])
		m := 1 // the run of factors of bound mk
		for kk+m < h && math.Abs(w[kk+m]) == mk {
			m++
		}
		group := m > 1 && float64(m)*a*mk <= maxGroupMean
		for j := kk; j < kk+m; j++ {
			p.refs = append(p.refs, compiled.Ref(nb[j], w[j]))
			switch {
			case !group:
				shape = append(shape, p.genOf(ids, a*mk, mk))
			case j == kk:
				shape = append(shape, ^(p.genOf(ids, float64(m)*a*mk, float64(m)*mk) | int32(m)<<16))
			default:
				shape = append(shape, groupMember)
			}
		}
		kk += m
	}
	return shape
}

// internShape returns the offset of shape in p.shapes, appending it if no
// earlier variable had the same sequence of generators.
func (p *PGState) internShape(shapes map[string]int32, shape []int32) int32 {
	key := fmt.Sprint(shape)
	off, ok := shapes[key]
	if !ok {
		off = int32(len(p.shapes))
		p.shapes = append(p.shapes, shape...)
		shapes[key] = off
	}
	return off
}

// The fields of a variable's record in p.Rec (recordLayout): a's two
// words, its shape, h, lgen, domain size and hard factors, then from
// recRefs its heavy factors' references.
const (
	recA = iota
	_
	recShape
	recH
	recLgen
	recSize
	recNhard
	_
	recRefs
)

// recordLayout stores each variable's pgVar and its heavy factors'
// references together in a record of a fixed length (a multiple of 16
// words, 64 bytes: the variable i's from i·recLen, aligned to cache
// lines), when that costs at most a quarter more than the two arrays (the
// heads of a lattice are of one size): directUpdate then reads one or two
// adjacent cache lines found from i alone, not a line of p.Hot and one or
// two of p.refs, on a graph far larger than the cache.
func (p *PGState) recordLayout() {
	stride := 0
	for _, v := range p.Hot {
		stride = max(stride, int(v.h))
	}
	l := (recRefs + stride + 15) &^ 15
	if stride == 0 || 4*l*len(p.Hot) > 5*(len(p.refs)+8*len(p.Hot)) {
		return
	}
	rec := make([]int32, l*len(p.Hot))
	for i, v := range p.Hot {
		r := rec[i*l : (i+1)*l]
		a := math.Float64bits(v.a)
		r[recA], r[recA+1] = int32(uint32(a)), int32(uint32(a>>32))
		r[recShape], r[recH], r[recLgen], r[recSize], r[recNhard] = v.shape, v.h, v.lgen, v.size, v.nhard
		if v.h > 0 {
			copy(r[recRefs:], p.refs[v.refs:v.refs+v.h])
		}
	}
	p.Rec, p.recLen, p.Hot, p.refs = rec, l, nil, nil
}

// pgGen is what the compiled Poisson-Gibbs draw of one variable needs: a =
// λ/L (λ_i/L_i in the per-variable variant) and the generator of its two
// batch sizes, B1 ~ Poisson(a·L_i) and B2 ~ Poisson(L_i), drawn together.
type pgGen struct {
	a float64
	B minibatch.PoissonPair
}

// maxGens bounds the distinct generators a sampler keeps; a model with more
// distinct L_i builds each variable's generators at each update.
const maxGens = 1 << 14

// initGens precomputes the generators of every free variable with soft
// factors, shared between variables with equal L_i.
func (p *PGState) initGens(c *Core, vars []int) {
	p.genIdx = make([]int32, c.M.NumVars())
	seen := make(map[float64]int32)
	for _, i := range vars {
		li := p.li[i]
		if li == 0 {
			continue
		}
		g, ok := seen[li]
		if !ok {
			if len(p.Gens) == maxGens {
				p.Gens, p.genIdx = nil, nil
				return
			}
			g = int32(len(p.Gens))
			p.Gens = append(p.Gens, p.newGen(c, i, true))
			seen[li] = g
		}
		p.genIdx[i] = g
	}
}

// newGen returns the generators of variable i: guide tables for the kept
// ones, and for a generator built for one update (past maxGens), which must
// not allocate, the constants of PoissonGen.
func (p *PGState) newGen(c *Core, i int, kept bool) pgGen {
	l, lambda := p.scale(c.M, i)
	a := lambda / l
	if !kept {
		return pgGen{a: a, B: minibatch.PairOf(minibatch.NewPoissonGen(a*p.li[i]), minibatch.NewPoissonGen(p.li[i]))}
	}
	return pgGen{a: a, B: p.newPair(a*p.li[i], p.li[i])}
}

// maxJoint bounds the joint tables of the two phases' counts a sampler
// builds (minibatch.NewPoissonPair, at most 5 KB each); past it, the
// counts of a pair are drawn apart, each from its own table.
const maxJoint = 256

// newPair returns the generator of the counts Poisson(mean1) and
// Poisson(mean2) of the two phases, with a joint table while fewer than
// maxJoint have been built.
func (p *PGState) newPair(mean1, mean2 float64) minibatch.PoissonPair {
	if p.joint >= maxJoint {
		return minibatch.PairOf(minibatch.NewPoissonTable(mean1), minibatch.NewPoissonTable(mean2))
	}
	p.joint++
	return minibatch.NewPoissonPair(mean1, mean2)
}

// gen returns the generators of variable i.
func (p *PGState) gen(c *Core, i int) *pgGen {
	if p.Gens != nil {
		return &p.Gens[p.genIdx[i]]
	}
	p.tmp = p.newGen(c, i, false)
	return &p.tmp
}

// softValue returns φ̃(x) of a compiled table or generic soft factor of
// A[i] at the current state (x_i = xi), checking a generic factor's range;
// false after recording an error, or if the update must stop (a generic
// factor's evaluation counts as work, see spend).
func (p *PGState) softValue(c *Core, i int, o *compiled.Op, xi float64) (float64, bool) {
	if o.Kind == compiled.Table {
		t := &c.KG.Tabs
		return t.Values(o.Ref)[t.Base(o.Ref, c.X, o.Stride, xi)+int(o.Stride)*int(xi)] - o.Lo, true
	}
	t := c.M.Eval(i, int(o.Ref), c.X)
	if !factorgraph.InRange(t, o.M) {
		c.Fail(factorgraph.CheckError(c.M, i, int(o.Ref), t))
		return 0, false
	}
	return t, !c.Spend(1)
}

// addSoft adds s·log(1 + φ̃(x_{i←v})/(aM_φ)) for every v to u, for a kept
// table or generic soft factor of A[i].
func (p *PGState) addSoft(c *Core, i int, o *compiled.Op, s, a, full float64, u []float64) bool {
	buf := c.Buf[:len(u)]
	if o.Kind == compiled.Table {
		t := &c.KG.Tabs
		b, st := t.Base(o.Ref, c.X, o.Stride, c.X[i]), int(o.Stride)
		vals := t.Values(o.Ref)
		for v := range buf {
			buf[v] = vals[b+v*st] - o.Lo
		}
	} else {
		c.M.EvalAll(i, int(o.Ref), c.X, buf)
	}
	return c.addLog1p(i, int(o.Ref), buf, o.M, s, a, full, u)
}

// addLog1p adds s·log(1 + φ̃_v/(aM)) to u[v] for the values φ̃_v = buf[v] of
// the k-th factor of A[i] (bound M) at x_{i←v}, checking each against the
// range: the term of a kept factor in Poisson-Gibbs's U_v (Algorithm 2),
// full = log(1 + 1/a) at φ̃ = M. It reports false after recording an error.
func (c *Core) addLog1p(i, k int, buf []float64, m, s, a, full float64, u []float64) bool {
	lo, hi := factorgraph.Limits(m)
	inv := 1 / (a * m)
	for v, t := range buf {
		switch {
		case t == 0:
		case t == m:
			u[v] += s * full
		case t >= lo && t <= hi:
			u[v] += s * math.Log1p(t*inv) // s_φ log(1 + L φ̃/(λ M_φ))
		default:
			c.Fail(factorgraph.CheckError(c.M, i, k, t))
			return false
		}
	}
	return true
}

// powTable is the number of powers (1 + 1/a)^{−k} a Poisson-Gibbs sampler
// keeps for Potts conditionals; larger gaps use exp.
const powTable = 64

// newPow returns pow[k] = (1 + 1/a)^{−k} = exp(−k·log(1 + 1/a)).
func newPow(full float64) []float64 {
	pow := make([]float64, powTable)
	for k := range pow {
		pow[k] = math.Exp(-float64(k) * full)
	}
	return pow
}

// setPow finishes an update of i whose conditional is ∝ (1 + 1/a)^{n_v}.
func (c *Core) setPow(i int, n []int32, pow []float64, full float64) {
	w := c.U[:len(n)]
	total := powWeights(w, n, pow, full)
	c.X[i] = float64(DrawWeights(c.R.Float64()*total, w))
	if c.Recording {
		c.drew(i, w, total)
	}
}

// powWeights sets w[v] = (1 + 1/a)^{n_v − max n} — pow[max n − n_v], or
// exp(−(max n − n_v)·full) past the table — and returns their total.
func powWeights(w []float64, n []int32, pow []float64, full float64) float64 {
	top := n[0]
	for _, nv := range n[1:] {
		top = max(top, nv)
	}
	total := 0.0
	for v, nv := range n {
		if g := int(top - nv); g < len(pow) {
			w[v] = pow[g]
		} else {
			w[v] = math.Exp(-float64(g) * full)
		}
		total += w[v]
	}
	return total
}

// UpdateScan makes m updates by UpdateFn of the variables scan[p],
// scan[p+1], … (from scan[0] again after the last) and returns the position
// after them: a replica's share of a round of replica exchange. Where the
// sampler is plain Gibbs (TorusSweep) on a graph of Potts pairs and fields
// with no hard factor, recording no conditional and not interruptible
// within an update, the binary variables' updates run in one loop, the
// checks of Update and binaryCompiled made once for the run: the same
// sums and draws as m calls of UpdateFn, bit for bit (TestUpdateScan).
func (c *Core) UpdateScan(scan []int, p, m int) int {
	k := c.KG
	if !c.TorusSweep || k == nil || !k.AllPotts && !k.Fields || len(k.Hard) > 0 || c.Recording || c.NoBinary || c.Done != nil {
		for range m {
			c.UpdateFn(scan[p])
			if p++; p == len(scan) {
				p = 0
			}
		}
		return p
	}
	for range m {
		i := scan[p]
		if p++; p == len(scan) {
			p = 0
		}
		switch {
		case c.Failure != nil || c.Clamped[i]:
			continue
		case c.Size[i] != 2:
			c.UpdateFn(i)
			continue
		}
		c.Stat.Steps++
		nb, w := k.Row(i)
		c.drawBinary(i, nb, w)
	}
	return p
}

// pottsFields2Binary is pottsFields2 where every variable is binary and
// every value of X is 0 or 1 (AllBinary), in the branch-free form of
// pottsRow2Binary: the same sums, bit for bit.
func (c *Core) pottsFields2Binary(nb []int32, w []float64) (u0, u1 float64) {
	k, x := c.KG, c.X
	w = w[:len(nb)]
	for p, j := range nb {
		if j >= 0 {
			v := x[j]
			u0 += w[p] * (1 - v)
			u1 += w[p] * v
			continue
		}
		vals := k.FieldVals[^j][:2]
		u0 += vals[0]
		u1 += vals[1]
	}
	return u0, u1
}
