package mh_test

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
	"github.com/pgibbs/pgibbs/tgm"
)

// The measurements behind RESULTS.md; they take minutes, so they run only
// with -mh.results (go test ./mh -run TestResults -mh.results -v).
var results = flag.Bool("mh.results", false, "run the long measurements of RESULTS.md")

// batchMeansESS returns the effective sample size of x by batch means with
// 30 batches: n·var(x)/(b·var(batch means)), b = n/30.
func batchMeansESS(x []float64) float64 {
	const batches = 30
	b := len(x) / batches
	n := b * batches
	mean := 0.0
	for _, v := range x[:n] {
		mean += v
	}
	mean /= float64(n)
	v := 0.0
	for _, u := range x[:n] {
		v += (u - mean) * (u - mean)
	}
	v /= float64(n - 1)
	vb := 0.0
	for k := range batches {
		m := 0.0
		for _, u := range x[k*b : (k+1)*b] {
			m += u
		}
		m /= float64(b)
		vb += (m - mean) * (m - mean)
	}
	vb /= batches - 1
	return float64(n) * v / (float64(b) * vb)
}

func TestResultsTGM(t *testing.T) {
	if !*results {
		t.Skip("long measurement; run with -mh.results")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| sampler | step | other | accept | mean batch (3 seeds) | ± SE | ns/step |\n|---|---|---|---|---|---|---|\n")
	type run struct {
		name, other string
		o           mh.Options
		steps       int
	}
	init := []float64{0, 1}
	runs := []run{
		{"mh", "", mh.Options{Step: 0.3, Init: init}, 300},
		{"tfmh", "", mh.Options{Step: 2.2e-2, Init: init}, 200_000},
		{"flymc", "θ⁰ = 0, q = 0.01", mh.Options{Step: 1e-2, Init: init, Ref: []float64{0, 0}, QDarkToBright: 0.01}, 3000},
		{"flymc", "θ⁰ = (0,1) (MAP)", mh.Options{Step: 1e-2, Init: init, Ref: init, QDarkToBright: 0.01}, 3000},
		{"poissonmh", "λ = 500", mh.Options{Step: 0.1, Init: init, Lambda: 500}, 10_000},
		{"poissonmh", "λ = 3424", mh.Options{Step: 0.1, Init: init, Lambda: 3424}, 3000},
		{"tunamh", "χ = 1e-4", mh.Options{Step: 0.1, Init: init, Chi: 1e-4}, 200_000},
		{"smh1", "θ̂ = (0,1)", mh.Options{Step: 0.1, Init: init, Ref: init}, 5000},
	}
	for _, r := range runs {
		var batch []float64
		acc, ns := 0.0, 0.0
		for seed := range uint64(3) {
			m, err := tgm.Generate(tgm.MHConfig(), rng(200, seed))
			if err != nil {
				t.Fatal(err)
			}
			s, err := mh.New(r.name, m.Target(), rng(201, seed), &r.o)
			if err != nil {
				t.Fatal(err)
			}
			for range r.steps / 10 {
				s.Step()
			}
			before := s.Stats()
			start := time.Now()
			for range r.steps {
				s.Step()
			}
			el := time.Since(start)
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			st := s.Stats()
			n := float64(st.Steps - before.Steps)
			batch = append(batch, (st.Batch-before.Batch)/n)
			acc += float64(st.Accepted-before.Accepted) / n / 3
			ns += float64(el.Nanoseconds()) / n / 3
		}
		mean := (batch[0] + batch[1] + batch[2]) / 3
		sd := 0.0
		for _, b := range batch {
			sd += (b - mean) * (b - mean)
		}
		se := math.Sqrt(sd/2) / math.Sqrt(3)
		fmt.Fprintf(&out, "| %s | %g | %s | %.3f | %.2f | %.2f | %.0f |\n", r.name, r.o.Step, r.other, acc, mean, se, ns)
	}
	// The data-dependent constants.
	m, _ := tgm.Generate(tgm.MHConfig(), rng(200, 0))
	c := 0.0
	for i := range m.N() {
		c += m.LocalBound(i)
	}
	fmt.Fprintf(&out, "\nseed 0: C = Σc_i = %.2f, L = Σ(hi_i − lo_i) = %.2f\n", c, m.SumRanges())
	// Expected bright points of FlyMC (θ⁰ = 0) at the two modes.
	for _, th := range [][]float64{{0, 1}, {1, -1}} {
		e := 0.0
		for i := range m.N() {
			g1, g2 := m.Grad(i, 0, 0)
			lb := m.LogLik(i, 0, 0) + g1*th[0] + g2*th[1] - 0.5*m.SecondBound(i)*math.Pow(math.Abs(th[0])+math.Abs(th[1]), 2)
			e += -math.Expm1(lb - m.LogLik(i, th[0], th[1]))
		}
		fmt.Fprintf(&out, "FlyMC θ⁰ = 0: E[bright | θ = %v] = %.1f\n", th, e)
	}
	t.Log("\n" + out.String())
}

func TestResultsRLR(t *testing.T) {
	if !*results {
		t.Skip("long measurement; run with -mh.results")
	}
	const n, d = 100_000, 10
	reg, err := targets.GenerateRobustLinear(n, d, 4, rng(300, 1))
	if err != nil {
		t.Fatal(err)
	}
	mode := make([]float64, d)
	if err := reg.Mode(mode); err != nil {
		t.Fatal(err)
	}
	// V = (−Σ∇²ℓ_i(θ̂))⁻¹ for the preconditioned proposals of MH-SS.
	h := make([]float64, d*d)
	hi := make([]float64, d*d)
	for i := range n {
		reg.HessLogLik(hi, i, mode)
		for j := range h {
			h[j] -= hi[j]
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(mat.NewDense(d, d, h)); err != nil {
		t.Fatal(err)
	}
	cov := make([]float64, d*d)
	for a := range d {
		for b := range d {
			cov[a*d+b] = 0.5 * (inv.At(a, b) + inv.At(b, a))
		}
	}
	pre := func(lambda float64) mh.Proposal {
		p, err := mh.NewGaussianRW(lambda/math.Sqrt(d), cov, d)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	type run struct {
		name, label string
		o           mh.Options
		seconds     float64
		thin        int
	}
	runs := []run{
		{"mh", "MH, isotropic step 2.5e-3", mh.Options{Step: 2.5e-3}, 40, 1},
		{"mh", "MH, N(θ, (2.4²/d)V)", mh.Options{Proposal: pre(2.4)}, 40, 1},
		{"tunamh", "TunaMH, step 5e-5, χ = 1e-5", mh.Options{Step: 5e-5, Chi: 1e-5}, 40, 20},
		{"tunamh", "TunaMH, step 2.5e-5, χ = 1e-5", mh.Options{Step: 2.5e-5, Chi: 1e-5}, 40, 20},
		{"mhss1", "MH-SS-1, N(θ, (1.5²/d)V)", mh.Options{Proposal: pre(1.5)}, 40, 1},
		{"mhss2", "MH-SS-2, N(θ, (1.5²/d)V)", mh.Options{Proposal: pre(1.5)}, 40, 5},
		{"smh2", "SMH-2, N(θ, (2²/d)V)", mh.Options{Proposal: pre(2)}, 20, 5},
		{"tfmh", "TFMH, step 1e-5", mh.Options{Step: 1e-5}, 20, 100},
		{"flymc", "FlyMC-MAP, step 1e-3, q = 0.01", mh.Options{Step: 1e-3, QDarkToBright: 0.01}, 20, 2},
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| sampler | steps | accept | mean batch | µs/step | ESS (min/mean over coords) | ESS/s (min/mean) |\n|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		r.o.Init, r.o.Ref = mode, mode
		s, err := mh.New(r.name, reg, rng(301, 1), &r.o)
		if err != nil {
			t.Fatal(err)
		}
		var xs [d][]float64
		start := time.Now()
		for time.Since(start).Seconds() < r.seconds {
			for range 100 {
				for range r.thin {
					s.Step()
				}
				for j, v := range s.State() {
					xs[j] = append(xs[j], v)
				}
			}
		}
		el := time.Since(start).Seconds()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		minE, meanE := math.Inf(1), 0.0
		for j := range d {
			e := batchMeansESS(xs[j])
			minE = min(minE, e)
			meanE += e / d
		}
		fmt.Fprintf(&out, "| %s | %d | %.3f | %.1f | %.1f | %.0f / %.0f | %.2f / %.2f |\n", r.label, st.Steps, st.AcceptanceRate(),
			st.MeanBatch(), el/float64(st.Steps)*1e6, minE, meanE, minE/el, meanE/el)
	}
	t.Log("\n" + out.String())
}
