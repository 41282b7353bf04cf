package lattice

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/potts"
)

// paperL is L of the Poisson-Gibbs paper's Potts model (20×20, D = 10,
// β = 4.6, γ = 1.5): the power-law benchmark's β is chosen to match it, so
// that λ = L² and the expected minibatch λ + L are the paper's.
const paperL = 5.087798

// benchModels are the models of BenchmarkStep, built once.
var benchModels = map[string]func() (factorgraph.Model, error){
	// The paper's model as a materialised factor graph (open boundaries).
	"potts20": func() (factorgraph.Model, error) { return potts.New(potts.Paper()) },
	// The same kernel on implicit periodic lattices of 400 and 10⁶ sites.
	"gauss20": func() (factorgraph.Model, error) {
		return New(Params{Dim: 2, Size: 20, Coupling: Gaussian{Gamma: 1.5}, Spin: Potts(10), Beta: 4.6})
	},
	"gauss1000": func() (factorgraph.Model, error) {
		return New(Params{Dim: 2, Size: 1000, Coupling: Gaussian{Gamma: 1.5}, Spin: Potts(10), Beta: 4.6})
	},
	// Every pair of 10⁶ sites coupled by r^−3: K = 999 999 offsets,
	// 5·10¹¹ pair factors, β set so that L equals the paper's.
	"power1000": func() (factorgraph.Model, error) { return powerLattice(1000, 10) },
	"power20":   func() (factorgraph.Model, error) { return powerLattice(20, 10) },
	"power100":  func() (factorgraph.Model, error) { return powerLattice(100, 10) },
	// The Ising version (2 states).
	"ising-power1000": func() (factorgraph.Model, error) { return powerLattice(1000, 2) },
}

// powerLattice returns the σ = 1 power-law Potts lattice of side n with β
// such that L = paperL.
func powerLattice(n, q int) (*Lattice, error) {
	p := Params{Dim: 2, Size: n, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(q), Beta: 1}
	l, err := New(p)
	if err != nil {
		return nil, err
	}
	p.Beta = paperL / l.L()
	return New(p)
}

var (
	modelCache   = map[string]factorgraph.Model{}
	modelCacheMu sync.Mutex
)

func benchModel(b *testing.B, name string) factorgraph.Model {
	b.Helper()
	modelCacheMu.Lock()
	defer modelCacheMu.Unlock()
	if m, ok := modelCache[name]; ok {
		return m
	}
	m, err := benchModels[name]()
	if err != nil {
		b.Fatal(err)
	}
	modelCache[name] = m
	return m
}

// runSteps benchmarks one random-scan update per op after warm updates, and
// reports the work per step (as bench/bench_test.go does).
func runSteps(b *testing.B, s gibbs.Sampler, warm int) {
	b.Helper()
	for range warm {
		s.Step()
	}
	before := s.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Step()
	}
	b.StopTimer()
	if err := s.Err(); err != nil {
		b.Fatal(err)
	}
	st := s.Stats()
	steps := float64(st.Steps - before.Steps)
	b.ReportMetric(float64(st.Factors-before.Factors)/steps, "factors/op")
	b.ReportMetric(float64(st.Picks-before.Picks)/steps, "draws/op")
}

// BenchmarkStep measures one Poisson-Gibbs update (λ = L²) on the paper's
// 20×20 model and on implicit lattices of up to 10⁶ sites and 5·10¹¹ pair
// factors: the cost follows λ + L, not the number of factors. Plain Gibbs on
// the 10⁶-offset lattice evaluates every factor of A[i] (ns/factor reports
// the cost of one).
func BenchmarkStep(b *testing.B) {
	for _, tc := range []struct{ model, sampler string }{
		{"potts20", "pgibbs"},
		{"gauss20", "pgibbs"},
		{"gauss1000", "pgibbs"},
		{"power1000", "pgibbs"},
		{"ising-power1000", "pgibbs"},
		{"power1000", "gibbs"},
	} {
		b.Run(fmt.Sprintf("model=%s/sampler=%s", tc.model, tc.sampler), func(b *testing.B) {
			m := benchModel(b, tc.model)
			s, err := samplers.New(tc.sampler, m, rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				b.Fatal(err)
			}
			warm := 10000
			if tc.sampler == "gibbs" && m.MaxDegree() > 10000 {
				warm = 0 // 10⁶ factors a step
			}
			runSteps(b, s, warm)
			b.ReportMetric(float64(m.MaxDegree()), "Δ")
			if tc.sampler == "gibbs" {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m.MaxDegree()), "ns/factor")
			}
		})
	}
}

// BenchmarkScaling grows the full-torus power-law lattice at fixed L
// (K = 399, 9 999, 999 999 offsets): Poisson-Gibbs's draws per step stay at
// λ + L ≈ 31 (its time grows only with cache misses as the state and the
// offset table outgrow the caches), plain Gibbs's cost follows K.
func BenchmarkScaling(b *testing.B) {
	for _, model := range []string{"power20", "power100", "power1000"} {
		for _, sampler := range []string{"pgibbs", "gibbs"} {
			if model == "power1000" && sampler == "gibbs" {
				continue // in BenchmarkStep
			}
			b.Run(fmt.Sprintf("model=%s/sampler=%s", model, sampler), func(b *testing.B) {
				m := benchModel(b, model)
				s, err := samplers.New(sampler, m, rand.New(rand.NewPCG(1, 2)), nil)
				if err != nil {
					b.Fatal(err)
				}
				warm := 10000
				if sampler == "gibbs" {
					warm = 100
				}
				runSteps(b, s, warm)
				b.ReportMetric(float64(m.MaxDegree()), "Δ")
			})
		}
	}
}

// BenchmarkSweepStep measures Poisson-Gibbs updates in systematic-scan
// order (sites 0, 1, 2, …) on the 10⁶-site lattices: neighbouring updates
// share the state's cache lines, which random-scan updates of a 10⁶-site
// state (8 MB) do not.
func BenchmarkSweepStep(b *testing.B) {
	for _, model := range []string{"gauss20", "gauss1000", "power1000"} {
		b.Run("model="+model+"/sampler=pgibbs", func(b *testing.B) {
			m := benchModel(b, model)
			s, err := samplers.New("pgibbs", m, rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				b.Fatal(err)
			}
			n := m.NumVars()
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				s.Update(i)
				if i++; i == n {
					i = 0
				}
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(s.Stats().PicksPerStep(), "draws/op")
		})
	}
}

// BenchmarkSetup builds the 1000×1000 power-law lattice (10⁶ offsets: the
// enumeration, the sort by |J| and the tiered alias table) and reports the
// heap it retains.
func BenchmarkSetup(b *testing.B) {
	for _, n := range []int{1000} {
		b.Run(fmt.Sprintf("model=power%d", n), func(b *testing.B) {
			var l *Lattice
			var before, after runtime.MemStats
			for b.Loop() {
				b.StopTimer()
				l = nil
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				var err error
				if l, err = New(Params{Dim: 2, Size: n, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(10), Beta: 0.5}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.StartTimer()
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "MB")
			b.ReportMetric(float64(l.NumOffsets()), "offsets")
			runtime.KeepAlive(l)
		})
	}
}

// BenchmarkChromatic measures one parallel sweep over all sites (op = a
// sweep) with 1 and 2 workers: the 1000×1000 nearest-neighbour Ising model
// at β = 0.4 (checkerboard, plain Gibbs updates) and a 512×512 power-law
// Potts lattice cut off at distance 3 (16 classes, Poisson-Gibbs updates).
func BenchmarkChromatic(b *testing.B) {
	for _, tc := range []struct {
		model, sampler string
		p              Params
	}{
		{"ising-nn1000", "gibbs", Params{Dim: 2, Size: 1000, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.4}},
		{"power512-cut3", "pgibbs", Params{Dim: 2, Size: 512, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 0.3, Cutoff: 3}},
	} {
		l, err := New(tc.p)
		if err != nil {
			b.Fatal(err)
		}
		classes, err := l.Colouring()
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("model=%s/sampler=%s/workers=%d", tc.model, tc.sampler, workers), func(b *testing.B) {
				c, err := chromatic.New(gibbsFactory(b, tc.sampler), l, classes, chain.Streams(1, workers), nil)
				if err != nil {
					b.Fatal(err)
				}
				c.Sweep()
				b.ReportAllocs()
				for b.Loop() {
					c.Sweep()
				}
				if err := c.Err(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(l.Sites())*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
				b.ReportMetric(float64(len(classes)), "classes")
			})
		}
	}
}

// BenchmarkEnergyMC measures one sampled pair of the Monte Carlo energy on
// the 10⁶-offset lattice.
func BenchmarkEnergyMC(b *testing.B) {
	l := benchModel(b, "power1000").(*Lattice)
	r := rand.New(rand.NewPCG(1, 2))
	x := factorgraph.RandomState(l, r)
	b.ReportAllocs()
	for b.Loop() {
		l.EnergyMC(x, r, 1)
	}
}

// clusterModel is an Ising lattice of BenchmarkClusterSweep with a state
// equilibrated by Swendsen–Wang sweeps.
type clusterModel struct {
	l *Lattice
	x []float64
}

var (
	clusterModels   = map[string]clusterModel{}
	clusterModelsMu sync.Mutex
)

// equilibratedIsing returns the 2-D Ising lattice of side n with kernel
// "nn" (at Onsager's β_c) or "power" (r^−3, σ = 1, at β = 0.127, near its
// critical point: see bench.ClustersPaper) and a state after 20
// Swendsen–Wang sweeps from a random one, built once per kernel and side.
func equilibratedIsing(b *testing.B, kernel string, n int) clusterModel {
	b.Helper()
	clusterModelsMu.Lock()
	defer clusterModelsMu.Unlock()
	key := fmt.Sprintf("%s%d", kernel, n)
	if m, ok := clusterModels[key]; ok {
		return m
	}
	p := Params{Dim: 2, Size: n, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: math.Log(1+math.Sqrt2) / 2}
	if kernel == "power" {
		p.Coupling, p.Beta = PowerLaw{Sigma: 1}, 0.127
	}
	l, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	sw, err := cluster.NewSwendsenWang(l, rand.New(rand.NewPCG(uint64(n), 1)), nil)
	if err != nil {
		b.Fatal(err)
	}
	for range 20 {
		sw.Sweep()
	}
	if err := sw.Err(); err != nil {
		b.Fatal(err)
	}
	m := clusterModel{l: l, x: slices.Clone(sw.State())}
	clusterModels[key] = m
	return m
}

// BenchmarkClusterSweep measures one Swendsen–Wang sweep, and one Wolff
// step of clusters tuned to a sweep's worth of sites (Wolff.TuneClusters),
// op = a sweep (or step), on 2-D Ising lattices near their critical points
// (where the clusters are large), with nearest-neighbour and full-torus
// power-law (σ = 1: 4095 and 999 999 offsets) couplings, from a state
// equilibrated before the timer. The bonds are Poisson-process events
// (Fukui–Todo): a sweep costs O(N + N·L/2) whatever the range, so the
// power law's sweep costs about the nearest-neighbour one's. It reports
// updates/s (site updates: every site a Swendsen–Wang sweep, the members
// of the clusters a Wolff step) and events/update (bond events drawn per
// site update); Wolff also reports its clusters a step.
func BenchmarkClusterSweep(b *testing.B) {
	for _, sampler := range []string{"sw", "wolff"} {
		for _, kernel := range []string{"nn", "power"} {
			for _, n := range []int{64, 1000} {
				b.Run(fmt.Sprintf("sampler=%s/kernel=%s/sites=%d", sampler, kernel, n*n), func(b *testing.B) {
					m := equilibratedIsing(b, kernel, n)
					r := rand.New(rand.NewPCG(2, uint64(n)))
					opt := &gibbs.Options{Init: m.x}
					var s gibbs.Sampler
					k := 0 // Wolff's clusters a step
					switch sampler {
					case "sw":
						sw, err := cluster.NewSwendsenWang(m.l, r, opt)
						if err != nil {
							b.Fatal(err)
						}
						sw.Sweep() // allocates the union–find arrays
						s = sw
					case "wolff":
						w, err := cluster.NewWolff(m.l, r, opt)
						if err != nil {
							b.Fatal(err)
						}
						if k, err = w.TuneClusters(context.Background(), 2); err != nil {
							b.Fatal(err)
						}
						s = w
					}
					before := s.Stats()
					b.ReportAllocs()
					for b.Loop() {
						s.Sweep()
					}
					if err := s.Err(); err != nil {
						b.Fatal(err)
					}
					st := s.Stats()
					updates := float64(st.Steps - before.Steps)
					b.ReportMetric(updates/b.Elapsed().Seconds(), "updates/s")
					b.ReportMetric(float64(st.Picks-before.Picks)/updates, "events/update")
					if k > 0 {
						b.ReportMetric(float64(k), "clusters/op")
					}
				})
			}
		}
	}
}

// BenchmarkMeasure measures one measurement of a Measurer (op = a
// measurement of every series: energy, order parameter, M2 and SK) of an
// equilibrated state of the 1000×1000 nearest-neighbour Ising torus at β_c
// and of a random state of a 256×256 3-state Potts lattice with the
// Gaussian kernel cut off at distance 2 (12 offsets; exact energy): as
// Observe measures a sweep's trusted state (on 1 and 2 goroutines), and as
// Measure measures a state given by a user (checked first). ns/site is
// ns/op over the sites.
func BenchmarkMeasure(b *testing.B) {
	potts := mustNewB(b, Params{Dim: 2, Size: 256, Coupling: Gaussian{Gamma: 0.5}, Spin: Potts(3), Beta: 0.3, Cutoff: 2})
	for _, tc := range []struct {
		model string
		l     *Lattice
		x     func() []float64
	}{
		{"ising-nn1000", nil, nil},
		{"potts3-gauss256-cut2", potts, func() []float64 { return factorgraph.RandomState(potts, rand.New(rand.NewPCG(1, 2))) }},
	} {
		for _, how := range []string{"observe/workers=1", "observe/workers=2", "measure/workers=1"} {
			b.Run(fmt.Sprintf("model=%s/call=%s", tc.model, how), func(b *testing.B) {
				l, x := tc.l, []float64(nil)
				if l == nil {
					m := equilibratedIsing(b, "nn", 1000)
					l, x = m.l, m.x
				} else {
					x = tc.x()
				}
				m, err := NewMeasurer(l, nil, ExactEnergy)
				if err != nil {
					b.Fatal(err)
				}
				if how == "observe/workers=2" {
					if err := m.SetWorkers(2); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				t := int64(0)
				for b.Loop() {
					if t++; how != "measure/workers=1" {
						m.Observe(t, -1, x)
					} else {
						m.Measure(x)
					}
				}
				if _, err := m.Result(); err != nil && len(m.Energies()) >= 4 {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(l.Sites()), "ns/site")
			})
		}
	}
}

func mustNewB(b *testing.B, p Params) *Lattice {
	b.Helper()
	l, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	return l
}
