package site_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
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
