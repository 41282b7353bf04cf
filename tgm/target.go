package tgm

import (
	"math"

	"github.com/pgibbs/pgibbs/mh"
)

// Target adapts a Model to package mh (θ = (x1, x2)). It implements
// mh.Target, mh.LocalBounder, mh.Ranger and mh.ControlVariates (order 1,
// with the Ū_{2,i} bound of Cornish et al. form; see the package comment),
// and the batched fast paths mh.BatchLogLiker and mh.SumLogLiker.
type Target struct{ m *Model }

var (
	_ mh.Target          = Target{}
	_ mh.LocalBounder    = Target{}
	_ mh.Ranger          = Target{}
	_ mh.ControlVariates = Target{}
	_ mh.BatchLogLiker   = Target{}
	_ mh.SumLogLiker     = Target{}
)

// Target returns the mh view of the model.
func (m *Model) Target() Target { return Target{m} }

// Dim implements mh.Target.
func (t Target) Dim() int { return 2 }

// N implements mh.Target.
func (t Target) N() int { return len(t.m.y) }

// LogPrior implements mh.Target.
func (t Target) LogPrior(theta []float64) float64 { return t.m.LogPrior(theta[0], theta[1]) }

// LogLik implements mh.Target.
func (t Target) LogLik(i int, theta []float64) float64 { return t.m.LogLik(i, theta[0], theta[1]) }

// LocalBound implements mh.LocalBounder.
func (t Target) LocalBound(i int) float64 { return t.m.c[i] }

// Distance implements mh.LocalBounder: ‖θ − θ'‖₂.
func (t Target) Distance(theta, thetaP []float64) float64 {
	return math.Hypot(theta[0]-thetaP[0], theta[1]-thetaP[1])
}

// LogLikRange implements mh.Ranger.
func (t Target) LogLikRange(i int) (lo, hi float64) { return t.m.lo[i], t.m.hi[i] }

// GradLogLik implements mh.ControlVariates.
func (t Target) GradLogLik(dst []float64, i int, theta []float64) {
	dst[0], dst[1] = t.m.Grad(i, theta[0], theta[1])
}

// HessLogLik implements mh.ControlVariates.
func (t Target) HessLogLik(dst []float64, i int, theta []float64) {
	h11, h12, h22 := t.m.Hess(i, theta[0], theta[1])
	dst[0], dst[1], dst[2], dst[3] = h11, h12, h12, h22
}

// CVOrder implements mh.ControlVariates: only first-order remainder bounds.
func (t Target) CVOrder() int { return 1 }

// RemainderBound implements mh.ControlVariates: βŪ_{2,i}, which with
// RemainderScale's (‖θ−θ̂‖₁² + ‖θ'−θ̂‖₁²)/2 bounds the first-order remainder.
func (t Target) RemainderBound(order, i int) float64 { return t.m.u2[i] }

// RemainderScale implements mh.ControlVariates.
func (t Target) RemainderScale(order int, ref, theta, thetaP []float64) float64 {
	return mh.L1PowScale(1, ref, theta, thetaP)
}

// LogLikBatch implements mh.BatchLogLiker (values bit for bit those of
// LogLik; see Model.LogLiks).
func (t Target) LogLikBatch(dst []float64, idx []int32, theta []float64) {
	t.m.LogLiks(dst, idx, theta[0], theta[1])
}

// SumLogLik implements mh.SumLogLiker (see Model.SumLogLik).
func (t Target) SumLogLik(theta []float64) float64 { return t.m.SumLogLik(theta[0], theta[1]) }
