package mingibbs_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
)

// The enumeration check of the MIN-Gibbs family (gibbstest.CheckExact):
// MIN-Gibbs, MGPMH at two λ, DoubleMIN-Gibbs.

func minSamplers() []gibbstest.SamplerCase {
	return []gibbstest.SamplerCase{
		{Name: "MINGibbs", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewMINGibbs(m, r, &gibbs.Options{Init: init})
		}, Steps: gibbstest.MinSteps},
		{Name: "MGPMH", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewMGPMH(m, r, &gibbs.Options{Init: init})
		}},
		{Name: "MGPMH/λ=0.1L²", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewMGPMH(m, r, &gibbs.Options{Init: init, LambdaScale: 0.1})
		}},
		{Name: "DoubleMINGibbs", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewDoubleMINGibbs(m, r, &gibbs.Options{Init: init, Lambda2Scale: 4})
		}}, // sticky (pseudo-marginal): batch means need the full run
	}
}

func TestExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.Graphs(t), minSamplers(), 99, 1)
}

// TestExactnessCompiledMixed runs the enumeration check on graphs that mix
// compiled and generic factors.
func TestExactnessCompiledMixed(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.MixedGraphs(t), minSamplers(), 77, 2)
}

// TestExactnessCatchesBrokenSamplers runs the same check on broken variants
// and requires it to fail.
func TestExactnessCatchesBrokenSamplers(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckBroken(t, gibbstest.Graphs(t), []gibbstest.BrokenCase{
		{Name: "MINGibbs/estimator-scaled-by-2", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			psi := tg.G.Psi()
			return mingibbs.NewMINGibbs(gibbstest.DoublePsi{Graph: tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init, Lambda: psi * psi})
		}, Steps: gibbstest.MinSteps},
		{Name: "MGPMH/correction-without-exact-energies", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return mingibbs.NewMGPMH(gibbstest.BrokenEval{Model: tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}},
		{Name: "DoubleMINGibbs/estimator-scaled-by-2", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return mingibbs.NewDoubleMINGibbs(gibbstest.DoublePsi{Graph: tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init, Lambda2Scale: 4})
		}, Steps: gibbstest.MinSteps},
	})
}
