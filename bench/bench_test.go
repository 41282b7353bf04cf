package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/experiments/studies"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/internal/baseline"
	lat "github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/potts"
	"github.com/pgibbs/pgibbs/spin"
	"github.com/pgibbs/pgibbs/tgm"
)

// lattices caches the Gaussian-kernel Potts graphs by width: the 80×80 one
// has 3.9 million factors and takes a second to build.
var lattices sync.Map

func lattice(b *testing.B, width int) *factorgraph.Graph {
	b.Helper()
	if g, ok := lattices.Load(width); ok {
		return g.(*factorgraph.Graph)
	}
	p := potts.Paper()
	p.Width = width
	g, err := potts.New(p)
	if err != nil {
		b.Fatal(err)
	}
	lattices.Store(width, g)
	return g
}

type discreteSampler struct {
	name string
	new  func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error)
}

func discreteSamplers() []discreteSampler {
	pg := func(scale float64) func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
		return func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return site.NewPoissonGibbs(m, r, &gibbs.Options{LambdaScale: scale})
		}
	}
	return []discreteSampler{
		{"gibbs", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return site.NewGibbs(m, r, nil) }},
		{"pgibbs", pg(1)},
		{"pgibbs-0.1", pg(0.1)},
		{"pgibbs-5", pg(5)},
	}
}

// runSteps benchmarks one variable update per op after a warm-up, and
// reports the sampler's work per step.
func runSteps(b *testing.B, s gibbs.Sampler) { runStepsWarm(b, s, 10000) }

// runStepsWarm is runSteps with warm updates of warm-up.
func runStepsWarm(b *testing.B, s gibbs.Sampler, warm int) {
	b.Helper()
	for range warm { // leave the random initial state
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

// BenchmarkStep measures one update on the Poisson-Gibbs paper's Potts
// model (20×20, D = 10, β = 4.6, L = 5.0878, Δ = 399), with the
// hand-written heat-bath (the honest baseline, internal/baseline) beside the
// library's samplers.
func BenchmarkStep(b *testing.B) {
	g := lattice(b, 20)
	for _, sc := range discreteSamplers() {
		b.Run("model=potts20/sampler="+sc.name, func(b *testing.B) {
			s, err := sc.new(g, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			runSteps(b, s)
		})
	}
	b.Run("model=potts20/sampler=handwritten", func(b *testing.B) {
		runHandwrittenPotts(b, potts.Paper())
	})
	b.Run("model=potts20/sampler=handwritten-stencil", func(b *testing.B) {
		runPottsStencil(b, potts.Paper())
	})
}

// BenchmarkStepPaired is BenchmarkStep's Poisson-Gibbs and plain Gibbs
// updates beside the hand-written heat-bath on the paper's model, timed in
// turn within each iteration (op = pairedBlock updates of each), so that a
// shared machine's changes of speed fall on both alike: it reports each
// one's ns a step and the ratio sampler/handwritten (issue 36's target for
// Poisson-Gibbs: ≤ 0.5). Run it with -benchtime 100x or so: an op is 4·10⁴
// updates.
func BenchmarkStepPaired(b *testing.B) {
	g := lattice(b, 20)
	for _, sc := range discreteSamplers()[:2] {
		b.Run("model=potts20/sampler="+sc.name, func(b *testing.B) {
			s, err := sc.new(g, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			h, err := baseline.NewPottsHeatBath(potts.Paper(), rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			for range 10000 {
				s.Step()
				h.Step()
			}
			ts, th := timeInTurn(b, func() {
				for range pairedBlock {
					s.Step()
				}
			}, func() {
				for range pairedBlock {
					h.Step()
				}
			})
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			steps := float64(b.N) * pairedBlock
			b.ReportMetric(float64(ts.Nanoseconds())/steps, "sampler-ns/step")
			b.ReportMetric(float64(th.Nanoseconds())/steps, "handwritten-ns/step")
			b.ReportMetric(float64(ts)/float64(th), "sampler/handwritten")
		})
	}
}

// timeInTurn runs first and then second once an iteration of b's loop and
// returns the time each took in all: side by side, a shared machine's
// changes of speed fall on both alike.
func timeInTurn(b *testing.B, first, second func()) (t1, t2 time.Duration) {
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		first()
		mid := time.Now()
		second()
		t1, t2 = t1+mid.Sub(start), t2+time.Since(mid)
	}
	return t1, t2
}

// pairedBlock is the updates of each side an iteration of
// BenchmarkStepPaired times together: long enough that each side's tables
// are back in cache for most of its block (blocks of 1000 put the ratio
// 0.01–0.03 higher), short enough (about 10 ms) that the machine's speed
// changes little between the two.
const pairedBlock = 20000

// runHandwrittenPotts benchmarks one random-scan update of the
// hand-written CSR Potts heat-bath on p (op = one update, as in runSteps)
// and reports the neighbours it visits a step as factors/op (its
// equivalent of plain Gibbs's factors/op) and Δ.
func runHandwrittenPotts(b *testing.B, p potts.Params) {
	b.Helper()
	h, err := baseline.NewPottsHeatBath(p, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	runBaseline(b, h.Step, 10000)
	b.ReportMetric(h.MeanDegree(), "factors/op")
	b.ReportMetric(float64(h.MaxDegree()), "Δ")
}

// runPottsStencil benchmarks one random-scan update of the hand-written
// stencil heat-bath on p (the same model without neighbour lists).
func runPottsStencil(b *testing.B, p potts.Params) {
	b.Helper()
	h, err := baseline.NewPottsStencil(p, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	runBaseline(b, h.Step, 10000)
}

// runBaseline benchmarks step (op = one call) after warm calls.
func runBaseline(b *testing.B, step func(), warm int) {
	b.Helper()
	for range warm {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.StopTimer()
}

// BenchmarkScaling grows the lattice at fixed kernel (fixed L): the cost of
// a plain Gibbs step and of the hand-written heat-bath follows Δ,
// Poisson-Gibbs's draws per step stay at λ + L (DESIGN §9).
func BenchmarkScaling(b *testing.B) {
	for _, width := range []int{20, 40, 80} {
		for _, sc := range discreteSamplers()[:2] {
			b.Run(fmt.Sprintf("width=%d/sampler=%s", width, sc.name), func(b *testing.B) {
				g := lattice(b, width)
				s, err := sc.new(g, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(g.MaxDegree()), "Δ")
				runSteps(b, s)
			})
		}
		p := potts.Paper()
		p.Width = width
		b.Run(fmt.Sprintf("width=%d/sampler=handwritten", width), func(b *testing.B) {
			runHandwrittenPotts(b, p)
		})
		b.Run(fmt.Sprintf("width=%d/sampler=handwritten-stencil", width), func(b *testing.B) {
			runPottsStencil(b, p)
		})
	}
}

// BenchmarkScale is the scale study's benchmark (`pgibbs reproduce scale`
// runs it up to 2·10⁸ pair factors): building the Gaussian-kernel Potts
// graph through potts.New's bulk path (ns/pair, bytes/pair of Graph.Bytes,
// pairs/s) and a Poisson-Gibbs random-scan update on it, at widths 22 (10⁵
// pairs), 80 and 200 (2.8·10⁷ pairs, 1.2 GB).
func BenchmarkScale(b *testing.B) {
	for _, width := range []int{22, 80, 200} {
		p := potts.Paper()
		p.Width = width
		b.Run(fmt.Sprintf("width=%d/build", width), func(b *testing.B) {
			b.ReportAllocs()
			var g *factorgraph.Graph
			for b.Loop() {
				var err error
				if g, err = potts.New(p); err != nil {
					b.Fatal(err)
				}
			}
			pairs := float64(g.NumFactors())
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pairs, "ns/pair")
			b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
			b.ReportMetric(float64(g.Bytes())/pairs, "B/pair")
			b.ReportMetric(float64(factorgraph.PairGraphBytes(g.NumVars(), g.NumFactors()))/float64(g.Bytes()), "estimate/actual")
		})
		b.Run(fmt.Sprintf("width=%d/sampler=pgibbs", width), func(b *testing.B) {
			s, err := site.NewPoissonGibbs(lattice(b, width), rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				b.Fatal(err)
			}
			runSteps(b, s)
		})
	}
}

// BenchmarkIsingSweep measures a sweep of the 1000×1000 nearest-neighbour
// Ising torus at β = 0.4 (op = one sweep of 10⁶ site updates; ns/site is
// ns/op divided by 10⁶): the hand-written checkerboard heat-bath (int8
// spins, tabulated thresholds; internal/baseline) against the library's
// chromatic Gibbs sweep on lattice.New with its checkerboard colouring,
// with 1 and 2 workers, and Swendsen–Wang's hand-written loop and sampler;
// the -e2e variants are those kernels as `pgibbs lattice` runs them
// (e2eSweeps: measured every sweep, journalled for interrupts; the
// chromatic one with the command's default update, auto). The whole
// command: BenchmarkLatticeCLI in cmd/pgibbs.
func BenchmarkIsingSweep(b *testing.B) {
	const side, beta = 1000, 0.4
	b.Run("model=ising-nn1000/sampler=handwritten", func(b *testing.B) {
		c, err := baseline.NewIsingCheckerboard(side, beta, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			b.Fatal(err)
		}
		c.Sweep()
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			c.Sweep()
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(side*side), "ns/site")
	})
	l, err := lat.New(lat.Params{Dim: 2, Size: side, Coupling: lat.NearestNeighbour{}, Spin: lat.Ising(), Beta: beta})
	if err != nil {
		b.Fatal(err)
	}
	benchSW(b, l, side, beta)
	classes, err := l.Colouring()
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("model=ising-nn1000/sampler=chromatic/workers=%d", workers), func(b *testing.B) {
			f, err := samplers.FactoryOf("gibbs")
			if err != nil {
				b.Fatal(err)
			}
			c, err := chromatic.New(f, l, classes, chain.Streams(1, workers), nil)
			if err != nil {
				b.Fatal(err)
			}
			c.Sweep()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c.Sweep()
			}
			b.StopTimer()
			if err := c.Err(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(side*side), "ns/site")
		})
	}
	// The same sweeps as `pgibbs lattice -sampler chromatic` runs them: the
	// default site update (auto), journalled for interrupts, measured
	// every sweep (e2eSweeps).
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("model=ising-nn1000/sampler=chromatic-e2e/workers=%d", workers), func(b *testing.B) {
			f, err := samplers.FactoryOf("auto")
			if err != nil {
				b.Fatal(err)
			}
			c, err := chromatic.New(f, l, classes, chain.Streams(1, workers), nil)
			if err != nil {
				b.Fatal(err)
			}
			e2eSweeps(b, l, gibbs.Sweeper{Sampler: c}, workers, 1)
		})
	}
}

// BenchmarkIsingSweepPaired is BenchmarkIsingSweep's hand-written
// checkerboard and one-worker chromatic sweep in turn within each
// iteration (op = one sweep of each), so that a shared machine's changes of
// speed, which move single runs by ±30%, fall on both alike: it reports
// each one's ns/site and their ratio, library/handwritten.
func BenchmarkIsingSweepPaired(b *testing.B) {
	const side, beta = 1000, 0.4
	hw, err := baseline.NewIsingCheckerboard(side, beta, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	l, err := lat.New(lat.Params{Dim: 2, Size: side, Coupling: lat.NearestNeighbour{}, Spin: lat.Ising(), Beta: beta})
	if err != nil {
		b.Fatal(err)
	}
	classes, err := l.Colouring()
	if err != nil {
		b.Fatal(err)
	}
	f, err := samplers.FactoryOf("gibbs")
	if err != nil {
		b.Fatal(err)
	}
	c, err := chromatic.New(f, l, classes, chain.Streams(1, 1), nil)
	if err != nil {
		b.Fatal(err)
	}
	hw.Sweep()
	c.Sweep()
	th, tc := timeInTurn(b, hw.Sweep, c.Sweep)
	sites := float64(b.N) * side * side
	b.ReportMetric(float64(th.Nanoseconds())/sites, "handwritten-ns/site")
	b.ReportMetric(float64(tc.Nanoseconds())/sites, "chromatic-ns/site")
	b.ReportMetric(float64(tc)/float64(th), "chromatic/handwritten")
}

// e2eSweeps benchmarks what `pgibbs lattice` runs a sweep (op = one sweep
// of side² site updates): kernel k (a gibbs.Sweeper, or a cluster sampler
// whose step is a sweep) in a chain.Chain with a lattice.Measurer measuring
// every sweep (energy, order parameter, M2, SK) on as many goroutines as
// the kernel's workers, advanced under a
// cancellable context as chain.Runner does (so that a Chromatic journals
// its sweeps for interrupts), after warm sweeps.
func e2eSweeps(b *testing.B, l *lat.Lattice, k chain.Kernel, workers, warm int) {
	b.Helper()
	meas, err := lat.NewMeasurer(l, rand.New(rand.NewPCG(3, 4)), 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := meas.SetWorkers(workers); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &chain.Chain{Kernel: k, Observers: []chain.Observer{meas}}
	t := int64(warm)
	if err := c.Advance(ctx, t); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t++
		if err := c.Advance(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if len(meas.Energies()) != int(t) {
		b.Fatalf("%d measurements of %d sweeps", len(meas.Energies()), t)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(l.Sites()), "ns/site")
}

// benchSW measures a Swendsen–Wang sweep of the side×side Ising torus at
// β: the hand-written loop (internal/baseline) beside the library's sampler on
// l (Poisson bond events).
func benchSW(b *testing.B, l *lat.Lattice, side int, beta float64) {
	b.Run("model=ising-nn1000/sampler=sw-handwritten", func(b *testing.B) {
		c, err := baseline.NewIsingSW(side, beta, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			b.Fatal(err)
		}
		for range 5 {
			c.Sweep()
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			c.Sweep()
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(side*side), "ns/site")
	})
	b.Run("model=ising-nn1000/sampler=sw", func(b *testing.B) {
		s, err := cluster.NewSwendsenWang(l, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			b.Fatal(err)
		}
		for range 5 {
			s.Sweep()
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			s.Sweep()
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(side*side), "ns/site")
	})
	b.Run("model=ising-nn1000/sampler=sw-e2e", func(b *testing.B) {
		s, err := cluster.NewSwendsenWang(l, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			b.Fatal(err)
		}
		e2eSweeps(b, l, s, 1, 5)
	})
}

// BenchmarkPowerLaw measures one random-scan update on the implicit
// full-torus power-law Potts lattices (σ = 1, q = 10, β such that L equals
// the paper's 5.0878; Δ = K = N² − 1 offsets): the hand-written heat-bath
// over all K offsets (internal/baseline) beside the library's Gibbs and
// Poisson-Gibbs (λ = L²) on lattice.New. These are the crossover study's
// points (Crossover) as benchmarks.
func BenchmarkPowerLaw(b *testing.B) {
	for _, side := range []int{20, 100, 1000} {
		p, l, err := studies.PowerLawLattice(side, 10, 1, studies.PaperL)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("side=%d/sampler=handwritten", side), func(b *testing.B) {
			h, err := baseline.NewLatticeHeatBath(p, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			runBaseline(b, h.Step, min(10000, 1e8/h.Offsets()))
			b.ReportMetric(float64(h.Offsets()), "Δ")
		})
		for _, sc := range discreteSamplers()[:2] {
			b.Run(fmt.Sprintf("side=%d/sampler=%s", side, sc.name), func(b *testing.B) {
				s, err := sc.new(l, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				warm := 10000
				if sc.name == "gibbs" {
					warm = min(warm, 1e8/l.NumOffsets())
				}
				runStepsWarm(b, s, warm)
				b.ReportMetric(float64(l.NumOffsets()), "Δ")
			})
		}
	}
}

var spinOnce = sync.OnceValues(func() (*factorgraph.Graph, error) { return spin.New(spin.Paper()) })

// BenchmarkContinuousStep measures one update of each continuous sampler
// on the paper's spin model (20×20, L = 13.71, Δ = 399; m = 3, k = 10).
// Rejection samplers report tries/op.
func BenchmarkContinuousStep(b *testing.B) {
	g, err := spinOnce()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection"} {
		b.Run("model=spin20/sampler="+name, func(b *testing.B) {
			s, err := samplers.New(name, g, rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				b.Fatal(err)
			}
			runSteps(b, s)
			st := s.Stats()
			if st.Tries > 0 {
				b.ReportMetric(st.TriesPerStep(), "tries/op")
			}
		})
	}
}

// tgmGraphs caches the mixture factor graphs by N (10⁶ takes seconds).
var tgmGraphs sync.Map

func tgmGraph(b *testing.B, n int) *factorgraph.Graph {
	b.Helper()
	if g, ok := tgmGraphs.Load(n); ok {
		return g.(*factorgraph.Graph)
	}
	cfg := tgm.GibbsConfig()
	cfg.N = n
	m, err := tgm.Generate(cfg, rand.New(rand.NewPCG(1, 0x7e5a)))
	if err != nil {
		b.Fatal(err)
	}
	g, err := m.Graph()
	if err != nil {
		b.Fatal(err)
	}
	tgmGraphs.Store(n, g)
	return g
}

// BenchmarkTGMStep measures one update on the truncated Gaussian mixture
// with the paper's settings (β = 10⁻⁴, box [−6, 6]², λ = 500, m = 20,
// k = 25): all six continuous samplers at N = 10⁴, the four polynomial ones
// at the paper's N = 10⁶ (where a rejection step would take minutes:
// each try evaluates all N factors, and the paper reports ~1000 tries).
func BenchmarkTGMStep(b *testing.B) {
	opts := gibbs.Options{Lambda: 500, M: 20, K: 25}
	for _, n := range []int{10_000, 1_000_000} {
		for _, name := range []string{"gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection"} {
			if n > 10_000 && (name == "gibbs-rejection" || name == "pg-rejection") {
				continue
			}
			b.Run(fmt.Sprintf("model=tgm%s/sampler=%s", map[int]string{10_000: "1e4", 1_000_000: "1e6"}[n], name), func(b *testing.B) {
				g := tgmGraph(b, n)
				s, err := samplers.New(name, g, rand.New(rand.NewPCG(1, 2)), &opts)
				if err != nil {
					b.Fatal(err)
				}
				warm := 1000
				if n > 10_000 {
					warm = 20
				}
				runStepsWarm(b, s, warm)
				if st := s.Stats(); st.Tries > 0 {
					b.ReportMetric(st.TriesPerStep(), "tries/op")
				}
			})
		}
	}
}

// BenchmarkBlockedChain measures a joint draw of an open chain of 1000
// binary variables (Potts pair weights in [0.5, 2], Gaussian fields; op =
// one draw of the whole chain, ns/var = ns/op ÷ 1000): the hand-written
// forward-filtering backward-sampling loop (internal/baseline) beside
// blocked.Blocked with the chain as one block, without and with its
// Rao–Blackwellised marginals, and a sweep of plain Gibbs (1000
// single-site updates, which do not draw the chain jointly) for scale.
func BenchmarkBlockedChain(b *testing.B) {
	const n = 1000
	r := rand.New(rand.NewPCG(5, 6))
	w, u := make([]float64, n-1), make([][2]float64, n)
	fb := factorgraph.NewBuilder()
	fb.AddVariables(n, factorgraph.Discrete(2))
	for i := range n {
		u[i] = [2]float64{r.NormFloat64(), r.NormFloat64()}
		fb.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, u[i][:]))
		if i+1 < n {
			w[i] = 0.5 + 1.5*r.Float64()
			fb.AddFactor(factorgraph.NewPotts(i, i+1, w[i]))
		}
	}
	g, err := fb.Build()
	if err != nil {
		b.Fatal(err)
	}
	perVar := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/var")
	}
	b.Run("model=chain1000/sampler=ffbs-handwritten", func(b *testing.B) {
		c, err := baseline.NewIsingChainFFBS(w, u, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			c.Sample()
		}
		perVar(b)
	})
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for _, rb := range []bool{false, true} {
		b.Run(fmt.Sprintf("model=chain1000/sampler=block/rb=%v", rb), func(b *testing.B) {
			s, err := blocked.NewWith(g, rand.New(rand.NewPCG(1, 2)), nil, [][]int{all}, blocked.Config{})
			if err != nil {
				b.Fatal(err)
			}
			s.RecordConditionals(rb)
			s.Step()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s.Step()
			}
			b.StopTimer()
			perVar(b)
		})
	}
	b.Run("model=chain1000/sampler=gibbs-sweep", func(b *testing.B) {
		s, err := site.NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			s.Sweep()
		}
		perVar(b)
	})
}
