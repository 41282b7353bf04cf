// Package chebyshev represents smooth functions on an interval [a,b] by
// Chebyshev series and computes with them: interpolation in O(m log m),
// evaluation, antiderivatives, definite integrals, products and degree
// selection. It is the numerical ground on which package its (inverse
// transform sampling) and the continuous Gibbs samplers (Gibbs-ITS, PGITS,
// Gibbs-DA, PGDA) stand.
//
// # Series and points
//
// A [Series] of degree n on [a,b] is
//
//	p(x) = Σ_{k=0}^{n} c_k T_k(t),  t = (2x − a − b)/(b − a) ∈ [−1,1],
//
// with T_k(t) = cos(k·arccos t). The degree-m interpolant of a function f
// takes its values at the m+1 Chebyshev points of the second kind
//
//	x_j = (a+b)/2 + (b−a)/2·cos(jπ/m),  j = 0..m   (x_0 = b, x_m = a),
//
// returned by [Points]. Because T_k(cos θ) = cos kθ, the coefficients are a
// discrete cosine transform of the values,
//
//	c_k = (2/m) Σ''_{j=0}^{m} f(x_j) cos(jkπ/m),  c_0 and c_m halved,
//
// where the double-primed sum halves its first and last terms. They are
// computed by one DCT-I from gonum's dsp/fourier in O(m log m) operations
// ([Series.Fit], [Series.FitFunc]).
// For f analytic inside the Bernstein ellipse with parameter ρ around [a,b]
// the interpolation error decays like ρ^(−m) (Trefethen, Approximation Theory
// and Approximation Practice, SIAM 2013, Theorem 8.2), the "spectral
// accuracy" that makes low degrees enough: exp on [−1,1] is exact to machine
// precision at degree 15, and Runge's function 1/(1+25x²) converges at the rate
// ρ = (1+√26)/5 set by its poles at ±i/5.
//
// # Operations
//
//   - [Series.Eval] uses Clenshaw's recurrence b_k = c_k + 2t·b_{k+1} − b_{k+2},
//     p = c_0 + t·b_1 − b_2, which is backward stable and O(n);
//     [Series.EvalTo] evaluates four points at a time with interleaved
//     recurrences for about the cost of one.
//   - [Series.Antiderivative] uses ∫T_k = T_{k+1}/(2(k+1)) − T_{k−1}/(2(k−1))
//     scaled by (b−a)/2, with the constant chosen so that P(a) = 0.
//   - [Series.Integral] uses ∫_{−1}^{1} T_k = 2/(1−k²) for even k, 0 for odd.
//   - [Series.Mul] multiplies two series exactly with
//     T_i·T_j = (T_{i+j} + T_{|i−j|})/2 (used to square a series).
//   - [StandardChop], [Series.Chop] and [Series.FitAdaptive] choose a degree by
//     the rule of Chebfun's standardChop (Aurentz & Trefethen, "Chopping a
//     Chebyshev series", ACM TOMS 43(4), 2017): look for a plateau in the
//     monotone envelope of the coefficients and cut at its start.
//
// # Errors and allocation
//
// Anything a user's data can cause (m < 1, a ≥ b, a non-finite end or value,
// series on different intervals) is reported as an error prefixed
// "chebyshev: ", never a panic. Every method that fills a Series reuses the
// receiver's storage and caches its DCT plan, so the per-step path of a
// sampler — refit, multiply, integrate, evaluate at a fixed size — allocates
// nothing.
package chebyshev
