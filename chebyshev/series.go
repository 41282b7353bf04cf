package chebyshev

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/floats"
)

// Series is a finite Chebyshev series on an interval [a,b],
//
//	p(x) = Σ_{k=0}^{n} c_k T_k(t),   t = (2x − a − b)/(b − a),
//
// where T_k(t) = cos(k·arccos t) is the Chebyshev polynomial of the first
// kind and n is the degree.
//
// The zero value is an empty series (Degree −1, no interval) ready to be
// filled by [Series.Fit], [Series.FitFunc], [Series.FitAdaptive],
// [Series.SetCoeffs], [Series.Mul] or [Series.Antiderivative]. Every method
// that fills a series reuses the receiver's buffers (including a DCT plan
// cached per size), so refilling a series of the same size allocates
// nothing. A Series must not be used by more than one goroutine at a time.
type Series struct {
	a, b     float64
	mid, inv float64   // t = (x − mid)·inv maps [a,b] to [−1,1]
	c        []float64 // coefficients c_0..c_n; len(c) == n+1, 0 when empty

	dct     *fourier.DCT // DCT-I plan, reused while the size does not change
	scratch []float64    // work space for aliasing-safe Mul and Antiderivative
	rev     []float64    // Mul: the second factor reversed
	nodes   []float64    // FitFunc: nodes
	vals    []float64    // FitFunc: values at nodes
}

// New returns a series on [a,b] with a copy of the given coefficients,
// coeffs[k] multiplying T_k. It returns an error if the interval is invalid
// (see [Points]), coeffs is empty, or a coefficient is not finite.
func New(a, b float64, coeffs []float64) (*Series, error) {
	var s Series
	if err := s.SetCoeffs(a, b, coeffs); err != nil {
		return nil, err
	}
	return &s, nil
}

// NewFromValues returns the degree-m interpolant on [a,b] of the values
// f_j = f(x_j) at the m+1 Chebyshev points of the second kind returned by
// [Points], m = len(values)−1. See [Series.Fit].
func NewFromValues(a, b float64, values []float64) (*Series, error) {
	var s Series
	if err := s.Fit(a, b, values); err != nil {
		return nil, err
	}
	return &s, nil
}

// NewFromFunc returns the degree-m interpolant of f on [a,b] at the m+1
// Chebyshev points of the second kind. See [Series.FitFunc].
func NewFromFunc(a, b float64, m int, f func(x float64) float64) (*Series, error) {
	var s Series
	if err := s.FitFunc(a, b, m, f); err != nil {
		return nil, err
	}
	return &s, nil
}

// Interval returns the interval [a,b] of the series (0, 0 when empty).
func (s *Series) Interval() (a, b float64) { return s.a, s.b }

// Degree returns the degree n of the series, the index of its last stored
// coefficient (which may be zero), or −1 if the series is empty.
func (s *Series) Degree() int { return len(s.c) - 1 }

// Coeffs returns the coefficients c_0..c_n. The slice aliases the series'
// storage: it is valid until the next call that refills the series, and
// writing to it changes the series.
func (s *Series) Coeffs() []float64 { return s.c }

// SetCoeffs sets s to the series on [a,b] with a copy of coeffs, reusing
// the receiver's storage. It returns an error if the interval is invalid,
// coeffs is empty, or a coefficient is not finite; s is then left empty.
func (s *Series) SetCoeffs(a, b float64, coeffs []float64) error {
	s.c = s.c[:0]
	if err := checkInterval(a, b); err != nil {
		return err
	}
	if len(coeffs) == 0 {
		return errors.New("chebyshev: no coefficients")
	}
	for k, c := range coeffs {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("chebyshev: coefficient %d is %v", k, c)
		}
	}
	s.setInterval(a, b)
	s.c = resize(s.c, len(coeffs))
	copy(s.c, coeffs)
	return nil
}

// Copy sets s to a copy of src, reusing the receiver's storage.
func (s *Series) Copy(src *Series) {
	if s == src {
		return
	}
	s.setInterval(src.a, src.b)
	s.c = resize(s.c, len(src.c))
	copy(s.c, src.c)
}

// Fit sets s to the degree-m interpolant on [a,b] of values, where
// values[j] is the function's value at the Chebyshev point of the second kind
// x_j = (a+b)/2 + (b−a)/2·cos(jπ/m), j = 0..m, m = len(values)−1 (so values[0]
// belongs to b and values[m] to a; see [Points]).
//
// The coefficients are
//
//	c_k = (2/m) Σ''_{j=0}^{m} f_j cos(jkπ/m),  k = 0..m,
//
// with the first and last terms of the sum halved, and c_0 and c_m halved
// afterwards. They are computed by one DCT-I (gonum's [fourier.DCT], which
// returns twice the double-primed sum) in O(m log m) operations when m is a
// product of small primes.
//
// Fit returns an error if m < 1, the interval is invalid, or a value is NaN
// or infinite; s is then left empty. Refitting a series with the same m
// allocates nothing.
func (s *Series) Fit(a, b float64, values []float64) error {
	s.c = s.c[:0]
	if err := checkInterval(a, b); err != nil {
		return err
	}
	m := len(values) - 1
	if m < 1 {
		return fmt.Errorf("chebyshev: need at least 2 values (degree m ≥ 1), have %d", len(values))
	}
	for j, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("chebyshev: value %d (at x=%g) is %v", j, node(j, m, a, b), v)
		}
	}
	s.setInterval(a, b)
	s.c = resize(s.c, m+1)
	s.transform(s.c, values)
	return nil
}

// transform writes the Chebyshev coefficients of the values at the m+1
// second-kind points into dst (len(dst) == len(values) == m+1 ≥ 2).
func (s *Series) transform(dst, values []float64) {
	n := len(values)
	m := n - 1
	if s.dct == nil {
		s.dct = fourier.NewDCT(n)
	} else if s.dct.Len() != n {
		s.dct.Reset(n)
	}
	// fourier.DCT computes X_k = f_0 + (−1)^k f_m + 2 Σ_{j=1}^{m−1} f_j cos(jkπ/m),
	// which is 2·Σ''; so c_k = X_k/m, with c_0 and c_m halved.
	s.dct.Transform(dst, values)
	scale := 1 / float64(m)
	for k := range dst {
		dst[k] *= scale
	}
	dst[0] *= 0.5
	dst[m] *= 0.5
}

// FitFunc sets s to the degree-m interpolant of f on [a,b]: it evaluates f
// once at each of the m+1 points of [Points] and calls [Series.Fit]. It
// returns an error if m < 1, the interval is invalid, or f returns NaN or
// an infinity at a node. Refitting with the same m allocates nothing beyond
// what f allocates.
func (s *Series) FitFunc(a, b float64, m int, f func(x float64) float64) error {
	s.c = s.c[:0]
	if m < 1 {
		return fmt.Errorf("chebyshev: degree m = %d, need m ≥ 1", m)
	}
	if f == nil {
		return errors.New("chebyshev: nil function")
	}
	nodes, err := Points(s.nodes, m, a, b)
	if err != nil {
		return err
	}
	s.nodes = nodes
	s.vals = resize(s.vals, m+1)
	for j, x := range nodes {
		s.vals[j] = f(x)
	}
	return s.Fit(a, b, s.vals)
}

// FitAdaptive sets s to a Chebyshev approximation of f on [a,b] whose degree
// is chosen the way Chebfun chooses it: f is interpolated at 17, 33, 65, …
// points (degree 16, 32, 64, …, and finally maxDegree) until [StandardChop]
// finds a plateau of coefficients at relative level tol; the series is then
// chopped there. tol = 2.220446049250313e-16 (machine epsilon) asks for full
// double precision.
//
// It returns an error if the interval is invalid, tol is not in (0,1),
// maxDegree < 16, f returns a non-finite value, or f is not resolved by degree
// maxDegree (s then holds the degree-maxDegree interpolant).
func (s *Series) FitAdaptive(a, b float64, f func(x float64) float64, tol float64, maxDegree int) error {
	s.c = s.c[:0]
	if err := checkTol(tol); err != nil {
		return err
	}
	if maxDegree < 16 {
		return fmt.Errorf("chebyshev: maxDegree = %d, need ≥ 16", maxDegree)
	}
	for m := 16; ; m *= 2 {
		if m > maxDegree {
			m = maxDegree
		}
		if err := s.FitFunc(a, b, m, f); err != nil {
			return err
		}
		if ok, _ := s.Chop(tol); ok {
			return nil
		}
		if m == maxDegree {
			return fmt.Errorf("chebyshev: function not resolved to tol=%g by degree %d on [%g,%g]", tol, maxDegree, a, b)
		}
	}
}

// Eval returns p(x) by Clenshaw's recurrence
//
//	b_k = c_k + 2t·b_{k+1} − b_{k+2},  p = c_0 + t·b_1 − b_2,
//
// in O(n) operations. Points outside [a,b] are evaluated by the same
// polynomial (extrapolation). The empty series evaluates to 0.
func (s *Series) Eval(x float64) float64 {
	if len(s.c) == 0 {
		return 0
	}
	return clenshaw(s.c, s.ref(x))
}

// EvalTo sets dst[i] = p(x[i]) and returns dst. If dst is nil a new slice is
// allocated; otherwise it must have the length of x (EvalTo panics if not,
// as the gonum and standard library functions it imitates do). Points are
// evaluated four at a time with interleaved recurrences, which on current
// CPUs costs little more than evaluating one: Clenshaw's recurrence is
// bound by the latency of its dependency chain, not by arithmetic.
func (s *Series) EvalTo(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	if len(dst) != len(x) {
		panic("chebyshev: EvalTo length mismatch")
	}
	if len(s.c) == 0 {
		for i := range dst {
			dst[i] = 0
		}
		return dst
	}
	i := 0
	for ; i+4 <= len(x); i += 4 {
		dst[i], dst[i+1], dst[i+2], dst[i+3] = clenshaw4(s.c, s.ref(x[i]), s.ref(x[i+1]), s.ref(x[i+2]), s.ref(x[i+3]))
	}
	for ; i < len(x); i++ {
		dst[i] = clenshaw(s.c, s.ref(x[i]))
	}
	return dst
}

// setInterval sets [a,b] and the affine map to [−1,1].
func (s *Series) setInterval(a, b float64) {
	h := (b - a) / 2
	s.a, s.b, s.mid, s.inv = a, b, a+h, 1/h
}

// ref maps x in [a,b] to t in [−1,1].
func (s *Series) ref(x float64) float64 { return (x - s.mid) * s.inv }

// clenshaw evaluates Σ c_k T_k(t), len(c) ≥ 1.
func clenshaw(c []float64, t float64) float64 {
	var b1, b2 float64
	t2 := 2 * t
	for k := len(c) - 1; k >= 1; k-- {
		b1, b2 = c[k]+t2*b1-b2, b1
	}
	return c[0] + t*b1 - b2
}

// clenshaw4 evaluates Σ c_k T_k at four points with interleaved recurrences.
func clenshaw4(c []float64, t0, t1, t2, t3 float64) (p0, p1, p2, p3 float64) {
	var a0, a1, a2, a3 float64 // b_{k+1}
	var b0, b1, b2, b3 float64 // b_{k+2}
	u0, u1, u2, u3 := 2*t0, 2*t1, 2*t2, 2*t3
	for k := len(c) - 1; k >= 1; k-- {
		ck := c[k]
		a0, b0 = ck+u0*a0-b0, a0
		a1, b1 = ck+u1*a1-b1, a1
		a2, b2 = ck+u2*a2-b2, a2
		a3, b3 = ck+u3*a3-b3, a3
	}
	c0 := c[0]
	return c0 + t0*a0 - b0, c0 + t1*a1 - b1, c0 + t2*a2 - b2, c0 + t3*a3 - b3
}

// Integral returns the definite integral ∫_a^b p(x) dx in closed form,
//
//	∫_a^b p = (b−a)/2 · Σ_{k even} c_k · 2/(1−k²).
//
// The empty series integrates to 0.
func (s *Series) Integral() float64 {
	var sum float64
	for k := 0; k < len(s.c); k += 2 {
		kf := float64(k)
		sum += s.c[k] * 2 / (1 - kf*kf)
	}
	return sum * (s.b - s.a) / 2
}

// Antiderivative sets s to the antiderivative P(x) = ∫_a^x p(y) dy of src,
// a series of degree n+1 on the same interval with P(a) = 0. It follows
//
//	∫T_k = T_{k+1}/(2(k+1)) − T_{k−1}/(2(k−1)),
//
// so P has coefficients C_k = (b−a)/2 · (c_{k−1} − c_{k+1})/(2k) for k ≥ 2,
// C_1 = (b−a)/2 · (c_0 − c_2/2), and C_0 fixed by P(a) = 0. s may be src.
// It returns an error if src is empty; s is then left empty.
func (s *Series) Antiderivative(src *Series) error {
	n := len(src.c) - 1
	if n < 0 {
		s.c = s.c[:0]
		return errors.New("chebyshev: antiderivative of an empty series")
	}
	in := src.c
	if s == src {
		s.scratch = resize(s.scratch, n+1)
		copy(s.scratch, src.c)
		in = s.scratch
	}
	coef := func(k int) float64 {
		if k > n {
			return 0
		}
		return in[k]
	}
	s.setInterval(src.a, src.b)
	s.c = resize(s.c, n+2)
	h := (s.b - s.a) / 2
	for k := n + 1; k >= 2; k-- {
		s.c[k] = h * (coef(k-1) - coef(k+1)) / float64(2*k)
	}
	s.c[1] = h * (in[0] - coef(2)/2)
	// P(a) = P(t=−1) = Σ C_k (−1)^k = 0.
	var alt float64
	for k := n + 1; k >= 1; k-- {
		if k%2 == 0 {
			alt += s.c[k]
		} else {
			alt -= s.c[k]
		}
	}
	s.c[0] = -alt
	return nil
}

// Mul sets s to the product x·y, a series of degree deg(x)+deg(y) on the
// common interval, using T_i·T_j = (T_{i+j} + T_{|i−j|})/2 in
// O(deg(x)·deg(y)) operations. s may be x or y (or both, to square a
// series). It returns an error if x or y is empty or their intervals
// differ; s is then left empty.
func (s *Series) Mul(x, y *Series) error {
	if len(x.c) == 0 || len(y.c) == 0 {
		s.c = s.c[:0]
		return errors.New("chebyshev: product with an empty series")
	}
	if x.a != y.a || x.b != y.b {
		s.c = s.c[:0]
		return fmt.Errorf("chebyshev: product of series on different intervals [%g,%g] and [%g,%g]", x.a, x.b, y.a, y.b)
	}
	nx, ny := len(x.c), len(y.c)
	n := nx + ny - 1
	// Work in scratch so that s may alias x or y.
	s.scratch = resize(s.scratch, n)
	out := s.scratch
	for k := range out {
		out[k] = 0
	}
	// Each pair (i,j) contributes x_i·y_j/2 to out[i+j] and to out[|i−j|].
	// Gathered by output index, every sum is a dot product of contiguous runs:
	//   2·out[k] = Σ_{i+j=k} x_i y_j (x against y reversed)
	//            + Σ_{i≥k} x_i y_{i−k} + [k>0] Σ_i x_i y_{i+k}.
	s.rev = resize(s.rev, ny)
	yr := s.rev
	for j, yj := range y.c {
		yr[ny-1-j] = yj
	}
	xc, yc := x.c, y.c
	for k := range out {
		lo, hi := max(0, k-ny+1), min(k, nx-1)
		sum := floats.Dot(xc[lo:hi+1], yr[ny-1-k+lo:ny-k+hi])
		if k < nx {
			m := min(nx-k, ny)
			sum += floats.Dot(xc[k:k+m], yc[:m])
		}
		if k > 0 && k < ny {
			m := min(nx, ny-k)
			sum += floats.Dot(xc[:m], yc[k:k+m])
		}
		out[k] = sum / 2
	}
	s.setInterval(x.a, x.b)
	s.c = resize(s.c, n)
	copy(s.c, out)
	return nil
}

// Chop trims the trailing coefficients of s that [StandardChop] finds to lie
// on a plateau of relative size tol, and reports whether such a plateau was
// found (the series is "resolved" to tol). When it is not, s is unchanged.
// Chop returns an error, leaving s unchanged, if tol is not in (0,1).
// It allocates nothing once s has been used for a fit or product of its size.
func (s *Series) Chop(tol float64) (resolved bool, err error) {
	if err := checkTol(tol); err != nil {
		return false, err
	}
	s.scratch = resize(s.scratch, len(s.c))
	n, ok := standardChop(s.c, tol, s.scratch)
	if ok {
		s.c = s.c[:n]
	}
	return ok, nil
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

func checkInterval(a, b float64) error {
	if err := CheckInterval(a, b); err != nil {
		return fmt.Errorf("chebyshev: %w", err)
	}
	return nil
}

// CheckInterval reports why [a, b] cannot carry an interpolant or a
// density: an endpoint not finite, a ≥ b, or a width that overflows
// (without a package prefix: callers add theirs).
func CheckInterval(a, b float64) error {
	switch {
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return fmt.Errorf("interval [%g,%g] is not finite", a, b)
	case !(a < b):
		return fmt.Errorf("interval [%g,%g] needs a < b", a, b)
	case math.IsInf(b-a, 0):
		return fmt.Errorf("interval [%g,%g] is too wide (b−a overflows)", a, b)
	}
	return nil
}

func checkTol(tol float64) error {
	if !(tol > 0 && tol < 1) {
		return fmt.Errorf("chebyshev: tolerance %g not in (0,1)", tol)
	}
	return nil
}
