package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// PoissonMH is Poisson-MH, Algorithm 3 of the TunaMH paper (Appendix D;
// Zhang & De Sa 2019): with global ranges lo_i ≤ ℓ_i ≤ hi_i, factors
// φ_i = ℓ_i − lo_i ∈ [0, M_i], M_i = hi_i − lo_i, L = Σ_i M_i and auxiliary
// variables s_i | θ ~ Poisson(λM_i/L + φ_i(θ)), it accepts θ' with
//
//	r = π0(θ')q(θ|θ')/(π0(θ)q(θ'|θ)) · Π_{s_i>0} ((1 + Lφ_i(θ')/(λM_i)) / (1 + Lφ_i(θ)/(λM_i)))^{s_i}.
//
// The s_i are drawn by thinning (internal/minibatch): B ~ Poisson(λ + L),
// picks i with probability M_i/L, kept with probability
// (λM_i/L + φ_i(θ))/(λM_i/L + M_i). Its batch size is B (each pick
// evaluates φ_i(θ); kept items also φ_i(θ')). The target must implement
// Ranger. A value of ℓ_i outside its declared range is an error. Its
// expected batch λ + L is fixed, so NewPoissonMH refuses λ + L >
// Options.MaxDraws.
//
// Interruption: the draw looks at the interrupt channel every 4096 picks,
// the evaluation at θ' of the kept items every 4096 items. Poisson-MH
// carries nothing from step to step but θ (its cache of φ_i(θ) is per
// step), and θ moves only after both, so an aborted step only restores the
// counts.
type PoissonMH struct {
	base
	rg     Ranger
	items  []pmhItem
	cur    uint32  // stamp of the current step
	l      float64 // L = Σ M_i
	lambda float64
	alias  minibatch.Alias
	counts *minibatch.Counts
	src    minibatch.Source
	lp     []float64 // ℓ_i(θ') of the kept items
}

// pmhItem is all a pick of datum i reads, in one 32-byte cell (a pick
// lands on a random datum, so each separate array would cost a cache miss):
// lo_i, M_i, and φ_i(θ) cached for the current step (valid when stamp is
// the step's).
type pmhItem struct {
	lo, m float64
	phi   float64
	stamp uint32
}

// NewPoissonMH returns a Poisson-MH sampler with λ = o.Lambda > 0.
func NewPoissonMH(t Target, r *rand.Rand, o *Options) (*PoissonMH, error) {
	b, o, err := newBaseOpts("poissonmh", t, o, r)
	if err != nil {
		return nil, err
	}
	rg, ok := t.(Ranger)
	if !ok {
		return nil, fmt.Errorf("mh: poissonmh: target %T does not implement Ranger (global ranges of ℓ_i)", t)
	}
	if !(o.Lambda > 0) || math.IsInf(o.Lambda, 0) {
		return nil, fmt.Errorf("mh: poissonmh: Options.Lambda = %v: Poisson-MH needs λ > 0 (there is no default)", o.Lambda)
	}
	s := &PoissonMH{base: b, rg: rg, lambda: o.Lambda,
		items: make([]pmhItem, b.n), cur: 1, counts: minibatch.NewCounts(b.n)}
	m := make([]float64, b.n)
	for i := range b.n {
		lo, hi := rg.LogLikRange(i)
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo {
			return nil, fmt.Errorf("mh: poissonmh: datum %d has range [%v, %v]; ranges must be finite with lo ≤ hi", i, lo, hi)
		}
		s.items[i].lo, s.items[i].m, m[i] = lo, hi-lo, hi-lo
		s.l += hi - lo
	}
	if !(s.l > 0) {
		return nil, fmt.Errorf("mh: poissonmh: all ranges are empty (L = %v)", s.l)
	}
	if s.alias, err = minibatch.NewAlias(m); err != nil {
		return nil, fmt.Errorf("mh: poissonmh: %v", err)
	}
	if err := b.tooBig(fmt.Sprintf("the expected batch λ + L (L = Σ_i (hi_i − lo_i) = %.4g)", s.l), o.Lambda+s.l,
		"lower Options.Lambda or declare narrower ranges"); err != nil {
		return nil, err
	}
	s.src = poissonSource{s}
	return s, nil
}

// L returns L = Σ_i (hi_i − lo_i).
func (s *PoissonMH) L() float64 { return s.l }

// SetState implements Sampler.
func (s *PoissonMH) SetState(theta []float64) error { return s.setState(theta) }

// phiAt returns φ_i(θ) = ℓ_i(θ) − lo_i clamped to [0, M_i], checking it.
func (s *PoissonMH) phiAt(i int, theta []float64) float64 {
	return s.phi(i, s.logLik(i, theta))
}

// phi returns φ_i = l − lo_i clamped to [0, M_i] for l = ℓ_i(θ), checking it.
func (s *PoissonMH) phi(i int, l float64) float64 {
	it := &s.items[i]
	phi := l - it.lo
	tol := relTol*it.m + 8*epsilon*math.Abs(l)
	switch {
	case math.IsNaN(phi):
		s.fail("datum %d: log-likelihood is NaN", i)
		return 0
	case phi < -tol || phi > it.m+tol:
		s.fail("datum %d: log-likelihood %v outside its declared range [%v, %v]", i, l, it.lo, it.lo+it.m)
	}
	return min(max(phi, 0), it.m)
}

type poissonSource struct{ s *PoissonMH }

func (p poissonSource) Pick(r *rand.Rand) int { return p.s.alias.Pick(r) }

// Keep returns (λM_k/L + φ_k(θ)) / (λM_k/L + M_k), Algorithm 3 thinned.
func (p poissonSource) Keep(k int) float64 {
	s := p.s
	it := &s.items[k]
	if it.stamp != s.cur {
		it.stamp = s.cur
		it.phi = s.phiAt(k, s.x)
	}
	a := s.lambda / s.l
	return (a + it.phi/it.m) / (a + 1)
}

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate), or chain.Aborted when interrupted.
func (s *PoissonMH) Step() int {
	logr, ok := s.start()
	if !ok {
		return chain.Any
	}
	if err := minibatch.CheckMean(s.lambda + s.l); err != nil {
		s.fail("%v", err)
		return chain.Any
	}
	if s.cur++; s.cur == 0 { // forget the cached φ_i(θ) of the last step
		for i := range s.items {
			s.items[i].stamp = 0
		}
		s.cur = 1
	}
	b, ok := s.draw(s.lambda+s.l, s.src, s.counts)
	if !ok {
		return s.abort()
	}
	s.st.Batch += float64(b)
	return s.finish(s.addKept(logr))
}

// addKept adds to logr the terms s_i log((1 + Lφ_i(θ')/(λM_i)) / (1 +
// Lφ_i(θ)/(λM_i))) of the kept items, evaluating φ_i(θ') 4096 items at a
// time; ok is false when the interrupt channel closed.
func (s *PoissonMH) addKept(logr float64) (float64, bool) {
	keys := s.counts.Keys()
	if cap(s.lp) < min(len(keys), pollEvery) {
		s.lp = make([]float64, pollEvery)
	}
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), pollEvery)]
		keys = keys[len(chunk):]
		if s.interrupted(len(chunk)) {
			return 0, false
		}
		lp := s.lp[:len(chunk)]
		s.logLiks(lp, chunk, s.xp)
		for j, k := range chunk {
			k := int(k)
			c := s.lambda * s.items[k].m / s.l
			phiP := s.phi(k, lp[j])
			logr += float64(s.counts.Count(k)) * (math.Log1p(phiP/c) - math.Log1p(s.items[k].phi/c))
		}
	}
	return logr, true
}
