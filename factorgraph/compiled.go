package factorgraph

import (
	"math"
	"slices"

	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// pottsPair reports whether fac compiles as a Potts pair — a *Potts, or a
// table of Potts form (Table.PottsForm) — and returns its W. A factor is
// compiled only if it is exactly a *Potts or a *Table (a user type wrapping
// one is generic), so its values are known to lie in its range: a Potts
// value is W or 0, a table value one of the entries Validate checked.
func pottsPair(fac Factor) (float64, bool) {
	switch f := fac.(type) {
	case *Potts:
		return f.W, true
	case *Table:
		return f.PottsForm()
	}
	return 0, false
}

// compile lays out the neighbourhoods A[i] (c's entries for each variable)
// in the kernel's rows, sorts each row by decreasing M_φ, computes the sums
// L_i, L and Ψ, and builds the pick tables.
func (g *Graph) compile(c counts) {
	n := g.domains.Len()
	k := &compiled.Graph{SoftStart: make([]int, n+1), HardStart: make([]int, n+1)}
	g.kern, g.form = k, compiled.GraphForm(k)
	for i := range n {
		k.SoftStart[i+1] = k.SoftStart[i] + int(c.softDeg[i])
		k.HardStart[i+1] = k.HardStart[i] + int(c.hardDeg[i])
	}
	k.Nbr = make([]int32, k.SoftStart[n])
	// Potts pairs of one weight and nothing else soft: no weight an entry.
	s := &g.fs
	one := len(s.pw) > 0 && !s.mixedW && len(s.obj) == 0 && len(s.tab.Pot) == 0
	if !one {
		k.W = make([]float64, k.SoftStart[n])
	}
	k.Ops = make([]compiled.Op, 0, c.ops)
	k.Hard = make([]compiled.Op, k.HardStart[n])
	k.Tabs = g.fs.tab
	g.li = make([]float64, n)
	k.Li = g.li
	g.fill(c)
	if one {
		maxRow := int32(0)
		for _, d := range c.softDeg {
			maxRow = max(maxRow, d)
		}
		k.SetOneWeight(s.pw[0], int(maxRow))
	}
	k.AllPotts = len(k.Ops) == 0
	k.Fields = true
	for _, o := range k.Ops {
		if o.Kind != compiled.Table || o.Stride != 1 || k.Tabs.Off[o.Ref+1]-k.Tabs.Off[o.Ref] != 1 {
			k.Fields = false
			break
		}
	}
	k.LinkFields()
	for _, i := range g.free {
		k.Discrete = k.Discrete || g.domains.At(i).IsDiscrete()
	}
	var rs rowSorter
	for i := range n {
		s, e := k.SoftStart[i], k.SoftStart[i+1]
		if !one { // one weight: already in order
			rs.sort(k.Nbr[s:e], k.W[s:e], nil)
		}
		for j, nb := range k.Nbr[s:e] {
			if nb < 0 && k.Ops[^nb].Kind == compiled.Generic {
				k.Ops[^nb].Ref = int32(j)
			}
		}
		for j := k.HardStart[i]; j < k.HardStart[i+1]; j++ {
			if k.Hard[j].Kind == compiled.Generic {
				k.Hard[j].Ref = int32(e - s + j - k.HardStart[i])
			}
		}
		g.maxSize = max(g.maxSize, g.domains.At(i).Size)
	}
	g.opsInRowOrder()
	g.layPairTables()
	for _, i := range g.free {
		g.l = max(g.l, g.li[i])
		g.maxDeg = max(g.maxDeg, int(c.softDeg[i]+c.hardDeg[i]))
	}
	g.packPicks()
	if k.Discrete {
		k.SetGlobal(g.globalFactors)
	}
}

// opsInRowOrder renumbers the ops so that each row's are consecutive, in
// the row's order: a row's loop then reads them as a stream.
func (g *Graph) opsInRowOrder() {
	k := g.kern
	if len(k.Ops) < 2 {
		return
	}
	dst := make([]int32, len(k.Ops)) // op → its new index
	next := int32(0)
	for _, nb := range k.Nbr {
		if nb < 0 {
			dst[^nb] = next
			next++
		}
	}
	for p, nb := range k.Nbr {
		if nb < 0 {
			k.Nbr[p] = ^dst[^nb]
		}
	}
	// Permute in place along dst's cycles.
	for o := range dst {
		for int(dst[o]) != o {
			d := dst[o]
			k.Ops[o], k.Ops[d] = k.Ops[d], k.Ops[o]
			dst[o], dst[d] = dst[d], d
		}
	}
	k.LinkFields()
}

// rowPair reports whether a table of sizes with entries in [lo, hi] (of
// Potts form if potts) is laid out in its rows when its potential is its
// own (layPairTables): over two variables, of at most MaxRowPair entries,
// soft, not constant, not a Potts pair.
func rowPair(sizes []int, lo, hi float64, potts bool) bool {
	return len(sizes) == 2 && sizes[0]*sizes[1] <= MaxRowPair && !potts && !math.IsInf(hi, 1) && hi > lo
}

// MaxRowPair is the most entries of a table over two variables that Build
// lays out in its variables' rows (Size.PairEntries): 16×16 values. A
// larger table's row reads q_i values at a time however it is laid out,
// and two more copies of it would cost more than they save.
const MaxRowPair = 256

// layPairTables lays out, in the rows, the soft tables over two variables
// whose potential no other table shares (compiled.Graph.PairOff): each is
// copied twice, once for each of its variables' rows. Shared potentials
// (one coupling table on every edge) stay where they are: read by every
// row, they stay in the cache.
func (g *Graph) layPairTables() {
	k := g.kern
	t := &k.Tabs
	uses := make([]int32, len(t.Pots))
	for _, p := range t.Pot {
		uses[p]++
	}
	laid := func(o *compiled.Op) bool { // a soft table of two variables, its potential its own, small
		return o.Kind == compiled.Table && t.Off[o.Ref+1]-t.Off[o.Ref] == 2 && uses[t.Pot[o.Ref]] == 1 && len(t.Values(o.Ref)) <= MaxRowPair
	}
	n, entries := g.domains.Len(), 0
	for _, nb := range k.Nbr[:k.SoftStart[n]] {
		if nb < 0 && laid(&k.Ops[^nb]) {
			entries += len(t.Values(k.Ops[^nb].Ref))
		}
	}
	if entries == 0 || entries > math.MaxInt32 {
		return
	}
	k.PairOff, k.PairOther = make([]int32, len(k.Ops)), make([]int32, len(k.Ops))
	k.PairTab = make([]float64, 0, entries)
	for o := range k.PairOff {
		k.PairOff[o] = -1
	}
	for i := range n {
		qi := g.domains.At(i).Size
		for _, nb := range k.Nbr[k.SoftStart[i]:k.SoftStart[i+1]] {
			if nb >= 0 || !laid(&k.Ops[^nb]) {
				continue
			}
			o := &k.Ops[^nb]
			vars, p := t.Vars[t.Off[o.Ref]:t.Off[o.Ref+1]], &t.Pots[t.Pot[o.Ref]]
			other := 0 // the position of the other variable in the scope
			if int(vars[0]) == i {
				other = 1
			}
			j := vars[other]
			qj, sj, si := g.domains.At(int(j)).Size, int(p.Strides[other]), int(o.Stride)
			if int(j) == i || int(p.Strides[1-other]) != si || qi*qj != len(p.Values) {
				continue // a scope (i, i), i not where the op reads it, or sizes not the domains'
			}
			k.PairOff[^nb], k.PairOther[^nb] = int32(len(k.PairTab)), j
			for xj := range qj {
				for v := range qi {
					k.PairTab = append(k.PairTab, p.Values[xj*sj+v*si])
				}
			}
		}
	}
}

// fill writes every factor's entries into the rows, in the order the
// factors were added, with the sums L_i and Ψ.
func (g *Graph) fill(c counts) {
	k := g.kern
	s := &g.fs
	n := g.domains.Len()
	sfill := make([]int, n)
	hfill := make([]int, n)
	copy(sfill, k.SoftStart[:n])
	copy(hfill, k.HardStart[:n])
	var tabIndex map[*Table]int32 // the table factor of each *Table compiled as one
	var vars []int
	for r, ru := range s.runs {
		end := s.end(r)
		switch ru.kind {
		case pottsKind:
			g.fillPotts(ru, end, sfill)
		case tableKind:
			for f := ru.start; f < end; f++ {
				t := ru.off + f - ru.start
				p := &s.pots[s.tab.Pot[t]]
				m := p.hi - p.lo
				if m == 0 {
					continue
				}
				scope := s.tab.Vars[s.tab.Off[t]:s.tab.Off[t+1]]
				vars = vars[:0]
				for _, v := range scope {
					vars = append(vars, int(v))
				}
				if p.potts {
					g.addPair(scope[0], scope[1], math.Copysign(m, p.pottsW), sfill)
					g.tablePotts = true
					continue
				}
				g.addOps(f, vars, compiled.Op{Kind: compiled.Table, Ref: int32(t), Fac: int32(f), M: m, Lo: p.lo}, p.sizes, sfill, hfill)
			}
		default:
			for f := ru.start; f < end; f++ {
				o := ru.off + f - ru.start
				m := g.objM[o]
				if m == 0 {
					continue
				}
				fac := s.obj[o]
				vars = append(vars[:0], fac.Vars()...)
				if w, ok := pottsPair(fac); ok {
					// ±M_φ: W itself for a *Potts, the table's range with
					// W's sign for a table of Potts form.
					g.addPair(int32(vars[0]), int32(vars[1]), math.Copysign(m, w), sfill)
					if _, tab := fac.(*Table); tab {
						g.tablePotts = true
					}
					continue
				}
				op := compiled.Op{Kind: compiled.Generic, Fac: int32(f), M: m, Lo: g.objLo[o]}
				var sizes []int
				if t, ok := fac.(*Table); ok {
					op.Kind, sizes = compiled.Table, t.sizes
					if tabIndex == nil {
						tabIndex = make(map[*Table]int32)
					}
					if op.Ref, ok = tabIndex[t]; !ok {
						op.Ref = g.addTable(t)
						tabIndex[t] = op.Ref
					}
				} else {
					k.Generic = true
				}
				g.addOps(f, vars, op, sizes, sfill, hfill)
			}
		}
	}
}

// fillPotts writes the Potts pair records of factors [r.start, end).
func (g *Graph) fillPotts(r run, end int, sfill []int) {
	s := &g.fs
	pa, pb, pw := s.pa[r.off:r.off+end-r.start], s.pb[r.off:r.off+end-r.start], s.pw[r.off:r.off+end-r.start]
	for j, w := range pw {
		if w != 0 {
			g.addPair(pa[j], pb[j], w, sfill)
		}
	}
}

// addPair writes the two entries of the Potts pair w·δ(x_a, x_b).
func (g *Graph) addPair(a, b int32, w float64, sfill []int) {
	k := g.kern
	m := math.Abs(w)
	p, q := sfill[a], sfill[b]
	k.Nbr[p], k.Nbr[q] = b, a
	if k.W != nil {
		k.W[p], k.W[q] = w, w
	}
	sfill[a]++
	sfill[b]++
	g.li[a] += m
	g.li[b] += m
	if !g.observed[a] || !g.observed[b] {
		g.psi += m
	}
}

// addOps writes the entries of a table or generic factor f over vars (a
// table's sizes give the strides of its variables).
func (g *Graph) addOps(f int, vars []int, op compiled.Op, sizes []int, sfill, hfill []int) {
	k := g.kern
	hard := math.IsInf(op.M, 1)
	touchesFree := false
	stride := 1
	for j := len(vars) - 1; j >= 0; j-- {
		v := vars[j]
		touchesFree = touchesFree || !g.observed[v]
		o := op
		if sizes != nil {
			o.Stride = int32(stride)
			stride *= sizes[j]
		}
		if hard {
			k.Hard[hfill[v]] = o
			hfill[v]++
			continue
		}
		k.Nbr[sfill[v]] = ^int32(len(k.Ops))
		k.W[sfill[v]] = op.M
		k.Ops = append(k.Ops, o)
		sfill[v]++
		g.li[v] += op.M
	}
	if !hard && touchesFree {
		g.psi += op.M
	}
}

// addTable adds a *Table's scope and potential to the kernel's table
// factors and returns its index there.
func (g *Graph) addTable(t *Table) int32 {
	tb := &g.kern.Tabs
	if len(tb.Off) == 0 {
		tb.Off = append(tb.Off, 0)
	}
	strides := make([]int32, len(t.strides))
	for j, st := range t.strides {
		strides[j] = int32(st)
	}
	tb.Pots = append(tb.Pots, compiled.Pot{Values: t.values, Strides: strides})
	for _, v := range t.scope {
		tb.Vars = append(tb.Vars, int32(v))
	}
	tb.Off = append(tb.Off, len(tb.Vars))
	tb.Pot = append(tb.Pot, int32(len(tb.Pots)-1))
	return int32(len(tb.Pot) - 1)
}

// rowSorter sorts rows by decreasing M_φ = |W|, ties in their order, with
// scratch reused from one row to the next. It is a least-significant-digit
// radix sort on the bits of M_φ (for positive floats their order), byte by
// byte, skipping the bytes every key of the row shares: stable, and several
// times faster than a comparison sort on the rows of a long-range model,
// whose few hundred distinct weights a row share most of their exponent
// bits.
type rowSorter struct {
	keys, tmp []rowKey
	nb        []int32
	w         []float64
	fac       []int32
}

type rowKey struct {
	key uint64 // ^bits(M): increasing in the key is decreasing in M
	k   int32
}

// sort sorts the entries of one row (and fac, if not nil, alongside).
func (rs *rowSorter) sort(nb []int32, w []float64, fac []int32) {
	sorted := true
	for j := 1; j < len(w); j++ {
		if math.Abs(w[j]) > math.Abs(w[j-1]) {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	if len(w) <= shortRow {
		insertionSort(nb, w, fac)
		return
	}
	rs.radix(nb, w, fac)
}

// radix is sort's radix sort.
func (rs *rowSorter) radix(nb []int32, w []float64, fac []int32) {
	keys := rs.keys[:0]
	var hist [8][256]int32
	for j, x := range w {
		key := ^math.Float64bits(math.Abs(x))
		keys = append(keys, rowKey{key, int32(j)})
		for d := range 8 {
			hist[d][byte(key>>(8*d))]++
		}
	}
	tmp := slices.Grow(rs.tmp[:0], len(keys))[:len(keys)]
	for d := range 8 {
		h := &hist[d]
		if h[byte(keys[0].key>>(8*d))] == int32(len(keys)) {
			continue // every key has this byte
		}
		pos := int32(0)
		for b := range h {
			h[b], pos = pos, pos+h[b]
		}
		for _, key := range keys {
			b := byte(key.key >> (8 * d))
			tmp[h[b]] = key
			h[b]++
		}
		keys, tmp = tmp, keys
	}
	rs.keys, rs.tmp = keys, tmp
	rs.nb = append(rs.nb[:0], nb...)
	rs.w = append(rs.w[:0], w...)
	if fac != nil {
		rs.fac = append(rs.fac[:0], fac...)
	}
	for j, key := range keys {
		nb[j], w[j] = rs.nb[key.k], rs.w[key.k]
		if fac != nil {
			fac[j] = rs.fac[key.k]
		}
	}
}

// shortRow is the longest row rowSorter sorts by insertion: the radix
// sort's eight 256-bucket histograms cost a short row (a grid's four
// entries) far more than its few comparisons (a 300×300 grid of distinct
// weights: 39% of reading it as a UAI file).
const shortRow = 32

// insertionSort is rowSorter.sort on a short row: stable, by decreasing
// |W| — the order of the radix sort's keys, ties in their order.
func insertionSort(nb []int32, w []float64, fac []int32) {
	for j := 1; j < len(w); j++ {
		x, a := w[j], math.Abs(w[j])
		k := j
		for ; k > 0 && math.Abs(w[k-1]) < a; k-- {
		}
		if k == j {
			continue
		}
		n := nb[j]
		copy(w[k+1:j+1], w[k:j])
		copy(nb[k+1:j+1], nb[k:j])
		w[k], nb[k] = x, n
		if fac != nil {
			f := fac[j]
			copy(fac[k+1:j+1], fac[k:j])
			fac[k] = f
		}
	}
}

// entryFactors returns the factor of every soft entry, built on first use
// by laying out the factors' indices as fill lays out their entries and
// sorting each row the same way.
func (g *Graph) entryFactors() []int32 {
	g.facOnce.Do(func() {
		k := g.kern
		s := &g.fs
		n := g.domains.Len()
		fac := make([]int32, len(k.Nbr))
		sfill := make([]int, n)
		copy(sfill, k.SoftStart[:n])
		var vars []int
		for f := range s.n {
			if m := g.FactorBound(f); m == 0 || math.IsInf(m, 1) {
				continue
			}
			vars = s.vars(vars[:0], f)
			for _, v := range vars {
				fac[sfill[v]] = int32(f)
				sfill[v]++
			}
		}
		// The same keys in the same order sort the same way.
		w := make([]float64, 0, g.maxRow())
		nb := make([]int32, 0, cap(w))
		var rs rowSorter
		for i := range n {
			st, e := k.SoftStart[i], k.SoftStart[i+1]
			w, nb = w[:0], nb[:0]
			for _, f := range fac[st:e] {
				w = append(w, g.FactorBound(int(f)))
				nb = append(nb, 0)
			}
			rs.sort(nb, w, fac[st:e])
		}
		g.softFac = fac
	})
	return g.softFac
}

// maxRow returns the largest number of soft entries of a variable.
func (g *Graph) maxRow() int {
	k := g.kern
	m := 0
	for i := range g.domains.Len() {
		m = max(m, k.SoftStart[i+1]-k.SoftStart[i])
	}
	return m
}

// globalFactors describes every factor by its index, for the global
// estimators of the MIN-Gibbs family (built on first use: only they need it).
func (g *Graph) globalFactors() []compiled.Factor {
	k := g.kern
	out := make([]compiled.Factor, g.fs.n)
	// Table factors compiled as such: the kernel's index of each, from the
	// soft and hard entries.
	for _, o := range k.Ops {
		if o.Kind == compiled.Table {
			out[o.Fac].Kind, out[o.Fac].A = compiled.Table, o.Ref
		}
	}
	for _, o := range k.Hard {
		if o.Kind == compiled.Table {
			out[o.Fac].Kind, out[o.Fac].A = compiled.Table, o.Ref
		}
	}
	var vars []int
	for f := range out {
		lo, hi := g.FactorRange(f)
		gf := &out[f]
		gf.M, gf.Lo = hi-lo, lo
		if gf.Kind == compiled.Table || gf.M == 0 {
			continue
		}
		if w, ok := g.pairOf(f); ok {
			vars = g.fs.vars(vars[:0], f)
			gf.Kind, gf.Neg, gf.A, gf.B = compiled.Potts, w < 0, int32(vars[0]), int32(vars[1])
		}
	}
	return out
}

// pairOf reports whether factor f is compiled as a Potts pair, and its W.
func (g *Graph) pairOf(f int) (float64, bool) {
	s := &g.fs
	kind, r := s.locate(f)
	switch kind {
	case pottsKind:
		return s.pw[r], true
	case tableKind:
		p := &s.pots[s.tab.Pot[r]]
		return p.pottsW, p.potts
	}
	return pottsPair(s.obj[r])
}

// The pick tables.

// MaxBands bounds the bands of a variable's light factors, TailShare the
// weight of the last band's envelope (at most that share of the light
// factors' weight, unless MaxBands is reached).
const (
	maxBands  = 64
	tailShare = 1.0 / 1024
)

// packPicks builds every variable's two-level pick table (compiled.Graph.Head):
// an alias table over the heavy head of the row, packed with the Potts
// references a Poisson-Gibbs pick reads, and bands over the light rest.
// The heads are laid out at a fixed stride when that costs at most a
// quarter more than one after another.
func (g *Graph) packPicks() {
	k := g.kern
	n := g.domains.Len()
	k.Heads = make([]compiled.HeadInfo, n)
	var p colPacker
	total, stride, light := 0, 0, false
	for i := range n {
		h, _, cols := g.headOf(i, &p)
		k.Heads[i] = compiled.HeadInfo{H: uint16(min(h, math.MaxUint16)), Cols: uint16(cols)}
		total += cols
		stride = max(stride, cols)
		light = light || cols > h // a light entry: bands
	}
	if light { // else no row has bands (BandStart stays nil: no memory a variable)
		k.BandStart = make([]int, n+1)
	}
	if stride*n <= total+total/4 {
		k.HeadStride = stride
		total = stride * n
	} else {
		k.HeadStart = make([]int, n+1)
		for i := range n {
			k.HeadStart[i+1] = k.HeadStart[i] + int(k.Heads[i].Cols)
		}
	}
	k.Head = make([]compiled.Col, total)
	k.HeadLo = make([]uint32, total)
	for i := range n {
		if light {
			k.BandStart[i+1] = k.BandStart[i]
		}
		g.packRow(i, &p)
	}
}

// headOf returns the head of variable i's row: its heavy factors h, their
// complement's weight light, and its columns (h, and one for the light
// factors if there are any; none for a uniform row, whose h is its
// length). p.m holds the row's M_φ after it.
func (g *Graph) headOf(i int, p *colPacker) (h int, light float64, cols int) {
	k := g.kern
	s, e := k.SoftStart[i], k.SoftStart[i+1]
	nb, wr := k.Row(i)
	if uniformRow(nb, wr) {
		return e - s, 0, 0
	}
	m := p.m[:0]
	for _, w := range wr {
		m = append(m, math.Abs(w))
	}
	p.m = m
	if len(m) == 0 {
		return 0, 0, 0
	}
	h, light = chooseHead(m)
	if h == len(m) && h > compiled.FlatMax {
		h, light = 0, 0 // no head: all light
		for _, x := range m {
			light += x
		}
	}
	cols = h
	if h < len(m) {
		cols++
	}
	return h, light, cols
}

// uniformRow reports whether a row of soft entries is uniform
// (compiled.Graph.Uniform): at least one, every one a Potts pair, all of
// one weight bit for bit.
func uniformRow(nb []int32, w []float64) bool {
	if len(w) == 0 {
		return false
	}
	w0 := math.Float64bits(w[0])
	for j, x := range w {
		if nb[j] < 0 || math.Float64bits(x) != w0 {
			return false
		}
	}
	return true
}

// packRow writes the pick table of variable i: its head (the heavy
// factors, then one entry for the light ones) and appends its light
// factors' bands.
func (g *Graph) packRow(i int, p *colPacker) {
	k := g.kern
	h, light, cols := g.headOf(i, p)
	if cols == 0 {
		return
	}
	m := p.m
	// The head's weights: the heavy factors, then the light ones' sum.
	w := append(p.w[:0], m[:h]...)
	if h < len(m) {
		w = append(w, light)
	}
	p.w = w
	hs := k.HeadOff(i)
	nb, wr := k.Row(i)
	p.pack(w, func(j int) int32 {
		if j >= h {
			return compiled.NotPotts
		}
		return compiled.Ref(nb[j], wr[j])
	}, k.Head[hs:hs+cols], k.HeadLo[hs:hs+cols])
	if h < len(m) {
		g.packBands(i, m, h, light, p)
	}
}

// packBands appends the bands of the light factors m[h:] (sorted by
// decreasing M_φ, weighing light) of variable i and their alias table.
func (g *Graph) packBands(i int, m []float64, h int, light float64, p *colPacker) {
	k := g.kern
	bs := k.BandStart[i]
	top := m[h]
	env := p.env[:0]
	for j := h; j < len(m); {
		mx := m[j]
		end := j + 1
		if len(env) == maxBands-1 || mx*float64(len(m)-j) <= light*tailShare {
			end = len(m) // the tail
		} else {
			for end < len(m) && 2*m[end] > mx {
				end++
			}
		}
		k.Bands = append(k.Bands, compiled.Band{Lo: int32(j), N: int32(end - j), Max: mx, Sign: g.bandSign(i, j, end, mx)})
		env = append(env, float64(end-j)*(mx/top)) // N·Max, scaled: no overflow
		j = end
	}
	p.env = env
	k.BandStart[i+1] = bs + len(env)
	k.BandCols = append(k.BandCols, make([]compiled.Col, len(env))...)
	k.BandLo = append(k.BandLo, make([]uint32, len(env))...)
	p.pack(env, func(int) int32 { return compiled.NotPotts }, k.BandCols[bs:], k.BandLo[bs:])
}

// bandSign returns the Sign of the band of the local soft entries
// [lo, hi) of A[i] (compiled.Band): ±1 if every one is a Potts pair of weight
// ±mx, 0 otherwise.
func (g *Graph) bandSign(i, lo, hi int, mx float64) int8 {
	k := g.kern
	s := k.SoftStart[i]
	w0 := k.Weight(s + lo)
	for p := s + lo; p < s+hi; p++ {
		if k.Nbr[p] < 0 || k.Weight(p) != w0 || math.Abs(w0) != mx {
			return 0
		}
	}
	if w0 < 0 {
		return -1
	}
	return 1
}

// chooseHead returns the head of a pick table over m (sorted by decreasing
// M_φ): the fewest heaviest factors (at most MaxHead) whose complement
// holds at most 1/LightShare of L_i, or failing that 1/LightMax; all of
// them (no light ones) if that takes more. It returns their number h and
// the light factors' weight.
func chooseHead(m []float64) (h int, light float64) {
	total := 0.0
	for _, x := range m {
		total += x
	}
	h, light = headSplit(m, total/compiled.LightShare)
	if h > compiled.MaxHead {
		h, light = headSplit(m, total/compiled.LightMax)
	}
	if h > compiled.MaxHead {
		h, light = len(m), 0
	}
	return h, light
}

// headSplit returns the smallest h ≥ 1 such that the factors m[h:] (sorted
// by decreasing M_φ) weigh at most most, and their weight.
func headSplit(m []float64, most float64) (h int, light float64) {
	h = len(m)
	for j := len(m) - 1; j >= 1; j-- {
		if light+m[j] > most {
			break
		}
		light += m[j]
		h = j
	}
	return h, light
}

// colPacker packs alias tables into the kernel's columns, with scratch
// reused from one table to the next.
type colPacker struct {
	m    []float64 // a row's M_φ
	w    []float64 // the weights of a head
	env  []float64 // the envelopes of the bands
	work []int32
	a    minibatch.Alias
}

// pack builds the alias table of the weights w into dst (high threshold
// words, alias, and ref of both entries) and lo (low threshold words).
func (p *colPacker) pack(w []float64, ref func(j int) int32, dst []compiled.Col, lo []uint32) {
	if cap(p.work) < len(w) {
		p.work = make([]int32, len(w))
		p.a = minibatch.Alias{Prob: make([]float64, len(w)), Index: make([]int32, len(w))}
	}
	t := minibatch.Alias{Prob: p.a.Prob[:len(w)], Index: p.a.Index[:len(w)]}
	if err := t.Build(w, p.work[:len(w)]); err != nil {
		panic("factorgraph: internal error: " + err.Error()) // positive finite weights
	}
	for j := range w {
		thr := minibatch.Threshold(t.Prob[j])
		alias := t.Index[j]
		if t.Prob[j] >= 1 {
			alias = int32(j) // never its alias
		}
		lo[j] = uint32(thr)
		dst[j] = compiled.Col{Thr: uint32(thr >> 32), Alias: alias, Ref: [2]int32{ref(j), ref(int(alias))}}
	}
}
