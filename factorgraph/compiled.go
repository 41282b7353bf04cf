package factorgraph

import (
	"github.com/pgibbs/pgibbs/internal/kernel"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Kernel returns the compiled form of the graph's neighbourhoods that the
// samplers of this module run on: Potts pairs and dense tables as flat
// typed arrays, other factors as references to the generic path. Its type
// is internal to the module; the graph builds it once, in Build.
func (g *Graph) Kernel() *kernel.Graph { return g.kern }

// compileKernel builds g.kern from the sorted neighbourhoods. A factor is
// compiled only if it is exactly a *Potts or a *Table (a user type wrapping
// one is generic), so its values are known to lie in its range: a Potts
// value is W or 0, a table value one of the entries Validate checked. A
// table of Potts form (Table.PottsForm) is compiled as a Potts pair.
func (g *Graph) compileKernel() {
	k := g.kern // its alias tables are already built
	k.SoftStart, k.HardStart = g.softStart, g.hardStart
	for _, i := range g.free {
		k.Discrete = k.Discrete || g.domains[i].IsDiscrete()
	}
	if !k.Discrete {
		return // the compiled forms serve discrete updates only
	}
	g.allocKernel()
	tabIndex := make(map[*Table]int32)
	for i := range len(g.domains) {
		g.compileOps(i, tabIndex)
		g.compileExact(i)
	}
	k.SetGlobal(func() []kernel.Factor { return g.globalFactors(tabIndex) })
	g.packPicks()
}

// allocKernel allocates the kernel's per-entry ops and exact lists.
func (g *Graph) allocKernel() {
	n := len(g.domains)
	k := g.kern
	k.PottsStart = make([]int32, n+1)
	k.ExactStart = make([]int32, n+1)
	k.Soft = make([]kernel.Op, len(g.soft))
	k.Hard = make([]kernel.Op, len(g.hard))
	pairs := 0
	for f := range g.factors {
		if pottsPair(g.factors[f]) && g.m[f] > 0 {
			pairs += 2
		}
	}
	k.PottsNbr, k.PottsW = make([]int32, 0, pairs), make([]float64, 0, pairs)
	k.Exact = make([]int32, 0, len(g.soft)+len(g.hard)-pairs)
}

// pottsPair reports whether fac compiles as a Potts pair: a *Potts, or a
// table of Potts form (Table.PottsForm).
func pottsPair(fac Factor) bool {
	switch f := fac.(type) {
	case *Potts:
		return true
	case *Table:
		_, ok := f.PottsForm()
		return ok
	}
	return false
}

// compileOps compiles the soft and the hard entries of A[i]; a generic
// one refers to its index in A[i] (soft entries first).
func (g *Graph) compileOps(i int, tabIndex map[*Table]int32) {
	k := g.kern
	s, e := g.softStart[i], g.softStart[i+1]
	for j := s; j < e; j++ {
		k.Soft[j] = g.compileOp(i, &g.soft[j], tabIndex)
		if k.Soft[j].Kind == kernel.Generic {
			k.Soft[j].Ref = int32(j - s)
		}
	}
	hs, he := g.hardStart[i], g.hardStart[i+1]
	for j := hs; j < he; j++ {
		k.Hard[j] = g.compileOp(i, &g.hard[j], tabIndex)
		if k.Hard[j].Kind == kernel.Generic {
			k.Hard[j].Ref = int32(e - s + j - hs)
		}
	}
}

// compileOp compiles the entry e of A[i]: a Potts pair refers to its other
// variable, a table to its index in k.Tables (tabIndex, added on first use)
// with the stride of variable i; anything else is generic.
func (g *Graph) compileOp(i int, e *entry, tabIndex map[*Table]int32) kernel.Op {
	k := g.kern
	o := kernel.Op{Kind: kernel.Generic, M: e.m, Lo: e.lo}
	switch f := e.f.(type) {
	case *Potts:
		o.Kind = kernel.Potts
		o.Neg = f.W < 0
		o.Ref = int32(f.scope[0])
		if f.scope[0] == i {
			o.Ref = int32(f.scope[1])
		}
		return o
	case *Table:
		if w, ok := f.PottsForm(); ok && e.m > 0 {
			o.Kind, o.Neg, o.Ref = kernel.Potts, w < 0, int32(f.scope[0])
			if f.scope[0] == i {
				o.Ref = int32(f.scope[1])
			}
			return o
		}
		t, ok := tabIndex[f]
		if !ok {
			t = int32(len(k.Tables))
			tab := kernel.Tab{Values: f.values}
			for j, v := range f.scope {
				tab.Vars = append(tab.Vars, int32(v))
				tab.Strides = append(tab.Strides, int32(f.strides[j]))
			}
			k.Tables = append(k.Tables, tab)
			tabIndex[f] = t
		}
		o.Kind, o.Ref = kernel.Table, t
		for j, v := range f.scope {
			if v == i {
				o.Stride = int32(f.strides[j])
			}
		}
		return o
	}
	k.Generic = true
	return o
}

// compileExact appends the exact lists of A[i]: its soft Potts pairs apart
// (other variable and signed weight), everything else after.
func (g *Graph) compileExact(i int) {
	k := g.kern
	s, e := g.softStart[i], g.softStart[i+1]
	for j := s; j < e; j++ {
		if o := &k.Soft[j]; o.Kind == kernel.Potts {
			w := o.M
			if o.Neg {
				w = -w
			}
			k.PottsNbr = append(k.PottsNbr, o.Ref)
			k.PottsW = append(k.PottsW, w)
		} else {
			k.Exact = append(k.Exact, int32(j))
		}
	}
	for j := g.hardStart[i]; j < g.hardStart[i+1]; j++ {
		k.Exact = append(k.Exact, ^int32(j))
	}
	k.PottsStart[i+1] = int32(len(k.PottsNbr))
	k.ExactStart[i+1] = int32(len(k.Exact))
}

// globalFactors describes every factor by its index, for the global
// estimators of the MIN-Gibbs family (built on first use: only they need it).
func (g *Graph) globalFactors(tabIndex map[*Table]int32) []kernel.Factor {
	out := make([]kernel.Factor, len(g.factors))
	for f, fac := range g.factors {
		gf := kernel.Factor{Kind: kernel.Generic, M: g.m[f], Lo: g.lo[f]}
		switch fac := fac.(type) {
		case *Potts:
			gf.Kind, gf.Neg, gf.A, gf.B = kernel.Potts, fac.W < 0, int32(fac.scope[0]), int32(fac.scope[1])
		case *Table:
			if w, ok := fac.PottsForm(); ok && g.m[f] > 0 {
				gf.Kind, gf.Neg, gf.A, gf.B = kernel.Potts, w < 0, int32(fac.scope[0]), int32(fac.scope[1])
			} else if t, ok := tabIndex[fac]; ok {
				gf.Kind, gf.A = kernel.Table, t
			}
		}
		out[f] = gf
	}
	return out
}

// packPicks builds the two-level packed tables (see kernel.Graph.Head) of
// the variables whose alias table is flat, and of those with a tiered table
// whose heavy factors form a head: their light factors' flat table may be
// large, but only about one pick in LightShare reads it.
func (g *Graph) packPicks() {
	k := g.kern
	n := len(g.domains)
	k.H = make([]int32, n)
	k.HeadStart = make([]int, n+1)
	k.LightStart = make([]int, n+1)
	var p colPacker
	for i := range n {
		k.HeadStart[i+1] = k.HeadStart[i]
		k.LightStart[i+1] = k.LightStart[i]
		g.packHead(i, &p)
	}
}

// packHead appends the two-level packed table of variable i, if it gets
// one: its head (the heavy factors, then one entry for the light ones)
// and its light factors' table.
func (g *Graph) packHead(i int, p *colPacker) {
	k := g.kern
	s, e := g.softStart[i], g.softStart[i+1]
	if e == s {
		return
	}
	tiered := k.TopStart[i+1]-k.TopStart[i] > 1
	soft := g.soft[s:e]
	h, light := chooseHead(soft)
	if h == len(soft) && tiered {
		return // no head: the tiered table serves the picks
	}
	k.H[i] = int32(h)
	// The head's weights: the heavy factors, then the light ones' sum.
	w := p.w[:0]
	for _, en := range soft[:h] {
		w = append(w, en.m)
	}
	if h < len(soft) {
		w = append(w, light)
	}
	p.w = w
	hs := k.HeadStart[i]
	k.Head = append(k.Head, make([]kernel.Col, len(w))...)
	k.HeadLo = append(k.HeadLo, make([]uint32, len(w))...)
	k.HeadStart[i+1] = hs + len(w)
	p.pack(w, k.Soft[s:e], k.Head[hs:], k.HeadLo[hs:])
	if h < len(soft) {
		lw := w[:0]
		for _, en := range soft[h:] {
			lw = append(lw, en.m)
		}
		ls := k.LightStart[i]
		k.Light = append(k.Light, make([]kernel.Col, len(lw))...)
		k.LightLo = append(k.LightLo, make([]uint32, len(lw))...)
		k.LightStart[i+1] = ls + len(lw)
		p.pack(lw, k.Soft[s+h:e], k.Light[ls:], k.LightLo[ls:])
	}
}

// chooseHead returns the head of a packed table over soft (sorted by
// decreasing M_φ): the fewest heaviest factors (at most MaxHead) whose
// complement holds at most 1/LightShare of L_i, or failing that
// 1/LightMax; all of them (no head) if that takes them all. It returns
// their number h and the light factors' weight.
func chooseHead(soft []entry) (h int, light float64) {
	total := 0.0
	for _, en := range soft {
		total += en.m
	}
	h, light = headSplit(soft, total/kernel.LightShare)
	if h > kernel.MaxHead {
		h, light = headSplit(soft, total/kernel.LightMax)
	}
	if h > kernel.MaxHead {
		h, light = len(soft), 0
	}
	return h, light
}

// colPacker packs alias tables into the kernel's columns, with scratch
// reused from one table to the next.
type colPacker struct {
	w    []float64 // the weights of a head
	work []int32
	a    minibatch.Alias
}

// pack builds the alias table of the weights w into dst (high threshold
// words, alias, and the Potts references of both) and lo (low threshold
// words). Entry j refers to ops[j] (kernel.PottsRef), or to no Potts pair
// if j is past the end of ops.
func (p *colPacker) pack(w []float64, ops []kernel.Op, dst []kernel.Col, lo []uint32) {
	if cap(p.work) < len(w) {
		p.work = make([]int32, len(w))
		p.a = minibatch.Alias{Prob: make([]float64, len(w)), Index: make([]int32, len(w))}
	}
	t := minibatch.Alias{Prob: p.a.Prob[:len(w)], Index: p.a.Index[:len(w)]}
	if err := t.Build(w, p.work[:len(w)]); err != nil {
		panic("factorgraph: internal error: " + err.Error()) // positive finite weights
	}
	ref := func(j int) int32 {
		if j >= len(ops) {
			return kernel.NotPotts
		}
		return kernel.PottsRef(&ops[j])
	}
	for j := range w {
		thr := minibatch.Threshold(t.Prob[j])
		alias := t.Index[j]
		if t.Prob[j] >= 1 {
			alias = int32(j) // never its alias
		}
		lo[j] = uint32(thr)
		dst[j] = kernel.Col{Thr: uint32(thr >> 32), Alias: alias, Ref: [2]int32{ref(j), ref(int(alias))}}
	}
}

// headSplit returns the smallest h ≥ 1 such that the factors soft[h:] (sorted
// by decreasing M_φ) weigh at most most, and their weight.
func headSplit(soft []entry, most float64) (h int, light float64) {
	h = len(soft)
	for j := len(soft) - 1; j >= 1; j-- {
		if light+soft[j].m > most {
			break
		}
		light += soft[j].m
		h = j
	}
	return h, light
}
