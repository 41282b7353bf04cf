package gibbstest

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// The broken models of the exactness tests: each hides one bug the
// enumeration check must catch (CheckBroken) in the samplers it feeds.

// MixedScale is the λ/L² at which site.Mixed uses both kinds of update on
// the test graphs (site's TestMixedKinds checks it).
const MixedScale = 0.05

// BrokenEval returns 0 from Eval for soft factors while EvalAll stays
// right. Poisson-Gibbs uses Eval only for keep probabilities, so its
// s_φ ~ Poisson(λM_φ/L) lose their state-dependent part (the "wrong
// thinning rate" bug); MGPMH uses Eval for the exact energies of its
// correction, which then drops the target's term (the "dropped MH term"
// bug).
type BrokenEval struct{ factorgraph.Model }

func (b BrokenEval) Eval(i, k int, x []float64) float64 {
	if soft, _ := b.Model.Degree(i); k < soft {
		return 0
	}
	return b.Model.Eval(i, k, x)
}

// DoublePsi reports 2Ψ to the global estimators, so that
// log(1 + Ψφ̃/(λM)) uses the wrong constant and E[exp ε] = exp(2U): the
// "wrong estimator scale" bug of the MIN family.
type DoublePsi struct{ *factorgraph.Graph }

func (d DoublePsi) Psi() float64 { return 2 * d.Graph.Psi() }

// DropFactor hides the last soft factor of every A[i] from a sampler: the
// "dropped term" bug.
type DropFactor struct{ factorgraph.Model }

func (d DropFactor) Degree(i int) (int, int) {
	soft, hard := d.Model.Degree(i)
	if soft > 0 {
		return soft - 1, hard
	}
	return soft, hard
}

// idx shifts hard indices past the hidden factor.
func (d DropFactor) idx(i, k int) int {
	if soft, _ := d.Model.Degree(i); soft > 0 && k >= soft-1 {
		return k + 1
	}
	return k
}

func (d DropFactor) Eval(i, k int, x []float64) float64 { return d.Model.Eval(i, d.idx(i, k), x) }

func (d DropFactor) EvalAll(i, k int, x, dst []float64) { d.Model.EvalAll(i, d.idx(i, k), x, dst) }

func (d DropFactor) Bound(i, k int) float64 { return d.Model.Bound(i, d.idx(i, k)) }

func (d DropFactor) Pick(i int, r *rand.Rand) int {
	soft, _ := d.Model.Degree(i)
	for {
		if k := d.Model.Pick(i, r); k < soft-1 {
			return k
		}
	}
}
