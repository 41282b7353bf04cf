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
// value is W or 0, a table value one of the entries Validate checked.
func (g *Graph) compileKernel() {
	n := len(g.domains)
	k := g.kern // its alias tables are already built
	k.SoftStart, k.HardStart = g.softStart, g.hardStart
	for _, i := range g.free {
		k.Discrete = k.Discrete || g.domains[i].IsDiscrete()
	}
	if !k.Discrete {
		return // the compiled forms serve discrete updates only
	}
	k.PottsStart = make([]int32, n+1)
	k.ExactStart = make([]int32, n+1)
	k.Soft = make([]kernel.Op, len(g.soft))
	k.Hard = make([]kernel.Op, len(g.hard))
	pairs := 0
	for f := range g.factors {
		if _, ok := g.factors[f].(*Potts); ok && g.m[f] > 0 {
			pairs += 2
		}
	}
	k.PottsNbr, k.PottsW = make([]int32, 0, pairs), make([]float64, 0, pairs)
	k.Exact = make([]int32, 0, len(g.soft)+len(g.hard)-pairs)
	tabIndex := make(map[*Table]int32)
	op := func(i int, e *entry) kernel.Op {
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
	for i := range n {
		s, e := g.softStart[i], g.softStart[i+1]
		for j := s; j < e; j++ {
			k.Soft[j] = op(i, &g.soft[j])
			if k.Soft[j].Kind == kernel.Generic {
				k.Soft[j].Ref = int32(j - s)
			}
		}
		hs, he := g.hardStart[i], g.hardStart[i+1]
		for j := hs; j < he; j++ {
			k.Hard[j] = op(i, &g.hard[j])
			if k.Hard[j].Kind == kernel.Generic {
				k.Hard[j].Ref = int32(e - s + j - hs)
			}
		}
		// The exact lists: Potts pairs apart, everything else after.
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
		for j := hs; j < he; j++ {
			k.Exact = append(k.Exact, ^int32(j))
		}
		k.PottsStart[i+1] = int32(len(k.PottsNbr))
		k.ExactStart[i+1] = int32(len(k.Exact))
	}
	k.SetGlobal(func() []kernel.Factor { return g.globalFactors(tabIndex) })
	g.packPicks()
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
			if t, ok := tabIndex[fac]; ok {
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
	var w []float64
	var work []int32
	var a minibatch.Alias
	for i := range n {
		s, e := g.softStart[i], g.softStart[i+1]
		k.HeadStart[i+1] = k.HeadStart[i]
		k.LightStart[i+1] = k.LightStart[i]
		if e == s {
			continue
		}
		tiered := k.TopStart[i+1]-k.TopStart[i] > 1
		soft := g.soft[s:e]
		total := 0.0
		for _, en := range soft {
			total += en.m
		}
		// The head: the fewest heaviest factors (at most MaxHead) whose
		// complement holds at most 1/LightShare of L_i, or failing that
		// 1/LightMax; none (the whole table) if that takes them all.
		h, light := headSplit(soft, total/kernel.LightShare)
		if h > kernel.MaxHead {
			h, light = headSplit(soft, total/kernel.LightMax)
		}
		if h > kernel.MaxHead {
			h, light = len(soft), 0
		}
		if h == len(soft) && tiered {
			continue // no head: the tiered table serves the picks
		}
		k.H[i] = int32(h)
		// The head's weights: the heavy factors, then the light ones' sum.
		w = w[:0]
		for _, en := range soft[:h] {
			w = append(w, en.m)
		}
		if h < len(soft) {
			w = append(w, light)
		}
		pack := func(w []float64, refs func(j int) int32, dst []kernel.Col, lo []uint32) {
			if cap(work) < len(w) {
				work = make([]int32, len(w))
				a = minibatch.Alias{Prob: make([]float64, len(w)), Index: make([]int32, len(w))}
			}
			t := minibatch.Alias{Prob: a.Prob[:len(w)], Index: a.Index[:len(w)]}
			if err := t.Build(w, work[:len(w)]); err != nil {
				panic("factorgraph: internal error: " + err.Error()) // positive finite weights
			}
			for j := range w {
				thr := minibatch.Threshold(t.Prob[j])
				alias := t.Index[j]
				if t.Prob[j] >= 1 {
					alias = int32(j) // never its alias
				}
				lo[j] = uint32(thr)
				dst[j] = kernel.Col{Thr: uint32(thr >> 32), Alias: alias, Ref: [2]int32{refs(j), refs(int(alias))}}
			}
		}
		ref := func(base int) func(j int) int32 {
			return func(j int) int32 {
				if base+j >= len(soft) {
					return kernel.NotPotts // the head's entry for the light factors
				}
				return kernel.PottsRef(&k.Soft[s+base+j])
			}
		}
		hs := k.HeadStart[i]
		k.Head = append(k.Head, make([]kernel.Col, len(w))...)
		k.HeadLo = append(k.HeadLo, make([]uint32, len(w))...)
		k.HeadStart[i+1] = hs + len(w)
		pack(w, ref(0), k.Head[hs:], k.HeadLo[hs:])
		if h < len(soft) {
			lw := w[:0]
			for _, en := range soft[h:] {
				lw = append(lw, en.m)
			}
			ls := k.LightStart[i]
			k.Light = append(k.Light, make([]kernel.Col, len(lw))...)
			k.LightLo = append(k.LightLo, make([]uint32, len(lw))...)
			k.LightStart[i+1] = ls + len(lw)
			pack(lw, ref(h), k.Light[ls:], k.LightLo[ls:])
		}
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
