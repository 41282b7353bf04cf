package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// TFMH is truncated factorised MH (Cornish et al. 2019; Appendix C of the
// TunaMH paper). It factorises the acceptance probability as
//
//	min(1, π0(θ')q(θ|θ')/(π0(θ)q(θ'|θ))) · Π_i min(1, exp(ℓ_i(θ') − ℓ_i(θ)))
//
// and samples the product by thinning: B ~ Poisson(CM), picks i ~ c_i/C,
// and each pick is a rejection event with probability max(0, ℓ_i(θ) −
// ℓ_i(θ'))/(c_iM); the proposal is rejected at the first event (early
// exit) and accepted if there is none. The data-free factor is tested
// first. The batch size is the number of picks evaluated before stopping,
// as in the authors' code. With Options.Fallback, steps with CM > N are
// full MH steps (the truncation of TFMH with R = N).
//
// SMH (Cornish et al. 2019) is TFMH with control variates; NewSMH returns
// a TFMH whose data-free factor uses the surrogate π̂(θ) = π0(θ)exp(Σ_i
// ℓ̂_i(θ)) and whose per-datum factors are min(1, exp(r_i(θ,θ'))), with the
// remainders r_i bounded by c_i^{(k)} φ^{(k)} (ControlVariates). A second
// order SMH here uses the random-walk proposal, so π̂ is tested in the
// data-free factor rather than built into a proposal.
//
// The expected number of picks, CM (N for a fallback step), depends on
// (θ, θ'). NewTFMH and NewSMH refuse, with the default random walk, one
// above Options.MaxDraws for a move of Step in every coordinate from Init;
// a step whose own CM exceeds it records an error before touching the
// data.
//
// Interruption: the picks look at the interrupt channel every 4096 picks, a
// fallback step's pass over the data every 4096 data. TFMH carries nothing
// from step to step but θ, which moves only at the end, so an aborted step
// only restores the counts.
type TFMH struct {
	base
	lb       LocalBounder
	cv       *controlVariates
	w        weights
	alias    minibatch.Alias // picks ∝ c_i; a copy of w.alias
	rate     float64         // C: the Poisson mean is rate·M
	fallback bool
	m        float64 // M(θ,θ') of the current step
	events   tfmhEvents
}

// NewTFMH returns a TFMH sampler; the target must implement LocalBounder.
func NewTFMH(t Target, r *rand.Rand, o *Options) (*TFMH, error) {
	b, o, err := newBaseOpts("tfmh", t, o, r)
	if err != nil {
		return nil, err
	}
	lb, ok := t.(LocalBounder)
	if !ok {
		return nil, fmt.Errorf("mh: tfmh: target %T does not implement LocalBounder (Assumption 1)", t)
	}
	w, err := newWeights("tfmh", b.n, lb.LocalBound)
	if err != nil {
		return nil, err
	}
	s := &TFMH{base: b, lb: lb, w: w, alias: w.alias, rate: w.sum, fallback: o.Fallback}
	s.events = tfmhEvents{s}
	if err := s.checkBatch(o); err != nil {
		return nil, err
	}
	return s, nil
}

// NewSMH returns SMH-k, k = o.Order (1 or 2; 0 means 1): TFMH with Taylor
// control variates of order k around o.Ref (nil: the initial state). The
// target must implement ControlVariates.
func NewSMH(t Target, r *rand.Rand, o *Options) (*TFMH, error) {
	b, o, cv, err := newCVBase("smh", t, o, r, nil)
	if err != nil {
		return nil, err
	}
	s := &TFMH{base: b, cv: cv, w: cv.w, alias: cv.w.alias, rate: cv.w.sum, fallback: o.Fallback}
	s.events = tfmhEvents{s}
	if err := s.checkBatch(o); err != nil {
		return nil, err
	}
	return s, nil
}

// scale returns the bound's scale M(θ,θ'), or φ(θ̂; θ, θ') with control
// variates.
func (s *TFMH) scale(theta, thetaP []float64) float64 {
	if s.cv != nil {
		return s.cv.scale(theta, thetaP)
	}
	return s.lb.Distance(theta, thetaP)
}

// checkBatch refuses, with the default random walk, an expected number of
// picks above MaxDraws for a typical proposal from the initial state.
func (s *TFMH) checkBatch(o *Options) error {
	theta, thetaP, ok := s.typicalPair(o)
	if !ok {
		return nil
	}
	m := s.scale(theta, thetaP)
	if math.IsNaN(m) || m < 0 || math.IsInf(m, 0) {
		return fmt.Errorf("mh: %s: bound scale M(θ,θ') = %v for θ = %v, θ' = %v", s.name, m, theta, thetaP)
	}
	what := fmt.Sprintf("the expected number of picks CM of a typical proposal (M = %.4g for a move of Options.Step in every coordinate, C = %.4g)", m, s.rate)
	return s.tooBig(what, s.capped(s.rate*m, s.fallback), "lower Options.Step, or set Options.Fallback")
}

// SetState implements Sampler.
func (s *TFMH) SetState(theta []float64) error { return s.setState(theta) }

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate), or chain.Aborted when interrupted.
func (s *TFMH) Step() int {
	logr, ok := s.start()
	if !ok {
		return chain.Any
	}
	var m, sur float64
	if s.cv != nil {
		s.cv.setPair(s.x, s.xp)
		sur = s.cv.sumDiff()
	}
	m = s.scale(s.x, s.xp)
	if math.IsNaN(m) || m < 0 || math.IsInf(m, 0) {
		s.fail("bound scale M(θ,θ') = %v", m)
		return chain.Any
	}
	total := s.rate * m
	if s.fallback && total > float64(s.n) {
		if s.overBatch(float64(s.n)) {
			return chain.Any
		}
		d, ok := s.fullDiff()
		if !ok {
			return s.abort()
		}
		if s.err == nil && s.accept(logr+d) {
			s.move()
		}
		return chain.Any
	}
	// Factor 1: the data-free (or surrogate) factor.
	if !s.accept(logr + sur) {
		return chain.Any
	}
	// Factors 2..N+1 by thinning with early exit.
	if err := minibatch.CheckMean(total); err != nil {
		s.fail("%v", err)
		return chain.Any
	}
	if s.overBatch(total) {
		return chain.Any
	}
	s.m = m
	picks, stopped := minibatch.DrawUntil(s.rng, total, s.events)
	if s.stopped {
		return s.abort()
	}
	s.st.Batch += float64(picks)
	if stopped || s.err != nil {
		return chain.Any // a rejection event, or a bound violation
	}
	s.move()
	return chain.Any
}

// tfmhEvents is the thinning of the per-datum factors of TFMH: a pick of
// datum k is a rejection event with probability max(0, ℓ_k(θ) −
// ℓ_k(θ'))/(c_k M).
type tfmhEvents struct{ s *TFMH }

func (e tfmhEvents) Pick(r *rand.Rand) int { return e.s.alias.Pick(r) }

func (e tfmhEvents) Stop(r *rand.Rand, k int) bool {
	s := e.s
	if s.interrupted(1) {
		return true // Step sees s.stopped and aborts
	}
	d, scale := s.diff(k)
	if s.cv != nil {
		d -= s.cv.diff(k)
	}
	t := s.ratio(k, d, s.w.c[k]*s.m, scale, "remainder")
	if s.err != nil {
		return true // stop; Step reports the error
	}
	return t < 0 && r.Float64() < -t
}
