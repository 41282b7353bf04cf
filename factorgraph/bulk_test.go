package factorgraph

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/internal/compiled"
	"gonum.org/v1/gonum/stat/distuv"
)

// bulkModel is a model given twice: through AddFactor one factor at a time
// and through the bulk additions, with the same factors in the same order.
type bulkModel struct {
	n, q   int
	add    func(b *Builder, bulk bool)
	events map[int]float64
}

// mixedModel returns a model of every kind in interleaved runs: Potts pairs
// of both signs (and a zero one), shared and own pair tables (one of Potts
// form, one hard), unary terms, a generic factor, and evidence.
func mixedModel(seed uint64) bulkModel {
	const n, q = 40, 3
	r := rand.New(rand.NewPCG(seed, 7))
	type pair struct {
		a, b int32
		w    float64
	}
	var pairs [3][]pair
	for k := range pairs {
		for range 60 + 20*k {
			a, b := r.IntN(n), r.IntN(n-1)
			if b >= a {
				b++
			}
			w := r.NormFloat64()
			if r.IntN(9) == 0 {
				w = 0
			}
			pairs[k] = append(pairs[k], pair{int32(a), int32(b), w})
		}
	}
	shared := make([]float64, q*q) // a pair table every edge shares
	for k := range shared {
		shared[k] = r.Float64()
	}
	shared[1] = math.Inf(-1) // hard
	pottsTab := []float64{0.7, 0.2, 0.2, 0.2, 0.7, 0.2, 0.2, 0.2, 0.7}
	var edges []int32
	for range 30 {
		a, b := r.IntN(n), r.IntN(n-1)
		if b >= a {
			b++
		}
		edges = append(edges, int32(a), int32(b))
	}
	own := make([]float64, 10*q)
	for k := range own {
		own[k] = r.NormFloat64()
	}
	sites := make([]int32, 10)
	for k := range sites {
		sites[k] = int32(r.IntN(n))
	}
	add := func(b *Builder, bulk bool) {
		b.AddVariables(n, Discrete(q))
		addPairs := func(ps []pair) {
			if bulk {
				a, c, w := make([]int32, len(ps)), make([]int32, len(ps)), make([]float64, len(ps))
				for k, p := range ps {
					a[k], c[k], w[k] = p.a, p.b, p.w
				}
				b.AddPottsPairs(a, c, w)
				return
			}
			for _, p := range ps {
				b.AddFactor(NewPotts(int(p.a), int(p.b), p.w))
			}
		}
		addTables := func(scopes []int32, sizes []int, values []float64) {
			if bulk {
				b.AddTables(scopes, sizes, values)
				return
			}
			a, t := len(sizes), 1
			for _, s := range sizes {
				t *= s
			}
			for k := range len(scopes) / a {
				vals := values
				if len(values) > t {
					vals = values[k*t : (k+1)*t]
				}
				b.AddFactor(NewTable(int32s(scopes[k*a:(k+1)*a]), sizes, vals))
			}
		}
		addPairs(pairs[0])
		addTables(edges[:20], []int{q, q}, shared)
		b.AddFactor(NewFunc([]int{3, 4}, -1, 1, func(x []float64) float64 { return math.Sin(x[3] - x[4]) }))
		addPairs(pairs[1])
		addTables(edges[20:40], []int{q, q}, pottsTab)
		addTables(sites, []int{q}, own)
		addPairs(pairs[2])
		addTables(edges[40:], []int{q, q}, shared)
	}
	return bulkModel{n: n, q: q, add: add, events: map[int]float64{5: 1, 17: 0}}
}

// build builds m one way.
func (m bulkModel) build(t *testing.T, bulk bool) *Graph {
	t.Helper()
	b := NewBuilder()
	m.add(b, bulk)
	for i, v := range m.events {
		b.Observe(i, v)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBulkSameGraph builds the same factors one at a time and in bulk and
// requires the same compiled graph: the same rows, pick tables and sums
// (so the same chains), and the same answers from every method that names,
// bounds or evaluates a factor.
func TestBulkSameGraph(t *testing.T) {
	for seed := range uint64(4) {
		m := mixedModel(seed)
		one, bulk := m.build(t, false), m.build(t, true)
		k1, k2 := one.kern, bulk.kern
		for _, c := range []struct {
			name string
			a, b any
		}{
			{"SoftStart", k1.SoftStart, k2.SoftStart}, {"Nbr", k1.Nbr, k2.Nbr}, {"W", k1.W, k2.W},
			{"HardStart", k1.HardStart, k2.HardStart}, {"Heads", k1.Heads, k2.Heads}, {"HeadStride", k1.HeadStride, k2.HeadStride}, {"HeadStart", k1.HeadStart, k2.HeadStart},
			{"Head", k1.Head, k2.Head}, {"HeadLo", k1.HeadLo, k2.HeadLo}, {"BandStart", k1.BandStart, k2.BandStart},
			{"Bands", k1.Bands, k2.Bands}, {"BandCols", k1.BandCols, k2.BandCols}, {"BandLo", k1.BandLo, k2.BandLo},
			{"li", one.li, bulk.li}, {"L", one.L(), bulk.L()}, {"Psi", one.Psi(), bulk.Psi()},
			{"MaxDegree", one.MaxDegree(), bulk.MaxDegree()}, {"Active", one.Active(), bulk.Active()},
			{"Colouring", one.Colouring(), bulk.Colouring()},
		} {
			if !reflect.DeepEqual(c.a, c.b) {
				t.Fatalf("seed %d: %s differs:\none  %v\nbulk %v", seed, c.name, c.a, c.b)
			}
		}
		// The ops: the same kinds, strides, bounds and factors (a table's
		// index in the kernel may differ), the same values.
		x := one.Initial(rand.New(rand.NewPCG(seed, 1)))
		dst1, dst2 := make([]float64, m.q), make([]float64, m.q)
		for i := range m.n {
			soft, hard := one.Degree(i)
			if s2, h2 := bulk.Degree(i); s2 != soft || h2 != hard {
				t.Fatalf("variable %d: degrees %d, %d and %d, %d", i, soft, hard, s2, h2)
			}
			for k := range soft + hard {
				o1, o2 := one.op(i, k), bulk.op(i, k)
				if o1.Kind == compiled.Table && o2.Kind == compiled.Table {
					o1.Ref, o2.Ref = 0, 0
				}
				if o1 != o2 {
					t.Fatalf("variable %d, factor %d: ops %+v and %+v", i, k, o1, o2)
				}
				if one.FactorIndex(i, k) != bulk.FactorIndex(i, k) || one.Bound(i, k) != bulk.Bound(i, k) {
					t.Fatalf("variable %d, factor %d: index or bound differ", i, k)
				}
				n1, lo1, hi1 := one.Describe(i, k)
				n2, lo2, hi2 := bulk.Describe(i, k)
				e1, e2 := one.Eval(i, k, x), bulk.Eval(i, k, x)
				one.EvalAll(i, k, x, dst1)
				bulk.EvalAll(i, k, x, dst2)
				if n1 != n2 || lo1 != lo2 || hi1 != hi2 || e1 != e2 && !(math.IsInf(e1, -1) && math.IsInf(e2, -1)) || !slices.Equal(dst1, dst2) {
					t.Fatalf("variable %d, factor %d: %s [%v, %v] = %v %v; %s [%v, %v] = %v %v", i, k, n1, lo1, hi1, e1, dst1, n2, lo2, hi2, e2, dst2)
				}
			}
			if !slices.Equal(one.Neighbours(nil, i), bulk.Neighbours(nil, i)) {
				t.Fatalf("variable %d: neighbours differ", i)
			}
		}
		for f := range one.NumFactors() {
			f1, f2 := one.Factor(f), bulk.Factor(f)
			lo1, hi1 := one.FactorRange(f)
			lo2, hi2 := bulk.FactorRange(f)
			r1, r2 := [2]float64{}, [2]float64{}
			r1[0], r1[1] = f1.Range()
			r2[0], r2[1] = f2.Range()
			v1, v2 := one.EvalFactor(f, x), bulk.EvalFactor(f, x)
			if !slices.Equal(f1.Vars(), f2.Vars()) || !slices.Equal(bulk.FactorVars(nil, f), f2.Vars()) || lo1 != lo2 || hi1 != hi2 || r1 != r2 ||
				v1 != v2 && !(math.IsInf(v1, -1) && math.IsInf(v2, -1)) || one.FactorName(f) != bulk.FactorName(f) {
				t.Fatalf("factor %d: %v [%v, %v] %v and %v [%v, %v] %v", f, f1.Vars(), lo1, hi1, v1, f2.Vars(), lo2, hi2, v2)
			}
		}
		if one.String() != bulk.String() {
			t.Errorf("%s\n%s", one, bulk)
		}
	}
}

// TestBulkErrors checks that Build names a bad bulk call or factor as it
// names a bad factor added one at a time.
func TestBulkErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *Builder)
		want  string
	}{
		{"lengths", func(b *Builder) { b.AddPottsPairs([]int32{0}, []int32{1, 0}, []float64{1}) }, "AddPottsPairs (after 0 factors): 1, 2 and 1 values"},
		{"range", func(b *Builder) { b.AddPottsPairs([]int32{0, 1}, []int32{1, 4}, []float64{1, 1}) }, "factor 1 (vars 1,4): variable 4 out of range [0, 4)"},
		{"negative", func(b *Builder) { b.AddPottsPairs([]int32{-1}, []int32{1}, []float64{1}) }, "factor 0 (vars -1,1): variable -1 out of range"},
		{"repeated", func(b *Builder) { b.AddPottsPairs([]int32{2}, []int32{2}, []float64{1}) }, "factor 0 (vars 2,2): variable 2 repeated in scope"},
		{"NaN", func(b *Builder) {
			b.AddFactor(NewPotts(0, 1, 1))
			b.AddPottsPairs([]int32{0}, []int32{1}, []float64{math.NaN()})
		}, "factor 1 (vars 0,1): Potts weight is NaN"},
		{"Inf", func(b *Builder) { b.AddPottsPairs([]int32{0}, []int32{1}, []float64{math.Inf(-1)}) }, "Potts weight -Inf is not finite"},
		{"continuous", func(b *Builder) {
			b.AddVariable(Interval(0, 1))
			b.AddPottsPairs([]int32{0}, []int32{4}, []float64{1})
		}, "factor 0 (vars 0,4): Potts factor over continuous variable 4"},
		{"no sizes", func(b *Builder) { b.AddTables([]int32{0}, nil, []float64{1}) }, "AddTables (after 0 factors): no sizes"},
		{"scopes", func(b *Builder) { b.AddTables([]int32{0, 1, 2}, []int{2, 2}, make([]float64, 4)) }, "3 scope variables for tables over 2 variables"},
		{"values", func(b *Builder) { b.AddTables([]int32{0, 1, 2, 3}, []int{2, 2}, make([]float64, 5)) }, "5 values for 2 tables of 4 entries"},
		{"size", func(b *Builder) { b.AddTables([]int32{0}, []int{0}, nil) }, "size 0 < 1"},
		{"table size", func(b *Builder) { b.AddTables([]int32{0, 1}, []int{2, 3}, make([]float64, 6)) }, "factor 0 (vars 0,1): table size 3 for variable 1 whose domain has 2 values"},
		{"table range", func(b *Builder) { b.AddTables([]int32{0, 9}, []int{2, 2}, make([]float64, 4)) }, "factor 0 (vars 0,9): variable 9 out of range [0, 4)"},
		{"table repeated", func(b *Builder) { b.AddTables([]int32{1, 1}, []int{2, 2}, make([]float64, 4)) }, "variable 1 repeated in scope"},
		{"table NaN", func(b *Builder) {
			b.AddTables([]int32{0, 1, 2, 3}, []int{2}, []float64{0, 1, 2, 3, 4, math.NaN(), 6, 7})
		}, "factor 2 (vars 2): table entry 1 is NaN"},
		{"all zero", func(b *Builder) {
			inf := math.Inf(-1)
			b.AddTables([]int32{0, 1}, []int{2}, []float64{inf, inf})
		}, "factor 0 (vars 0): every table entry is −Inf"},
	} {
		b := NewBuilder()
		b.AddVariables(4, Discrete(2))
		c.build(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestBulkKeepsBuilder checks that a graph does not change when its
// builder is added to and built again, and that the second graph has both.
func TestBulkKeepsBuilder(t *testing.T) {
	b := NewBuilder()
	b.AddVariables(3, Discrete(2))
	b.AddPottsPairs([]int32{0}, []int32{1}, []float64{1})
	g1, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	b.AddPottsPairs([]int32{1}, []int32{2}, []float64{2})
	b.AddTables([]int32{0}, []int{2}, []float64{0, 1})
	g2, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g1.NumFactors() != 1 || g1.L() != 1 || g2.NumFactors() != 3 || g2.L() != 3 {
		t.Errorf("factors %d, %d; L %v, %v", g1.NumFactors(), g2.NumFactors(), g1.L(), g2.L())
	}
}

// pickRows are the weight patterns of the pick tests: the soft factors of a
// hub variable, as Potts pairs to observed leaves.
func pickRows() map[string][]float64 {
	rows := map[string][]float64{}
	r := rand.New(rand.NewPCG(1, 2))
	flat := make([]float64, 300) // no few heavy ones, at most FlatMax: one head table
	for k := range flat {
		flat[k] = 0.5 + r.Float64()
	}
	rows["flat"] = flat
	gauss := []float64{} // a Gaussian kernel: a head and bands
	for dr := -22; dr <= 22; dr++ {
		for dc := -22; dc <= 22; dc++ {
			if w := 4.6 * math.Exp(-1.5*float64(dr*dr+dc*dc)); w > 0 && (dr != 0 || dc != 0) {
				gauss = append(gauss, w)
			}
		}
	}
	rows["gauss"] = gauss
	wide := make([]float64, 3000) // no head beyond FlatMax: all bands
	for k := range wide {
		wide[k] = math.Exp(-0.002*float64(k)) * (0.5 + r.Float64())
	}
	rows["wide"] = wide
	steep := make([]float64, 700) // bands of one entry, a tail of subnormals
	for k := range steep {
		steep[k] = math.Ldexp(1+r.Float64(), -2*k)
	}
	rows["steep"] = steep
	return rows
}

// hub returns the graph of a hub variable 0 with Potts pairs of weights w
// to observed leaves (of alternating sign).
func hub(t *testing.T, w []float64) *Graph {
	t.Helper()
	b := NewBuilder()
	b.AddVariables(len(w)+1, Discrete(2))
	a, c, ws := make([]int32, len(w)), make([]int32, len(w)), make([]float64, len(w))
	for k, x := range w {
		a[k], c[k], ws[k] = 0, int32(k+1), x
		if k%2 == 1 {
			ws[k] = -x
		}
		b.Observe(k+1, 0)
	}
	b.AddPottsPairs(a, c, ws)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// chiP returns the chi-square p-value of n draws of draw against the
// probabilities p (cells of less than 20 expected draws pooled).
func chiP(p []float64, n int, draw func() int) float64 {
	obs := make([]float64, len(p))
	for range n {
		obs[draw()]++
	}
	var o, e []float64
	po, pe := 0.0, 0.0
	for k := range p {
		ek := float64(n) * p[k]
		if ek < 20 {
			po, pe = po+obs[k], pe+ek
			continue
		}
		o, e = append(o, obs[k]), append(e, ek)
	}
	if pe > 0 {
		o, e = append(o, po), append(e, pe)
	}
	stat := 0.0
	for k := range o {
		stat += (o[k] - e[k]) * (o[k] - e[k]) / e[k]
	}
	if len(o) < 2 {
		return 1
	}
	return distuv.ChiSquared{K: float64(len(o) - 1)}.Survival(stat)
}

// TestPickFrequencies draws picks from the two-level tables of each weight
// pattern and compares their frequencies with M_φ/L_i by a chi-square test,
// and the light picks alone (the bands) with M_φ over the light factors'
// sum. Bands that keep every try (no rejection) must fail the same test.
func TestPickFrequencies(t *testing.T) {
	const n = 400000
	for name, w := range pickRows() {
		g := hub(t, w)
		k := g.kern
		h, bands := int(k.Heads[0].H), k.NumBands(0)
		t.Logf("%s: %d factors, a head of %d, %d bands", name, len(w), h, bands)
		r := rand.New(rand.NewPCG(3, uint64(len(w))))
		soft, _ := g.Degree(0)
		p := make([]float64, soft)
		for j := range p {
			p[j] = g.Bound(0, j) / g.Li(0)
		}
		if pv := chiP(p, n, func() int { return g.Pick(0, r) }); pv < 1e-4 {
			t.Errorf("%s: chi-square p = %g", name, pv)
		}
		if h >= soft {
			continue
		}
		light := 0.0
		for j := h; j < soft; j++ {
			light += g.Bound(0, j)
		}
		for j := range p {
			p[j] = 0
			if j >= h {
				p[j] = g.Bound(0, j) / light
			}
		}
		pickLight := func() int { j, _ := k.PickLight(0, r); return j }
		if pv := chiP(p, n, pickLight); pv < 1e-4 {
			t.Errorf("%s (light picks): chi-square p = %g", name, pv)
		}
		if bands < 2 {
			continue
		}
		saved := slices.Clone(k.Bands)
		for b := range k.Bands {
			k.Bands[b].Max = 0 // every try kept: the broken variant
		}
		if pv := chiP(p, n, pickLight); pv > 1e-4 {
			t.Errorf("%s (light picks): bands without rejection not caught: p = %g", name, pv)
		}
		copy(k.Bands, saved)
	}
}

// TestUniformPicks: a row of Potts pairs of one weight is uniform (no
// head columns) and its picks are uniform with the references of Ref, at
// any length (past FlatMax, past a HeadInfo's 65535); a row with one
// weight off by a bit, or with another kind of factor, is not. A
// non-uniform row taken for uniform (its head dropped) must fail the
// chi-square test.
func TestUniformPicks(t *testing.T) {
	const draws = 200000
	for _, c := range []struct {
		n int
		w float64
	}{{1, 0.5}, {7, 0.5}, {7, -0.25}, {3000, 1e-3}, {70000, -2}} {
		b := NewBuilder()
		b.AddVariables(c.n+1, Discrete(2))
		a, d, ws := make([]int32, c.n), make([]int32, c.n), make([]float64, c.n)
		for k := range c.n {
			a[k], d[k], ws[k] = 0, int32(k+1), c.w
		}
		b.AddPottsPairs(a, d, ws)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		k := g.kern
		if !k.Uniform(0) || k.Heads[0].Cols != 0 {
			t.Fatalf("%d pairs of weight %g: not uniform (%+v)", c.n, c.w, k.Heads[0])
		}
		// Pairs of one weight and nothing else: no weight an entry.
		if _, w := k.Row(0); k.W != nil || k.W0 != c.w || len(w) != c.n || w[0] != c.w || w[c.n-1] != c.w || g.Bound(0, c.n-1) != math.Abs(c.w) {
			t.Fatalf("%d pairs of weight %g: W %d long, W0 %g, a row of %d weights", c.n, c.w, len(k.W), k.W0, len(w))
		}
		tab := k.HeadTable(0)
		nb, w := k.Row(0)
		r := rand.New(rand.NewPCG(5, uint64(c.n)))
		if c.n <= 3000 {
			p := make([]float64, c.n)
			for j := range p {
				p[j] = 1 / float64(c.n)
			}
			if pv := chiP(p, draws, func() int { return k.Pick(0, r) }); pv < 1e-4 {
				t.Errorf("%d pairs of weight %g: chi-square p = %g", c.n, c.w, pv)
			}
		}
		for range 1000 {
			j, ref := tab.PickHead(r.Uint64())
			if j < 0 || j >= c.n || ref != compiled.Ref(nb[j], w[j]) {
				t.Fatalf("%d pairs of weight %g: pick %d with reference %d", c.n, c.w, j, ref)
			}
		}
	}
	// Not uniform: one weight a bit off; a field beside the pairs.
	b := NewBuilder()
	b.AddVariables(4, Discrete(2))
	b.AddPottsPairs([]int32{0, 0, 0}, []int32{1, 2, 3}, []float64{0.5, 0.5, math.Nextafter(0.5, 1)})
	b.AddFactor(NewPotts(1, 2, 0.5))
	b.AddFactor(NewPotts(2, 3, 0.5))
	b.AddFactor(NewTable([]int{3}, []int{2}, []float64{0, 0.5}))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, true, true, false} {
		if got := g.kern.Uniform(i); got != want {
			t.Errorf("variable %d: Uniform %v, want %v", i, got, want)
		}
	}
	// The broken variant: the flat row's head dropped, so that its picks
	// are uniform although its weights are not.
	g = hub(t, pickRows()["flat"])
	k := g.kern
	soft, _ := g.Degree(0)
	p := make([]float64, soft)
	for j := range p {
		p[j] = g.Bound(0, j) / g.Li(0)
	}
	k.Heads[0].Cols = 0
	r := rand.New(rand.NewPCG(3, 4))
	if pv := chiP(p, draws, func() int { return k.Pick(0, r) }); pv > 1e-4 {
		t.Errorf("a non-uniform row picked uniformly not caught: p = %g", pv)
	}
}

// TestBuildHandsBackGrow: room Grow reserved and the factors did not take
// — a potential a table, where the tables share one — is not kept by the
// graph (Build copies a store slice more than a quarter empty); one nearly
// full is kept as it is, without a copy.
func TestBuildHandsBackGrow(t *testing.T) {
	const nf = 20000
	b := NewBuilder()
	b.AddVariables(nf+1, Discrete(2))
	b.Grow(Size{Tables: nf, TableVars: 2 * nf, Potentials: nf})
	scopes := make([]int32, 0, 2*nf)
	for i := range nf {
		scopes = append(scopes, int32(i), int32(i+1))
	}
	b.AddTables(scopes, []int{2, 2}, []float64{1, 0, 0, 1})
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// A clipped slice keeps its whole array alive: the graph's must be
	// another array than the builder's where most of it is empty.
	if p := g.fs.tab.Pots; len(p) != 1 || &p[0] == &b.fs.tab.Pots[0] {
		t.Errorf("one potential shared by %d tables: %d kept, in the builder's array of %d", nf, len(p), cap(b.fs.tab.Pots))
	}
	if v := g.fs.tab.Vars; len(v) != 2*nf || &v[0] != &b.fs.tab.Vars[0] {
		t.Errorf("scopes: %d kept, copied (want the builder's full array)", len(v))
	}
}

// TestRowSortShort: a short row sorted by insertion comes out as the radix
// sort orders it — by decreasing |W|, ties (of either sign, and ±0) in
// their order —, entries, neighbours and factors alike, on random rows of
// 1 to 40 entries drawn from a few weights; an unstable insertion (ties
// moved past each other) fails it (checked).
func TestRowSortShort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	levels := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1, -1, 1e-300, 3}
	var rs rowSorter
	for trial := range 20000 {
		n := 1 + r.IntN(40)
		w := make([]float64, n)
		nb := make([]int32, n)
		fac := make([]int32, n)
		for j := range w {
			w[j], nb[j], fac[j] = levels[r.IntN(len(levels))], int32(j), int32(100+j)
		}
		w2, nb2, fac2 := slices.Clone(w), slices.Clone(nb), slices.Clone(fac)
		rs.sort(nb, w, fac)
		rs.radix(nb2, w2, fac2)
		for j := range w {
			if math.Float64bits(w[j]) != math.Float64bits(w2[j]) || nb[j] != nb2[j] || fac[j] != fac2[j] {
				t.Fatalf("trial %d (%d entries): sorted %v %v %v, radix %v %v %v", trial, n, w, nb, fac, w2, nb2, fac2)
			}
		}
	}
}
