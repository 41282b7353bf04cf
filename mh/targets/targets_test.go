package targets_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

func rng(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

type glm interface {
	mh.Target
	mh.LocalBounder
	mh.ControlVariates
}

func models(t *testing.T) map[string]glm {
	reg, err := targets.GenerateRobustLinear(50, 3, 4, rng(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	lr, _, err := targets.GenerateLogistic(50, 3, rng(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	regC, _ := targets.GenerateRobustLinear(50, 3, 4, rng(1, 2))
	regC.Bound = targets.Cornish
	lrC, _, _ := targets.GenerateLogistic(50, 3, rng(3, 4))
	lrC.Bound = targets.Cornish
	return map[string]glm{"rlr": reg, "logistic": lr, "rlr-cornish": regC, "logistic-cornish": lrC}
}

func randVec(r *rand.Rand, d int, s float64) []float64 {
	v := make([]float64, d)
	for j := range v {
		v[j] = 1 + s*r.NormFloat64()
	}
	return v
}

// TestDerivatives compares gradients and Hessians with central differences.
func TestDerivatives(t *testing.T) {
	r := rng(5, 6)
	for name, m := range models(t) {
		d := m.Dim()
		g := make([]float64, d)
		h := make([]float64, d*d)
		g2 := make([]float64, d)
		for range 20 {
			th := randVec(r, d, 1)
			i := r.IntN(m.N())
			m.GradLogLik(g, i, th)
			m.HessLogLik(h, i, th)
			for j := range d {
				const e = 1e-5
				p, q := append([]float64(nil), th...), append([]float64(nil), th...)
				p[j] += e
				q[j] -= e
				fd := (m.LogLik(i, p) - m.LogLik(i, q)) / (2 * e)
				if math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(g[j])) {
					t.Fatalf("%s: gradient %d: %v, finite difference %v", name, j, g[j], fd)
				}
				m.GradLogLik(g2, i, p)
				m.GradLogLik(g, i, q)
				for k := range d {
					fd := (g2[k] - g[k]) / (2 * e)
					if math.Abs(fd-h[j*d+k]) > 1e-5*(1+math.Abs(h[j*d+k])) {
						t.Fatalf("%s: Hessian (%d,%d): %v, finite difference %v", name, j, k, h[j*d+k], fd)
					}
				}
				m.GradLogLik(g, i, th)
			}
		}
	}
}

// TestBounds checks Assumption 1 and the control-variate remainder bounds
// on random triples (θ̂, θ, θ') at several scales, and that φ is symmetric.
func TestBounds(t *testing.T) {
	r := rng(7, 8)
	for name, m := range models(t) {
		d := m.Dim()
		g := make([]float64, d)
		h := make([]float64, d*d)
		worst := [3]float64{}
		for _, scale := range []float64{0.01, 0.3, 3} {
			for range 300 {
				ref, th, tp := randVec(r, d, scale), randVec(r, d, scale), randVec(r, d, scale)
				i := r.IntN(m.N())
				dl := m.LogLik(i, tp) - m.LogLik(i, th)
				if b := m.LocalBound(i) * m.Distance(th, tp); math.Abs(dl) > b*(1+1e-12) {
					t.Fatalf("%s: |Δℓ| = %v > c·M = %v", name, math.Abs(dl), b)
				} else {
					worst[0] = max(worst[0], math.Abs(dl)/b)
				}
				m.GradLogLik(g, i, ref)
				m.HessLogLik(h, i, ref)
				cv1, cv2 := 0.0, 0.0
				for a := range d {
					cv1 += g[a] * (tp[a] - th[a])
					for b := range d {
						cv2 += 0.5 * h[a*d+b] * ((tp[a]-ref[a])*(tp[b]-ref[b]) - (th[a]-ref[a])*(th[b]-ref[b]))
					}
				}
				for order, rem := range []float64{dl - cv1, dl - cv1 - cv2} {
					order++
					phi := m.RemainderScale(order, ref, th, tp)
					if back := m.RemainderScale(order, ref, tp, th); math.Abs(back-phi) > 1e-12*phi {
						t.Fatalf("%s: φ^(%d) not symmetric: %v vs %v", name, order, phi, back)
					}
					b := m.RemainderBound(order, i) * phi
					if math.Abs(rem) > b*(1+1e-9)+1e-13 {
						t.Fatalf("%s: order %d remainder %v exceeds bound %v", name, order, rem, b)
					}
					worst[order] = max(worst[order], math.Abs(rem)/b)
				}
			}
		}
		t.Logf("%s: largest |value|/bound: Lipschitz %.3f, order 1 %.3f, order 2 %.3f", name, worst[0], worst[1], worst[2])
	}
}

// TestGLMConstants checks the closed-form sup|ℓ″|, sup|ℓ‴| of the
// Student-t likelihood against a dense search over residuals.
func TestGLMConstants(t *testing.T) {
	const nu = 4.0
	// ℓ(η) = −((ν+1)/2) log(1 + (y−η)²/ν) with x = 1, y = 0, θ = η.
	m, err := targets.NewRobustLinear([]float64{1}, []float64{0}, 1, nu)
	if err != nil {
		t.Fatal(err)
	}
	s1, s3 := 0.0, 0.0
	h := make([]float64, 1)
	const e = 1e-4
	for eta := -20.0; eta <= 20; eta += 1e-4 {
		m.HessLogLik(h, 0, []float64{eta})
		s1 = max(s1, math.Abs(h[0]))
		m.HessLogLik(h, 0, []float64{eta + e})
		hp := h[0]
		m.HessLogLik(h, 0, []float64{eta - e})
		s3 = max(s3, math.Abs(hp-h[0])/(2*e))
	}
	if c := m.RemainderBound(1, 0); c < s1 || c > s1*(1+1e-6) {
		t.Errorf("L1 = %v, dense search %v", c, s1)
	}
	if c := m.RemainderBound(2, 0); c < s3*(1-1e-6) || c > s3*(1+1e-5) {
		t.Errorf("L2 = %v, dense search %v", c, s3)
	}
	if c := m.LocalBound(0); math.Abs(c-(nu+1)/(2*math.Sqrt(nu))) > 1e-15 {
		t.Errorf("c = %v, want (ν+1)/(2√ν)", c)
	}
}

// TestRanges checks the exact box ranges of robust regression by sampling.
func TestRanges(t *testing.T) {
	m, _ := targets.GenerateRobustLinear(30, 2, 4, rng(9, 10))
	if lo, hi := m.LogLikRange(0); !math.IsInf(lo, -1) || hi != 0 {
		t.Fatalf("range without a box: [%v, %v]", lo, hi)
	}
	lo, hi := []float64{-1, 0}, []float64{2, 3}
	if err := m.SetBox(lo, hi); err != nil {
		t.Fatal(err)
	}
	r := rng(11, 12)
	for i := range m.N() {
		a, b := m.LogLikRange(i)
		mn, mx := math.Inf(1), math.Inf(-1)
		for range 20000 {
			th := []float64{lo[0] + 3*r.Float64(), lo[1] + 3*r.Float64()}
			v := m.LogLik(i, th)
			mn, mx = min(mn, v), max(mx, v)
		}
		// Corners attain the minimum.
		for _, c := range [][]float64{{-1, 0}, {-1, 3}, {2, 0}, {2, 3}} {
			mn = min(mn, m.LogLik(i, c))
		}
		if mn < a-1e-12 || mx > b+1e-12 {
			t.Fatalf("datum %d: sampled [%v, %v] outside declared [%v, %v]", i, mn, mx, a, b)
		}
		if mn-a > 1e-12 || b-mx > 1e-2*(b-a) {
			t.Fatalf("datum %d: declared [%v, %v] not tight (sampled [%v, %v])", i, a, b, mn, mx)
		}
	}
	if err := m.SetBox([]float64{1}, []float64{2}); err == nil {
		t.Error("box of wrong dimension accepted")
	}
}

func TestMode(t *testing.T) {
	for name, m := range models(t) {
		mode := make([]float64, m.Dim())
		var err error
		switch m := m.(type) {
		case *targets.RobustLinear:
			err = m.Mode(mode)
		case *targets.Logistic:
			err = m.Mode(mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, m.Dim())
		sum := make([]float64, m.Dim())
		for i := range m.N() {
			m.GradLogLik(g, i, mode)
			for j, v := range g {
				sum[j] += v
			}
		}
		for j, v := range sum {
			if math.Abs(v) > 1e-6 {
				t.Errorf("%s: gradient at the mode has entry %d = %v", name, j, v)
			}
		}
	}
}

// TestJaakkolaJordan checks the logistic lower bound and its collapsed sum.
func TestJaakkolaJordan(t *testing.T) {
	m, _, _ := targets.GenerateLogistic(200, 4, rng(13, 14))
	r := rng(15, 16)
	for range 200 {
		th := randVec(r, 4, 2)
		sum := 0.0
		for i := range m.N() {
			b := m.LogLowerBound(i, th)
			if l := m.LogLik(i, th); b >= l {
				t.Fatalf("datum %d: bound %v ≥ log-likelihood %v", i, b, l)
			}
			sum += b
		}
		if s := m.SumLogLowerBound(th); math.Abs(s-sum) > 1e-9*math.Abs(sum) {
			t.Fatalf("collapsed sum %v, direct %v", s, sum)
		}
	}
}

// TestLazyWalk checks the bias example's proposal probabilities and ratio.
func TestLazyWalk(t *testing.T) {
	const k = 5
	w := targets.LazyWalk{K: k}
	r := rng(17, 18)
	const n = 400_000
	for from := range k {
		counts := map[int]int{}
		ratio := map[int]float64{}
		dst := []float64{0}
		for range n {
			lr := w.Propose(dst, []float64{float64(from)}, r)
			to := int(dst[0])
			counts[to]++
			ratio[to] = lr
		}
		for to, c := range counts {
			p := float64(c) / n
			want := 0.25
			if to == from || from == 0 || from == k-1 {
				want = 0.5
			}
			if math.Abs(p-want) > 0.005 {
				t.Errorf("q(%d|%d) ≈ %v, want %v", to, from, p, want)
			}
			back := 0.25
			if to == from || to == 0 || to == k-1 {
				back = 0.5
			}
			if wantR := math.Log(back / want); math.Abs(ratio[to]-wantR) > 1e-15 {
				t.Errorf("log ratio %d→%d = %v, want %v", from, to, ratio[to], wantR)
			}
		}
	}
	b, err := targets.NewBias(10)
	if err != nil {
		t.Fatal(err)
	}
	// Uniform posterior: Σ ℓ_i(θ) = 0 for every θ.
	for th := range 10 {
		s := 0.0
		for i := range b.N() {
			s += b.LogLik(i, []float64{float64(th)})
		}
		if math.Abs(s) > 1e-12 {
			t.Errorf("θ = %d: Σℓ = %v", th, s)
		}
	}
	if b.LogPrior([]float64{2.5}) != math.Inf(-1) || b.LogPrior([]float64{10}) != math.Inf(-1) {
		t.Error("non-integer or out-of-range θ in the support")
	}
}

func TestErrors(t *testing.T) {
	if _, err := targets.NewRobustLinear([]float64{1, 2}, []float64{1}, 1, 4); err == nil {
		t.Error("design of wrong size accepted")
	}
	if _, err := targets.NewRobustLinear([]float64{1}, []float64{1}, 1, 0); err == nil {
		t.Error("ν = 0 accepted")
	}
	if _, err := targets.NewRobustLinear([]float64{math.NaN()}, []float64{1}, 1, 4); err == nil {
		t.Error("NaN design accepted")
	}
	if _, err := targets.NewLogistic([]float64{1}, []float64{0.5}, 1); err == nil {
		t.Error("label 0.5 accepted")
	}
	if _, err := targets.NewBias(1); err == nil {
		t.Error("K = 1 accepted")
	}
}
