package mh_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/internal/minibatch"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// alg4 is an independent transcription of Algorithm 4 of the TunaMH paper
// (local Poisson variables, log form of the ratio) with λ = χC²M²(θ,θ'),
// written in the energies U_i = −ℓ_i of the paper, with the proposal ratio
// of eq. (1). It draws its randomness in the same order as mh.TunaMH.
type alg4 struct {
	t         *targets.RobustLinear
	prop      mh.Proposal
	r         *rand.Rand
	c         []float64
	cSum, chi float64
	alias     minibatch.Alias
	counts    *minibatch.Counts
	x, xp     []float64
	lambda, m float64
	logR      float64
}

func (a *alg4) Pick(r *rand.Rand) int { return a.alias.Pick(r) }

// phi is φ_i(y) = (U_i(θ) + U_i(θ'))/2 − U_i(y) + (c_i/2)M, eq. (6).
func (a *alg4) phi(i int, y []float64) float64 {
	u0, u1 := -a.t.LogLik(i, a.x), -a.t.LogLik(i, a.xp)
	uy := -a.t.LogLik(i, y)
	return (u0+u1)/2 - uy + a.c[i]*a.m/2
}

// Keep is the thinning of Appendix D: (λc_i + Cφ_i(θ))/(λc_i + C c_i M).
func (a *alg4) Keep(i int) float64 {
	return (a.lambda*a.c[i] + a.cSum*a.phi(i, a.x)) / (a.lambda*a.c[i] + a.cSum*a.c[i]*a.m)
}

func (a *alg4) step() {
	logq := a.prop.Propose(a.xp, a.x, a.r)
	a.m = a.t.Distance(a.x, a.xp)
	a.lambda = a.chi * a.cSum * a.cSum * a.m * a.m
	logr := logq
	if a.m > 0 {
		minibatch.Draw(a.r, a.lambda+a.cSum*a.m, a, a.counts)
		for _, k := range a.counts.Keys() {
			i := int(k)
			s := float64(a.counts.Count(i))
			f := a.cSum / (a.lambda * a.c[i])
			logr += s * (math.Log(1+f*a.phi(i, a.xp)) - math.Log(1+f*a.phi(i, a.x)))
		}
	}
	a.logR = logr
	if logr >= 0 || math.Log(a.r.Float64()) < logr {
		a.x, a.xp = a.xp, a.x
	}
}

// TestTunaAlgorithm2EqualsAlgorithm4 runs mh.TunaMH (Algorithm 2, artanh
// form) and the transcription of Algorithm 4 with λ = χC²M² from the same
// seed: the chains must agree step for step.
func TestTunaAlgorithm2EqualsAlgorithm4(t *testing.T) {
	tg, err := targets.GenerateRobustLinear(300, 3, 4, rng(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	init := []float64{1, 1, 1}
	for _, chi := range []float64{1e-3, 0.03, 0.3} {
		prop1, _ := mh.NewGaussianRW(0.02, nil, 3)
		s, err := mh.NewTunaMH(tg, rng(7, 8), &mh.Options{Proposal: prop1, Chi: chi, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		prop2, _ := mh.NewGaussianRW(0.02, nil, 3)
		a := &alg4{t: tg, prop: prop2, r: rng(7, 8), chi: chi, c: make([]float64, tg.N()),
			counts: minibatch.NewCounts(tg.N()), x: append([]float64(nil), init...), xp: make([]float64, 3)}
		for i := range a.c {
			a.c[i] = tg.LocalBound(i)
			a.cSum += a.c[i]
		}
		a.alias, _ = minibatch.NewAlias(a.c)
		const steps = 10000
		for k := range steps {
			s.Step()
			a.step()
			for j, v := range s.State() {
				if v != a.x[j] {
					t.Fatalf("χ = %v: chains differ at step %d: %v vs %v (Algorithm 4 log r = %v)", chi, k, s.State(), a.x, a.logR)
				}
			}
		}
		st := s.Stats()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if st.Accepted == 0 || st.Accepted == steps {
			t.Fatalf("χ = %v: degenerate chain, %d of %d accepted", chi, st.Accepted, steps)
		}
		t.Logf("χ = %v: identical for %d steps, acceptance %.3f, mean batch %.1f", chi, steps, st.AcceptanceRate(), st.MeanBatch())
	}
}
