package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// poissonCells returns the cells of a chi-square test of n draws against
// Poisson(mu): cell j holds the values [edges[j], edges[j+1]), the last
// one [edges[len-1], ∞), with probability probs[j]. Cells are pooled from
// the left until each expects at least 5 draws; the remainder joins the
// last cell.
//
// The probabilities are sums of the pmf over the values of each cell,
// computed by the recurrence p_{k±1} = p_k·mean/(k+1) or ·k/mean from
// gonum's distuv.Poisson.Prob at the mode and normalised (beyond 20σ the
// mass is below 1e−80 and is left out): exact to about 1e−10, and
// independent of the log-probabilities PTRS computes. gonum's CDF would
// be simpler but is wrong in the upper tail at large means (v0.17: low by
// a factor 1.6 at 4.6σ for a mean of 1e8, 3.8 for 1e9, 7 for 4e9; right
// up to 4.4σ), which a test of 1e7 draws at mean 1e9 turns into a false
// rejection.
func poissonCells(mu float64, n int) (edges []int, probs []float64) {
	d := distuv.Poisson{Lambda: mu}
	s := math.Sqrt(mu)
	// Candidate edges: every value for small means, steps of σ/10 within
	// ±7σ for large ones.
	var cand []int
	if mu <= 200 {
		for k := 0; k <= int(mu+15*s+20); k++ {
			cand = append(cand, k)
		}
	} else {
		cand = append(cand, 0)
		for z := -7.0; z <= 7; z += 0.1 {
			if k := int(math.Round(mu + z*s)); k > cand[len(cand)-1] {
				cand = append(cand, k)
			}
		}
	}
	kmin, kmax := max(0, int(mu-20*s-20)), int(mu+20*s+20)
	pmf := make([]float64, kmax-kmin) // pmf[k-kmin] = P(K = k)
	mode := int(mu)
	pmf[mode-kmin] = d.Prob(float64(mode))
	for k := mode; k+1 < kmax; k++ {
		pmf[k+1-kmin] = pmf[k-kmin] * mu / float64(k+1)
	}
	for k := mode; k > kmin; k-- {
		pmf[k-1-kmin] = pmf[k-kmin] * float64(k) / mu
	}
	total := 0.0
	for _, p := range pmf {
		total += p
	}
	cellP := func(lo, hi int) float64 { // P(lo ≤ K < hi), hi < 0 for ∞
		if hi < 0 || hi > kmax {
			hi = kmax
		}
		p := 0.0
		for k := max(lo, kmin); k < hi; k++ {
			p += pmf[k-kmin]
		}
		return p / total
	}
	acc := 0.0
	start := cand[0]
	for j, lo := range cand {
		hi := -1
		if j+1 < len(cand) {
			hi = cand[j+1]
		}
		acc += cellP(lo, hi)
		if acc*float64(n) >= 5 && hi >= 0 {
			edges = append(edges, start)
			probs = append(probs, acc)
			acc, start = 0, hi
		}
	}
	if len(edges) == 0 {
		return []int{0}, []float64{1}
	}
	probs[len(probs)-1] += acc // the tail expecting fewer than 5
	return edges, probs
}

// poissonChiSquare draws n values from draw and returns the p-value of
// Pearson's statistic against Poisson(mu), with the number of cells.
func poissonChiSquare(mu float64, n int, draw func() int) (pv float64, cells int) {
	edges, probs := poissonCells(mu, n)
	obs := make([]float64, len(edges))
	for range n {
		k := draw()
		if k < 0 {
			return 0, len(edges)
		}
		obs[sort.SearchInts(edges, k+1)-1]++
	}
	stat := 0.0
	for j, p := range probs {
		e := p * float64(n)
		stat += (obs[j] - e) * (obs[j] - e) / e
	}
	if len(edges) < 2 {
		return 1, len(edges)
	}
	return distuv.ChiSquared{K: float64(len(edges) - 1)}.Survival(stat), len(edges)
}

// chiN is the sample size of every Poisson goodness-of-fit test, for the
// correct generators and the broken ones alike.
const chiN = 300000

var chiMeans = []float64{1e-3, 0.01, 0.1, 0.5, 1, 2.5, 5, 9.9, 10, 10.1, 15, 29.3, 100, 1e3, 1e4, 1e6, 1e9}

func TestPoissonChiSquare(t *testing.T) {
	for i, mu := range chiMeans {
		for _, via := range []string{"func", "gen"} {
			t.Run(fmt.Sprintf("mean=%g/via=%s", mu, via), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(i)+100, uint64(len(via))))
				draw := func() int { return Poisson(r, mu) }
				if via == "gen" {
					g := NewPoissonGen(mu)
					draw = func() int { return g.Rand(r) }
				}
				pv, cells := poissonChiSquare(mu, chiN, draw)
				if pv < 1e-4 {
					t.Errorf("chi-square p = %.3g over %d cells: draws do not follow Poisson(%g)", pv, cells, mu)
				}
				t.Logf("p = %.3g, %d cells", pv, cells)
			})
		}
	}
}

// TestPoissonBroken shows that TestPoissonChiSquare's check, at the same
// sample size, rejects generators with one constant perturbed:
//   - inversion whose recurrence p_{k+1} = p_k·mean/(k+1) uses a mean 2% low
//     (with p0 = e^{−mean} kept; perturbing p0 alone would go unseen, as
//     the restart of a search that overruns renormalises the result);
//   - PTRS with a hat 10% too low (invAlpha), or a squeeze that accepts
//     points above the distribution without looking at it (vr).
//
// PTRS is transformed rejection, exact for any transformation whose hat
// dominates the distribution: perturbing a, b or the shift 0.43 by a few
// percent leaves it exact (a scan found p-values spread on (0, 1)), so
// those are not bugs the check should, or could, see.
func TestPoissonBroken(t *testing.T) {
	tests := []struct {
		name   string
		mu     float64
		break_ func(g *PoissonGen)
	}{
		{"inversion/mean*0.98", 1, func(g *PoissonGen) { g.mean *= 0.98 }},
		{"inversion/mean*0.98", 5, func(g *PoissonGen) { g.mean *= 0.98 }},
		{"inversion/mean*0.98", 9.9, func(g *PoissonGen) { g.mean *= 0.98 }},
		{"ptrs/invAlpha*0.9", 10, func(g *PoissonGen) { g.alphab *= 0.9 }},
		{"ptrs/invAlpha*0.9", 30, func(g *PoissonGen) { g.alphab *= 0.9 }},
		{"ptrs/invAlpha*0.9", 1e3, func(g *PoissonGen) { g.alphab *= 0.9 }},
		{"ptrs/invAlpha*0.9", 1e6, func(g *PoissonGen) { g.alphab *= 0.9 }},
		{"ptrs/invAlpha*0.9", 1e9, func(g *PoissonGen) { g.alphab *= 0.9 }},
		{"ptrs/vr*2", 10, func(g *PoissonGen) { g.vrb *= 2 }},
		{"ptrs/vr*1.1", 1e3, func(g *PoissonGen) { g.vrb *= 1.1 }},
		{"ptrs/vr*1.1", 1e9, func(g *PoissonGen) { g.vrb *= 1.1 }},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s/mean=%g", tt.name, tt.mu), func(t *testing.T) {
			g := NewPoissonGen(tt.mu)
			tt.break_(&g)
			r := rand.New(rand.NewPCG(uint64(i)+200, 7))
			pv, cells := poissonChiSquare(tt.mu, chiN, func() int { return g.Rand(r) })
			if pv >= 1e-4 {
				t.Errorf("a broken generator passed: chi-square p = %.3g over %d cells", pv, cells)
			}
			t.Logf("p = %.3g, %d cells", pv, cells)
		})
	}
}

// TestPoissonHugeMeans checks loosely that means up to MaxMean draw finite
// non-negative values of the right mean and variance, quickly.
func TestPoissonHugeMeans(t *testing.T) {
	const n = 100000
	for i, mu := range []float64{1e12, 1e15} {
		for _, via := range []string{"func", "gen"} {
			r := rand.New(rand.NewPCG(uint64(i)+300, 7))
			g := NewPoissonGen(mu)
			sum, sumSq := 0.0, 0.0
			for range n {
				var k int
				if via == "gen" {
					k = g.Rand(r)
				} else {
					k = Poisson(r, mu)
				}
				if k < 0 {
					t.Fatalf("mean %g via %s: negative draw %d", mu, via, k)
				}
				d := float64(k) - mu // exact: both below 2⁵³
				sum += d
				sumSq += d * d
			}
			m := sum / n
			v := sumSq/n - m*m
			if math.Abs(m) > 5*math.Sqrt(mu/n) {
				t.Errorf("mean %g via %s: sample mean off by %g (σ/√n = %g)", mu, via, m, math.Sqrt(mu/n))
			}
			if math.Abs(v/mu-1) > 0.05 {
				t.Errorf("mean %g via %s: variance/mean = %g, want 1", mu, via, v/mu)
			}
		}
	}
}

// TestPoissonSharedCode: the function and the generator are one
// implementation, so they give the same draws from the same stream.
func TestPoissonSharedCode(t *testing.T) {
	for _, mu := range []float64{0, -1, 1e-3, 0.1, 0.5, 3, 9.99, 10, 77, 1e7, MaxMean} {
		r1 := rand.New(rand.NewPCG(1, 2))
		r2 := rand.New(rand.NewPCG(1, 2))
		g := NewPoissonGen(mu)
		for i := range 20000 {
			if a, b := Poisson(r1, mu), g.Rand(r2); a != b {
				t.Fatalf("mean %g, draw %d: Poisson %d, PoissonGen %d", mu, i, a, b)
			}
		}
		if mu <= 0 {
			if r1.Uint64() != rand.New(rand.NewPCG(1, 2)).Uint64() {
				t.Errorf("mean %g: a zero draw consumed randomness", mu)
			}
		}
	}
}

// TestExpNegApprox checks the error bound inversionApprox relies on.
func TestExpNegApprox(t *testing.T) {
	worst := 0.0
	for x := 0.0; x < ptrsMin; x += 0.000123 {
		e := math.Exp(-x)
		worst = max(worst, math.Abs(expNegApprox(x)-e)/e)
	}
	for x := 1e-300; x < 1; x *= 1.01 {
		e := math.Exp(-x)
		worst = max(worst, math.Abs(expNegApprox(x)-e)/e)
	}
	if worst > 1.6e-7 {
		t.Errorf("expNegApprox: relative error up to %g, want below 1.6e-7", worst)
	}
	if approxMargin < 5*1.6e-7 {
		t.Errorf("approxMargin %g is not comfortably above the error 1.6e-7", approxMargin)
	}
	t.Logf("worst relative error %.3g", worst)
}

// TestInversionFallback: a search from a p0 off by 1e−3, trusted only with
// a margin of 4e−3 (so that a few percent of draws fall back to the exact
// search), gives exactly the generator's draws.
func TestInversionFallback(t *testing.T) {
	for _, mu := range []float64{1e-3, 0.3, 2, 9.5} {
		g := NewPoissonGen(mu)
		r1, r2 := rand.New(rand.NewPCG(5, 5)), rand.New(rand.NewPCG(5, 5))
		for _, off := range []float64{1 - 1e-3, 1 + 1e-3} {
			for i := range 20000 {
				if a, b := inversionFrom(r1, mu, math.Exp(-mu)*off, 4e-3), g.Rand(r2); a != b {
					t.Fatalf("mean %g, p0 off by %g, draw %d: %d, want %d", mu, off, i, a, b)
				}
			}
		}
	}
}

func TestPoissonBadMean(t *testing.T) {
	for _, mu := range []float64{math.NaN(), math.Inf(1), 2 * MaxMean} {
		for _, f := range []func(){
			func() { NewPoissonGen(mu) },
			func() { Poisson(rand.New(rand.NewPCG(1, 1)), mu) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("mean %v: no panic", mu)
					}
				}()
				f()
			}()
		}
	}
}

// TestLogPoissonPieces checks the pieces of PTRS's acceptance test against
// math.Lgamma and direct formulas where those are accurate.
func TestLogPoissonPieces(t *testing.T) {
	sumLog := 0.0 // log k! as a sum of logarithms
	for k, lf := range logFactorial {
		if k > 0 {
			sumLog += math.Log(float64(k))
		}
		if math.Abs(lf-sumLog) > 1e-13*max(1, sumLog) {
			t.Errorf("logFactorial[%d] = %v, want %v", k, lf, sumLog)
		}
	}
	for _, k := range []float64{10, 11, 17, 100, 1e4, 1e8} {
		lg, _ := math.Lgamma(k + 1)
		want := lg - (k+0.5)*math.Log(k) + k - 0.5*math.Log(2*math.Pi)
		if got := stirlingErr(k); math.Abs(got-want) > 1e-13*max(1, lg)+1e-15 {
			t.Errorf("stirlingErr(%g) = %v, want %v", k, got, want)
		}
	}
	for _, c := range [][2]float64{{10, 10}, {12, 10}, {9, 10}, {30, 10}, {1e6 + 3000, 1e6}, {1e6 - 10, 1e6}, {5e5, 1e6}} {
		x, m := c[0], c[1]
		want := x*math.Log(x/m) + m - x
		if got := bd0(x, m); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("bd0(%g, %g) = %v, want %v", x, m, got, want)
		}
	}
	// Where the direct formula cancels: bd0(m+d, m) ≈ d²/(2m) − d³/(6m²).
	m, d := 1e15, 3e7
	want := d*d/(2*m) - d*d*d/(6*m*m) + d*d*d*d/(12*m*m*m)
	if got := bd0(m+d, m); math.Abs(got-want) > 1e-14*want {
		t.Errorf("bd0(1e15+3e7, 1e15) = %.17g, want %.17g", got, want)
	}
}

func TestThreshold(t *testing.T) {
	tests := []struct {
		p    float64
		want uint64
	}{
		{-1, 0}, {0, 0}, {math.NaN(), 0}, {0x1p-64, 1}, {0x1p-65, 0}, {0.25, 1 << 62}, {0.5, 1 << 63},
		{0.75, 3 << 62}, {1 - 0x1p-53, math.MaxUint64 - (1 << 11) + 1}, {1, math.MaxUint64}, {2, math.MaxUint64},
	}
	for _, tt := range tests {
		if got := Threshold(tt.p); got != tt.want {
			t.Errorf("Threshold(%v) = %#x, want %#x", tt.p, got, tt.want)
		}
	}
	// Frequency: r.Uint64() < Threshold(p) with probability p.
	r := rand.New(rand.NewPCG(4, 4))
	for _, p := range []float64{1e-3, 0.3, 0.999} {
		th, hit := Threshold(p), 0
		const n = 200000
		for range n {
			if r.Uint64() < th {
				hit++
			}
		}
		if got := float64(hit) / n; math.Abs(got-p) > 5*math.Sqrt(p*(1-p)/n) {
			t.Errorf("Threshold(%v): frequency %v", p, got)
		}
	}
}

func BenchmarkPoisson(b *testing.B) {
	for _, mu := range []float64{0.01, 1, 7, 30, 1e3, 1e6} {
		b.Run(fmt.Sprintf("mean=%g/impl=gen", mu), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			g := NewPoissonGen(mu)
			s := 0
			b.ReportAllocs()
			for b.Loop() {
				s += g.Rand(r)
			}
			sinkInt = s
		})
		b.Run(fmt.Sprintf("mean=%g/impl=func", mu), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			s := 0
			b.ReportAllocs()
			for b.Loop() {
				s += Poisson(r, mu)
			}
			sinkInt = s
		})
		b.Run(fmt.Sprintf("mean=%g/impl=gonum", mu), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			d := distuv.Poisson{Lambda: mu, Src: r}
			s := 0.0
			b.ReportAllocs()
			for b.Loop() {
				s += d.Rand()
			}
			sinkInt = int(s)
		})
	}
}

var sinkInt int
