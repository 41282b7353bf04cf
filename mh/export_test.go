package mh

import (
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// This file exposes deliberately broken variants of the samplers to the
// external tests, which must show that their exactness checks reject them.

// scaledKeep multiplies every keep probability by f: a wrong thinning rate.
type scaledKeep struct {
	inner minibatch.Source
	f     float64
}

func (k scaledKeep) Pick(r *rand.Rand) int { return k.inner.Pick(r) }
func (k scaledKeep) Keep(i int) float64    { return k.f * k.inner.Keep(i) }

// BreakKeep scales the keep probabilities of a Poisson-MH, TunaMH or MH-SS
// sampler by f. It reports whether s is one of those.
func BreakKeep(s Sampler, f float64) bool {
	switch s := s.(type) {
	case *PoissonMH:
		s.src = scaledKeep{s.src, f}
	case *TunaMH:
		s.src = scaledKeep{s.src, f}
	case *MHSS:
		s.src = scaledKeep{s.src, f}
	default:
		return false
	}
	return true
}

// BreakRate scales the Poisson mean CM of a TFMH/SMH sampler by f while
// the event probabilities still assume CM (a wrong thinning rate).
func BreakRate(s *TFMH, f float64) { s.rate *= f }

// BreakFlyMC drops the proposal probability q_{d→b} from FlyMC's
// brightness acceptance ratios.
func BreakFlyMC(s *FlyMC) { s.logQ = 0 }

// BreakSurrogate drops the summed control-variate terms G and H from the
// surrogate factor of an SMH or MH-SS sampler (a dropped term).
func BreakSurrogate(s Sampler) bool {
	var cv *controlVariates
	switch s := s.(type) {
	case *TFMH:
		cv = s.cv
	case *MHSS:
		cv = s.cv
	}
	if cv == nil {
		return false
	}
	clear(cv.g)
	clear(cv.h)
	return true
}
