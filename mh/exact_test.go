package mh_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
)

// driftRW is an asymmetric proposal θ' = θ + δ + s·z; if lie is set it
// reports a log ratio of 0 (a dropped MH term).
type driftRW struct {
	drift, step float64
	lie         bool
}

func (p driftRW) Propose(dst, theta []float64, r *rand.Rand) float64 {
	logr := 0.0
	for j, v := range theta {
		dst[j] = v + p.drift + p.step*r.NormFloat64()
		// log q(θ|θ') − log q(θ'|θ) for N(θ + δ, s²).
		fwd := dst[j] - v - p.drift
		bwd := v - dst[j] - p.drift
		logr += (fwd*fwd - bwd*bwd) / (2 * p.step * p.step)
	}
	if p.lie {
		return 0
	}
	return logr
}

type exactCase struct {
	name   string
	make   func(t *testing.T, tg mh.Target, o mh.Options) mh.Sampler
	opts   func(o *mh.Options)
	break_ func(t *testing.T, s mh.Sampler) // deliberately broken variant
	cv     bool                             // needs control variates
}

func mustNew(name string) func(t *testing.T, tg mh.Target, o mh.Options) mh.Sampler {
	return func(t *testing.T, tg mh.Target, o mh.Options) mh.Sampler {
		s, err := mh.New(name, tg, rng(21, 22), &o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func breakKeep(f float64) func(t *testing.T, s mh.Sampler) {
	return func(t *testing.T, s mh.Sampler) {
		if !mh.BreakKeep(s, f) {
			t.Fatalf("BreakKeep does not apply to %T", s)
		}
	}
}

func breakRate(t *testing.T, s mh.Sampler) { mh.BreakRate(s.(*mh.TFMH), 0.3) }
func breakFly(t *testing.T, s mh.Sampler)  { mh.BreakFlyMC(s.(*mh.FlyMC)) }
func breakSurrogate(t *testing.T, s mh.Sampler) {
	if !mh.BreakSurrogate(s) {
		t.Fatalf("BreakSurrogate does not apply to %T", s)
	}
}

// exactCases are the exact samplers with a broken variant each. MH's
// broken variant uses a drifting proposal that hides its proposal ratio.
var exactCases = []exactCase{
	{name: "mh", make: mustNew("mh"),
		opts: func(o *mh.Options) { o.Proposal = driftRW{drift: 0.2 * o.Step, step: o.Step} }},
	{name: "poissonmh", make: mustNew("poissonmh"), opts: func(o *mh.Options) { o.Lambda = 10 }, break_: breakKeep(0.3)},
	{name: "tunamh", make: mustNew("tunamh"), opts: func(o *mh.Options) { o.Chi = 0.002 }, break_: breakKeep(0.3)},
	{name: "tunamh-alg4", make: mustNew("tunamh"), opts: func(o *mh.Options) { o.Lambda = 10 }, break_: breakKeep(0.3)},
	{name: "tfmh", make: mustNew("tfmh"), break_: breakRate},
	{name: "smh1", make: mustNew("smh1"), break_: breakSurrogate, cv: true},
	{name: "smh2", make: mustNew("smh2"), break_: breakSurrogate, cv: true},
	{name: "flymc", make: mustNew("flymc"), opts: func(o *mh.Options) { o.QDarkToBright = 0.1 }, break_: breakFly, cv: true},
	{name: "mhss1", make: mustNew("mhss1"), break_: breakKeep(0.7), cv: true},
	{name: "mhss2", make: mustNew("mhss2"), break_: breakSurrogate, cv: true},
	{name: "mhss1-gamma", make: mustNew("mhss1"), opts: func(o *mh.Options) { o.Gamma = 0.5 }, break_: breakKeep(0.7), cv: true},
}

// zLimit is the largest |z| accepted for an exact sampler (50 batch means,
// about 20 bins per target); a broken variant must exceed zBroken.
const (
	zLimit  = 5
	zBroken = 8
)

// checkExact runs the correct and the broken variant of c on tg and
// compares their marginals with q.
func checkExact(t *testing.T, c exactCase, tg mh.Target, q *marginals, base mh.Options, burn, n int) {
	run := func(broken bool) float64 {
		o := base
		if c.opts != nil {
			c.opts(&o)
		}
		if broken && c.break_ == nil { // MH: hide the proposal ratio
			p := o.Proposal.(driftRW)
			p.lie = true
			o.Proposal = p
		}
		s := c.make(t, tg, o)
		if broken && c.break_ != nil {
			c.break_(t, s)
		}
		return q.maxZ(t, s, burn, n)
	}
	z := run(false)
	zb := run(true)
	t.Logf("max |z| = %.2f, broken variant %.2f", z, zb)
	if z > zLimit {
		t.Errorf("marginal differs from quadrature: max |z| = %.2f > %v", z, zLimit)
	}
	if zb < zBroken {
		t.Errorf("broken variant not rejected: max |z| = %.2f < %v", zb, zBroken)
	}
}

func TestExactOneDim(t *testing.T) {
	skipShort(t)
	tg, mode := rlr1(t)
	q := quadrature(tg, []float64{-1}, []float64{3}, 200, 8, 0.04)
	// The control variates are centred away from the mode: still exact, and
	// a dropped surrogate term then shows.
	ref := []float64{mode[0] + 0.3}
	for _, c := range exactCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkExact(t, c, tg, q, mh.Options{Step: 0.5, Init: mode, Ref: ref}, 1000, 100_000)
		})
	}
}

// TestExactTwoDim checks the samplers that need only local or global
// bounds on the bimodal truncated Gaussian mixture, and the control-variate
// samplers on a two-dimensional robust regression.
func TestExactTwoDim(t *testing.T) {
	skipShort(t)
	mix := tgm2(t)
	qm := quadrature(mix, []float64{-3, -3}, []float64{3, 3}, 60, 6, 0.04)
	reg, mode := rlr2(t)
	qr := quadrature(reg, []float64{-1, -1}, []float64{3, 3}, 80, 6, 0.04)
	ref := []float64{mode[0] + 0.2, mode[1] - 0.2}
	for _, c := range exactCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.cv {
				checkExact(t, c, reg, qr, mh.Options{Step: 0.35, Init: mode, Ref: ref}, 1000, 100_000)
				return
			}
			init := []float64{0.5, 0}
			checkExact(t, c, mix, qm, mh.Options{Step: 0.8, Init: init, Ref: init}, 1000, 60_000)
		})
	}
}
