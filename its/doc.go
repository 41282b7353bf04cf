// Package its draws from densities on an interval [a,b] by fast inverse
// transform sampling (FITS, Olver & Townsend, "Fast inverse transform
// sampling in one and two dimensions", arXiv:1307.1223, 2013): approximate
// the density by a polynomial, integrate it in closed form to get the CDF,
// and invert the CDF by bracketing. It is the sampling step of the
// continuous Gibbs samplers of Zhang & De Sa, "Poisson-Minibatching for Gibbs
// Sampling with Convergence Rate Guarantees" (NeurIPS 2019): Gibbs-ITS and
// PGITS (one approximation) and Gibbs-DA and PGDA (two approximations,
// Algorithm 3).
//
// # A density that is non-negative by construction
//
// Inverse transform sampling from a polynomial q is only sampling from q if
// q ≥ 0 on all of [a,b]; otherwise its "CDF" is not monotone. A plain
// interpolant of a positive density can dip below zero between the nodes
// (the interpolant of exp(40x) on [0,1] at degree 10 reaches −2% of its
// maximum near x = 0). A [Sampler] therefore interpolates the square root and
// squares the series:
//
//	g ≈ exp((log f − max log f)/2)  (degree m, at the m+1 Chebyshev points),
//	q = g² / ∫_a^b g²               (degree 2m, non-negative everywhere).
//
// Subtracting the maximum keeps exp in range whatever the scale of log f
// (energies of size 10³ are normal); q still interpolates the normalised f
// at the nodes. The square is formed exactly as a Chebyshev product, its
// antiderivative Q gives the CDF, and [Sampler.Draw] solves Q(v) = u,
// u ~ U(0,1), by bracketing to full double precision (bisection generalised
// to five sections per pass, see [Sampler.Quantile]). Density values are
// computed as g(x)², so they are never negative either.
//
// # Single and double approximation
//
// [Sampler.FitLogDensity] takes log f at the m+1 Chebyshev points (from
// chebyshev.Points): Gibbs-ITS/PGITS evaluate the (possibly minibatched)
// energy U there and pass U. [Sampler.FitEnergySeries] takes the degree-m
// interpolant Ũ of the energy as a chebyshev.Series and fits exp(Ũ) at k+1
// points of its own, evaluating Ũ by Clenshaw's recurrence without further
// energy evaluations: Gibbs-DA/PGDA (the paper's settings are m = 3, k = 10
// for the spin model and m = 20, k = 25 for the mixture).
//
// # Metropolis–Hastings correction
//
// The draws follow q, not f. The samplers make every step exact with the
// independence Metropolis–Hastings correction of Algorithm 3,
//
//	p = exp(U(v))·q(x_old) / (exp(U(x_old))·q(v)),
//
// which [Sampler.LogAcceptRatio] returns in log form; [Sampler.Density] and
// [Sampler.LogDensity] give the normalised q itself, and
// [Sampler.LogIntegral] the log of the integral of the unnormalised
// approximation on the caller's scale (≈ log ∫_a^b f).
//
// # Accuracy
//
// The square root of f is as smooth as f when f = exp(U) with U analytic,
// the case of the samplers (and of PGDA, where Ũ is a polynomial, always).
// It is rougher when f has zeros or is a sum with deep valleys: √f of a
// Beta(2,5) density has a square-root singularity at 0 and its
// approximation converges algebraically (sup CDF error 5e-5 at m = 50), and
// √f of a two-component normal mixture has branch points near the real axis.
// The MH correction keeps the samplers exact either way; only the acceptance
// rate depends on the accuracy.
//
// # Cost and allocation
//
// A fit costs O(m²) (the square; the DCT is O(m log m)); a draw about 23
// four-point Clenshaw passes over the degree-(2m+1) CDF on an interval like
// [0,1]. After the first fit of a given size, fitting, drawing and density
// evaluation allocate nothing. All randomness comes from the *rand.Rand the
// caller passes (one Float64 per draw): the same seed gives the same draws.
package its
