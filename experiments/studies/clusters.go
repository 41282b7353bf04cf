package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/gibbs/site"
	lat "github.com/pgibbs/pgibbs/lattice"
)

// IsingBetaC is the critical inverse temperature of the 2-D
// nearest-neighbour Ising model, β_c = ln(1 + √2)/2 (Onsager), in the
// convention π(s) ∝ exp(β Σ_<ij> s_i s_j) of package lattice.
var IsingBetaC = math.Log(1+math.Sqrt2) / 2

// Keys of the cluster study's samplers (the names of samplers.New).
const (
	ClustersGibbs  = "gibbs"  // single-site heat bath, checkerboard sweeps
	ClustersPGibbs = "pgibbs" // single-site Poisson-Gibbs (λ = L²)
	ClustersSW     = "sw"     // Swendsen–Wang, a step is one sweep
	ClustersWolff  = "wolff"  // Wolff, a step is a sweep's worth of clusters
)

// clustersTauKeys are the samplers the τ study knows, in plotting order;
// clustersCostKeys those the cost study knows.
var (
	clustersTauKeys  = []string{ClustersGibbs, ClustersPGibbs, ClustersSW, ClustersWolff}
	clustersCostKeys = []string{ClustersSW, ClustersPGibbs}
)

// ClustersTauSampler is one sampler of the autocorrelation study.
type ClustersTauSampler struct {
	// Key is one of ClustersGibbs, ClustersPGibbs, ClustersSW, ClustersWolff.
	Key string
	// Sweeps[k] is the number of measured sweeps at Sizes[k], in all: the
	// chains share them equally (each runs Sweeps[k]/chains). Zero skips
	// the size.
	Sweeps []int64
}

// ClustersKernel is one coupling kernel of the cost study: 2-D Ising
// lattices with Kernel at Beta.
type ClustersKernel struct {
	Key    string // "nn", "gauss", "power"
	Kernel lat.Coupling
	Beta   float64
}

// ClustersSettings configures the cluster study (issue 15, "measured
// advantage"): (a) the integrated autocorrelation time of |m| against the
// size at the critical point of the 2-D Ising model for the single-site
// samplers and the cluster samplers, with the dynamic exponent z of each,
// and (b) the wall time of a Swendsen–Wang sweep and of a Poisson-Gibbs
// sweep against the number of sites for short- and long-range couplings.
type ClustersSettings struct {
	// Sizes are the sides L of the L×L nearest-neighbour Ising tori of the τ
	// study, increasing; Beta their inverse temperature (IsingBetaC).
	Sizes []int
	Beta  float64
	// Tau are the samplers of the τ study with their sweeps at each size.
	// "gibbs" and "pgibbs" run checkerboard sweeps (chromatic.New with
	// one worker over Lattice.Colouring's classes: every site once a sweep,
	// one colour class after the other), "sw" Swendsen–Wang sweeps, "wolff"
	// steps of Wolff clusters tuned to a sweep's worth (Wolff.TuneClusters
	// over WolffTune sweeps, after the start below).
	Tau []ClustersTauSampler
	// Chains is the number of independent chains of each sampler at each
	// size, pooled in the τ estimate; 0 means harness.Config.Runs.
	Chains int
	// Equilibrate is the number of Swendsen–Wang sweeps every chain starts
	// with, from a uniformly random state, before its own sampler takes
	// over (many times τ of Swendsen–Wang: the chains then start in
	// equilibrium, which would take a heat bath thousands of sweeps at
	// L = 128). Burn is each chain's burn-in after that, in its own
	// sampler's steps, as a fraction of its measured sweeps.
	Equilibrate int64
	Burn        float64
	// WindowC is Sokal's c: τ is summed over the smallest window W with
	// W ≥ c·τ/2 (τ/2 being Sokal's τ_int = 1/2 + Σ ρ_t); 4 to 10 is usual.
	WindowC float64
	// WolffTune is the number of sweeps' worth of clusters over which the
	// Wolff chains tune their clusters a step.
	WolffTune float64

	// CostSides are the sides N of the N×N tori of the cost study,
	// increasing; Kernels its couplings (Ising spins), CostSamplers its
	// samplers ("sw", "pgibbs": Swendsen–Wang sweeps and systematic
	// Poisson-Gibbs sweeps, λ = L²).
	CostSides    []int
	Kernels      []ClustersKernel
	CostSamplers []string
	// CostEquilibrate is the number of Swendsen–Wang sweeps from a random
	// state before anything is timed at a point (they also warm the
	// Swendsen–Wang sampler up; Poisson-Gibbs starts from their state).
	// CostWarm is Poisson-Gibbs's untimed warm-up (at least one sweep when
	// positive). CostReps sweeps of each sampler are then timed one by one
	// and their median kept, stopping early once the timed sweeps of a
	// sampler took CostBudget (at least one is timed).
	CostEquilibrate int64
	CostWarm        time.Duration
	CostReps        int
	CostBudget      time.Duration
}

// Kernels of the cost study at the β used there: the nearest-neighbour
// model at Onsager's β_c, the Gaussian kernel exp(−1.5 r²) of the
// Poisson-Gibbs paper and the power law r^−3 (σ = 1) near their critical
// points. The two β were located by the crossing of the Binder cumulants
// of |m| on 16², 32² and 64² tori (Swendsen–Wang, 3000 sweeps a point):
// 1.465 ± 0.01 for the Gaussian kernel, 0.127 ± 0.003 for the power law
// (with Σ_j J_ij ≈ 9.0, a little above the mean-field 1/ΣJ ≈ 0.111).
func clustersKernels() []ClustersKernel {
	return []ClustersKernel{
		{Key: "nn", Kernel: lat.NearestNeighbour{}, Beta: IsingBetaC},
		{Key: "gauss", Kernel: lat.Gaussian{Gamma: 1.5}, Beta: 1.465},
		{Key: "power", Kernel: lat.PowerLaw{Sigma: 1}, Beta: 0.127},
	}
}

// ClustersPaper returns the study's settings. Full: sizes 16 to 128 for
// the heat bath, Swendsen–Wang and Wolff, 8 to 32 for Poisson-Gibbs (whose
// sweep costs twenty heat-bath sweeps, and whose τ is larger: at 64 it
// would need about three core-minutes for 100·τ), about 100·τ or more at
// every point; cost sides 64, 256 and 1000 (10⁶ sites). That is about
// four core-minutes of chains, two minutes on two cores, and half a
// minute of timing. Quick: sizes 8, 16, 32 and cost sides 32, 128, 256,
// in well under a minute. Chains is left at 0 (harness.Config.Runs: 3
// chains share the sweeps of a point).
func ClustersPaper(quick bool) ClustersSettings {
	s := ClustersSettings{
		Sizes: []int{8, 16, 32, 64, 128},
		Beta:  IsingBetaC,
		Tau: []ClustersTauSampler{
			{Key: ClustersGibbs, Sweeps: []int64{0, 20_000, 80_000, 300_000, 600_000}},
			{Key: ClustersPGibbs, Sweeps: []int64{40_000, 40_000, 80_000, 0, 0}},
			{Key: ClustersSW, Sweeps: []int64{0, 40_000, 40_000, 40_000, 20_000}},
			{Key: ClustersWolff, Sweeps: []int64{0, 40_000, 40_000, 40_000, 20_000}},
		},
		Equilibrate: 200,
		Burn:        0.05,
		WindowC:     6,
		WolffTune:   20,

		CostSides:       []int{64, 256, 1000},
		Kernels:         clustersKernels(),
		CostSamplers:    []string{ClustersSW, ClustersPGibbs},
		CostEquilibrate: 20,
		CostWarm:        200 * time.Millisecond,
		CostReps:        5,
		CostBudget:      8 * time.Second,
	}
	if quick {
		s.Sizes = []int{8, 16, 32}
		s.Tau = []ClustersTauSampler{
			{Key: ClustersGibbs, Sweeps: []int64{10_000, 20_000, 40_000}},
			{Key: ClustersPGibbs, Sweeps: []int64{10_000, 20_000, 40_000}},
			{Key: ClustersSW, Sweeps: []int64{10_000, 10_000, 10_000}},
			{Key: ClustersWolff, Sweeps: []int64{10_000, 10_000, 10_000}},
		}
		s.CostSides = []int{32, 128, 256}
		s.CostWarm, s.CostBudget = 20*time.Millisecond, time.Second
	}
	return s
}

// minChainSweeps is the fewest measured sweeps a chain may run.
const minChainSweeps = 16

func (s ClustersSettings) validate(chains int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("experiments: clusters: "+format, args...)
	}
	if len(s.Tau) == 0 && len(s.CostSides) == 0 {
		return bad("nothing to run")
	}
	if err := s.validateTau(chains, bad); err != nil {
		return err
	}
	return s.validateCost(bad)
}

// validateTau checks the settings of the τ study (if it runs).
func (s ClustersSettings) validateTau(chains int, bad func(string, ...any) error) error {
	if len(s.Tau) > 0 {
		if len(s.Sizes) == 0 {
			return bad("no sizes")
		}
		for k, n := range s.Sizes {
			if n < 3 || n > 4096 {
				return bad("size %d: need 3 to 4096", n)
			}
			if k > 0 && n <= s.Sizes[k-1] {
				return bad("sizes %v: need them increasing", s.Sizes)
			}
		}
		if !(s.Beta > 0) || math.IsInf(s.Beta, 0) {
			return bad("β = %v: need a finite β > 0", s.Beta)
		}
		if chains < 1 || chains > 1024 {
			return bad("%d chains: need 1 to 1024", chains)
		}
		seen := map[string]bool{}
		for _, sp := range s.Tau {
			if !slices.Contains(clustersTauKeys, sp.Key) {
				return bad("unknown sampler %q: want one of %v", sp.Key, clustersTauKeys)
			}
			if seen[sp.Key] {
				return bad("sampler %q twice", sp.Key)
			}
			seen[sp.Key] = true
			if len(sp.Sweeps) != len(s.Sizes) {
				return bad("%s: %d sweep counts for %d sizes", sp.Key, len(sp.Sweeps), len(s.Sizes))
			}
			for k, n := range sp.Sweeps {
				if n != 0 && n < int64(chains)*minChainSweeps {
					return bad("%s at size %d: %d sweeps for %d chains: need 0 or at least %d a chain", sp.Key, s.Sizes[k], n, chains, minChainSweeps)
				}
			}
		}
		switch {
		case s.Equilibrate < 0:
			return bad("%d equilibration sweeps", s.Equilibrate)
		case !(s.Burn >= 0 && s.Burn <= 10):
			return bad("burn-in fraction %v: need 0 to 10", s.Burn)
		case !(s.WindowC >= 4 && s.WindowC <= 100):
			return bad("window constant c = %v: need 4 ≤ c ≤ 100 (a smaller window truncates τ)", s.WindowC)
		case seen[ClustersWolff] && !(s.WolffTune > 0 && s.WolffTune <= 1000):
			return bad("Wolff tuning over %v sweeps: need 0 < sweeps ≤ 1000", s.WolffTune)
		}
	}
	return nil
}

// validateCost checks the settings of the cost study (if it runs).
func (s ClustersSettings) validateCost(bad func(string, ...any) error) error {
	if len(s.CostSides) > 0 {
		for k, n := range s.CostSides {
			if n < 3 || n > 4096 {
				return bad("cost side %d: need 3 to 4096", n)
			}
			if k > 0 && n <= s.CostSides[k-1] {
				return bad("cost sides %v: need them increasing", s.CostSides)
			}
		}
		if len(s.Kernels) == 0 || len(s.CostSamplers) == 0 {
			return bad("cost study without kernels or samplers")
		}
		keys := map[string]bool{}
		for _, k := range s.Kernels {
			if k.Key == "" || keys[k.Key] || k.Kernel == nil {
				return bad("kernel %q: need a kernel and a distinct non-empty key", k.Key)
			}
			keys[k.Key] = true
			if !(k.Beta > 0) || math.IsInf(k.Beta, 0) {
				return bad("kernel %s: β = %v: need a finite β > 0", k.Key, k.Beta)
			}
		}
		samplers := map[string]bool{}
		for _, sp := range s.CostSamplers {
			if !slices.Contains(clustersCostKeys, sp) || samplers[sp] {
				return bad("cost sampler %q: need distinct samplers among %v", sp, clustersCostKeys)
			}
			samplers[sp] = true
		}
		switch {
		case s.CostEquilibrate < 0:
			return bad("%d cost equilibration sweeps", s.CostEquilibrate)
		case s.CostWarm < 0 || s.CostBudget <= 0:
			return bad("warm-up %v, budget %v: need a warm-up ≥ 0 and a budget > 0", s.CostWarm, s.CostBudget)
		case s.CostReps < 1 || s.CostReps > 1000:
			return bad("%d timed sweeps: need 1 to 1000", s.CostReps)
		}
	}
	return nil
}

// TauEstimate is the integrated autocorrelation time of a series, in its
// steps, estimated from one or more independent chains.
type TauEstimate struct {
	// Tau is 1 + 2·Σ_{t=1}^{W} ρ̂_t, the factor by which correlation
	// inflates the variance of the mean (τ = (1+ρ)/(1−ρ) for an AR(1)
	// series; twice Sokal's τ_int). Err is its standard error by Madras and
	// Sokal's formula, σ_τ ≈ τ·√(2(2W+1)/N).
	Tau, Err float64
	// Window is W, the smallest lag with W ≥ c·τ(W)/2 (Sokal's automatic
	// window), searched up to a quarter of the shortest chain; Converged is
	// false if none was found there (Tau is then the sum to that lag, an
	// underestimate).
	Window    int
	Converged bool
	// N is the number of measurements in all; Mean their mean, MeanErr its
	// standard error √(γ̂_0·τ/N).
	N             int
	Mean, MeanErr float64
}

// integratedTime estimates τ of the pooled chains with Sokal's window
// constant c. Each chain's biased autocovariances γ̂_t (about its own mean,
// diag.Autocorrelation scaled by γ̂_0) are summed over the chains weighted
// by their lengths: the chains sample one distribution independently.
// Subtracting the estimated means lowers τ by a relative O((2W+1)/N),
// well below Err whenever N ≫ W.
func integratedTime(chains [][]float64, c float64) (TauEstimate, error) {
	if len(chains) == 0 {
		return TauEstimate{}, errors.New("experiments: τ of no chains")
	}
	if !(c > 0) {
		return TauEstimate{}, fmt.Errorf("experiments: window constant %v", c)
	}
	nMin, n := math.MaxInt, 0
	var sum float64
	for k, x := range chains {
		if len(x) < 8 {
			return TauEstimate{}, fmt.Errorf("experiments: τ of chain %d: %d values, need at least 8", k, len(x))
		}
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return TauEstimate{}, fmt.Errorf("experiments: τ of chain %d: value %d is %v", k, i, v)
			}
			sum += v
		}
		nMin, n = min(nMin, len(x)), n+len(x)
	}
	mean := sum / float64(n)
	maxLag := nMin / 4
	gamma := make([]float64, maxLag+1)
	var rho []float64
	for _, x := range chains {
		m := stat.Mean(x, nil)
		g0 := 0.0
		for _, v := range x {
			g0 += (v - m) * (v - m)
		}
		var err error
		if rho, err = diag.Autocorrelation(rho, x); err != nil {
			continue // a constant chain adds nothing
		}
		for t := range gamma {
			gamma[t] += rho[t] * g0 // n_k·γ̂_t of the chain
		}
	}
	for t := range gamma {
		gamma[t] /= float64(n)
	}
	g0 := gamma[0]
	if !(g0 > 0) {
		return TauEstimate{}, errors.New("experiments: τ of a constant series")
	}
	est := TauEstimate{N: n, Mean: mean, Tau: 1}
	for w := 1; w <= maxLag; w++ {
		est.Tau += 2 * gamma[w] / g0
		est.Window = w
		if float64(w) >= c*est.Tau/2 {
			est.Converged = true
			break
		}
	}
	est.Err = est.Tau * math.Sqrt(2*float64(2*est.Window+1)/float64(n))
	est.MeanErr = math.Sqrt(g0 * max(est.Tau, 0) / float64(n))
	return est, nil
}

// ClustersFit is the dynamic exponent of one sampler: τ ≈ A·L^z fitted by
// weighted least squares of log τ on log L (weights (τ/σ_τ)²) over the
// converged points.
type ClustersFit struct {
	Sampler string
	// Points is the number of sizes fitted; Z and A are NaN below 2.
	Points int
	Z, A   float64
	// ZErr is the standard error of Z from the points' errors, scaled by
	// √(χ²/(Points−2)) when that exceeds 1 (scatter beyond the error bars);
	// Chi2 is χ² of the fit.
	ZErr, Chi2 float64
}

// fitExponent fits log τ = log A + z·log L with weights (τ/σ)².
func fitExponent(sizes, tau, err []float64) (z, a, zErr, chi2 float64) {
	var x, y, w []float64
	for k := range sizes {
		if tau[k] > 0 && err[k] > 0 && !math.IsInf(tau[k], 0) && !math.IsInf(err[k], 0) {
			x = append(x, math.Log(sizes[k]))
			y = append(y, math.Log(tau[k]))
			w = append(w, (tau[k]/err[k])*(tau[k]/err[k]))
		}
	}
	if len(x) < 2 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	alpha, beta := stat.LinearRegression(x, y, w, false)
	var sw, swx, swxx float64
	for k := range x {
		sw += w[k]
		swx += w[k] * x[k]
		swxx += w[k] * x[k] * x[k]
		r := y[k] - alpha - beta*x[k]
		chi2 += w[k] * r * r
	}
	zErr = math.Sqrt(sw / (sw*swxx - swx*swx))
	if dof := len(x) - 2; dof > 0 && chi2/float64(dof) > 1 {
		zErr *= math.Sqrt(chi2 / float64(dof))
	}
	return beta, math.Exp(alpha), zErr, chi2
}

// ClustersTauPoint is one sampler at one size of the τ study.
type ClustersTauPoint struct {
	Sampler string
	Size    int
	Sites   int
	Chains  int
	// Sweeps and Burn are each chain's measured sweeps and burn-in (in its
	// sampler's steps, after the Swendsen–Wang start).
	Sweeps, Burn int64
	// Tau is τ of |m| in sweeps (steps), pooled over the chains; Tau.Mean
	// is ⟨|m|⟩.
	Tau TauEstimate
	// Clusters is the mean number of clusters a Wolff step makes (0 for the
	// other samplers). Each chain tunes its own (an integer, so that the
	// chains' steps differ by up to about 1/Clusters); StepSweeps is the
	// mean number of site updates a measured step made over the number of
	// sites (1 but for Wolff, whose τ in sweeps is about τ·StepSweeps).
	Clusters   float64
	StepSweeps float64
	// SweepSeconds is the wall time per measured sweep (with the
	// measurement of |m|), averaged over the chains, which ran beside each
	// other (harness.Config.Workers at a time): indicative only.
	SweepSeconds float64
}

// ClustersCostPoint is one sampler on one lattice of the cost study.
type ClustersCostPoint struct {
	Sampler, Kernel string
	Side, Sites     int
	Beta, L         float64
	Offsets         int
	// Median, Min and Max are seconds per sweep over the Sweeps timed.
	Median, Min, Max float64
	Sweeps           int
	// Events is the work per site update: the bond events a Swendsen–Wang
	// sweep draws per site, or Poisson-Gibbs's minibatch draws per update.
	Events float64
}

// ClustersResult is what Clusters measured.
type ClustersResult struct {
	Settings ClustersSettings
	Chains   int
	// Tau are the points of the τ study, sampler by sampler (in the order
	// of Settings.Tau), by increasing size; Fits the dynamic exponent of
	// each sampler, in the same order.
	Tau  []ClustersTauPoint
	Fits []ClustersFit
	// Cost are the points of the cost study, kernel by kernel, side by
	// side, sampler by sampler.
	Cost []ClustersCostPoint
	// TauSeconds and CostSeconds are the wall times of the two parts.
	TauSeconds, CostSeconds float64
}

// Clusters runs the study. (a) For each sampler of s.Tau and each size
// with sweeps, chains independent chains (s.Chains, or cfg.Runs) each start
// from a uniformly random state, run s.Equilibrate Swendsen–Wang sweeps,
// hand the state to the sampler, burn in and measure |m| after every
// sweep; τ of |m| is estimated from the pooled series (integratedTime) and
// z fitted per sampler. The chains run cfg.Workers at a time, longest
// first; chain c of sampler a at size k draws from stream
// (a·len(Sizes) + k)·chains + c of cfg.Seed, so τ is a function of the
// seed and the settings alone. (b) Then, on one goroutine, for each kernel
// and side: s.CostEquilibrate Swendsen–Wang sweeps from a random state,
// then the timed sweeps of each cost sampler (Poisson-Gibbs starting from
// the Swendsen–Wang state). All samplers run through chain.Chain.Advance.
func Clusters(ctx context.Context, s ClustersSettings, cfg harness.Config) (*ClustersResult, error) {
	chains := s.Chains
	if chains == 0 {
		chains = cfg.NumRuns()
	}
	if err := s.validate(chains); err != nil {
		return nil, err
	}
	res := &ClustersResult{Settings: s, Chains: chains}
	if len(s.Tau) > 0 {
		start := time.Now()
		if err := res.runTau(ctx, cfg); err != nil {
			return nil, err
		}
		res.TauSeconds = time.Since(start).Seconds()
	}
	if len(s.CostSides) > 0 {
		start := time.Now()
		if err := res.runCost(ctx, cfg); err != nil {
			return nil, err
		}
		res.CostSeconds = time.Since(start).Seconds()
	}
	return res, nil
}

// tauJob is one chain of the τ study.
type tauJob struct {
	sampler  string
	size     int
	stream   uint64
	sweeps   int64 // measured
	burn     int64
	cost     float64 // for scheduling
	series   []float64
	seconds  float64
	clusters int
	updates  int64 // site updates of the measured sweeps
}

// clustersCostWeight is the relative cost of a sweep of each sampler, for
// scheduling the longest chains first.
var clustersCostWeight = map[string]float64{ClustersGibbs: 1, ClustersPGibbs: 20, ClustersSW: 4, ClustersWolff: 4}

func (res *ClustersResult) runTau(ctx context.Context, cfg harness.Config) error {
	s := res.Settings
	chains := res.Chains
	lattices := make([]*lat.Lattice, len(s.Sizes))
	for k, n := range s.Sizes {
		l, err := lat.New(lat.Params{Dim: 2, Size: n, Coupling: lat.NearestNeighbour{}, Spin: lat.Ising(), Beta: s.Beta})
		if err != nil {
			return fmt.Errorf("experiments: clusters: %w", err)
		}
		lattices[k] = l
	}
	var jobs []*tauJob
	var total int64
	for a, sp := range s.Tau {
		for k, n := range sp.Sweeps {
			if n == 0 {
				continue
			}
			per := n / int64(chains)
			burn := int64(math.Ceil(s.Burn * float64(per)))
			for c := range chains {
				j := &tauJob{sampler: sp.Key, size: k, sweeps: per, burn: burn,
					stream: uint64((a*len(s.Sizes)+k)*chains + c)}
				sites := int64(lattices[k].Sites())
				j.cost = float64(sites) * float64(per+burn) * clustersCostWeight[sp.Key]
				jobs = append(jobs, j)
				total += sites * (s.Equilibrate + burn + per)
			}
		}
	}
	// Longest first (stable: equal costs keep their order), so that the
	// last chains to finish are short ones.
	order := slices.Clone(jobs)
	slices.SortStableFunc(order, func(a, b *tauJob) int {
		switch {
		case a.cost > b.cost:
			return -1
		case a.cost < b.cost:
			return 1
		}
		return 0
	})
	prog := cfg.ProgressOrNone()
	prog.Start("clusters: τ", total)
	err := chain.Parallel(ctx, len(order), cfg.NumWorkers(), func(ctx context.Context, i int) error {
		j := order[i]
		return j.run(ctx, lattices[j.size], s, cfg.Seed, prog)
	})
	if err != nil {
		return err
	}
	return res.gatherTau(jobs, lattices)
}

// gatherTau pools the chains of each (sampler, size), in job order, into
// τ estimates and fits the dynamic exponents.
func (res *ClustersResult) gatherTau(jobs []*tauJob, lattices []*lat.Lattice) error {
	s, chains := res.Settings, res.Chains
	for _, sp := range s.Tau {
		var sizes, taus, errs []float64
		for k, n := range sp.Sweeps {
			if n == 0 {
				continue
			}
			var series [][]float64
			pt := ClustersTauPoint{Sampler: sp.Key, Size: s.Sizes[k], Sites: lattices[k].Sites(), Chains: chains}
			var secs float64
			for _, j := range jobs {
				if j.sampler != sp.Key || j.size != k {
					continue
				}
				series = append(series, j.series)
				pt.Sweeps, pt.Burn = j.sweeps, j.burn
				pt.Clusters += float64(j.clusters) / float64(chains)
				secs += j.seconds
				pt.StepSweeps += float64(j.updates)
			}
			pt.SweepSeconds = secs / float64(chains*int(pt.Sweeps))
			pt.StepSweeps /= float64(chains) * float64(pt.Sweeps) * float64(pt.Sites)
			est, err := integratedTime(series, s.WindowC)
			if err != nil {
				return fmt.Errorf("experiments: clusters: %s at L = %d: %w", sp.Key, pt.Size, err)
			}
			pt.Tau = est
			res.Tau = append(res.Tau, pt)
			if est.Converged {
				sizes, taus, errs = append(sizes, float64(pt.Size)), append(taus, est.Tau), append(errs, est.Err)
			}
		}
		f := ClustersFit{Sampler: sp.Key, Points: len(sizes)}
		f.Z, f.A, f.ZErr, f.Chi2 = fitExponent(sizes, taus, errs)
		res.Fits = append(res.Fits, f)
	}
	return nil
}

// absMagnetisation records |m| of the state after every step.
type absMagnetisation struct {
	l      *lat.Lattice
	series []float64
}

func (o *absMagnetisation) Observe(_ int64, _ int, x []float64) {
	o.series = append(o.series, o.l.Magnetisation(x))
}

// run performs one chain of the τ study.
func (j *tauJob) run(ctx context.Context, l *lat.Lattice, s ClustersSettings, seed uint64, prog harness.Progress) error {
	r := harness.RandStream(seed, j.stream)
	sites := int64(l.Sites())
	chunk := max(1, (1<<20)/sites)
	advance := func(c *chain.Chain, n int64) error {
		to := c.Done() + n
		for c.Done() < to {
			from := c.Done()
			err := c.Advance(ctx, min(from+chunk, to))
			prog.Add((c.Done() - from) * sites)
			if err != nil {
				return err
			}
		}
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("experiments: clusters: %s at L = %d: %w", j.sampler, l.Params().Size, err)
	}
	sw, err := cluster.NewSwendsenWang(l, r, nil)
	if err != nil {
		return fail(err)
	}
	if err := advance(&chain.Chain{Kernel: sw}, s.Equilibrate); err != nil {
		return fail(err)
	}
	var smp gibbs.Sampler = sw
	opt := &gibbs.Options{Init: sw.State()}
	switch j.sampler {
	case ClustersGibbs, ClustersPGibbs:
		classes, err := l.Colouring()
		if err != nil {
			return fail(err)
		}
		f, err := samplers.FactoryOf(j.sampler)
		if err != nil {
			return fail(err)
		}
		if smp, err = chromatic.New(f, l, classes, []*rand.Rand{r}, opt); err != nil {
			return fail(err)
		}
	case ClustersWolff:
		w, err := cluster.NewWolff(l, r, opt)
		if err != nil {
			return fail(err)
		}
		if j.clusters, err = w.TuneClusters(ctx, s.WolffTune); err != nil {
			return fail(err)
		}
		smp = w
	}
	obs := &absMagnetisation{l: l, series: make([]float64, 0, j.sweeps)}
	c := &chain.Chain{Kernel: gibbs.Sweeper{Sampler: smp}, Burn: j.burn, Observers: []chain.Observer{obs}}
	if err := advance(c, j.burn); err != nil {
		return fail(err)
	}
	before := smp.Stats()
	start := time.Now()
	if err := advance(c, j.sweeps); err != nil {
		return fail(err)
	}
	j.seconds = time.Since(start).Seconds()
	j.updates = smp.Stats().Steps - before.Steps
	if err := smp.Err(); err != nil {
		return fail(err)
	}
	j.series = obs.series
	return nil
}

// runCost runs the cost study, one point after the other.
func (res *ClustersResult) runCost(ctx context.Context, cfg harness.Config) error {
	s := res.Settings
	prog := cfg.ProgressOrNone()
	prog.Start("clusters: cost", int64(len(s.Kernels)*len(s.CostSides)*len(s.CostSamplers)))
	// The streams of the cost study follow those of the τ study.
	stream := uint64(len(clustersTauKeys) * len(s.Sizes) * res.Chains)
	for _, kn := range s.Kernels {
		for _, n := range s.CostSides {
			pts, err := costPoint(ctx, s, kn, n, cfg.Seed, stream)
			if err != nil {
				return fmt.Errorf("experiments: clusters: %s kernel, side %d: %w", kn.Key, n, err)
			}
			stream += 2
			res.Cost = append(res.Cost, pts...)
			prog.Add(int64(len(pts)))
		}
	}
	return nil
}

// costPoint times the cost samplers on the side-n Ising lattice of kernel
// kn.
func costPoint(ctx context.Context, s ClustersSettings, kn ClustersKernel, n int, seed, stream uint64) ([]ClustersCostPoint, error) {
	l, err := lat.New(lat.Params{Dim: 2, Size: n, Coupling: kn.Kernel, Spin: lat.Ising(), Beta: kn.Beta})
	if err != nil {
		return nil, err
	}
	sw, err := cluster.NewSwendsenWang(l, harness.RandStream(seed, stream), nil)
	if err != nil {
		return nil, err
	}
	swc := &chain.Chain{Kernel: sw}
	if err := swc.Advance(ctx, s.CostEquilibrate); err != nil {
		return nil, err
	}
	base := ClustersCostPoint{Kernel: kn.Key, Side: n, Sites: l.Sites(), Beta: kn.Beta, L: l.L(), Offsets: l.NumOffsets()}
	var out []ClustersCostPoint
	for _, key := range s.CostSamplers {
		pt := base
		pt.Sampler = key
		var smp gibbs.Sampler = sw
		c := swc
		if key == ClustersPGibbs {
			pg, err := site.NewPoissonGibbs(l, harness.RandStream(seed, stream+1), &gibbs.Options{Init: sw.State()})
			if err != nil {
				return nil, err
			}
			smp, c = pg, &chain.Chain{Kernel: gibbs.Sweeper{Sampler: pg}}
			if s.CostWarm > 0 {
				for start := time.Now(); c.Done() == 0 || time.Since(start) < s.CostWarm; {
					if err := c.Advance(ctx, c.Done()+1); err != nil {
						return nil, err
					}
				}
			}
		}
		runtime.GC() // the garbage of building the lattice, not during the clock
		before := smp.Stats()
		var secs []float64
		var total time.Duration
		for len(secs) < s.CostReps && (len(secs) == 0 || total < s.CostBudget) {
			start := time.Now()
			err := c.Advance(ctx, c.Done()+1)
			d := time.Since(start)
			if err != nil {
				return nil, err
			}
			secs = append(secs, d.Seconds())
			total += d
		}
		if err := smp.Err(); err != nil {
			return nil, err
		}
		st := smp.Stats()
		pt.Min, pt.Median, pt.Max = spread(secs)
		pt.Sweeps = len(secs)
		pt.Events = float64(st.Picks-before.Picks) / float64(st.Steps-before.Steps)
		out = append(out, pt)
	}
	return out, nil
}
