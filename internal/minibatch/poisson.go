package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ptrsMin is the smallest mean drawn by PTRS: below it a sequential search
// of the CDF takes at most a dozen steps on average and beats PTRS, whose
// constants Hörmann fitted for means of 10 and more.
const ptrsMin = 10

// invMaxK bounds the sequential search of inversion. For a mean below
// ptrsMin, P(K > invMaxK) < 1e-26, far below the rounding error of the
// search; a search that runs past it (because rounding left the uniform
// variate above the computed CDF) starts again with a fresh variate.
const invMaxK = 64

// PoissonGen draws from Poisson(Mean) with the constants of its method
// computed once, for a caller that draws many times from one mean (such as
// a per-variable minibatch size). It is a small value (72 bytes) that
// allocates nothing (NewPoissonTable's variant holds a table); the zero value draws from Poisson(0), always 0.
//
// Means below 10 are drawn by inversion: a sequential search of the CDF
// from k = 0, which costs 1+mean steps on average. Larger means are drawn
// by Hörmann's transformed rejection with squeeze (PTRS; W. Hörmann, "The
// transformed rejection method for generating Poisson random variables",
// Insurance: Mathematics and Economics 12(1):39–45, 1993): two uniform
// variates per try, 1.33 tries a draw at mean 10 falling to 1.12 at large
// means, and a logarithm in the tries the squeeze does not decide (two
// thirds of them at mean 10, a quarter at 1000, a fifth at large means).
// Both methods are exact up to floating-point rounding, and their cost
// does not grow with the mean.
type PoissonGen struct {
	mean float64
	// Inversion (mean < ptrsMin): p0 = e^{−mean}, the probability of 0.
	p0 float64
	// PTRS (mean ≥ ptrsMin), in Hörmann's notation: the transformation
	// k = ⌊(2a/us + b)·U + shift⌋ with shift = mean + 0.43; the squeeze
	// vr and the hat's scale α enter through vrb = vr·(b−2) and
	// alphab = (1/α)·(b−3.4), which need no division to build;
	// logMean = log(mean), or 0 until first needed (see Poisson).
	a, b, shift, vrb, alphab, logMean float64
	// tab, set by NewPoissonTable, replaces both methods by a guide table.
	tab *poissonTable
}

// NewPoissonGen returns a generator for Poisson(mean); a mean ≤ 0 gives a
// generator that always returns 0. It panics if mean is NaN or above
// MaxMean: the caller checks the mean with CheckMean.
func NewPoissonGen(mean float64) PoissonGen {
	if mean < ptrsMin {
		if mean > 0 {
			return PoissonGen{mean: mean, p0: math.Exp(-mean)}
		}
		return PoissonGen{}
	}
	if !(mean <= MaxMean) { // NaN fails both tests
		panic(badMean(mean))
	}
	var g PoissonGen
	g.setPTRS(mean)
	g.logMean = math.Log(mean)
	return g
}

func badMean(mean float64) string {
	return fmt.Sprintf("minibatch: Poisson mean %v is NaN or above MaxMean (%g); check it with CheckMean", mean, float64(MaxMean))
}

// setPTRS sets the constants of PTRS for mean ≥ ptrsMin (Hörmann 1993,
// Algorithm PTRS): b = 0.931 + 2.53·√mean, a = −0.059 + 0.02483·b,
// 1/α = 1.1239 + 1.1328/(b − 3.4), vr = 0.9277 − 3.6224/(b − 2), the last
// two kept multiplied by their denominators. It leaves logMean alone.
func (g *PoissonGen) setPTRS(mean float64) {
	b := 0.931 + 2.53*math.Sqrt(mean)
	g.mean = mean
	g.a = -0.059 + 0.02483*b
	g.b = b
	g.shift = mean + 0.43
	g.vrb = 0.9277*(b-2) - 3.6224
	g.alphab = 1.1239*(b-3.4) + 1.1328
}

// Mean returns the mean the generator draws with (0 for a mean ≤ 0).
func (g *PoissonGen) Mean() float64 { return g.mean }

// Rand returns a draw from Poisson(g.Mean()), using only r for randomness.
func (g *PoissonGen) Rand(r *rand.Rand) int {
	if g.tab != nil {
		return g.tab.rand(r)
	}
	if g.mean < ptrsMin {
		if g.mean > 0 {
			return inversion(r, g.mean, g.p0)
		}
		return 0 // like Poisson, without drawing from r
	}
	return g.ptrs(r)
}

// Poisson returns a draw from Poisson(mean), zero when mean ≤ 0. It is
// NewPoissonGen(mean).Rand(r) without keeping the generator, and gives the
// same draws from the same stream: the constants are built on the fly, a
// square root and a few products above 10; below 10 the search runs from
// an approximate e^{−mean} and the draw is redone with the exact one in
// the rare case (≈ 1e−6) that the approximation could have changed it. It
// panics if mean is NaN or above MaxMean; the caller checks the mean with
// CheckMean.
func Poisson(r *rand.Rand, mean float64) int {
	if mean < ptrsMin {
		if mean > 0 {
			return inversionApprox(r, mean)
		}
		return 0
	}
	if !(mean <= MaxMean) { // NaN fails both tests
		panic(badMean(mean))
	}
	// Fields set one by one in place: building a value and copying it
	// costs a store-forwarding stall, a third of the time of a draw.
	var g PoissonGen
	g.setPTRS(mean)
	return g.ptrs(r)
}

// inversion draws Poisson(mean) for 0 < mean < ptrsMin by sequential
// search: with u uniform on [0, 1), return the first k with u < P(K ≤ k),
// P(K ≤ k) = Σ_{j≤k} p_j with p0 = e^{−mean}. A search that overruns
// (rounding left u above the computed CDF) starts again with a fresh u.
func inversion(r *rand.Rand, mean, p0 float64) int {
	for {
		if k, _, ok := search(r.Float64(), mean, p0); ok {
			return k
		}
	}
}

// search returns the first k < invMaxK with u < Σ_{j≤k} p_j, where
// p_{j+1} = p_j·mean/(j+1), and the margin of that answer: the distance
// from u to the nearer of the two partial sums that bracket it. It
// subtracts p_j from u instead of adding it to a running sum. ok is false
// if the search overran.
func search(u, mean, p0 float64) (k int, margin float64, ok bool) {
	p := p0
	for k := range invMaxK {
		if u < p {
			if k > 0 {
				return k, min(u, p-u), true
			}
			return k, p - u, true
		}
		u -= p
		p *= mean / float64(k+1)
	}
	return 0, 0, false
}

// approxMargin is the margin below which inversionApprox does not trust a
// search from expNegApprox: 2⁻²⁰ ≈ 9.5e−7, six times the error of the
// partial sums (relative 1.6e−7 of sums at most 1, plus rounding).
const approxMargin = 0x1p-20

// inversionApprox is inversion(r, mean, math.Exp(-mean)), without the
// exponential for all but about 2·approxMargin·(1+mean) of the draws. It
// searches with p0 = expNegApprox(mean) first: every partial sum is then
// off by less than approxMargin, so an answer with a larger margin is the
// exact one, and the exact search from the same u gives the same answer.
// Otherwise it runs that exact search.
func inversionApprox(r *rand.Rand, mean float64) int {
	return inversionFrom(r, mean, expNegApprox(mean), approxMargin)
}

// inversionFrom is inversionApprox with the approximate p0 and the margin
// it needs (one above the largest error of its partial sums) given.
func inversionFrom(r *rand.Rand, mean, p0, needed float64) int {
	for {
		u := r.Float64()
		if k, margin, ok := search(u, mean, p0); ok && margin > needed {
			return k
		}
		if k, _, ok := search(u, mean, math.Exp(-mean)); ok {
			return k
		}
	}
}

// exp2Sixteenths[j] = 2^(−j/16).
var exp2Sixteenths = func() (t [16]float64) {
	for j := range t {
		t[j] = math.Exp2(-float64(j) / 16)
	}
	return t
}()

// expNegApprox returns e^{−x} for 0 ≤ x < ptrsMin to within a relative
// 1.6e−7, in a fraction of the time of math.Exp: with x·log₂e = (j+f)/16,
// e^{−x} = 2^(−⌊j/16⌋)·2^(−(j mod 16)/16)·e^{−g}, g = f·ln2/16 < 0.0434,
// and e^{−g} by its Taylor polynomial of degree 3 (error g⁴/24 < 1.5e−7,
// plus rounding).
func expNegApprox(x float64) float64 {
	t := x * (16 * math.Log2E)
	j := int(t)
	g := (t - float64(j)) * (math.Ln2 / 16)
	e := 1 - g*(1-g*(0.5-g*(1.0/6)))
	return e * exp2Sixteenths[j&15] * math.Float64frombits(uint64(1023-j>>4)<<52)
}

// ptrs draws from Poisson(g.mean), g.mean ≥ ptrsMin, by Hörmann's
// algorithm PTRS:
//
//  1. U uniform on (−½, ½), V uniform on (0, 1), us = ½ − |U|,
//     k = ⌊(2a/us + b)·U + mean + 0.43⌋; if us ≥ 0.07 and V ≤ vr, return k
//     (the squeeze: the point lies under the probability of k);
//  2. if k < 0, or us < 0.013 and V > us, try again;
//  3. return k if log(V·(1/α)/(a/us² + b)) ≤ log P(K = k), else try again.
//
// log P(K = k) = k·log(mean) − mean − log k! is computed directly for
// k < 256, with log k! from a table; above, where the direct form cancels
// catastrophically at large means, as −bd0(k, mean) − ½·log(2πk) − δ(k)
// (Loader's deviance form; δ is the error of Stirling's formula).
func (g *PoissonGen) ptrs(r *rand.Rand) int {
	for {
		u := r.Float64() - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		x := (2*g.a/us+g.b)*u + g.shift // k = ⌊x⌋
		if us >= 0.07 && v*(g.b-2) <= g.vrb {
			// x ≥ mean − 1.9·√mean > 0 when us ≥ 0.07: int(x) = ⌊x⌋.
			return int(x)
		}
		// x < 0 (including −∞ for us = 0) is k < 0; x ≥ 2⁶² is a k so far
		// above any mean up to MaxMean that its probability is 0 in
		// float64 (and int(x) would overflow).
		if !(x >= 0 && x < 0x1p62) || (us < 0.013 && v > us) {
			continue
		}
		k := float64(int(x))
		// h = V·(1/α)/(a/us² + b) with a single division.
		us2 := us * us
		h := v * g.alphab * us2 / ((g.b - 3.4) * (g.a + g.b*us2))
		if k < float64(len(logFactorial)) {
			if g.logMean == 0 {
				g.logMean = math.Log(g.mean)
			}
			if math.Log(h) <= k*g.logMean-g.mean-logFactorial[int(k)] {
				return int(k)
			}
			continue
		}
		// log(h) + ½·log(2πk) as one logarithm.
		if 0.5*math.Log(h*h*(2*math.Pi)*k) <= -bd0(k, g.mean)-stirlingErr(k) {
			return int(k)
		}
	}
}

// logFactorial[k] = log k! (from math.Lgamma) for the k where PTRS uses
// k·log(mean) − mean − log k! directly: below 256 its terms stay below
// 2000 whenever the result is not hopelessly negative, so the cancellation
// costs at most ≈ 1e−12 in a log-probability. A table of 2 KB, of which a
// draw reads the few lines around its mean.
var logFactorial = func() (t [256]float64) {
	for k := range t {
		t[k], _ = math.Lgamma(float64(k) + 1)
	}
	return t
}()

// stirlingErr returns δ(k) = log k! − (k+½)·log k + k − ½·log 2π for
// k ≥ 10 by its asymptotic series (truncation error below 2e−14 at k = 10,
// below 1e−29 at k = 256 where PTRS starts using it).
func stirlingErr(k float64) float64 {
	c := 1 / k
	c2 := c * c
	return c * (1.0/12 - c2*(1.0/360-c2*(1.0/1260-c2*(1.0/1680-c2*(1.0/1188)))))
}

// bd0 returns x·log(x/m) + m − x, the deviance term of a Poisson
// probability (C. Loader, "Fast and accurate computation of binomial
// probabilities", 2000), accurate also when x is close to m, where the
// direct formula loses every digit.
func bd0(x, m float64) float64 {
	d := x - m
	if math.Abs(d) < 0.1*(x+m) {
		// x·log(x/m) + m − x = d·v + 2x·v·Σ_{j≥1} w^j/(2j+1), v = d/(x+m),
		// w = v² < 0.01: eight terms leave a relative error below 1e−17.
		v := d / (x + m)
		w := v * v
		S := w * (1.0/3 + w*(1.0/5+w*(1.0/7+w*(1.0/9+w*(1.0/11+w*(1.0/13+w*(1.0/15+w*(1.0/17))))))))
		return d*v + 2*x*v*S
	}
	return x*math.Log(x/m) + m - x
}
