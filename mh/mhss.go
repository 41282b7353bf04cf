package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// MHSS is Metropolis–Hastings with scalable subsampling (Prado, Nemeth &
// Sherlock 2024), MH-SS-1 and MH-SS-2 (first- and second-order control
// variates). It is a delayed-acceptance chain:
//
//	stage 1: α1 = min(1, π̂(θ')q(θ|θ')/(π̂(θ)q(θ'|θ))),  π̂ = π0 exp(Σ_i ℓ̂_i),
//	stage 2: α2 = min(1, Π_{s_i>0} (μ_i(θ',θ)/μ_i(θ,θ'))^{s_i}),
//
// with remainders r_i = ℓ_i(θ') − ℓ_i(θ) − [ℓ̂_i(θ') − ℓ̂_i(θ)], |r_i| ≤ c_iφ,
// auxiliaries s_i ~ Poisson(μ_i(θ,θ')) and, for γ ∈ [0,1] (eq. 5),
//
//	μ_i(θ,θ') = (1−γ)(c_iφ − r_i⁺) + γ r_i⁻,  μ_i(θ',θ) = (1−γ)(c_iφ − r_i⁻) + γ r_i⁺.
//
// The s_i are drawn by thinning (internal/minibatch): B ~ Poisson(Cφ),
// picks i ~ c_i/C, keep with probability μ_i(θ,θ')/(c_iφ). Stage 1 costs
// O(d) (O(d²) for order 2) from the precomputed sums G, H. γ = 0 is the
// paper's optimum (its Theorem 1) and the default. With Options.Fallback
// stage 2 uses the full data (α2 = min(1, exp Σ_i r_i)) when Cφ ≥ N.
//
// The batch size is the paper's expected batch size E(B) = Cφ(θ,θ') (capped
// at N), recorded for every proposal inside the support, whether or not
// stage 1 accepts (the authors' code draws B before stage 1). NewMHSS
// refuses, with the default random walk, an expected batch above
// Options.MaxDraws for a move of Step in every coordinate from Init; a step
// whose own expected batch exceeds it records an error before touching the
// data.
//
// Interruption: stage 2 looks at the interrupt channel every 4096 picks,
// kept items or (fallback) data. MH-SS carries nothing from step to step
// but θ, which moves only at the end, so an aborted step only restores the
// counts.
type MHSS struct {
	base
	cv       *controlVariates
	gamma    float64
	fallback bool
	counts   *minibatch.Counts
	src      minibatch.Source
	memo     memo    // keep probability μ_i(θ,θ')/(c_iφ) and log(μ_i(θ',θ)/μ_i(θ,θ'))
	phi      float64 // φ of the current step
}

// NewMHSS returns MH-SS-k, k = o.Order (1 or 2; 0 means 1), with control
// variates of order k around o.Ref (nil: the initial state) and γ =
// o.Gamma. The target must implement ControlVariates.
func NewMHSS(t Target, r *rand.Rand, o *Options) (*MHSS, error) {
	b, o, cv, err := newCVBase("mhss", t, o, r, func(o *Options, name string) error {
		if math.IsNaN(o.Gamma) || o.Gamma < 0 || o.Gamma > 1 {
			return fmt.Errorf("mh: %s: γ = %v must lie in [0, 1]", name, o.Gamma)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &MHSS{base: b, cv: cv, gamma: o.Gamma, fallback: o.Fallback,
		counts: minibatch.NewCounts(b.n), memo: newMemo(b.n)}
	s.src = mhssSource{s}
	if theta, thetaP, ok := s.typicalPair(o); ok {
		phi := cv.scale(theta, thetaP)
		what := fmt.Sprintf("the expected batch Cφ of a typical proposal (φ = %.4g for a move of Options.Step in every coordinate, C = %.4g)", phi, cv.w.sum)
		if err := s.tooBig(what, s.capped(cv.w.sum*phi, s.fallback), "lower Options.Step, or set Options.Fallback"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SetState implements Sampler.
func (s *MHSS) SetState(theta []float64) error { return s.setState(theta) }

// remainder returns t_k = r_k/(c_kφ) ∈ [−1, 1] for the current pair.
func (s *MHSS) remainder(k int) float64 {
	d, scale := s.diff(k)
	r := d - s.cv.diff(k)
	return s.ratio(k, r, s.cv.w.c[k]*s.phi, scale, "control-variate remainder")
}

type mhssSource struct{ s *MHSS }

func (p mhssSource) Pick(r *rand.Rand) int { return p.s.cv.w.alias.Pick(r) }

// Keep returns μ_k(θ,θ')/(c_kφ) and caches log(μ_k(θ',θ)/μ_k(θ,θ')).
func (p mhssSource) Keep(k int) float64 {
	s := p.s
	e, ok := s.memo.get(k)
	if !ok {
		t := s.remainder(k)
		tp, tm := max(t, 0), max(-t, 0)
		if s.gamma == 0 {
			// μf = c φ(1 − t⁺), μb = c φ(1 − t⁻), in log1p form.
			e.v0 = 1 - tp
			e.v1 = math.Log1p(-tm) - math.Log1p(-tp)
		} else {
			g := s.gamma
			f := (1-g)*(1-tp) + g*tm
			b := (1-g)*(1-tm) + g*tp
			e.v0 = f
			e.v1 = math.Log(b) - math.Log(f)
		}
	}
	return e.v0
}

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate), or chain.Aborted when interrupted.
func (s *MHSS) Step() int {
	logr, ok := s.start()
	if !ok {
		return chain.Any
	}
	s.cv.setPair(s.x, s.xp)
	phi := s.cv.scale(s.x, s.xp)
	if math.IsNaN(phi) || phi < 0 || math.IsInf(phi, 0) {
		s.fail("remainder scale φ(θ,θ') = %v", phi)
		return chain.Any
	}
	s.phi = phi
	total := s.cv.w.sum * phi
	full := s.fallback && total >= float64(s.n)
	s.st.Batch += min(total, float64(s.n))
	// Stage 1: the surrogate posterior.
	if !s.accept(logr + s.cv.sumDiff()) {
		return chain.Any
	}
	// Stage 2: the remainders.
	if s.overBatch(s.capped(total, s.fallback)) {
		return chain.Any
	}
	return s.finish(s.stage2(total, full))
}

// stage2 returns the log acceptance ratio of stage 2, from the full data
// or the thinned minibatch; ok is false when the interrupt channel closed.
// An error leaves s.err set.
func (s *MHSS) stage2(total float64, full bool) (logr2 float64, ok bool) {
	if full {
		s.st.FullSteps++
		for from := 0; from < s.n; from += pollEvery {
			to := min(from+pollEvery, s.n)
			if s.interrupted(to - from) {
				return 0, false
			}
			for i := from; i < to; i++ {
				d, _ := s.diff(i)
				logr2 += d - s.cv.diff(i)
			}
		}
		return logr2, true
	}
	if !(total > 0) {
		return 0, true
	}
	if err := minibatch.CheckMean(total); err != nil {
		s.fail("%v", err)
		return 0, true
	}
	s.memo.next()
	if _, ok := s.draw(total, s.src, s.counts); !ok {
		return 0, false
	}
	for keys := s.counts.Keys(); len(keys) > 0; {
		chunk := keys[:min(len(keys), pollEvery)]
		keys = keys[len(chunk):]
		if s.interrupted(len(chunk)) {
			return 0, false
		}
		for _, k := range chunk {
			logr2 += float64(s.counts.Count(int(k))) * s.memo.e[k].v1
		}
	}
	return logr2, true
}
