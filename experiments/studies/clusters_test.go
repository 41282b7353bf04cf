package studies

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
)

// tinyClusters is a configuration of the cluster study that runs in a
// fraction of a second.
func tinyClusters() ClustersSettings {
	s := ClustersPaper(true)
	s.Sizes = []int{4, 8}
	s.Tau = []ClustersTauSampler{
		{Key: ClustersGibbs, Sweeps: []int64{600, 600}},
		{Key: ClustersPGibbs, Sweeps: []int64{0, 600}},
		{Key: ClustersSW, Sweeps: []int64{600, 600}},
		{Key: ClustersWolff, Sweeps: []int64{600, 600}},
	}
	s.Chains, s.Equilibrate, s.Burn, s.WolffTune = 2, 20, 0.1, 2
	s.CostSides = []int{6, 8}
	s.CostEquilibrate, s.CostWarm, s.CostReps, s.CostBudget = 2, time.Millisecond, 2, 10*time.Millisecond
	return s
}

// TestClusters runs a tiny study twice and checks the shape of its
// result, that the chains are a function of the seed, and its files.
func TestClusters(t *testing.T) {
	s := tinyClusters()
	prog := &exptest.Progress{}
	res, err := Clusters(context.Background(), s, harness.Config{Seed: 3, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() {
		t.Errorf("progress: %d of %d units", prog.Added(), prog.Total())
	}
	if res.Chains != 2 || len(res.Tau) != 7 || len(res.Fits) != 4 {
		t.Fatalf("%d chains, %d τ points, %d fits", res.Chains, len(res.Tau), len(res.Fits))
	}
	for _, p := range res.Tau {
		if p.Sites != p.Size*p.Size || p.Sweeps != 300 || p.Burn != 30 || p.Tau.N != 600 || p.Chains != 2 {
			t.Errorf("%s at %d: %+v", p.Sampler, p.Size, p)
		}
		if !(p.Tau.Tau > 0) || !(p.Tau.Err > 0) || p.Tau.Window < 1 || !(p.SweepSeconds > 0) {
			t.Errorf("%s at %d: τ %+v, %v s a sweep", p.Sampler, p.Size, p.Tau, p.SweepSeconds)
		}
		// Every sampler samples the same π: ⟨|m|⟩ agrees with the others'
		// at the same size (a loose check: 5 standard errors).
		for _, q := range res.Tau {
			if q.Size == p.Size && math.Abs(q.Tau.Mean-p.Tau.Mean) > 5*math.Hypot(q.Tau.MeanErr, p.Tau.MeanErr)+0.01 {
				t.Errorf("L = %d: ⟨|m|⟩ %s %v ± %v, %s %v ± %v", p.Size, p.Sampler, p.Tau.Mean, p.Tau.MeanErr,
					q.Sampler, q.Tau.Mean, q.Tau.MeanErr)
			}
		}
		if (p.Sampler == ClustersWolff) != (p.Clusters >= 1) {
			t.Errorf("%s at %d: %v Wolff clusters a step", p.Sampler, p.Size, p.Clusters)
		}
		if p.Sampler != ClustersWolff && p.StepSweeps != 1 || !(p.StepSweeps > 0.1 && p.StepSweeps < 10) {
			t.Errorf("%s at %d: a step updates %v sweeps' worth of sites", p.Sampler, p.Size, p.StepSweeps)
		}
	}
	if len(res.Cost) != 3*2*2 {
		t.Fatalf("%d cost points", len(res.Cost))
	}
	for _, p := range res.Cost {
		if !(p.Min > 0) || p.Min > p.Median || p.Median > p.Max || p.Sweeps < 1 || p.Sweeps > 2 || !(p.Events > 0) || !(p.L > 0) {
			t.Errorf("cost %s %s %d: %+v", p.Kernel, p.Sampler, p.Side, p)
		}
	}
	if _, _, _, ok := res.TauRatio(ClustersGibbs, ClustersSW); !ok {
		t.Error("no τ ratio of the heat bath to Swendsen–Wang")
	}
	if sites, _, ok := res.CostRatio(ClustersSW, "power", "nn"); !ok || sites != 64 {
		t.Errorf("cost ratio at %d sites, %v", sites, ok)
	}

	// Same seed, same τ; another seed, other chains.
	again, err := Clusters(context.Background(), s, harness.Config{Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Clusters(context.Background(), s, harness.Config{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	same := true
	for k, p := range res.Tau {
		if again.Tau[k].Tau != p.Tau {
			t.Errorf("%s at %d: τ %+v, then %+v with the same seed", p.Sampler, p.Size, p.Tau, again.Tau[k].Tau)
		}
		same = same && other.Tau[k].Tau == p.Tau
	}
	if same {
		t.Error("seeds 3 and 4 give the same τ everywhere")
	}

	md := res.Markdown()
	for _, want := range []string{"| heat-bath Gibbs (checkerboard) | 8 | 2 × 300 |", "| sampler | sizes fitted | z |",
		"τ(heat bath) ÷ τ(Swendsen–Wang) at L = 8", "(not at this size)", "| power |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	dir := t.TempDir()
	paths, err := res.WriteFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{"clusters-tau", "clusters-cost"} {
		for _, ext := range []string{".csv", ".png", ".svg"} {
			want = append(want, filepath.Join(dir, name+ext))
		}
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for _, p := range paths {
		exptest.CheckFile(t, p)
	}
	for name, n := range map[string]int{"clusters-tau.csv": 1 + 7, "clusters-cost.csv": 1 + 12} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(recs) != n {
			t.Errorf("%s: %d records, %v", name, len(recs), err)
		}
	}
}

// ar1 returns chains of an AR(1) series x_t = ρx_{t−1} + √(1−ρ²)ε_t
// started in equilibrium: unit variance, τ = (1+ρ)/(1−ρ).
func ar1(r *rand.Rand, rho float64, chains, n int) [][]float64 {
	out := make([][]float64, chains)
	s := math.Sqrt(1 - rho*rho)
	for c := range out {
		x := r.NormFloat64()
		out[c] = make([]float64, n)
		for i := range out[c] {
			x = rho*x + s*r.NormFloat64()
			out[c][i] = x
		}
	}
	return out
}

// TestIntegratedTime checks the τ estimator on AR(1) series of known τ,
// and that a window too small for the series (c = 0.5 instead of 6) is
// caught by the same test.
func TestIntegratedTime(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		rho       float64
		chains, n int
	}{{0, 1, 20_000}, {0.8, 4, 25_000}, {0.95, 2, 100_000}} {
		want := (1 + tc.rho) / (1 - tc.rho)
		x := ar1(r, tc.rho, tc.chains, tc.n)
		est, err := integratedTime(x, 6)
		if err != nil {
			t.Fatal(err)
		}
		if !est.Converged || est.N != tc.chains*tc.n || math.Abs(est.Tau-want) > 3*est.Err {
			t.Errorf("ρ = %v: τ = %v ± %v (W = %d, converged %v), want %v", tc.rho, est.Tau, est.Err, est.Window, est.Converged, want)
		}
		// The window is Sokal's: the first W with W ≥ c·τ(W)/2.
		if float64(est.Window) < 6*est.Tau/2 {
			t.Errorf("ρ = %v: W = %d < c·τ/2 = %v", tc.rho, est.Window, 3*est.Tau)
		}
		// Madras–Sokal: σ_τ = τ·√(2(2W+1)/N).
		if e := est.Tau * math.Sqrt(2*float64(2*est.Window+1)/float64(est.N)); math.Abs(est.Err-e) > 1e-12*e {
			t.Errorf("ρ = %v: error %v, want %v", tc.rho, est.Err, e)
		}
		// The mean's standard error is √(var·τ/N), var = 1.
		if e := math.Sqrt(want / float64(est.N)); math.Abs(est.MeanErr-e) > 0.25*e || math.Abs(est.Mean) > 4*e {
			t.Errorf("ρ = %v: mean %v ± %v, want 0 ± %v", tc.rho, est.Mean, est.MeanErr, e)
		}
		if tc.rho == 0 {
			continue
		}
		// A broken estimator: a window far too short cuts the sum off and
		// misses τ by many of its error bars.
		bad, err := integratedTime(x, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(bad.Tau-want) <= 3*bad.Err {
			t.Errorf("ρ = %v: a window of c = 0.5 passes: τ = %v ± %v (W = %d), want %v", tc.rho, bad.Tau, bad.Err, bad.Window, want)
		}
	}
	// A window the chains are too short for is reported.
	x := ar1(r, 0.99, 1, 400)
	if est, err := integratedTime(x, 6); err != nil || est.Converged || est.Window != 100 {
		t.Errorf("short chain: %+v, %v", est, err)
	}
	for name, x := range map[string][][]float64{
		"no chains": nil,
		"short":     {{1, 2, 3}},
		"NaN":       {{1, 2, 3, 4, 5, 6, 7, math.NaN()}},
		"constant":  {{1, 1, 1, 1, 1, 1, 1, 1}},
	} {
		if _, err := integratedTime(x, 6); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestFitExponent recovers a known dynamic exponent.
func TestFitExponent(t *testing.T) {
	sizes := []float64{16, 32, 64, 128}
	tau, errs := make([]float64, 4), make([]float64, 4)
	for k, l := range sizes {
		tau[k] = 0.3 * math.Pow(l, 2.17)
		errs[k] = 0.05 * tau[k] * float64(k+1)
	}
	z, a, zErr, chi2 := fitExponent(sizes, tau, errs)
	if math.Abs(z-2.17) > 1e-12 || math.Abs(a-0.3) > 1e-12 || chi2 > 1e-20 {
		t.Errorf("exact power law: z = %v, A = %v, χ² = %v", z, a, chi2)
	}
	// The error of z from the weights alone: 1/√(Σw(x − x̄_w)²).
	var sw, swx, swxx float64
	for k, l := range sizes {
		w := 1 / (0.05 * float64(k+1)) / (0.05 * float64(k+1))
		sw, swx, swxx = sw+w, swx+w*math.Log(l), swxx+w*math.Log(l)*math.Log(l)
	}
	if want := math.Sqrt(sw / (sw*swxx - swx*swx)); math.Abs(zErr-want) > 1e-12*want {
		t.Errorf("z error %v, want %v", zErr, want)
	}
	// Noisy points within their error bars: z within its error.
	r := rand.New(rand.NewPCG(3, 4))
	hits := 0
	for range 200 {
		noisy := make([]float64, 4)
		for k := range tau {
			noisy[k] = tau[k] * math.Exp(0.05*float64(k+1)*r.NormFloat64())
		}
		z, _, zErr, _ := fitExponent(sizes, noisy, errs)
		if math.Abs(z-2.17) < 2*zErr {
			hits++
		}
	}
	if hits < 180 { // about 95% expected (at least: the error is scaled up by a large χ²)
		t.Errorf("z within 2σ of the truth in %d of 200 noisy fits", hits)
	}
	if z, _, _, _ := fitExponent(sizes[:1], tau[:1], errs[:1]); !math.IsNaN(z) {
		t.Errorf("one point: z = %v", z)
	}
}

func TestClustersValidation(t *testing.T) {
	for name, mod := range map[string]func(*ClustersSettings){
		"nothing":          func(s *ClustersSettings) { s.Tau, s.CostSides = nil, nil },
		"no sizes":         func(s *ClustersSettings) { s.Sizes = nil },
		"size 2":           func(s *ClustersSettings) { s.Sizes = []int{2, 8} },
		"sizes decrease":   func(s *ClustersSettings) { s.Sizes = []int{8, 4} },
		"β = 0":            func(s *ClustersSettings) { s.Beta = 0 },
		"unknown sampler":  func(s *ClustersSettings) { s.Tau[0].Key = "mgpmh" },
		"sampler twice":    func(s *ClustersSettings) { s.Tau[1].Key = s.Tau[0].Key },
		"sweeps for sizes": func(s *ClustersSettings) { s.Tau[0].Sweeps = []int64{600} },
		"too few sweeps":   func(s *ClustersSettings) { s.Tau[0].Sweeps = []int64{600, 20} },
		"negative chains":  func(s *ClustersSettings) { s.Chains = -1 },
		"negative equil":   func(s *ClustersSettings) { s.Equilibrate = -1 },
		"negative burn":    func(s *ClustersSettings) { s.Burn = -0.1 },
		"window c = 2":     func(s *ClustersSettings) { s.WindowC = 2 },
		"Wolff tune 0":     func(s *ClustersSettings) { s.WolffTune = 0 },
		"cost side 2":      func(s *ClustersSettings) { s.CostSides = []int{2} },
		"no kernel":        func(s *ClustersSettings) { s.Kernels = nil },
		"nil kernel":       func(s *ClustersSettings) { s.Kernels[0].Kernel = nil },
		"kernel twice":     func(s *ClustersSettings) { s.Kernels[1].Key = s.Kernels[0].Key },
		"kernel β":         func(s *ClustersSettings) { s.Kernels[2].Beta = math.Inf(1) },
		"cost sampler":     func(s *ClustersSettings) { s.CostSamplers = []string{"gibbs"} },
		"no reps":          func(s *ClustersSettings) { s.CostReps = 0 },
		"no budget":        func(s *ClustersSettings) { s.CostBudget = 0 },
	} {
		s := tinyClusters()
		mod(&s)
		if _, err := Clusters(context.Background(), s, harness.Config{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for _, quick := range []bool{false, true} {
		s := ClustersPaper(quick)
		if err := s.validate(3); err != nil {
			t.Errorf("ClustersPaper(%v): %v", quick, err)
		}
		for _, sp := range s.Tau {
			if len(sp.Sweeps) != len(s.Sizes) {
				t.Errorf("ClustersPaper(%v): %s has %d sweep counts", quick, sp.Key, len(sp.Sweeps))
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Clusters(ctx, tinyClusters(), harness.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
