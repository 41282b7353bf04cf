package mh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pgibbs/pgibbs/chain"
)

// FlyMC is Firefly Monte Carlo (Maclaurin & Adams 2014) as run in the
// TunaMH paper's experiments. With lower bounds B_i(θ) ≤ L_i(θ) = exp ℓ_i(θ)
// it samples the joint law of θ and brightness variables z_i ∈ {0, 1},
//
//	p(θ, z) ∝ π0(θ) Π_i B_i(θ) Π_{z_i=1} (L_i(θ)/B_i(θ) − 1),
//
// whose θ-marginal is π. A step is
//
//  1. a z-update: every bright point proposes to turn dark and does so
//     with probability min(1, q/(L_i/B_i − 1)); every dark point is proposed
//     to turn bright with probability q = q_{d→b} (visited by geometric
//     skips, so the cost follows the number of proposals, not N) and does
//     so with probability min(1, (L_i/B_i − 1)/q);
//  2. a θ-update: random-walk MH on log π0(θ) + Σ_i log B_i(θ) +
//     Σ_{bright} log(L_i/B_i − 1), with Σ_i log B_i evaluated in O(d).
//
// The bright set is kept in index arrays (no allocation per step). The
// batch size is the number of bright points after the z-update. FlyMC is
// stateful, so it lies outside the class of TunaMH's Theorem 3.
//
// The bounds come from the target's LowerBounder if it has one; otherwise
// from the first-order Taylor bound of ControlVariates around θ⁰ = Ref,
//
//	log B_i(θ) = ℓ_i(θ⁰) + ∇ℓ_i(θ⁰)ᵀ(θ − θ⁰) − c_i^{(1)} φ^{(1)}(θ⁰; θ⁰, θ),
//
// which is the TunaMH paper's TGM bound when the target's remainder bound is
// Cornish et al.'s ½Ū_{2,i}‖θ − θ⁰‖₁². A bound found above ℓ_i is reported
// by Err.
//
// A step evaluates the bright points twice and proposes about q_{d→b}
// times the dark ones; NewFlyMC refuses q_{d→b}·N above Options.MaxDraws,
// and a step whose bright points plus q_{d→b} times the dark ones exceed it
// records an error before touching the data.
//
// Interruption: the z-update looks at the interrupt channel every 4096
// bright points and every 4096 dark points proposed, the θ-update every
// 4096 bright points. The bright set changes during the z-update, so with
// an interrupt channel set the z-update logs its changes (each point turned
// dark with its position and old stamp; the points turned bright are
// appended at the end) and an aborted step undoes them, last first, and
// restores the sweep number and Σ log(L_i/B_i − 1): the bright set, its
// index arrays and sums are then exactly those before the step.
type FlyMC struct {
	base
	lb  LowerBounder
	cvt ControlVariates

	// Taylor bound data (when lb is nil).
	ref      []float64
	llRef    []float64 // ℓ_i(θ⁰)
	gRef     []float64 // ∇ℓ_i(θ⁰), row i
	c        []float64 // c_i^{(1)}
	sumLLRef float64
	sumG     []float64 // Σ_i ∇ℓ_i(θ⁰)
	sumC     float64
	phiX     float64 // φ(θ⁰; θ⁰, x)

	q, logQ, log1mQ float64
	bright          []int32  // indices of bright points
	pos             []int32  // position in bright, −1 when dark
	darkened        []uint32 // stamp: turned dark in the z-update numbered sweep
	sweep           uint32
	sumB            float64   // Σ_i log B_i(x)
	sumGap          float64   // Σ_{bright} log(L_i/B_i − 1) at x
	lb0             []float64 // ℓ_i of up to pollEvery bright points, batched

	// The undo log of the current z-update (kept only with an interrupt
	// channel): the points turned dark, in order; the length of the
	// bright set after them (the points turned bright follow); the sweep
	// number and sumGap before; the stamps before a wrap-around cleared
	// them (once every 2³² steps).
	darkUndo []flyDark
	mid      int
	sweep0   uint32
	sumGap0  float64
	stamps0  []uint32
}

// flyDark records that the point i at position j of the bright set turned
// dark, and its stamp before.
type flyDark struct {
	j, i  int32
	stamp uint32
}

// NewFlyMC returns a FlyMC sampler with q_{d→b} = o.QDarkToBright (0 means
// 0.01). The target must implement LowerBounder or ControlVariates; in the
// latter case the bound is expanded at o.Ref (nil: the initial state).
// Construction evaluates every ℓ_i once to draw the initial bright set from
// its conditional law.
func NewFlyMC(t Target, r *rand.Rand, o *Options) (*FlyMC, error) {
	b, o, err := newBaseOpts("flymc", t, o, r)
	if err != nil {
		return nil, err
	}
	q := o.QDarkToBright
	if q == 0 {
		q = 0.01
	}
	if !(q > 0 && q <= 1) {
		return nil, fmt.Errorf("mh: flymc: q_{d→b} = %v must lie in (0, 1]", o.QDarkToBright)
	}
	s := &FlyMC{base: b, q: q, logQ: math.Log(q), log1mQ: math.Log1p(-q),
		bright: make([]int32, 0, b.n), pos: make([]int32, b.n), darkened: make([]uint32, b.n)}
	if lb, ok := t.(LowerBounder); ok {
		s.lb = lb
	} else {
		cvt, ok := t.(ControlVariates)
		if !ok {
			return nil, fmt.Errorf("mh: flymc: target %T implements neither LowerBounder nor ControlVariates", t)
		}
		ref := o.Ref
		if ref == nil {
			ref = b.x
		}
		if len(ref) != b.d {
			return nil, fmt.Errorf("mh: flymc: reference point has length %d, target dimension is %d", len(ref), b.d)
		}
		if lp := t.LogPrior(ref); math.IsNaN(lp) || math.IsInf(lp, 0) {
			return nil, fmt.Errorf("mh: flymc: reference point %v is outside the support", ref)
		}
		s.cvt = cvt
		s.ref = append([]float64(nil), ref...)
		s.llRef = make([]float64, b.n)
		s.gRef = make([]float64, b.n*b.d)
		s.c = make([]float64, b.n)
		s.sumG = make([]float64, b.d)
		for i := range b.n {
			s.llRef[i] = t.LogLik(i, s.ref)
			s.sumLLRef += s.llRef[i]
			g := s.gRef[i*b.d : (i+1)*b.d]
			cvt.GradLogLik(g, i, s.ref)
			for j, v := range g {
				s.sumG[j] += v
			}
			s.c[i] = cvt.RemainderBound(1, i)
			if math.IsNaN(s.c[i]) || s.c[i] < 0 || math.IsInf(s.c[i], 0) {
				return nil, fmt.Errorf("mh: flymc: remainder bound c_%d = %v must be finite and non-negative", i, s.c[i])
			}
			s.sumC += s.c[i]
		}
		if math.IsNaN(s.sumLLRef) || math.IsInf(s.sumLLRef, 0) {
			return nil, fmt.Errorf("mh: flymc: log-likelihood at the reference point sums to %v", s.sumLLRef)
		}
	}
	if err := b.tooBig(fmt.Sprintf("the expected number of dark points proposed, q_{d→b}·N (q_{d→b} = %v)", q), q*float64(b.n),
		"lower Options.QDarkToBright"); err != nil {
		return nil, err
	}
	s.lb0 = make([]float64, min(b.n, pollEvery))
	if err := s.SetState(s.x); err != nil {
		return nil, err
	}
	return s, nil
}

// SetState implements Sampler. It redraws every z_i from its conditional
// law given θ (O(N) evaluations, randomness from the sampler's source).
func (s *FlyMC) SetState(theta []float64) error {
	if err := s.setState(theta); err != nil {
		return err
	}
	s.bright = s.bright[:0]
	for i := range s.pos {
		s.pos[i] = -1
	}
	s.phiX = s.phi(s.x)
	s.sumB = s.sumLogB(s.x, s.phiX)
	s.sumGap = 0
	for i := range s.n {
		gap := s.gap(i, s.x, s.phiX)
		if s.err != nil {
			err := s.err
			s.err = nil
			return err
		}
		// P(bright | θ) = 1 − B_i/L_i.
		if s.rng.Float64() < -math.Expm1(-gap) {
			s.add(i)
			s.sumGap += logExpm1(gap)
		}
	}
	if math.IsNaN(s.sumB) || math.IsInf(s.sumB, 0) {
		return fmt.Errorf("mh: flymc: summed lower bound at %v is %v", theta, s.sumB)
	}
	return nil
}

// Bright returns the number of bright points.
func (s *FlyMC) Bright() int { return len(s.bright) }

func (s *FlyMC) add(i int) {
	s.pos[i] = int32(len(s.bright))
	s.bright = append(s.bright, int32(i))
}

// remove drops the bright point at position j (swap with the last).
func (s *FlyMC) remove(j int) {
	i := s.bright[j]
	last := len(s.bright) - 1
	moved := s.bright[last]
	s.bright[j] = moved
	s.pos[moved] = int32(j)
	s.bright = s.bright[:last]
	s.pos[i] = -1
}

// phi returns φ^{(1)}(θ⁰; θ⁰, θ) for the Taylor bound (0 otherwise).
func (s *FlyMC) phi(theta []float64) float64 {
	if s.lb != nil {
		return 0
	}
	return s.cvt.RemainderScale(1, s.ref, s.ref, theta)
}

// logB returns log B_i(θ); phi is φ(θ⁰; θ⁰, θ).
func (s *FlyMC) logB(i int, theta []float64, phi float64) float64 {
	if s.lb != nil {
		s.st.Evals++
		return s.lb.LogLowerBound(i, theta)
	}
	g := s.gRef[i*s.d : (i+1)*s.d]
	v := s.llRef[i]
	for j, gj := range g {
		v += gj * (theta[j] - s.ref[j])
	}
	return v - s.c[i]*phi
}

func (s *FlyMC) sumLogB(theta []float64, phi float64) float64 {
	if s.lb != nil {
		return s.lb.SumLogLowerBound(theta)
	}
	v := s.sumLLRef
	for j, gj := range s.sumG {
		v += gj * (theta[j] - s.ref[j])
	}
	return v - s.sumC*phi
}

// gap returns log L_i(θ) − log B_i(θ) ≥ 0, checking the bound.
func (s *FlyMC) gap(i int, theta []float64, phi float64) float64 {
	return s.gapOf(i, s.logLik(i, theta), theta, phi)
}

// gapOf is gap for l = ℓ_i(θ) evaluated already.
func (s *FlyMC) gapOf(i int, l float64, theta []float64, phi float64) float64 {
	lb := s.logB(i, theta, phi)
	g := l - lb
	switch {
	case math.IsNaN(g):
		s.fail("datum %d: log-likelihood %v or lower bound %v is NaN", i, l, lb)
		return 0
	case g < 0:
		if -g > relTol*math.Abs(lb)+8*epsilon*(math.Abs(l)+math.Abs(lb)) {
			s.fail("datum %d: lower bound %v exceeds the log-likelihood %v at %v", i, lb, l, theta)
		}
		return 0
	}
	return g
}

// logLiksOf returns ℓ_i(θ) of the points idx (at most pollEvery),
// evaluated in one batch.
func (s *FlyMC) logLiksOf(idx []int32, theta []float64) []float64 {
	l := s.lb0[:len(idx)]
	s.logLiks(l, idx, theta)
	return l
}

// logExpm1 returns log(e^x − 1) for x ≥ 0 (−Inf at 0).
func logExpm1(x float64) float64 {
	if x > 30 {
		return x + math.Log1p(-math.Exp(-x))
	}
	return math.Log(math.Expm1(x))
}

// Step implements Sampler; it returns chain.Any (an MH step may change every
// coordinate), or chain.Aborted when interrupted.
func (s *FlyMC) Step() int {
	if s.err != nil {
		return chain.Any
	}
	s.begin()
	if nb := len(s.bright); s.overBatch(float64(nb) + s.q*float64(s.n-nb)) {
		return chain.Any
	}
	if !s.zStep() {
		s.undoZ()
		return s.abort()
	}
	if s.err != nil {
		return chain.Any
	}
	s.st.Batch += float64(len(s.bright))
	logr, ok := s.propose()
	if !ok {
		return chain.Any
	}
	phiP := s.phi(s.xp)
	sumBP := s.sumLogB(s.xp, phiP)
	sumGapP, ok := s.gapSum(s.xp, phiP)
	if !ok {
		s.undoZ()
		return s.abort()
	}
	if s.err != nil {
		return chain.Any
	}
	if math.IsNaN(sumBP) {
		s.fail("summed lower bound at %v is NaN", s.xp)
		return chain.Any
	}
	if s.accept(logr + sumBP - s.sumB + sumGapP - s.sumGap) {
		s.move()
		s.sumB, s.sumGap, s.phiX = sumBP, sumGapP, phiP
	}
	return chain.Any
}

// gapSum returns Σ_{bright} log(L_i/B_i − 1) at θ, evaluating 4096 bright
// points at a time; ok is false when the interrupt channel closed.
func (s *FlyMC) gapSum(theta []float64, phi float64) (sum float64, ok bool) {
	for lo := 0; lo < len(s.bright); lo += pollEvery {
		idx := s.bright[lo:min(lo+pollEvery, len(s.bright))]
		if s.interrupted(len(idx)) {
			return 0, false
		}
		l := s.logLiksOf(idx, theta)
		for j, i := range idx {
			sum += logExpm1(s.gapOf(int(i), l[j], theta, phi))
		}
	}
	return sum, true
}

// zStep updates the brightness variables given θ = x; it returns false,
// leaving its undo log for undoZ, when the interrupt channel closed.
func (s *FlyMC) zStep() bool {
	s.darkUndo, s.stamps0 = s.darkUndo[:0], nil
	s.sweep0, s.sumGap0 = s.sweep, s.sumGap
	s.sweep++
	if s.sweep == 0 {
		if s.done != nil {
			s.stamps0 = slices.Clone(s.darkened)
		}
		clear(s.darkened)
		s.sweep = 1
	}
	sum, ok := s.darken()
	s.mid = len(s.bright)
	if ok {
		sum, ok = s.brighten(sum)
	}
	if ok {
		s.sumGap = sum
	}
	return ok
}

// darken proposes every bright point to turn dark and returns the sum of
// log(L_i/B_i − 1) over those that stay bright. It goes down the bright
// set, 4096 points at a time, so that swap-removal only moves points
// already visited: the points below a block keep their positions, and
// bright[j] is still the point whose ℓ_i was evaluated for position j.
func (s *FlyMC) darken() (sum float64, ok bool) {
	for hi := len(s.bright); hi > 0; {
		lo := max(hi-pollEvery, 0)
		if s.interrupted(hi - lo) {
			return 0, false
		}
		l := s.logLiksOf(s.bright[lo:hi], s.x)
		for j := hi - 1; j >= lo; j-- {
			i := int(s.bright[j])
			g := logExpm1(s.gapOf(i, l[j-lo], s.x, s.phiX))
			if g <= s.logQ || math.Log(s.rng.Float64()) < s.logQ-g {
				if s.done != nil {
					s.darkUndo = append(s.darkUndo, flyDark{j: int32(j), i: int32(i), stamp: s.darkened[i]})
				}
				s.remove(j)
				s.darkened[i] = s.sweep
			} else {
				sum += g
			}
		}
		hi = lo
	}
	return sum, true
}

// brighten proposes a geometric subsample of the points dark at the start
// of the z-update to turn bright (appended to the bright set), adding
// their log(L_i/B_i − 1) to sum.
func (s *FlyMC) brighten(sum float64) (float64, bool) {
	for i := -1; ; {
		i += 1 + s.skip()
		if i >= s.n || i < 0 {
			break
		}
		if s.pos[i] >= 0 || s.darkened[i] == s.sweep {
			continue
		}
		if s.interrupted(1) {
			return 0, false
		}
		g := logExpm1(s.gap(i, s.x, s.phiX))
		if g >= -s.logQ || math.Log(s.rng.Float64()) < g-s.logQ {
			s.add(i)
			sum += g
		}
	}
	return sum, true
}

// undoZ undoes the last z-update from its log: the points turned bright
// (after position mid) turn dark again, the points turned dark come back
// to their positions, last first, with their stamps.
func (s *FlyMC) undoZ() {
	for _, i := range s.bright[s.mid:] {
		s.pos[i] = -1
	}
	s.bright = s.bright[:s.mid]
	for k := len(s.darkUndo) - 1; k >= 0; k-- {
		u := s.darkUndo[k]
		last := len(s.bright)
		s.bright = s.bright[:last+1]
		if int(u.j) < last { // the point remove moved from the end to j
			moved := s.bright[u.j]
			s.bright[last] = moved
			s.pos[moved] = int32(last)
		}
		s.bright[u.j] = u.i
		s.pos[u.i] = u.j
		s.darkened[u.i] = u.stamp
	}
	if s.stamps0 != nil {
		copy(s.darkened, s.stamps0)
		s.stamps0 = nil
	}
	s.darkUndo = s.darkUndo[:0]
	s.sweep, s.sumGap = s.sweep0, s.sumGap0
}

// skip returns a Geometric(q) number of failures before a success.
func (s *FlyMC) skip() int {
	if s.q == 1 {
		return 0
	}
	k := math.Floor(math.Log(1-s.rng.Float64()) / s.log1mQ)
	if k > float64(s.n) {
		return s.n
	}
	return int(k)
}
