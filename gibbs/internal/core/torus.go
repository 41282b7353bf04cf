package core

import (
	"math"
	"math/bits"
	"slices"

	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// identityFree reports whether free lists every variable of n in order, as
// a lattice's does: a random-scan pick of a 10⁶-site lattice then skips a
// cache miss in the 8 MB list.
func identityFree(free []int, n int) bool {
	if len(free) != n {
		return false
	}
	for k, i := range free {
		if i != k {
			return false
		}
	}
	return true
}

// maxStack is the largest number of values whose per-value scratch an
// exact torus update keeps on the goroutine's stack: scratch shared in a
// heap object would put the workers of a Chromatic sampler on each other's
// cache lines.
const maxStack = 16

// exactTorus resamples discrete variable i of a torus model from its full
// conditional (Algorithm 1): U_v = Σ_k W_k·δ(v, x_{i+k}) up to a constant.
func (c *Core) exactTorus(i int) {
	t := c.Tor
	c.Stat.Steps++
	c.Stat.Factors += int64(len(t.Off))
	b0, b1, b2 := t.Bases(i)
	switch {
	case t.Heat != nil:
		c.heatTorus(i, b0, b1, b2)
	case t.ExpGap != nil && t.States <= maxStack:
		c.expGapTorus(i, b0, b1, b2)
	case t.States == 2:
		c.binaryTorus(i, b0, b1, b2)
	default:
		c.sumTorus(i, b0, b1, b2)
	}
}

// heatTorus is exactTorus for two states and one coupling: the heat-bath
// probability of x_i = 1 depends only on the number of neighbours at 1.
// (b0, b1, b2 are the components of site i, compiled.Geometry.Bases.)
func (c *Core) heatTorus(i, b0, b1, b2 int) {
	t := c.Tor
	m0, m1, m2 := t.Mod[0], t.Mod[1], t.Mod[2]
	x, off := c.X, t.Off
	n1 := 0
	for k0 := 0; k0 < len(off); k0 += PollEvery {
		if k0 > 0 && c.Stop() {
			return
		}
		blk := off[k0:min(k0+PollEvery, len(off))]
		for k := range blk {
			d := &blk[k].D
			j := compiled.Wrap(b0+int(d[0]), m0) + compiled.Wrap(b1+int(d[1]), m1) + compiled.Wrap(b2+int(d[2]), m2)
			n1 += int(x[j]) & 1
		}
	}
	_, below := bits.Sub64(c.R.Uint64(), t.Heat[n1], 0) // 1 with probability Heat[n1]·2⁻⁶⁴
	x[i] = float64(below)
}

// expGapTorus is exactTorus for one coupling W and at most maxStack
// states: U_v = W·n_v, the weights exp(−|W|·|n_v − n_ref|) from a table.
func (c *Core) expGapTorus(i, b0, b1, b2 int) {
	t := c.Tor
	m0, m1, m2 := t.Mod[0], t.Mod[1], t.Mod[2]
	x, off := c.X, t.Off
	var nb [maxStack]int32
	n := nb[:t.States]
	for k0 := 0; k0 < len(off); k0 += PollEvery {
		if k0 > 0 && c.Stop() {
			return
		}
		blk := off[k0:min(k0+PollEvery, len(off))]
		for k := range blk {
			d := &blk[k].D
			j := compiled.Wrap(b0+int(d[0]), m0) + compiled.Wrap(b1+int(d[1]), m1) + compiled.Wrap(b2+int(d[2]), m2)
			if v := int(x[j]); uint(v) < uint(len(n)) {
				n[v]++
			}
		}
	}
	ref := n[0]
	for _, nv := range n[1:] {
		if t.W[0] > 0 {
			ref = max(ref, nv)
		} else {
			ref = min(ref, nv)
		}
	}
	var wb [maxStack]float64
	w := wb[:len(n)]
	total := 0.0
	for v, nv := range n {
		g := nv - ref
		if g < 0 {
			g = -g
		}
		w[v] = t.ExpGap[g]
		total += w[v]
	}
	x[i] = float64(DrawWeights(c.R.Float64()*total, w))
}

// binaryTorus is exactTorus for two states: U_1 − U_0 = Σ_k W_k·(2x_j − 1),
// one exponential.
func (c *Core) binaryTorus(i, b0, b1, b2 int) {
	t := c.Tor
	m0, m1, m2 := t.Mod[0], t.Mod[1], t.Mod[2]
	x, off := c.X, t.Off
	d := 0.0
	for k0 := 0; k0 < len(off); k0 += PollEvery {
		if k0 > 0 && c.Stop() {
			return
		}
		blk := off[k0:min(k0+PollEvery, len(off))]
		wk := t.W[k0 : k0+len(blk)]
		for k := range blk {
			e := &blk[k].D
			j := compiled.Wrap(b0+int(e[0]), m0) + compiled.Wrap(b1+int(e[1]), m1) + compiled.Wrap(b2+int(e[2]), m2)
			if x[j] != 0 {
				d += wk[k]
			} else {
				d -= wk[k]
			}
		}
	}
	// P(x_i = 1) = 1/(1 + e^{−d}), drawn as u·(1 + e^{−d}) < 1.
	if c.R.Float64()*(1+math.Exp(-d)) < 1 {
		x[i] = 1
	} else {
		x[i] = 0
	}
}

// sumTorus is exactTorus in general: U_v = Σ_k W_k·δ(v, x_{i+k}) summed
// value by value (on the stack for at most maxStack values).
func (c *Core) sumTorus(i, b0, b1, b2 int) {
	t := c.Tor
	m0, m1, m2 := t.Mod[0], t.Mod[1], t.Mod[2]
	x, off, q := c.X, t.Off, t.States
	wk := t.W[:len(off)]
	var ub [maxStack]float64
	var u []float64
	if q <= maxStack {
		u = ub[:q]
	} else {
		u = c.U[:q]
		clear(u)
	}
	for k0 := 0; k0 < len(off); k0 += PollEvery {
		if k0 > 0 && c.Stop() {
			return
		}
		blk := off[k0:min(k0+PollEvery, len(off))]
		wb := wk[k0 : k0+len(blk)]
		for k := range blk {
			e := &blk[k].D
			j := compiled.Wrap(b0+int(e[0]), m0) + compiled.Wrap(b1+int(e[1]), m1) + compiled.Wrap(b2+int(e[2]), m2)
			if v := int(x[j]); uint(v) < uint(len(u)) {
				u[v] += wb[k]
			}
		}
	}
	c.set(i, u)
}

// UpdateEach updates the variables of vars in turn with UpdateFn (a
// Chromatic worker's share of a colour class), after journalling them if
// journal is set; where TorusSweep is set and the model has a torus form,
// the torus loop does it instead, with no call per site (walking the rows
// where rows says CheckerRun(vars) holds). It stops at an aborted update.
func (c *Core) UpdateEach(vars []int, journal, rows bool) {
	if c.Failure != nil || (c.TorusSweep && c.TorusVars(vars, journal, rows)) {
		return
	}
	if journal {
		c.Journal(vars)
	}
	for _, i := range vars {
		if c.UpdateFn(i); c.Aborted {
			return
		}
	}
}

// Journal appends the values of vars to c.Saved.
func (c *Core) Journal(vars []int) {
	for _, i := range vars {
		c.Saved = append(c.Saved, c.X[i])
	}
}

// TorusVars updates the variables of vars in turn by exact updates with
// one loop over the sites of a torus model, journalling their old values
// if asked, and reports whether it could (a torus model whose variables
// are all free, not compiled otherwise). rows says vars is a CheckerRun,
// walked row by row.
func (c *Core) TorusVars(vars []int, journal, rows bool) bool {
	t := c.Tor
	if t == nil || c.KG != nil || !c.AllFree || c.LogTracking { // the torus loop does not track ℓ
		return false
	}
	if t.Heat != nil && t.NN && t.Dim == 2 {
		if rows && !c.NoRows {
			c.nnHeat2Rows(vars, journal)
		} else {
			c.nnHeat2(vars, journal)
		}
		return true
	}
	if journal {
		c.Journal(vars)
	}
	for _, i := range vars {
		if c.exactTorus(i); c.Aborted {
			break
		}
	}
	return true
}

// nnHeat2 is the heat-bath update of every site of vars on a 2-D
// nearest-neighbour torus of two-state spins with one coupling (the Ising
// model): the neighbours by index arithmetic, their values summed as
// float64 (0 or 1, exactly), and x_i = 1 with probability Heat[n_1]. With
// journal set, nnHeat2Journal does it.
func (c *Core) nnHeat2(vars []int, journal bool) {
	if journal {
		c.nnHeat2Journal(vars)
		return
	}
	t := c.Tor
	x, r, heat := c.X, c.R, t.Heat
	n, sites, div := t.Side, t.Sites, t.Div
	for _, i := range vars {
		up, dn, lf, rt := nnSites(i, n, sites, div)
		n1 := int(x[up] + x[dn] + x[lf] + x[rt])
		_, below := bits.Sub64(r.Uint64(), heat[n1], 0) // 1 with probability Heat[n1]·2⁻⁶⁴
		x[i] = float64(below)
	}
	c.Stat.Steps += int64(len(vars))
	c.Stat.Factors += 4 * int64(len(vars))
}

// nnHeat2Journal is nnHeat2 appending each site's old value to c.Saved01
// in the same loop (its cache line is the one the update writes), one byte
// a value: an eighth of the memory traffic of a float64 journal. (A loop of
// its own: a test of journal a site costs the plain loop 5%.)
func (c *Core) nnHeat2Journal(vars []int) {
	t := c.Tor
	x, r, heat := c.X, c.R, t.Heat
	n, sites, div := t.Side, t.Sites, t.Div
	start := len(c.Saved01)
	c.Saved01 = slices.Grow(c.Saved01, len(vars))[:start+len(vars)]
	old := c.Saved01[start:]
	old = old[:len(vars)]
	for k, i := range vars {
		up, dn, lf, rt := nnSites(i, n, sites, div)
		n1 := int(x[up] + x[dn] + x[lf] + x[rt])
		_, below := bits.Sub64(r.Uint64(), heat[n1], 0) // 1 with probability Heat[n1]·2⁻⁶⁴
		old[k] = uint8(math.Float64bits(x[i]) >> 56)    // the sign and top exponent bits: 0, 0x80 (−0) or 0x3F (1)
		x[i] = float64(below)
	}
	c.Stat.Steps += int64(len(vars))
	c.Stat.Factors += 4 * int64(len(vars))
}

// CheckerRun reports whether vars are consecutive sites of one colour of
// the checkerboard of the 2-D nearest-neighbour torus of two-state spins
// (nnHeat2's model), in increasing order — a Chromatic worker's share of a
// colour class of lattice.Colouring —, so that nnHeat2Rows can walk them
// row by row without reading the list. A Chromatic asks once, when it
// splits its classes: any contiguous part of such a run is one too.
func (c *Core) CheckerRun(vars []int) bool {
	t := c.Tor
	if t == nil || t.Heat == nil || !t.NN || t.Dim != 2 || len(vars) == 0 || vars[0] < 0 || vars[0] >= t.Sites {
		return false
	}
	n := t.Side
	row, col := vars[0]/n, vars[0]%n
	p := (row + col) & 1
	for _, v := range vars[1:] {
		if col += 2; col >= n {
			row++
			col = (p + row) & 1
		}
		if row >= n || v != row*n+col {
			return false
		}
	}
	return true
}

// nnHeat2Rows is nnHeat2 on a CheckerRun: the same sites in the same order,
// hence the same draws bit for bit, walked along the rows of x with the
// rows above and below at hand, instead of through the list and a site's
// neighbours computed from its index. On the 1000² Ising torus the list
// and the index arithmetic were a fifth of a sweep; a one-byte copy of the
// state, tried instead, made it 7–12% slower (its write-back pass), the
// float64 state being read row by row from cache.
func (c *Core) nnHeat2Rows(vars []int, journal bool) {
	t := c.Tor
	x, r, heat, n := c.X, c.R, t.Heat, t.Side
	var old []uint8
	if journal {
		start := len(c.Saved01)
		c.Saved01 = slices.Grow(c.Saved01, len(vars))[:start+len(vars)]
		old = c.Saved01[start:]
	}
	row, col := vars[0]/n, vars[0]%n
	p := (row + col) & 1
	k := 0
	for k < len(vars) {
		up := x[((row+n-1)%n)*n:][:n]
		dn := x[((row+1)%n)*n:][:n]
		me := x[row*n:][:n]
		for ; col < n && k < len(vars); col += 2 {
			lf, rt := col-1, col+1
			if lf < 0 {
				lf = n - 1
			}
			if rt == n {
				rt = 0
			}
			n1 := int(up[col] + dn[col] + me[lf] + me[rt])
			_, below := bits.Sub64(r.Uint64(), heat[n1], 0) // 1 with probability Heat[n1]·2⁻⁶⁴
			if journal {
				old[k] = uint8(math.Float64bits(me[col]) >> 56) // as nnHeat2Journal
			}
			me[col] = float64(below)
			k++
		}
		row++
		col = (p + row) & 1
	}
	c.Stat.Steps += int64(len(vars))
	c.Stat.Factors += 4 * int64(len(vars))
}

// nnSites returns the four neighbours of site i of an n×n torus of sites
// sites (div = ⌈2⁶⁴/n⌉: ⌊i/n⌋ = ⌊div·i/2⁶⁴⌋).
func nnSites(i, n, sites int, div uint64) (up, dn, lf, rt int) {
	hi, _ := bits.Mul64(div, uint64(i))
	row := int(hi)
	col := i - row*n
	up, dn, lf, rt = i-n, i+n, i-1, i+1
	if row == 0 {
		up += sites
	}
	if row == n-1 {
		dn -= sites
	}
	if col == 0 {
		lf += n
	}
	if col == n-1 {
		rt -= n
	}
	return up, dn, lf, rt
}

// From01 returns the value whose top byte saved01 holds (nnHeat2).
func From01(b uint8) float64 {
	switch b {
	case 0:
		return 0
	case 0x80:
		return math.Copysign(0, -1)
	}
	return 1
}

// lightPicked reports whether light offset k was picked before in this
// update, and records it: in list[:*n] while the list has room, then in
// seen.
func lightPicked(list []int32, n *int, k int32, seen []uint32, epoch uint32) bool {
	for _, lk := range list[:*n] {
		if lk == k {
			return true
		}
	}
	if *n < len(list) {
		list[*n] = k
		*n++
		return false
	}
	if seen[k] == epoch {
		return true
	}
	seen[k] = epoch
	return false
}

// torusPG is what Poisson-Gibbs updates of a torus model precompute: every
// site has L_i = L and λ_i = λ, so a = λ/L, the generators of the two batch
// sizes and the powers of (1 + 1/a) are the same for every update.
type torusPG struct {
	_       [64]byte // the fields written at every update (epoch) never share a cache line with another worker's
	a, full float64
	pow     []float64
	b       minibatch.PoissonPair // B1 ~ Poisson(λ) and B2 ~ Poisson(L)
	seen    []uint32              // seen[k] = epoch: offset k was picked in this update
	epoch   uint32
	n       []int32   // kept counts per value, alone on their cache lines
	w       []float64 // weights per value, alone on their cache lines
	_       [64]byte
}

// NewTorusPG returns the precomputed draw of Poisson-Gibbs with parameter
// lambda on t.
func NewTorusPG(t *compiled.Torus, lambda float64) *torusPG {
	a := lambda / t.L
	full := math.Log1p(1 / a)
	q := t.States
	return &torusPG{
		a: a, full: full, pow: newPow(full),
		b: minibatch.NewPoissonPair(lambda, t.L), // a·L_i and L_i
		// 64 bytes of padding on either side: the scratch of two workers
		// of a Chromatic sampler never shares a cache line.
		seen: make([]uint32, len(t.Off)+32)[16 : 16+len(t.Off)],
		n:    make([]int32, q+32)[16 : 16+q],
		w:    make([]float64, q+16)[8 : 8+q],
	}
}

// torusUpdate resamples discrete variable i of a torus model by
// Poisson-Gibbs (Algorithm 2), with the exact two-phase draw of
// compiledUpdate: B1 ~ Poisson(a·L) picks ∝ M_k, all kept, and B2 ~
// Poisson(L) picks ∝ M_k, kept iff φ̃ = M_k (the pair agrees, for a
// positive weight; differs, for a negative one). A kept copy of offset k
// adds ±log(1 + 1/a) to U at the value of the neighbour x_{i+k}, so the
// conditional is ∝ (1 + 1/a)^{n_v}.
func (p *PGState) torusUpdate(c *Core, i int) {
	g, t := p.TorPG, c.Tor
	c.Stat.Steps++
	r, x := c.R, c.X
	xi := x[i]
	p.a = g.a
	b1, b2 := g.b.Rand(r)
	c.Stat.Picks += int64(b1 + b2)
	n := g.n
	clear(n)
	seen := g.seen
	if g.epoch++; g.epoch == 0 { // wrapped after 2³² updates
		clear(seen)
		g.epoch = 1
	}
	epoch, distinct := g.epoch, 0
	bs0, bs1, bs2 := t.Bases(i)
	m0, m1, m2 := t.Mod[0], t.Mod[1], t.Mod[2]
	tab := t.Table
	cols := tab.Cols
	nc := uint64(len(cols))
	// The distinct light offsets picked (about one an update on a
	// long-range lattice) are counted in a short list, not in seen: a
	// light offset's stamp would be a cache miss. Once the list is full,
	// seen takes over.
	var lightSeen [16]int32
	nLight := 0
	for phase, b := range [2]int{b1, b2} {
		// Phase 1 keeps every pick; phase 2 keeps the picks where φ̃ = M: a
		// W > 0 pair that agrees, a W < 0 pair that differs. In chunks of
		// pollEvery picks, between which the interrupt channel is looked at.
		all := int32(phase - 1) // −1 (keep all) in phase 1, 0 in phase 2
		for b > 0 {
			chunk := min(b, PollEvery)
			b -= chunk
			for range chunk {
				// One 64-bit word picks a column and decides own or alias.
				hi, lo := bits.Mul64(r.Uint64(), nc)
				col := &cols[hi]
				_, own := bits.Sub64(lo, col.Thr, 0) // 1 if lo < Thr: no branch on a coin flip
				e := &col.Ent[own^1]
				sgn := e.K >> 31 // 0 for W > 0, −1 for W < 0
				k := e.K ^ sgn
				if e.K == compiled.LightBucket {
					e = tab.PickLight(r, e)
					sgn = e.K >> 31
					k = e.K ^ sgn
					if !lightPicked(lightSeen[:], &nLight, k, seen, epoch) {
						distinct++
					}
				} else {
					distinct += newPick(seen, int(k), epoch)
				}
				d := &e.D
				j := compiled.Wrap(bs0+int(d[0]), m0) + compiled.Wrap(bs1+int(d[1]), m1) + compiled.Wrap(bs2+int(d[2]), m2)
				v := int(x[j])
				var differ int32
				if float64(v) != xi {
					differ = -1
				}
				if uint(v) < uint(len(n)) {
					n[v] += (1 + 2*sgn) & (all | (differ ^ ^sgn))
				}
			}
			if b > 0 && c.Stop() {
				return
			}
		}
	}
	// The paper's "factors evaluated": the distinct factors picked.
	c.Stat.Factors += int64(distinct)
	// ρ(v) ∝ (1 + 1/a)^{n_v}: weights pow[max n − n_v], one uniform variate.
	total := powWeights(g.w, n, g.pow, g.full)
	x[i] = float64(DrawWeights(r.Float64()*total, g.w))
}
