package mh

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// weights holds per-datum bound constants c_i, their sum C and the alias
// table that picks i with probability c_i/C.
type weights struct {
	c     []float64
	sum   float64
	alias minibatch.Alias
}

func newWeights(name string, n int, c func(int) float64) (weights, error) {
	w := weights{c: make([]float64, n)}
	for i := range n {
		v := c(i)
		if math.IsNaN(v) || v < 0 || math.IsInf(v, 0) {
			return weights{}, fmt.Errorf("mh: %s: bound constant c_%d = %v must be finite and non-negative", name, i, v)
		}
		w.c[i] = v
		w.sum += v
	}
	if !(w.sum > 0) {
		return weights{}, fmt.Errorf("mh: %s: bound constants sum to %v; need a positive sum", name, w.sum)
	}
	var err error
	if w.alias, err = minibatch.NewAlias(w.c); err != nil {
		return weights{}, fmt.Errorf("mh: %s: %v", name, err)
	}
	return w, nil
}

// TunaMH is the exact minibatch MH of Zhang, Cooper & De Sa (NeurIPS 2020),
// Algorithm 2. Under Assumption 1, |ℓ_i(θ) − ℓ_i(θ')| ≤ c_i M(θ,θ'),
// C = Σ c_i, a step proposes θ', draws
//
//	B ~ Poisson(χC²M² + CM),  i_b ~ c_i/C,
//
// keeps each pick with probability (χc_iCM² + ½(ℓ_i(θ) − ℓ_i(θ') + c_iM)) /
// (χc_iCM² + c_iM) and accepts with
//
//	log r = log π0(θ')/π0(θ) + log q(θ|θ')/q(θ'|θ)
//	        + 2 Σ_{kept} artanh((ℓ_i(θ') − ℓ_i(θ)) / (c_i M (1 + 2χCM))).
//
// (The printed algorithm writes the proposal ratio inverted; this is the
// ratio under which the reversibility proof holds.) The prior enters
// exactly rather than folded into the U_i. Picks are drawn by
// internal/minibatch; the batch size is B.
//
// With Options.Chi = 0 and Options.Lambda = λ > 0 it runs Algorithm 4 with
// that constant λ: B ~ Poisson(λ + CM), keep (λc_i/C + φ_i(θ))/(λc_i/C +
// c_iM), φ_i(θ) = ½(ℓ_i(θ) − ℓ_i(θ') + c_iM). Algorithm 2 is Algorithm 4
// with λ = χC²M²(θ,θ'). Both are written with a = λ/(CM) (= χCM for
// Algorithm 2): keep (a + (1 − t_i)/2)/(1 + a) and term 2 artanh(t_i/(1+2a))
// with t_i = (ℓ_i(θ') − ℓ_i(θ))/(c_iM).
//
// An observed |ℓ_i(θ') − ℓ_i(θ)| > c_iM (a keep probability outside [0,1])
// is reported by Err.
//
// The expected batch, χC²M² + CM or λ + CM (N for a fallback step),
// depends on M(θ,θ'). NewTunaMH refuses one above Options.MaxDraws for λ
// alone and, with the default random walk, for M of a move of Step in every
// coordinate from Init; a step whose own expected batch exceeds it records
// an error before touching the data.
//
// Interruption: the draw looks at the interrupt channel every 4096 picks,
// the sum over the kept items every 4096 items, a fallback step's pass
// over the data every 4096 data. TunaMH carries nothing from step to step
// but θ (its memo of ℓ_i(θ') − ℓ_i(θ) is per step), which moves only at the
// end, so an aborted step only restores the counts.
type TunaMH struct {
	base
	lb       LocalBounder
	w        weights
	chi      float64
	lambda   float64
	fallback bool
	counts   *minibatch.Counts
	src      minibatch.Source
	memo     memo    // t_i of the items picked this step
	dist     float64 // M(θ, θ') of the current step
	a        float64 // λ/(CM) of the current step
}

// NewTunaMH returns a TunaMH sampler. The target must implement
// LocalBounder; o.Chi > 0 selects Algorithm 2, o.Chi = 0 with o.Lambda > 0
// Algorithm 4 with constant λ.
func NewTunaMH(t Target, r *rand.Rand, o *Options) (*TunaMH, error) {
	b, o, err := newBaseOpts("tunamh", t, o, r)
	if err != nil {
		return nil, err
	}
	lb, ok := t.(LocalBounder)
	if !ok {
		return nil, fmt.Errorf("mh: tunamh: target %T does not implement LocalBounder (Assumption 1)", t)
	}
	if o.Chi == 0 && o.Lambda == 0 {
		return nil, errors.New("mh: tunamh: Options.Chi and Options.Lambda are both 0: give χ > 0 (Algorithm 2) or λ > 0 (Algorithm 4 with a constant λ)")
	}
	w, err := newWeights("tunamh", b.n, lb.LocalBound)
	if err != nil {
		return nil, err
	}
	s := &TunaMH{base: b, lb: lb, w: w, chi: o.Chi, fallback: o.Fallback,
		counts: minibatch.NewCounts(b.n), memo: newMemo(b.n)}
	if o.Chi == 0 {
		s.lambda = o.Lambda
	}
	s.src = tunaSource{s}
	if err := s.checkBatch(o); err != nil {
		return nil, err
	}
	return s, nil
}

// expected returns the expected batch of a minibatch step at distance m:
// χC²m² + Cm (Algorithm 2) or λ + Cm (Algorithm 4).
func (s *TunaMH) expected(m float64) float64 {
	cm := s.w.sum * m
	if s.lambda > 0 {
		return s.lambda + cm
	}
	return cm * (1 + s.chi*cm)
}

// checkBatch refuses an expected batch above MaxDraws: λ alone for
// Algorithm 4, and that of a typical proposal of the default random walk.
func (s *TunaMH) checkBatch(o *Options) error {
	if err := s.tooBig("the expected batch (at least λ)", s.capped(s.lambda, s.fallback), "lower Options.Lambda"); err != nil {
		return err
	}
	theta, thetaP, ok := s.typicalPair(o)
	if !ok {
		return nil
	}
	m := s.lb.Distance(theta, thetaP)
	if math.IsNaN(m) || m < 0 || math.IsInf(m, 0) {
		return fmt.Errorf("mh: tunamh: distance M(θ,θ') = %v for θ = %v, θ' = %v", m, theta, thetaP)
	}
	what := fmt.Sprintf("the expected batch of a typical proposal (M = %.4g for a move of Options.Step in every coordinate, C = %.4g)", m, s.w.sum)
	return s.tooBig(what, s.capped(s.expected(m), s.fallback), "lower Options.Step or Options.Chi, or set Options.Fallback")
}

// C returns C = Σ_i c_i.
func (s *TunaMH) C() float64 { return s.w.sum }

// SetState implements Sampler.
func (s *TunaMH) SetState(theta []float64) error { return s.setState(theta) }

type tunaSource struct{ s *TunaMH }

func (p tunaSource) Pick(r *rand.Rand) int { return p.s.w.alias.Pick(r) }

// Keep returns (a + (1 − t_k)/2)/(1 + a), the ejection test of Algorithm 2.
func (p tunaSource) Keep(k int) float64 {
	s := p.s
	e, ok := s.memo.get(k)
	if !ok {
		d, scale := s.diff(k)
		e.v0 = s.ratio(k, d, s.w.c[k]*s.dist, scale, "|ℓ(θ') − ℓ(θ)|")
	}
	return (s.a + 0.5*(1-e.v0)) / (1 + s.a)
}

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate), or chain.Aborted when interrupted.
func (s *TunaMH) Step() int {
	logr, ok := s.start()
	if !ok {
		return chain.Any
	}
	m := s.lb.Distance(s.x, s.xp)
	if math.IsNaN(m) || m < 0 || math.IsInf(m, 0) {
		s.fail("distance M(θ,θ') = %v", m)
		return chain.Any
	}
	if cm := s.w.sum * m; cm > 0 {
		logr, ok = s.addData(logr, m, cm)
	}
	return s.finish(logr, ok)
}

// addData adds the data's part of the log acceptance ratio to logr, from
// the thinned minibatch or, on a fallback step, the full data; ok is false
// when the interrupt channel closed. An error leaves s.err set.
func (s *TunaMH) addData(logr, m, cm float64) (float64, bool) {
	if s.lambda > 0 {
		s.a = s.lambda / cm
	} else {
		s.a = s.chi * cm
	}
	s.dist = m
	mean := cm * (1 + s.a)
	if s.overBatch(s.capped(mean, s.fallback)) {
		return logr, true
	}
	if s.fallback && mean > float64(s.n) {
		d, ok := s.fullDiff()
		return logr + d, ok
	}
	if err := minibatch.CheckMean(mean); err != nil {
		s.fail("%v", err)
		return logr, true
	}
	s.memo.next()
	b, ok := s.draw(mean, s.src, s.counts)
	if !ok {
		return 0, false
	}
	s.st.Batch += float64(b)
	den := 1 + 2*s.a
	for keys := s.counts.Keys(); len(keys) > 0; {
		chunk := keys[:min(len(keys), pollEvery)]
		keys = keys[len(chunk):]
		if s.interrupted(len(chunk)) {
			return 0, false
		}
		for _, k := range chunk {
			logr += 2 * float64(s.counts.Count(int(k))) * math.Atanh(s.memo.e[k].v0/den)
		}
	}
	return logr, true
}
