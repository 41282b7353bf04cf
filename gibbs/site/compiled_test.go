package site

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/minibatch"
	"github.com/pgibbs/pgibbs/potts"
)

// withKernel is a graph whose samplers run on a substituted compiled form
// (its own Form, shallower than the graph's): the broken variants of the
// compiled path.
type withKernel struct {
	*factorgraph.Graph
	form
}

// form is compiled.Form under an unexported name.
type form = compiled.Form

// newWithKernel returns g running on k.
func newWithKernel(g *factorgraph.Graph, k *compiled.Graph) withKernel {
	return withKernel{g, compiled.GraphForm(k)}
}

// flipPottsThinning returns a copy of k whose soft Potts pairs have the
// wrong sign: they are kept (and counted) where the pair disagrees — a sign
// bug of the compiled Poisson-Gibbs path.
func flipPottsThinning(k *compiled.Graph) *compiled.Graph {
	c := *k
	c.W = slices.Clone(k.W)
	for p, nb := range c.Nbr {
		if nb >= 0 {
			c.W[p] = -c.W[p]
		}
	}
	c.Head = slices.Clone(k.Head)
	for j := range c.Head {
		for side, ref := range c.Head[j].Ref {
			if ref != compiled.NotPotts {
				c.Head[j].Ref[side] = ^ref
			}
		}
	}
	return &c
}

// dropLastExact returns a copy of k whose exact sums miss the last factor
// of every A[i] (the last hard factor if there is one, else the last table
// or generic factor of its row, else the last Potts pair): the "dropped
// term" bug of the compiled Gibbs path. A dropped soft factor becomes a
// table of zeros over i, which adds nothing (the pick tables still see it).
func dropLastExact(k *compiled.Graph) *compiled.Graph {
	c := *k
	n := len(k.SoftStart) - 1
	c.Nbr, c.Ops = slices.Clone(k.Nbr), slices.Clone(k.Ops)
	c.Tabs = compiled.Tabs{Off: slices.Clone(k.Tabs.Off), Vars: slices.Clone(k.Tabs.Vars),
		Pot: slices.Clone(k.Tabs.Pot), Pots: slices.Clone(k.Tabs.Pots)}
	if len(c.Tabs.Off) == 0 {
		c.Tabs.Off = []int{0}
	}
	c.HardStart, c.Hard = make([]int, n+1), nil
	zeros := compiled.Pot{Values: make([]float64, 64), Strides: []int32{1}}
	for i := range n {
		hard := k.Hard[k.HardStart[i]:k.HardStart[i+1]]
		nb := c.Nbr[k.SoftStart[i]:k.SoftStart[i+1]]
		last := -1
		for p, j := range nb {
			if j < 0 || last < 0 || nb[last] >= 0 {
				last = p
			}
		}
		switch {
		case len(hard) > 0:
			hard = hard[:len(hard)-1]
		case last >= 0:
			c.Tabs.Vars = append(c.Tabs.Vars, int32(i))
			c.Tabs.Off = append(c.Tabs.Off, len(c.Tabs.Vars))
			c.Tabs.Pots = append(c.Tabs.Pots, zeros)
			c.Tabs.Pot = append(c.Tabs.Pot, int32(len(c.Tabs.Pots)-1))
			c.Ops = append(c.Ops, compiled.Op{Kind: compiled.Table, Stride: 1, Ref: int32(len(c.Tabs.Pot) - 1), Fac: -1, M: math.Abs(k.W[k.SoftStart[i]+last])})
			nb[last] = ^int32(len(c.Ops) - 1)
		}
		c.Hard = append(c.Hard, hard...)
		c.HardStart[i+1] = len(c.Hard)
	}
	c.AllPotts = false
	return &c
}

// TestCompiledConditional checks the compiled Gibbs conditional against
// the generic one, value by value, on the test graphs (pure and mixed) and
// on the paper's Potts model: the same energies up to one constant per
// variable (the compiled path drops the factors' lower bounds).
func TestCompiledConditional(t *testing.T) {
	pg, err := potts.New(potts.Paper())
	if err != nil {
		t.Fatal(err)
	}
	graphs := []*factorgraph.Graph{pg}
	for _, tg := range gibbstest.Graphs(t) {
		graphs = append(graphs, tg.G)
	}
	for _, tg := range gibbstest.MixedGraphs(t) {
		graphs = append(graphs, tg.G)
	}
	for gi, g := range graphs {
		r := rand.New(rand.NewPCG(uint64(gi), 5))
		s, err := NewGibbs(g, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.core().KG == nil {
			t.Fatalf("graph %d: the sampler does not run on the compiled form", gi)
		}
		for range 20 {
			s.Step() // a state of positive probability other than the start
		}
		for _, i := range g.Free() {
			d := g.Domain(i).Size
			want := make([]float64, d)
			soft, hard := g.Degree(i)
			buf := make([]float64, d)
			for k := range soft + hard {
				g.EvalAll(i, k, s.core().X, buf)
				for v := range want {
					want[v] += buf[v]
				}
			}
			got := make([]float64, d)
			if _, ok := s.core().AddCompiled(i, got, true); !ok {
				t.Fatal(s.Err())
			}
			shift := math.NaN()
			for v := range want {
				if math.IsInf(want[v], -1) || math.IsInf(got[v], -1) {
					if want[v] != got[v] {
						t.Fatalf("graph %d, variable %d, value %d: compiled %v, generic %v", gi, i, v, got[v], want[v])
					}
					continue
				}
				if math.IsNaN(shift) {
					shift = want[v] - got[v]
				}
				if diff := want[v] - got[v] - shift; math.Abs(diff) > 1e-9*(1+math.Abs(want[v])) {
					t.Fatalf("graph %d, variable %d, value %d: compiled %v + %v, generic %v", gi, i, v, got[v], shift, want[v])
				}
			}
		}
	}
}

// directSeen records that a broken variant met a chain whose heavy
// factors' counts are drawn directly.
var directSeen atomic.Bool

// TestExactnessCatchesBrokenCompiled requires the enumeration check to
// reject broken compiled paths.
func TestExactnessCatchesBrokenCompiled(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := gibbstest.Graphs(t)
	directSeen.Store(false)
	t.Cleanup(func() { // after the parallel subtests
		if !directSeen.Load() {
			t.Error("no test graph draws its heavy factors' counts directly (directUpdate): the phase-2 variant tested nothing")
		}
	})
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{
		{Name: "PoissonGibbs/flipped-Potts-thinning", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			m := newWithKernel(tg.G, flipPottsThinning(compiled.GraphOf(tg.G)))
			return NewPoissonGibbs(m, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
		{Name: "PoissonGibbs/no-state-independent-batch", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			// s_φ ~ Poisson(φ̃) instead of Poisson(λM_φ/L + φ̃): B1 dropped.
			s, err := NewPoissonGibbs(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
			if err != nil {
				return nil, err
			}
			for k := range s.core().PG.Gens {
				_, m2 := s.core().PG.Gens[k].B.Means()
				s.core().PG.Gens[k].B = minibatch.NewPoissonPair(0, m2)
			}
			for k, pair := range s.core().PG.Pairs { // the direct counts of phase 1
				_, m2 := pair.Means()
				s.core().PG.Pairs[k] = minibatch.NewPoissonPair(0, m2)
			}
			return s, nil
		}, Steps: 0},
		{Name: "PoissonGibbs/direct-phase-2-dropped", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			// directUpdate's phase-2 counts Poisson(M_φ) never drawn: the
			// state-dependent part of s_φ lost where heavy factors are
			// counted directly.
			s, err := NewPoissonGibbs(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
			if err != nil {
				return nil, err
			}
			if s.core().PG.Hot != nil || s.core().PG.Rec != nil {
				directSeen.Store(true)
			}
			for k, pair := range s.core().PG.Pairs {
				m1, _ := pair.Means()
				s.core().PG.Pairs[k] = minibatch.NewPoissonPair(m1, 0)
			}
			return s, nil
		}, Steps: 0},
		{Name: "MGPMH/dropped-factor", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			m := newWithKernel(tg.G, dropLastExact(compiled.GraphOf(tg.G)))
			return mingibbs.NewMGPMH(m, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
		{Name: "Gibbs/dropped-factor", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			m := newWithKernel(tg.G, dropLastExact(compiled.GraphOf(tg.G)))
			return NewGibbs(m, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
	})
}

// starGraph is a hub variable with leaves observed at random values: enough
// soft factors (Potts pairs of both signs, tables, and generic factors) that
// the hub's alias table is tiered, and a conditional that enumeration gives
// exactly, since the hub is the only free variable.
func starGraph(t *testing.T, leaves, heavy int) (*factorgraph.Graph, []float64) {
	t.Helper()
	const d = 4
	r := rand.New(rand.NewPCG(3, 4))
	b := factorgraph.NewBuilder()
	b.AddVariables(leaves+1, factorgraph.Discrete(d))
	scale := 0.1 // the light factors' weights
	if heavy > 0 {
		scale = 0.002
	}
	for j := 1; j <= leaves; j++ {
		b.Observe(j, float64(r.IntN(d)))
		if j <= heavy { // a head of heavy pairs over a light crowd
			b.AddFactor(factorgraph.NewPotts(0, j, 1+r.Float64()))
			continue
		}
		switch j % 5 {
		case 0:
			vals := make([]float64, d*d)
			for k := range vals {
				vals[k] = scale * r.Float64()
			}
			b.AddFactor(factorgraph.NewTable([]int{j, 0}, []int{d, d}, vals))
		case 1:
			b.AddFactor(gibbstest.Opaque{Factor: factorgraph.NewPotts(0, j, scale*r.NormFloat64())})
		default:
			b.AddFactor(factorgraph.NewPotts(0, j, scale*r.NormFloat64()))
		}
	}
	b.AddFactor(factorgraph.NewTable([]int{0}, []int{d}, []float64{0, 0.5, math.Inf(-1), 1})) // hard zero at 2
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// The hub's conditional, by summing every factor of A[0] at each value.
	x := factorgraph.RandomState(g, r)
	u := make([]float64, d)
	buf := make([]float64, d)
	soft, hard := g.Degree(0)
	for k := range soft + hard {
		g.EvalAll(0, k, x, buf)
		for v := range u {
			u[v] += buf[v]
		}
	}
	mx := math.Inf(-1)
	for _, e := range u {
		mx = max(mx, e)
	}
	total := 0.0
	for v, e := range u {
		u[v] = math.Exp(e - mx)
		total += u[v]
	}
	for v := range u {
		u[v] /= total
	}
	return g, u
}

// TestExactnessTiered checks the compiled Poisson-Gibbs path of a variable
// whose pick table has light factors in bands (more than compiled.FlatMax soft
// factors): with no head (every pick from the bands) and with a head of
// heavy pairs.
func TestExactnessTiered(t *testing.T) {
	gibbstest.SkipShort(t)
	for _, heavy := range []int{0, 8} {
		g, p0 := starGraph(t, compiled.FlatMax+100, heavy)
		k := compiled.GraphOf(g)
		if bands := k.NumBands(0); bands < 2 {
			t.Fatalf("the hub's light factors are in %d bands; want several", bands)
		}
		if h := int(k.Heads[0].H); (h > 0) != (heavy > 0) {
			t.Fatalf("%d heavy pairs: a head of %d", heavy, h)
		}
		names := []string{"x0=0", "x0=1", "x0=2", "x0=3"}
		cells := func(x []float64, dst []int) []int { return append(dst[:0], int(x[0])) }
		// λ = 4L keeps the minibatch (5L picks) below |A[0]|.
		opt := &gibbs.Options{Lambda: 4 * g.L()}
		samplers := map[string]func() (gibbs.Sampler, error){
			"Gibbs":        func() (gibbs.Sampler, error) { return NewGibbs(g, rand.New(rand.NewPCG(5, 6)), nil) },
			"PoissonGibbs": func() (gibbs.Sampler, error) { return NewPoissonGibbs(g, rand.New(rand.NewPCG(5, 6)), opt) },
			"PoissonGibbs/per-variable": func() (gibbs.Sampler, error) {
				return NewPoissonGibbs(g, rand.New(rand.NewPCG(5, 6)), &gibbs.Options{Lambda: 4 * g.L(), PerVariable: true})
			},
			"Auto": func() (gibbs.Sampler, error) { return NewMixed(g, rand.New(rand.NewPCG(5, 6)), opt) },
		}
		for name, mk := range samplers {
			s, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			if z, where := gibbstest.BatchZ(s, 30000, p0, names, cells); z > gibbstest.ZLimit {
				t.Errorf("%d heavy, %s: %s: z = %.2f", heavy, name, where, z)
			}
			// The minibatch is the whole Poisson process: L_i(λ/L + 1)
			// draws a step on average, however they are drawn.
			if st := s.Stats(); name == "PoissonGibbs" {
				want := g.Li(0) * (4*g.L()/g.L() + 1)
				if got := st.PicksPerStep(); math.Abs(got-want) > 0.05*want {
					t.Errorf("%d heavy: %.1f draws a step, want about %.1f", heavy, got, want)
				}
			}
		}
		// The same check rejects a hub whose Potts pairs have the wrong sign.
		s, err := NewPoissonGibbs(newWithKernel(g, flipPottsThinning(compiled.GraphOf(g))), rand.New(rand.NewPCG(5, 6)), opt)
		if err != nil {
			t.Fatal(err)
		}
		if z, _ := gibbstest.BatchZ(s, 30000, p0, names, cells); z <= gibbstest.ZLimit {
			t.Errorf("%d heavy: flipped Potts thinning not rejected on the tiered hub: z = %.2f", heavy, z)
		}
	}
}

// fieldsGraph returns a graph whose soft factors are Potts pairs of mixed
// signs and fields (unary tables, two on one variable, one on a variable
// without pairs), with an observed variable: the rows of Graph.Fields,
// which exact updates read inline.
func fieldsGraph(t *testing.T, q int) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(6, factorgraph.Discrete(q))
	b.AddPottsPairs([]int32{0, 0, 1, 2, 3, 1}, []int32{1, 2, 3, 3, 4, 5}, []float64{0.9, -0.7, 1.3, 0.4, -1.1, 0.6})
	field := func(i int, seed float64) {
		v := make([]float64, q)
		for k := range v {
			v[k] = math.Sin(seed*float64(k+1)) * 1.2
		}
		b.AddFactor(factorgraph.NewUnary(i, v))
	}
	field(0, 1)
	field(0, 2) // a second field on the same variable
	field(2, 3)
	field(4, 4)
	field(5, 5) // the only soft factor of 5 but its pair
	b.AddVariable(factorgraph.Discrete(q))
	field(6, 6) // a variable with a field alone
	b.Observe(5, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// shiftFields returns a copy of k whose fields are read one value off
// (entry v+1 for v, cyclically): a wrong offset in the inline field read.
func shiftFields(k *compiled.Graph) *compiled.Graph {
	c := *k
	c.Tabs.Pots = slices.Clone(k.Tabs.Pots)
	for _, o := range k.Ops {
		p := &c.Tabs.Pots[k.Tabs.Pot[o.Ref]]
		v := slices.Clone(p.Values)
		p.Values = append(v[1:], v[0])
	}
	c.LinkFields()
	return &c
}

// TestExactnessFields: plain Gibbs on rows of Potts pairs and fields
// (Graph.Fields: the inline read, and for two values the two-value draw)
// matches enumeration, binary and with three values; the same check
// rejects the fields read one value off.
func TestExactnessFields(t *testing.T) {
	for _, q := range []int{2, 3} {
		g := fieldsGraph(t, q)
		k := compiled.GraphOf(g)
		if !k.Fields || k.AllPotts {
			t.Fatalf("q = %d: Fields %v, AllPotts %v: want the fields' path", q, k.Fields, k.AllPotts)
		}
		s, err := NewGibbs(g, rand.New(rand.NewPCG(uint64(q), 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if z, where := gibbstest.Exactness(g, s, gibbstest.ExactSteps); z > gibbstest.ZLimit {
			t.Errorf("q = %d: %s: z = %.2f", q, where, z)
		}
		bad, err := NewGibbs(newWithKernel(g, shiftFields(k)), rand.New(rand.NewPCG(uint64(q), 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if z, _ := gibbstest.Exactness(g, bad, gibbstest.ExactSteps); z <= gibbstest.ZLimit {
			t.Errorf("q = %d: fields read one value off: z = %.2f, not rejected", q, z)
		}
	}
}
