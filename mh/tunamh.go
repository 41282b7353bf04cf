package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

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

var _ Sampler = (*TunaMH)(nil)

// NewTunaMH returns a TunaMH sampler. The target must implement
// LocalBounder; o.Chi > 0 selects Algorithm 2, o.Chi = 0 with o.Lambda > 0
// Algorithm 4 with constant λ.
func NewTunaMH(t Target, r *rand.Rand, o *Options) (*TunaMH, error) {
	if o == nil {
		o = &Options{}
	}
	b, err := newBase("tunamh", t, o, r)
	if err != nil {
		return nil, err
	}
	lb, ok := t.(LocalBounder)
	if !ok {
		return nil, fmt.Errorf("mh: tunamh: target %T does not implement LocalBounder (Assumption 1)", t)
	}
	switch {
	case math.IsNaN(o.Chi) || o.Chi < 0 || math.IsInf(o.Chi, 0):
		return nil, fmt.Errorf("mh: tunamh: χ = %v must be positive and finite", o.Chi)
	case o.Chi == 0 && (!(o.Lambda > 0) || math.IsInf(o.Lambda, 0)):
		return nil, fmt.Errorf("mh: tunamh: χ = %v and λ = %v; need χ > 0 (Algorithm 2) or λ > 0 (Algorithm 4)", o.Chi, o.Lambda)
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
	return s, nil
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

// Step implements Sampler; it returns −1 (an MH step may change every
// coordinate).
func (s *TunaMH) Step() int {
	if s.err != nil {
		return -1
	}
	logr, ok := s.propose()
	if !ok {
		return -1
	}
	m := s.lb.Distance(s.x, s.xp)
	if math.IsNaN(m) || m < 0 || math.IsInf(m, 0) {
		s.fail("distance M(θ,θ') = %v", m)
		return -1
	}
	cm := s.w.sum * m
	if cm > 0 {
		if s.lambda > 0 {
			s.a = s.lambda / cm
		} else {
			s.a = s.chi * cm
		}
		s.dist = m
		if s.fallback && cm*(1+s.a) > float64(s.n) {
			logr += s.fullDiff()
		} else {
			if err := minibatch.CheckMean(cm * (1 + s.a)); err != nil {
				s.fail("%v", err)
				return -1
			}
			s.memo.next()
			b := minibatch.Draw(s.rng, cm*(1+s.a), s.src, s.counts)
			s.st.Batch += float64(b)
			den := 1 + 2*s.a
			for _, k := range s.counts.Keys() {
				logr += 2 * float64(s.counts.Count(int(k))) * math.Atanh(s.memo.e[k].v0/den)
			}
		}
		if s.err != nil {
			return -1
		}
	}
	if s.accept(logr) {
		s.move()
	}
	return -1
}
