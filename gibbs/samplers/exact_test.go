package samplers

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

func exactSamplers() []gibbstest.SamplerCase {
	return []gibbstest.SamplerCase{
		{Name: "Gibbs", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return site.NewGibbs(m, r, &gibbs.Options{Init: init})
		}, Steps: 0},
		{Name: "PoissonGibbs", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(m, r, &gibbs.Options{Init: init})
		}, Steps: 0},
		{Name: "PoissonGibbs/λ=0.1L²", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(m, r, &gibbs.Options{Init: init, LambdaScale: 0.1})
		}, Steps: 0},
		{Name: "PoissonGibbs/per-variable", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(m, r, &gibbs.Options{Init: init, PerVariable: true, LambdaScale: 0.5})
		}, Steps: 0},
		{Name: "Auto", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return site.NewMixed(m, r, &gibbs.Options{Init: init, LambdaScale: autoScale})
		}, Steps: 0},
		{Name: "MINGibbs", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewMINGibbs(m, r, &gibbs.Options{Init: init})
		}, Steps: gibbstest.MinSteps},
		{Name: "MGPMH", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewMGPMH(m, r, &gibbs.Options{Init: init})
		}, Steps: 0},
		{Name: "MGPMH/λ=0.1L²", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewMGPMH(m, r, &gibbs.Options{Init: init, LambdaScale: 0.1})
		}, Steps: 0},
		{Name: "DoubleMINGibbs", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return mingibbs.NewDoubleMINGibbs(m, r, &gibbs.Options{Init: init, Lambda2Scale: 4})
		}, Steps: 0}, // sticky (pseudo-marginal): batch means need the full run
	}
}

// autoScale is the λ/L² at which Auto uses both kinds of update on the test
// graphs (TestAutoKinds checks it).
const autoScale = 0.05

func TestExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, gibbstest.Graphs(t), exactSamplers(), 99, 1)
}

// brokenEval returns 0 from Eval for soft factors while EvalAll stays
// right. Poisson-Gibbs uses Eval only for keep probabilities, so its
// s_φ ~ Poisson(λM_φ/L) lose their state-dependent part (the "wrong thinning
// rate" bug); MGPMH uses Eval for the exact energies of its correction, which
// then drops the target's term (the "dropped MH term" bug).
type brokenEval struct{ factorgraph.Model }

func (b brokenEval) Eval(i, k int, x []float64) float64 {
	if soft, _ := b.Model.Degree(i); k < soft {
		return 0
	}
	return b.Model.Eval(i, k, x)
}

// doublePsi reports 2Ψ to the global estimators, so that
// log(1 + Ψφ̃/(λM)) uses the wrong constant and E[exp ε] = exp(2U): the
// "wrong estimator scale" bug of the MIN family.
type doublePsi struct{ *factorgraph.Graph }

func (d doublePsi) Psi() float64 { return 2 * d.Graph.Psi() }

// dropFactor hides the last soft factor of every A[i] from a sampler: the
// "dropped term" bug.
type dropFactor struct{ factorgraph.Model }

func (d dropFactor) Degree(i int) (int, int) {
	soft, hard := d.Model.Degree(i)
	if soft > 0 {
		return soft - 1, hard
	}
	return soft, hard
}

// EvalAll and Eval shift hard indices past the hidden factor.
func (d dropFactor) idx(i, k int) int {
	if soft, _ := d.Model.Degree(i); soft > 0 && k >= soft-1 {
		return k + 1
	}
	return k
}

func (d dropFactor) Eval(i, k int, x []float64) float64 { return d.Model.Eval(i, d.idx(i, k), x) }

func (d dropFactor) EvalAll(i, k int, x, dst []float64) { d.Model.EvalAll(i, d.idx(i, k), x, dst) }

func (d dropFactor) Bound(i, k int) float64 { return d.Model.Bound(i, d.idx(i, k)) }

func (d dropFactor) Pick(i int, r *rand.Rand) int {
	soft, _ := d.Model.Degree(i)
	for {
		if k := d.Model.Pick(i, r); k < soft-1 {
			return k
		}
	}
}

// TestExactnessCatchesBrokenSamplers runs the same check on broken variants
// and requires it to fail.
func TestExactnessCatchesBrokenSamplers(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := gibbstest.Graphs(t)
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{
		{Name: "PoissonGibbs/thinning-without-φ", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(brokenEval{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
		{Name: "Gibbs/dropped-factor", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return site.NewGibbs(dropFactor{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
		{Name: "PoissonGibbs/dropped-factor", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(dropFactor{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
		{Name: "Auto/dropped-factor", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return site.NewMixed(dropFactor{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init, LambdaScale: autoScale})
		}, Steps: 0},
		{Name: "MINGibbs/estimator-scaled-by-2", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			psi := tg.G.Psi()
			return mingibbs.NewMINGibbs(doublePsi{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init, Lambda: psi * psi})
		}, Steps: gibbstest.MinSteps},
		{Name: "MGPMH/correction-without-exact-energies", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return mingibbs.NewMGPMH(brokenEval{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
		}, Steps: 0},
		{Name: "DoubleMINGibbs/estimator-scaled-by-2", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return mingibbs.NewDoubleMINGibbs(doublePsi{tg.G}, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init, Lambda2Scale: 4})
		}, Steps: gibbstest.MinSteps},
	})
}

func TestAutoKinds(t *testing.T) {
	gibbsVars, pgVars := 0, 0
	for _, tg := range gibbstest.Graphs(t) {
		a, err := site.NewMixed(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init, LambdaScale: autoScale})
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
		t.Errorf("Auto used %d Gibbs and %d Poisson-Gibbs updates over the test graphs; the exactness test needs both", gibbsVars, pgVars)
	}
	t.Logf("Auto on the test graphs: %d variables by Gibbs, %d by Poisson-Gibbs", gibbsVars, pgVars)
}
