package its

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chebyshev"
)

// Sampler draws from a polynomial density q on [a,b] by inverse transform
// sampling, and evaluates q for Metropolis–Hastings corrections.
//
// A fit builds q = g²/∫g², where g is the Chebyshev interpolant of
// exp((log f − max log f)/2) at the second-kind points of [a,b]: q is
// non-negative everywhere by construction (it is a square) and equals the
// normalised f at the nodes. Its CDF Q is a polynomial in closed form;
// [Sampler.Draw] solves Q(v) = u for u ~ U(0,1) by bracketing (bisection
// with five sections per pass) to full double precision.
//
// The zero value is ready for a fit. While the sampler holds no successful
// fit (before the first, or after a fit that returned an error), Draw,
// Quantile, CDF, Density, LogDensity, LogIntegral and LogAcceptRatio return
// NaN, Fitted returns false and Degree −1. After the first fit
// of a given size, refitting and drawing allocate nothing. A Sampler must not
// be used by more than one goroutine at a time.
type Sampler struct {
	a, b  float64
	shift float64 // max log f: g² ≈ exp(log f − shift)
	ok    bool    // holds a successful fit

	g   chebyshev.Series // g ≈ exp((log f − shift)/2), degree m
	f   chebyshev.Series // g², degree 2m
	cdf chebyshev.Series // ∫_a^x g², degree 2m+1

	cdfA, cdfB float64 // cdf(a), cdf(b) as evaluated (the ends Quantile inverts between)
	total      float64 // cdfB − cdfA = ∫_a^b g²
	logTotal   float64 // log(total)
	tol        float64 // Quantile stops at brackets narrower than this

	px, pv [4]float64 // Quantile: section points and CDF values there

	vals         []float64 // half-density values at nodes
	nodes        []float64 // FitEnergySeries: the k+1 nodes of [nodeA,nodeB]
	nodeA, nodeB float64
	energy       []float64 // FitEnergySeries: Ũ at the nodes
}

// FitLogDensity fits the sampler to the unnormalised density f = exp(logf)
// on [a,b] given its logarithm at the m+1 Chebyshev points of the second kind
// of [a,b] (chebyshev.Points order: logf[0] at b, logf[m] at a),
// m = len(logf)−1. This is the single approximation of Gibbs-ITS and PGITS.
//
// The sampler's density is q = g²/∫_a^b g², where g is the degree-m
// interpolant of exp((logf_j − max_j logf_j)/2), so q has degree 2m, is
// non-negative everywhere and interpolates the normalised f at the nodes.
// Values of −Inf (f = 0) are allowed. The cost is O(m²).
//
// It returns an error if m < 1, the interval is invalid, a value is NaN or
// +Inf, all values are −Inf, or the fitted density integrates to 0; the
// sampler then holds no fit.
func (s *Sampler) FitLogDensity(a, b float64, logf []float64) error {
	s.ok = false
	m := len(logf) - 1
	if m < 1 {
		return fmt.Errorf("its: need at least 2 log-density values (degree m ≥ 1), have %d", len(logf))
	}
	if err := checkInterval(a, b); err != nil {
		return err
	}
	shift := math.Inf(-1)
	for j, v := range logf {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			x := a + (b-a)/2*(1+math.Cos(float64(j)*math.Pi/float64(m)))
			return fmt.Errorf("its: log-density value %d of %d (at x=%g) is %v", j, m+1, x, v)
		}
		shift = math.Max(shift, v)
	}
	if math.IsInf(shift, -1) {
		return fmt.Errorf("its: all %d log-density values are −Inf", m+1)
	}
	s.vals = resize(s.vals, m+1)
	for j, v := range logf {
		s.vals[j] = math.Exp((v - shift) / 2)
	}
	if err := s.g.Fit(a, b, s.vals); err != nil {
		return fmt.Errorf("its: %w", err)
	}
	return s.finish(shift)
}

// FitEnergySeries fits the sampler to f = exp(U) where U is given as a
// Chebyshev series on its interval [a,b] (the degree-m interpolant Ũ of an
// energy): this is the second approximation of Gibbs-DA and PGDA (Algorithm 3
// of Zhang & De Sa 2019), which needs no further energy evaluations.
//
// U is evaluated by Clenshaw's recurrence at the k+1 Chebyshev points of
// [a,b] (O(mk), see [chebyshev.Series.EvalTo]), and the sampler is fitted
// as by [Sampler.FitLogDensity] to those values: g is of degree k and the
// density q = g²/∫g² of degree 2k. Refitting with the same k and interval
// allocates nothing.
//
// It returns an error if k < 1, u is nil or empty, or the fit fails; the
// sampler then holds no fit.
func (s *Sampler) FitEnergySeries(u *chebyshev.Series, k int) error {
	s.ok = false
	if u == nil || u.Degree() < 0 {
		return errors.New("its: energy series is nil or empty")
	}
	if k < 1 {
		return fmt.Errorf("its: density degree k = %d, need k ≥ 1", k)
	}
	a, b := u.Interval()
	if len(s.nodes) != k+1 || s.nodeA != a || s.nodeB != b {
		nodes, err := chebyshev.Points(s.nodes, k, a, b)
		if err != nil {
			return fmt.Errorf("its: %w", err)
		}
		s.nodes, s.nodeA, s.nodeB = nodes, a, b
	}
	s.energy = resize(s.energy, k+1)
	u.EvalTo(s.energy, s.nodes)
	return s.FitLogDensity(a, b, s.energy)
}

// finish builds q = g² and its CDF from s.g.
func (s *Sampler) finish(shift float64) error {
	if err := s.f.Mul(&s.g, &s.g); err != nil {
		return fmt.Errorf("its: %w", err)
	}
	return s.finishCDF(shift)
}

// finishCDF builds the CDF of the density series s.f (which must be
// non-negative on [a,b]; the exported fits guarantee it by squaring).
func (s *Sampler) finishCDF(shift float64) error {
	a, b := s.f.Interval()
	if err := s.cdf.Antiderivative(&s.f); err != nil {
		return fmt.Errorf("its: %w", err)
	}
	s.a, s.b, s.shift = a, b, shift
	s.cdfA, s.cdfB = s.cdf.Eval(a), s.cdf.Eval(b)
	s.total = s.cdfB - s.cdfA
	if !(s.total > 0) || math.IsInf(s.total, 0) {
		return fmt.Errorf("its: fitted density on [%g,%g] integrates to %g, need a positive finite integral", a, b, s.total)
	}
	s.logTotal = math.Log(s.total)
	s.tol = bisectTol(a, b)
	s.ok = true
	return nil
}

// bisectTol is the bracket width at which bisection on [a,b] stops: about
// one unit in the last place of the larger end, so that the root is
// resolved to full double precision relative to the interval.
func bisectTol(a, b float64) float64 {
	scale := math.Max(math.Abs(a), math.Abs(b))
	return 0x1p-53 * scale
}

// Interval returns the interval [a,b] of the last successful fit.
func (s *Sampler) Interval() (a, b float64) { return s.a, s.b }

// Fitted reports whether the sampler holds a successful fit.
func (s *Sampler) Fitted() bool { return s.ok }

// Degree returns the degree of the polynomial density q (2m for a fit from
// m+1 values), or −1 without a fit.
func (s *Sampler) Degree() int {
	if !s.ok {
		return -1
	}
	return s.f.Degree()
}

// Draw returns a sample from the sampler's density q: it draws u ~ U(0,1)
// from r (one r.Float64 call) and returns [Sampler.Quantile](u). It returns
// NaN without a fit. Draw allocates nothing.
func (s *Sampler) Draw(r *rand.Rand) float64 {
	if !s.ok {
		return math.NaN()
	}
	return s.Quantile(r.Float64())
}

// Quantile returns the v in [a,b] with Q(v) = u, where Q is the CDF of q,
// found by bracketing on the closed-form polynomial CDF to full double
// precision: the bracket shrinks until it is about one unit in the last
// place of max(|a|,|b|). It is bisection generalised to five parts per pass
// (four CDF values from one interleaved Clenshaw evaluation), about 23
// passes on an interval like [0,1]. Because q ≥ 0, Q is non-decreasing and
// the bracket holds a root for every u in [0,1].
// It returns NaN if u is NaN or outside [0,1], or without a fit.
func (s *Sampler) Quantile(u float64) float64 {
	if !s.ok || !(u >= 0 && u <= 1) {
		return math.NaN()
	}
	target := s.cdfA + u*s.total
	lo, hi := s.a, s.b
	// Quinquesection: four interior points split the bracket into five
	// parts; their CDF values come from one interleaved Clenshaw pass, which
	// costs about as much as one evaluation, so each pass gains log2(5) bits.
	// The bracket keeps Q(lo) < target ≤ Q(hi) (as evaluated) throughout.
	for hi-lo > s.tol {
		w := hi - lo
		for k, f := range sectionPoints {
			s.px[k] = lo + w*f
		}
		s.cdf.EvalTo(s.pv[:], s.px[:])
		k := 0
		for k < len(s.pv) && s.pv[k] < target {
			k++
		}
		nlo, nhi := lo, hi
		if k > 0 {
			nlo = s.px[k-1]
		}
		if k < len(s.px) {
			nhi = s.px[k]
		}
		if !(nhi-nlo < w) {
			break // the points have collapsed onto the ends: no float in between
		}
		lo, hi = nlo, nhi
	}
	return lo + (hi-lo)/2
}

// sectionPoints are the relative positions of Quantile's interior points.
var sectionPoints = [4]float64{0.2, 0.4, 0.6, 0.8}

// CDF returns Q(x) = ∫_a^x q, clamped to [0,1] (0 below a, 1 above b). It
// returns NaN without a fit or for NaN x.
func (s *Sampler) CDF(x float64) float64 {
	switch {
	case !s.ok || math.IsNaN(x):
		return math.NaN()
	case x <= s.a:
		return 0
	case x >= s.b:
		return 1
	}
	return math.Min(1, math.Max(0, (s.cdf.Eval(x)-s.cdfA)/s.total))
}

// Density returns the normalised density q(x) = g(x)²/∫_a^b g² that
// [Sampler.Draw] samples from, 0 outside [a,b]. It is evaluated as a square,
// so it is never negative. It returns NaN without a fit or for NaN x.
func (s *Sampler) Density(x float64) float64 {
	if !s.ok || math.IsNaN(x) {
		return math.NaN()
	}
	if x < s.a || x > s.b {
		return 0
	}
	g := s.g.Eval(x)
	return g * g / s.total
}

// LogDensity returns log q(x), −Inf where q(x) = 0 or x is outside [a,b]. It
// returns NaN without a fit or for NaN x.
func (s *Sampler) LogDensity(x float64) float64 {
	if !s.ok || math.IsNaN(x) {
		return math.NaN()
	}
	if x < s.a || x > s.b {
		return math.Inf(-1)
	}
	return 2*math.Log(math.Abs(s.g.Eval(x))) - s.logTotal
}

// LogIntegral returns the logarithm of ∫_a^b f̃, where f̃ = exp(max logf)·g²
// is the sampler's unnormalised approximation of f = exp(logf) on the
// caller's scale (so that log f̃(x) = LogDensity(x) + LogIntegral()). It
// approximates the log-normaliser log ∫_a^b f. It returns NaN without a fit.
func (s *Sampler) LogIntegral() float64 {
	if !s.ok {
		return math.NaN()
	}
	return s.shift + s.logTotal
}

// LogAcceptRatio returns the logarithm of the Metropolis–Hastings acceptance
// ratio for moving from xOld to a proposal xNew drawn from this sampler,
//
//	log p = (logTarget(xNew) − logTarget(xOld)) − (log q(xNew) − log q(xOld)),
//
// i.e. p = exp(U_new)·q(x_old) / (exp(U_old)·q(x_new)), the correction of
// Algorithm 3 of Zhang & De Sa 2019 that makes a polynomial sampler exact;
// accept when log(u) < log p for u ~ U(0,1). logNew and logOld are the log
// target (unnormalised) at the two points. Edge cases, chosen so the result is
// never NaN for non-NaN inputs: it is −Inf if logNew = −Inf; else +Inf if
// logOld = −Inf; else, if q(xNew) = 0 (probability zero for a drawn xNew), +Inf
// when q(xOld) > 0 and logNew − logOld otherwise; else −Inf if q(xOld) = 0.
// It returns NaN without a fit or if an input is NaN.
func (s *Sampler) LogAcceptRatio(xOld, logOld, xNew, logNew float64) float64 {
	if !s.ok || math.IsNaN(xOld) || math.IsNaN(logOld) || math.IsNaN(xNew) || math.IsNaN(logNew) {
		return math.NaN()
	}
	if math.IsInf(logNew, -1) {
		return math.Inf(-1)
	}
	if math.IsInf(logOld, -1) {
		return math.Inf(1)
	}
	lqOld, lqNew := s.LogDensity(xOld), s.LogDensity(xNew)
	switch {
	case math.IsInf(lqNew, -1):
		if math.IsInf(lqOld, -1) {
			return logNew - logOld
		}
		return math.Inf(1)
	case math.IsInf(lqOld, -1):
		return math.Inf(-1)
	}
	return (logNew - lqNew) - (logOld - lqOld)
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

func checkInterval(a, b float64) error {
	if err := chebyshev.CheckInterval(a, b); err != nil {
		return fmt.Errorf("its: %w", err)
	}
	return nil
}
