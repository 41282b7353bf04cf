package mh

// Target is a posterior on R^Dim written as a prior times N likelihood terms,
//
//	π(θ) ∝ π0(θ) · exp(Σ_{i<N} ℓ_i(θ)),
//
// in the log-likelihood convention of the design handbook (TunaMH's energies
// are U_i = −ℓ_i). Discrete parameters are represented by float64 values.
//
// Samplers call LogLik only at points where LogPrior is finite, so a target
// whose bounds hold only on a bounded support (the truncated Gaussian
// mixture's box) declares that support through LogPrior returning −Inf.
// Implementations must not retain theta.
type Target interface {
	// Dim returns the dimension d of θ (at least 1).
	Dim() int
	// N returns the number of likelihood terms (at least 1).
	N() int
	// LogPrior returns log π0(θ) up to an additive constant, −Inf outside
	// the support.
	LogPrior(theta []float64) float64
	// LogLik returns ℓ_i(θ) for 0 ≤ i < N.
	LogLik(i int, theta []float64) float64
}

// LocalBounder declares Assumption 1 of Zhang, Cooper & De Sa (2020): for all
// θ, θ' in the support and every i,
//
//	|ℓ_i(θ) − ℓ_i(θ')| ≤ c_i · M(θ, θ'),
//
// with constants c_i ≥ 0 and a symmetric M ≥ 0. TunaMH and TFMH use it. A
// violation observed at run time is reported by the sampler's Err, because
// it breaks exactness.
type LocalBounder interface {
	// LocalBound returns c_i ≥ 0.
	LocalBound(i int) float64
	// Distance returns M(θ, θ') ≥ 0; it must equal Distance(θ', θ).
	Distance(theta, thetaP []float64) float64
}

// Ranger declares global ranges, lo_i ≤ ℓ_i(θ) ≤ hi_i for every θ in the
// support, as Poisson-MH (Algorithm 3 of the TunaMH paper) needs. Both
// values must be finite.
type Ranger interface {
	LogLikRange(i int) (lo, hi float64)
}

// ControlVariates supplies Taylor-expansion control variates around a
// reference point θ̂ and a bound on their remainder, as SMH (Cornish et al.
// 2019), MH-SS (Prado, Nemeth & Sherlock 2024) and the Taylor lower bound of
// FlyMC use. With ℓ̂_i^{(k)} the order-k Taylor polynomial of ℓ_i at θ̂ and
//
//	r_i(θ, θ') = ℓ_i(θ') − ℓ_i(θ) − [ℓ̂_i(θ') − ℓ̂_i(θ)],
//
// the target promises |r_i(θ,θ')| ≤ c_i^{(k)} · φ^{(k)}(θ̂; θ, θ') for all
// θ, θ', θ̂ in the support, with φ symmetric in (θ, θ').
type ControlVariates interface {
	// GradLogLik writes ∇ℓ_i(θ) to dst (len Dim).
	GradLogLik(dst []float64, i int, theta []float64)
	// HessLogLik writes ∇²ℓ_i(θ), row-major, to dst (len Dim²). It is called
	// only for order-2 control variates.
	HessLogLik(dst []float64, i int, theta []float64)
	// CVOrder returns the highest order k (1 or 2) for which RemainderBound
	// and RemainderScale are valid.
	CVOrder() int
	// RemainderBound returns c_i^{(k)} ≥ 0 for k = order.
	RemainderBound(order, i int) float64
	// RemainderScale returns φ^{(k)}(θ̂; θ, θ') ≥ 0 for k = order and θ̂ = ref.
	RemainderScale(order int, ref, theta, thetaP []float64) float64
}

// LowerBounder declares per-datum lower bounds log B_i(θ) ≤ ℓ_i(θ) whose sum
// over all data can be evaluated in time independent of N, as Firefly Monte
// Carlo (Maclaurin & Adams 2014) needs. Targets that do not implement it can
// still run FlyMC through the first-order Taylor bound of ControlVariates.
type LowerBounder interface {
	// LogLowerBound returns log B_i(θ) ≤ ℓ_i(θ).
	LogLowerBound(i int, theta []float64) float64
	// SumLogLowerBound returns Σ_i log B_i(θ).
	SumLogLowerBound(theta []float64) float64
}

// BatchLogLiker is an optional fast path for targets that evaluate many
// likelihood terms faster in one call than one LogLik call at a time (no
// interface call per datum; the transcendental functions of a batch
// pipelined). Samplers use it wherever they evaluate a set of terms known
// in advance: MH's full-data sums, the full-data fallback steps, the kept
// set of Poisson-MH, the bright set of FlyMC.
//
// LogLikBatch sets dst[j] = ℓ_{idx[j]}(θ) for j < len(idx) (len(dst) ≥
// len(idx)). It must return the values LogLik returns, bit for bit: a
// sampler may evaluate the same term through either path in one run.
type BatchLogLiker interface {
	LogLikBatch(dst []float64, idx []int32, theta []float64)
}

// SumLogLiker is an optional fast path for the full-data sum of standard
// MH. SumLogLik returns Σ_{i<N} ℓ_i(θ) summed in increasing i, the same
// float64 as the loop over LogLik.
type SumLogLiker interface {
	SumLogLik(theta []float64) float64
}
