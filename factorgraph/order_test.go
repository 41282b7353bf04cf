package factorgraph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// renumberGraphs are small graphs of every kind Renumber renames: bulk
// Potts pairs of mixed signs, bulk tables (one shared, one each), pairs
// and tables added as values (a probability table with zeros: a hard
// factor; a unary; a table of Potts form), evidence, an isolated variable.
func renumberGraphs(t *testing.T) map[string]*factorgraph.Graph {
	t.Helper()
	gs := map[string]*factorgraph.Graph{}
	build := func(name string, b *factorgraph.Builder) {
		g, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gs[name] = g
	}
	{
		b := factorgraph.NewBuilder()
		b.AddVariables(6, factorgraph.Discrete(3))
		b.AddPottsPairs([]int32{0, 1, 2, 3, 4, 5}, []int32{1, 2, 3, 4, 5, 0}, []float64{0.7, -0.4, 1.1, 0.3, -0.9, 0.5})
		b.AddPottsPairs([]int32{0, 2}, []int32{3, 5}, []float64{0.2, 0.6})
		build("bulk pairs", b)
	}
	{
		b := factorgraph.NewBuilder()
		b.AddVariables(5, factorgraph.Discrete(2))
		b.AddVariable(factorgraph.Discrete(3))
		b.AddTables([]int32{0, 1, 2, 1, 3, 4}, []int{2, 2, 2}, []float64{0.1, 0.5, -0.2, 0.9, 0.3, 0.0, 1.2, -0.7})
		b.AddTables([]int32{4, 5, 0, 5}, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5, 0.5, 0.1, 0.2, 0.3, 0.4, 0.6})
		b.AddTables([]int32{3}, []int{2}, []float64{0.25, -0.25})
		b.Observe(2, 1)
		build("bulk tables and evidence", b)
	}
	{
		b := factorgraph.NewBuilder()
		b.AddVariables(7, factorgraph.Discrete(2))
		b.AddFactor(factorgraph.NewPotts(0, 3, 0.8))
		b.AddFactor(factorgraph.NewProbTable([]int{1, 3, 4}, []int{2, 2, 2}, []float64{0.2, 0, 0.1, 0.3, 0, 0.4, 0.5, 0.6}))
		b.AddFactor(factorgraph.NewUnary(5, []float64{0.1, 0.9}))
		b.AddFactor(factorgraph.NewTable([]int{5, 1}, []int{2, 2}, []float64{0.4, 0, 0, 0.4}))
		b.AddPottsPairs([]int32{4, 2}, []int32{5, 0}, []float64{-0.3, 0.3})
		b.AddFactor(factorgraph.NewPotts(1, 2, 0.1))
		b.Observe(4, 1)
		build("values, hard factors, an isolated variable", b)
	}
	return gs
}

// states calls f with every state of g's variables (all discrete, few).
func states(g *factorgraph.Graph, f func(x []float64)) {
	n := g.NumVars()
	x := make([]float64, n)
	for {
		f(x)
		k := 0
		for ; k < n; k++ {
			if x[k]++; int(x[k]) < g.Domain(k).Size {
				break
			}
			x[k] = 0
		}
		if k == n {
			return
		}
	}
}

// TestRenumber checks that Renumber keeps the distribution: at every
// state, the renumbered graph's log-potential is the original's at the
// state mapped back, bit for bit (the factors keep their order), and
// domains, evidence, L_i, L, Ψ and the scopes follow the order. The same
// comparison with the map inverted fails: the check can.
func TestRenumber(t *testing.T) {
	for name, g := range renumberGraphs(t) {
		n := g.NumVars()
		r := rand.New(rand.NewPCG(3, uint64(n)))
		local, err := factorgraph.LocalityOrder(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		orders := map[string][]int{"locality": local, "random": r.Perm(n)}
		for oname, order := range orders {
			h, err := factorgraph.Renumber(g, order)
			if err != nil {
				t.Fatalf("%s, %s order: %v", name, oname, err)
			}
			if h.NumFactors() != g.NumFactors() || h.L() != g.L() || h.Psi() != g.Psi() || h.MaxDegree() != g.MaxDegree() {
				t.Errorf("%s, %s order: factors %d, L %g, Ψ %g, Δ %d; want %d, %g, %g, %d", name, oname,
					h.NumFactors(), h.L(), h.Psi(), h.MaxDegree(), g.NumFactors(), g.L(), g.Psi(), g.MaxDegree())
			}
			for k, v := range order {
				xo, oko := g.Observed(v)
				xn, okn := h.Observed(k)
				if h.Domain(k) != g.Domain(v) || oko != okn || xo != xn || h.Li(k) != g.Li(v) {
					t.Errorf("%s, %s order: variable %d (was %d): domain %v, evidence %v %v, L_i %g; want %v, %v %v, %g", name, oname,
						k, v, h.Domain(k), xn, okn, h.Li(k), g.Domain(v), xo, oko, g.Li(v))
				}
			}
			for f := range g.NumFactors() {
				want, hv := g.FactorVars(nil, f), h.FactorVars(nil, f)
				got := make([]int, len(hv))
				for k, v := range hv {
					got[k] = order[v]
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, %s order: factor %d's scope %v maps back to %v, want %v", name, oname, f, hv, got, want)
				}
			}
			var y, wrong []float64
			mismatches, wrongMismatches := 0, 0
			inverse := make([]int, n)
			for k, v := range order {
				inverse[v] = k
			}
			states(h, func(x []float64) {
				y = factorgraph.OriginalOrder(y, x, order)
				a, b := h.LogPotential(x), g.LogPotential(y)
				if math.Float64bits(a) != math.Float64bits(b) {
					if mismatches++; mismatches < 4 {
						t.Errorf("%s, %s order: log-potential %v at %v, %v at the original's %v", name, oname, a, x, b, y)
					}
				}
				wrong = factorgraph.OriginalOrder(wrong, x, inverse)
				for i, v := range wrong {
					if !g.Domain(i).Contains(v) { // not even a state of g
						wrongMismatches++
						return
					}
				}
				if math.Float64bits(a) != math.Float64bits(g.LogPotential(wrong)) {
					wrongMismatches++
				}
			})
			if !isInvolution(order) && wrongMismatches == 0 {
				t.Errorf("%s, %s order: the inverted map agrees everywhere too: the check cannot fail", name, oname)
			}
		}
	}
}

// isInvolution says order is its own inverse.
func isInvolution(order []int) bool {
	for k, v := range order {
		if order[v] != k {
			return false
		}
	}
	return true
}

// TestRenumberedOrder checks that RenumberedOrder inverts OriginalOrder.
func TestRenumberedOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	order := r.Perm(50)
	v := make([]float64, 50)
	for k := range v {
		v[k] = r.Float64()
	}
	back := factorgraph.RenumberedOrder(nil, factorgraph.OriginalOrder(nil, v, order), order)
	if !slices.Equal(back, v) {
		t.Fatalf("RenumberedOrder(OriginalOrder(v)) = %v, want %v", back, v)
	}
}

// TestRenumberRefuses checks the errors of Renumber.
func TestRenumberRefuses(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1))
	b.AddFactor(factorgraph.NewFunc([]int{1, 2}, 0, 1, func(x []float64) float64 { return x[1] * x[2] }))
	withFunc, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	b = factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g     *factorgraph.Graph
		order []int
		want  string
	}{
		{g, []int{0, 1}, "an order of 2 variables for a graph of 3"},
		{g, []int{0, 1, 3}, "order[2] = 3 is not a variable"},
		{g, []int{0, -1, 2}, "order[1] = -1 is not a variable"},
		{g, []int{2, 0, 2}, "order[2] = 2 repeats order[0]"},
		{withFunc, []int{2, 1, 0}, "factor 1 (vars [1 2]) is a *factorgraph.Func"},
	} {
		_, err := factorgraph.Renumber(c.g, c.order)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Renumber(%v): error %v, want one saying %q", c.order, err, c.want)
		}
	}
}

// shuffledTorus returns the L×L nearest-neighbour Potts torus with its
// sites numbered at random.
func shuffledTorus(t *testing.T, l int, r *rand.Rand) *factorgraph.Graph {
	t.Helper()
	perm := r.Perm(l * l)
	var is, js []int32
	var ws []float64
	for y := range l {
		for x := range l {
			s := int32(perm[y*l+x])
			is = append(is, s, s)
			js = append(js, int32(perm[y*l+(x+1)%l]), int32(perm[(y+1)%l*l+x]))
			ws = append(ws, 0.5, 0.5)
		}
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(l*l, factorgraph.Discrete(2))
	b.AddPottsPairs(is, js, ws)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLocalityOrder checks that LocalityOrder is a permutation that finds
// the locality a numbering at random hides: on a shuffled torus, nearly
// every neighbour within 4L places after it against about 8/L before; on
// a shuffled path, every neighbour adjacent (bandwidth 1); components and
// isolated variables each placed once.
func TestLocalityOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const l = 64
	g := shuffledTorus(t, l, r)
	order, err := factorgraph.LocalityOrder(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	checkPermutation(t, order, g.NumVars())
	before, after := factorgraph.Locality(g, nil, 4*l), factorgraph.Locality(g, order, 4*l)
	if before > 0.2 || after < 0.99 {
		t.Errorf("shuffled %d×%d torus: locality within %d places %.3f at random, %.3f in LocalityOrder; want ≤ 0.2 and ≥ 0.99", l, l, 4*l, before, after)
	}
	if id := factorgraph.Locality(g, order, 0); id >= 0.01 {
		t.Errorf("locality within 0 places %.3f, want 0 (no variable is its own neighbour)", id)
	}

	// Two shuffled paths of 200 and 100 variables and 5 isolated ones.
	const n = 305
	perm := r.Perm(n)
	var is, js []int32
	for k := range 299 {
		if k == 199 {
			continue
		}
		is, js = append(is, int32(perm[k])), append(js, int32(perm[k+1]))
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	b.AddPottsPairs(is, js, slices.Repeat([]float64{1}, len(is)))
	paths, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if order, err = factorgraph.LocalityOrder(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	checkPermutation(t, order, n)
	if loc := factorgraph.Locality(paths, order, 1); loc != 1 {
		t.Errorf("shuffled paths: locality within 1 place %.3f in LocalityOrder, want 1", loc)
	}
}

// checkPermutation fails t unless order is a permutation of 0, …, n−1.
func checkPermutation(t *testing.T, order []int, n int) {
	t.Helper()
	s := slices.Clone(order)
	slices.Sort(s)
	for k, v := range s {
		if v != k || len(s) != n {
			t.Fatalf("LocalityOrder is not a permutation of %d variables: %d entries, sorted entry %d is %d", n, len(s), k, v)
		}
	}
}

// TestLocalityOrderCancelled checks that a cancelled context ends
// LocalityOrder with its error.
func TestLocalityOrderCancelled(t *testing.T) {
	g := shuffledTorus(t, 300, rand.New(rand.NewPCG(2, 2)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if order, err := factorgraph.LocalityOrder(ctx, g); err != context.Canceled || order != nil {
		t.Fatalf("LocalityOrder with a cancelled context: %d entries, error %v; want none and context.Canceled", len(order), err)
	}
}
