package site_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/potts"
)

// The enumeration check of the single-site samplers (gibbstest.CheckExact):
// Gibbs (Algorithm 1), Poisson-Gibbs (Algorithm 2) at three λ and with
// per-variable λ, and Mixed where it uses both kinds of update.

func siteSamplers() []gibbstest.SamplerCase {
	with := func(newS func(factorgraph.Model, *rand.Rand, *gibbs.Options) (gibbs.Sampler, error), o gibbs.Options) func(factorgraph.Model, *rand.Rand, []float64) (gibbs.Sampler, error) {
		return func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			o := o
			o.Init = init
			return newS(m, r, &o)
		}
	}
	return []gibbstest.SamplerCase{
		{Name: "Gibbs", New: with(newGibbs, gibbs.Options{})},
		{Name: "PoissonGibbs", New: with(newPoissonGibbs, gibbs.Options{})},
		{Name: "PoissonGibbs/λ=0.1L²", New: with(newPoissonGibbs, gibbs.Options{LambdaScale: 0.1})},
		{Name: "PoissonGibbs/per-variable", New: with(newPoissonGibbs, gibbs.Options{PerVariable: true, LambdaScale: 0.5})},
		{Name: "Mixed", New: with(newMixed, gibbs.Options{LambdaScale: gibbstest.MixedScale})},
	}
}

func newGibbs(m factorgraph.Model, r *rand.Rand, o *gibbs.Options) (gibbs.Sampler, error) {
	return site.NewGibbs(m, r, o)
}

func newPoissonGibbs(m factorgraph.Model, r *rand.Rand, o *gibbs.Options) (gibbs.Sampler, error) {
	return site.NewPoissonGibbs(m, r, o)
}

func newMixed(m factorgraph.Model, r *rand.Rand, o *gibbs.Options) (gibbs.Sampler, error) {
	return site.NewMixed(m, r, o)
}

func TestExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.Graphs(t), siteSamplers(), 99, 1)
}

// TestExactnessCompiledMixed runs the enumeration check on graphs that mix
// compiled and generic factors.
func TestExactnessCompiledMixed(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.MixedGraphs(t), siteSamplers(), 77, 2)
}

// TestExactnessCatchesBrokenSamplers runs the same check on broken variants
// and requires it to fail.
func TestExactnessCatchesBrokenSamplers(t *testing.T) {
	gibbstest.SkipShort(t)
	broken := func(wrap func(*factorgraph.Graph) factorgraph.Model, newS func(factorgraph.Model, *rand.Rand, *gibbs.Options) (gibbs.Sampler, error), o gibbs.Options) func(gibbstest.Graph) (gibbs.Sampler, error) {
		return func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			o := o
			o.Init = tg.Init
			return newS(wrap(tg.G), rand.New(rand.NewPCG(tg.Seed, 99)), &o)
		}
	}
	evalBroken := func(g *factorgraph.Graph) factorgraph.Model { return gibbstest.BrokenEval{Model: g} }
	dropped := func(g *factorgraph.Graph) factorgraph.Model { return gibbstest.DropFactor{Model: g} }
	gibbstest.CheckBroken(t, gibbstest.Graphs(t), []gibbstest.BrokenCase{
		{Name: "PoissonGibbs/thinning-without-φ", New: broken(evalBroken, newPoissonGibbs, gibbs.Options{})},
		{Name: "Gibbs/dropped-factor", New: broken(dropped, newGibbs, gibbs.Options{})},
		{Name: "PoissonGibbs/dropped-factor", New: broken(dropped, newPoissonGibbs, gibbs.Options{})},
		{Name: "Mixed/dropped-factor", New: broken(dropped, newMixed, gibbs.Options{LambdaScale: gibbstest.MixedScale})},
	})
}

// TestMixedKinds: at gibbstest.MixedScale, Mixed updates some variables of
// the test graphs by Gibbs and some by Poisson-Gibbs, so that its
// exactness test covers both.
func TestMixedKinds(t *testing.T) {
	gibbsVars, pgVars := 0, 0
	for _, tg := range gibbstest.Graphs(t) {
		a, err := site.NewMixed(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init, LambdaScale: gibbstest.MixedScale})
		if err != nil {
			t.Fatal(err)
		}
		g, p := a.Kinds()
		if g+p != len(tg.G.Free()) {
			t.Errorf("graph %d: %d + %d kinds for %d free variables", tg.Seed, g, p, len(tg.G.Free()))
		}
		gibbsVars += g
		pgVars += p
	}
	if gibbsVars == 0 || pgVars == 0 {
		t.Errorf("Mixed used %d Gibbs and %d Poisson-Gibbs updates over the test graphs; the exactness test needs both", gibbsVars, pgVars)
	}
	t.Logf("Mixed on the test graphs: %d variables by Gibbs, %d by Poisson-Gibbs", gibbsVars, pgVars)
}

// TestMixedCost: Mixed's cost model (core.DefaultCosts) minibatches the
// paper's Potts model (29 draws against 399 pairs: Poisson-Gibbs 2.4×
// faster, BenchmarkStep) and the hub of a star, and updates by plain Gibbs
// a random sparse graph of degree 20 whose minibatch is 9 draws
// (BenchmarkSparse: plain Gibbs 1.5–2× faster) and the star's leaves; the
// rule by size alone would minibatch the sparse graph. On a dense binary
// K_{250,250} it takes the cheaper by BenchmarkBinaryDense: plain Gibbs
// against 45 draws, Poisson-Gibbs's 9 draws against 250 pairs.
func TestMixedCost(t *testing.T) {
	defer func(c core.MixedCost) { core.Costs = c }(core.Costs)
	paper, err := potts.New(potts.Paper())
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	r := rand.New(rand.NewPCG(1, 2))
	var a, b []int32
	var w []float64
	for range n * 10 {
		i, j := r.IntN(n), r.IntN(n-1)
		if j >= i {
			j++
		}
		a, b, w = append(a, int32(i)), append(b, int32(j)), append(w, 0.1)
	}
	bl := factorgraph.NewBuilder()
	bl.AddVariables(n, factorgraph.Discrete(4))
	bl.AddPottsPairs(a, b, w)
	sparse, err := bl.Build()
	if err != nil {
		t.Fatal(err)
	}
	const leaves = 1000
	bl = factorgraph.NewBuilder()
	bl.AddVariables(leaves+1, factorgraph.Discrete(3))
	for k := 1; k <= leaves; k++ {
		bl.AddFactor(factorgraph.NewPotts(0, k, 0.01))
	}
	star, err := bl.Build()
	if err != nil {
		t.Fatal(err)
	}
	// K_{250,250} of binary pairs of both signs (BenchmarkBinaryDense):
	// |W| = 0.025, a minibatch of 45 draws, Poisson-Gibbs 2.1 times slower
	// than plain Gibbs's 250 pairs (a unit a draw priced it 1.7 times
	// faster); |W| = 0.01, 9 draws, 1.3 times faster.
	dense := func(w float64) *factorgraph.Graph {
		p, err := potts.Bipartite(250, 2, w)
		if err != nil {
			t.Fatal(err)
		}
		for k := range p.W {
			if k%3 == 0 {
				p.W[k] = -w
			}
		}
		g, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, c := range []struct {
		name        string
		g           *factorgraph.Graph
		costs       core.MixedCost
		gibbs, pgib int
	}{
		{"binary K250,250, |W| = 0.025", dense(0.025), core.DefaultCosts, 500, 0},
		{"binary K250,250, |W| = 0.01", dense(0.01), core.DefaultCosts, 0, 500},
		{"paper Potts", paper, core.DefaultCosts, 0, 400},
		{"sparse degree 20", sparse, core.DefaultCosts, n, 0},
		{"sparse degree 20, by size", sparse, core.MixedCost{}, 0, n},
		{"star", star, core.DefaultCosts, leaves, 1},
	} {
		core.Costs = c.costs
		m, err := site.NewMixed(c.g, rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if g, p := m.Kinds(); g != c.gibbs || p != c.pgib {
			t.Errorf("%s: %d Gibbs and %d Poisson-Gibbs updates, want %d and %d", c.name, g, p, c.gibbs, c.pgib)
		}
	}
}

// TestExactnessUniform: plain Gibbs, Poisson-Gibbs and Mixed (both kinds
// of update) are exact on graphs whose rows are uniform (Potts pairs of one
// weight, picked uniformly from the row: compiled.Graph.Uniform),
// ferromagnetic and antiferromagnetic, with a field that makes one row not
// uniform, and without it (a graph of one weight, which keeps no weight an
// entry: compiled.Graph.W0).
func TestExactnessUniform(t *testing.T) {
	for _, c := range []struct {
		w     float64
		field bool
	}{{0.8, true}, {-0.6, true}, {0.8, false}, {-0.6, false}} {
		w := c.w
		b := factorgraph.NewBuilder()
		b.AddVariables(5, factorgraph.Discrete(3))
		b.AddPottsPairs([]int32{0, 0, 1, 1, 2, 3, 0}, []int32{1, 2, 2, 3, 4, 4, 4}, []float64{w, w, w, w, w, w, w})
		if c.field {
			b.AddFactor(factorgraph.NewTable([]int{4}, []int{3}, []float64{0, 0.7, -0.4}))
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		pg, err := site.NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{LambdaScale: 2})
		if err != nil {
			t.Fatal(err)
		}
		uniform := 0
		for i := range g.NumVars() {
			if core.Of(pg).KG.Uniform(i) {
				uniform++
			}
		}
		if want := map[bool]int{true: 4, false: 5}[c.field]; uniform != want || (core.Of(pg).KG.W == nil) == c.field {
			t.Fatalf("W = %g, field %v: %d uniform rows, want %d; weights kept: %v", w, c.field, uniform, want, core.Of(pg).KG.W != nil)
		}
		mixed, err := site.NewMixed(g, rand.New(rand.NewPCG(3, 4)), &gibbs.Options{LambdaScale: gibbstest.MixedScale})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := site.NewGibbs(g, rand.New(rand.NewPCG(5, 6)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]gibbs.Sampler{"pgibbs": pg, "auto": mixed, "gibbs": plain} {
			if z, where := gibbstest.Exactness(g, s, gibbstest.ExactSteps); z > gibbstest.ZLimit {
				t.Errorf("W = %g, field %v, %s: %s: z = %.2f", w, c.field, name, where, z)
			}
		}
	}
}
