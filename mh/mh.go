package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
)

// MH is the standard Metropolis–Hastings sampler, eq. (1) of the TunaMH
// paper: propose θ' ~ q(·|θ) and accept with probability
//
//	min(1, π0(θ')q(θ|θ') exp(Σ_i ℓ_i(θ')) / (π0(θ)q(θ'|θ) exp(Σ_i ℓ_i(θ)))).
//
// It caches Σ_i ℓ_i(θ), so a step costs N evaluations at θ' (one
// SumLogLik or batched calls when the target has those fast paths). Its
// batch size is N, so NewMH refuses N > Options.MaxDraws.
//
// Interruption: the pass over the data at θ' looks at the interrupt
// channel every 4096 data (with a channel set it sums block by block, the
// same float64 as SumLogLik); nothing carried from step to step (θ,
// the cached Σ_i ℓ_i(θ)) changes before the pass ends, so an aborted step
// only restores the counts.
type MH struct {
	base
	ll float64 // Σ_i ℓ_i(x)
}

// NewMH returns a standard MH sampler.
func NewMH(t Target, r *rand.Rand, o *Options) (*MH, error) {
	b, _, err := newBaseOpts("mh", t, o, r)
	if err != nil {
		return nil, err
	}
	if err := b.tooBig("the batch (N, every datum)", float64(b.n), "use a minibatch sampler"); err != nil {
		return nil, err
	}
	s := &MH{base: b}
	if err := s.SetState(s.x); err != nil {
		return nil, err
	}
	return s, nil
}

// SetState implements Sampler.
func (s *MH) SetState(theta []float64) error {
	if err := s.setState(theta); err != nil {
		return err
	}
	s.ll, _ = s.sumLogLik(s.x, false)
	if math.IsNaN(s.ll) || math.IsInf(s.ll, 0) {
		return fmt.Errorf("mh: mh: log-likelihood at %v is %v", theta, s.ll)
	}
	return nil
}

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate).
func (s *MH) Step() int {
	logr, ok := s.start()
	if !ok {
		return chain.Any
	}
	llp, ok := s.sumLogLik(s.xp, true)
	if !ok {
		return s.abort()
	}
	s.st.Evals += int64(s.n)
	s.st.Batch += float64(s.n)
	if math.IsNaN(llp) {
		s.fail("log-likelihood at the proposal is NaN")
		return chain.Any
	}
	if s.accept(logr + llp - s.ll) {
		s.move()
		s.ll = llp
	}
	return chain.Any
}
