package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/internal/sysmem"
	"github.com/pgibbs/pgibbs/potts"
)

// ScaleSettings configures the scale study: how the cost of holding and
// sampling the Gaussian-kernel Potts model (potts.New, built through its
// bulk path) grows with the number of pair factors, from about 10⁵ to the
// largest graph the memory budget admits.
type ScaleSettings struct {
	// Model is the Potts model; its Width takes each value of Widths.
	Model  potts.Params
	Widths []int
	// PGUpdates and GibbsUpdates are the random-scan updates timed per
	// repetition of Poisson-Gibbs and of plain Gibbs (whose update costs
	// O(Δ): fewer), after a tenth as many untimed ones.
	PGUpdates, GibbsUpdates int64
	// Reps is the number of timed repetitions (the median is reported).
	Reps int
	// MaxBytes skips widths whose graph (factorgraph.PairGraphBytes) and
	// chains would not fit: zero means half the machine's memory.
	MaxBytes float64
	// Shapes are the graphs without locality measured after the lattice:
	// each at its sizes in pair factors.
	Shapes []ScaleShape
}

// ScaleShape is a shape of pairwise Potts graph of the scale study other
// than the lattice: its name, its sizes in pair factors, and its pairs at
// a size (package potts's Sparse, PowerLaw, Bipartite: pairs of one weight).
type ScaleShape struct {
	Name  string
	Pairs []int
	New   func(pairs int, r *rand.Rand) (*potts.Pairs, error)
	// Local stores the graph in its locality order (factorgraph.
	// LocalityOrder and Renumber, counted in the build's time).
	Local bool
}

// ScaleShapes returns the shapes of `pgibbs reproduce scale`, q = 4: random
// sparse graphs of degree 10 and 20 (L_i = 2: λ = 4), a power-law one (γ =
// 2.5, mean degree 10), the dense complete bipartite K_{m,m} (L_i = 2) and
// a random geometric graph of degree 10 as drawn (local in space, not in
// its numbering) and stored in its locality order, from 10⁵ to 10⁸ pair
// factors (10⁶ when quick).
func ScaleShapes(quick bool) []ScaleShape {
	sizes := []int{1e5, 1e6, 1e7, 1e8}
	if quick {
		sizes = sizes[:2]
	}
	return []ScaleShape{
		{Name: "sparse deg 10", Pairs: sizes, New: func(m int, r *rand.Rand) (*potts.Pairs, error) { return potts.Sparse(m/5, 10, 4, 0.2, r) }},
		{Name: "sparse deg 20", Pairs: sizes, New: func(m int, r *rand.Rand) (*potts.Pairs, error) { return potts.Sparse(m/10, 20, 4, 0.1, r) }},
		{Name: "power law", Pairs: sizes, New: func(m int, r *rand.Rand) (*potts.Pairs, error) { return potts.PowerLaw(m/5, 10, 2.5, 4, 0.2, r) }},
		{Name: "bipartite", Pairs: sizes, New: func(m int, r *rand.Rand) (*potts.Pairs, error) {
			side := int(math.Round(math.Sqrt(float64(m))))
			return potts.Bipartite(side, 4, 2/float64(side))
		}},
		{Name: "geometric deg 10", Pairs: sizes, New: geometric},
		{Name: "geometric deg 10, locality order", Pairs: sizes, New: geometric, Local: true},
	}
}

// geometric returns the random geometric graph of about m pairs, degree
// 10 (L_i = 2).
func geometric(m int, r *rand.Rand) (*potts.Pairs, error) { return potts.Geometric(m/5, 10, 4, 0.2, r) }

// localBuild returns the build of p's graph stored in its locality order.
func localBuild(ctx context.Context, p *potts.Pairs) func() (*factorgraph.Graph, error) {
	return func() (*factorgraph.Graph, error) {
		g, err := p.Build()
		if err != nil {
			return nil, err
		}
		order, err := factorgraph.LocalityOrder(ctx, g)
		if err != nil {
			return nil, err
		}
		return factorgraph.Renumber(g, order)
	}
}

// ScalePaper returns the settings of `pgibbs reproduce scale`: widths 22
// (10⁵ pairs) to 516 (2·10⁸ pairs, about 9 GB), or up to 80 when quick.
func ScalePaper(quick bool) ScaleSettings {
	s := ScaleSettings{Model: potts.Paper(), Widths: []int{22, 40, 80, 160, 320, 516},
		PGUpdates: 2_000_000, GibbsUpdates: 20_000, Reps: 3, Shapes: ScaleShapes(quick)}
	if quick {
		s.Widths, s.PGUpdates, s.GibbsUpdates = []int{22, 40, 80}, 500_000, 5_000
	}
	return s
}

// ScalePoint is the scale study at one width of the lattice, or one size
// of another shape.
type ScalePoint struct {
	// Shape is "lattice" (Width set) or a ScaleShape's name.
	Shape              string
	Width, Vars, Pairs int
	// BuildSeconds is the time of potts.New; PairsPerSecond Pairs over it.
	BuildSeconds, PairsPerSecond float64
	// GraphBytes is Graph.Bytes; HeapBytes the live heap the graph and a
	// Poisson-Gibbs sampler on it take (measured after a collection, less
	// the heap before the build).
	GraphBytes, HeapBytes float64
	// PGNs, GibbsNs and AutoNs are the median ns per random-scan update
	// of Poisson-Gibbs, plain Gibbs and Mixed (auto: the cheaper of the
	// two variable by variable, by its cost model); AutoScanNs Mixed's in
	// a systematic scan (gibbs.Options.Systematic).
	PGNs, GibbsNs, AutoNs, AutoScanNs float64
}

// BytesPerPair returns HeapBytes over Pairs: what a pair factor costs all
// in, the sampler's tables and the variables' share included.
func (p ScalePoint) BytesPerPair() float64 { return p.HeapBytes / float64(p.Pairs) }

// ScaleResult is the scale study's outcome.
type ScaleResult struct {
	Settings ScaleSettings
	Points   []ScalePoint
	Skipped  []int    // widths over the memory budget
	Over     []string // shapes' sizes over it
	Seconds  float64
}

// Scale runs the scale study: at each width, it builds the graph, measures
// its memory, and times Poisson-Gibbs and Gibbs updates on it (one
// goroutine: run it on a quiet machine), dropping the graph before the
// next width.
func Scale(ctx context.Context, s ScaleSettings, cfg harness.Config) (*ScaleResult, error) {
	if len(s.Widths) == 0 || s.PGUpdates < 1 || s.GibbsUpdates < 1 || s.Reps < 1 {
		return nil, errors.New("experiments: scale: want widths, updates ≥ 1 and reps ≥ 1")
	}
	budget := s.MaxBytes
	if budget == 0 {
		budget = sysmem.Total() / 2
	}
	prog := cfg.ProgressOrNone()
	prog.Start("scale", int64(len(s.Widths)))
	start := time.Now()
	res := &ScaleResult{Settings: s}
	for _, w := range s.Widths {
		p := s.Model
		p.Width = w
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("experiments: scale: %w", err)
		}
		// The graph, and Poisson-Gibbs's tables and state: about a tenth
		// more (measured up to width 516).
		need := 1.1 * float64(factorgraph.PairGraphBytes(w*w, p.NumPairs()))
		if budget > 0 && need > budget {
			res.Skipped = append(res.Skipped, w)
			prog.Add(1)
			continue
		}
		pt, err := scalePoint(ctx, ScalePoint{Shape: "lattice", Width: w}, liveHeap(), func() (*factorgraph.Graph, error) { return potts.New(p) },
			s.PGUpdates, s.GibbsUpdates, s.Reps, cfg.Seed)
		if err != nil {
			return nil, err
		}
		res.Points = append(res.Points, pt)
		prog.Add(1)
	}
	for k, sh := range s.Shapes {
		for _, m := range sh.Pairs {
			need := 1.1 * factorgraph.Size{Vars: m / 5, Pairs: m, OneWeight: true}.GraphBytes()
			if sh.Local {
				need *= 2 // the graph as built and renumbered, until the first is dropped
			}
			if budget > 0 && need > budget {
				res.Over = append(res.Over, fmt.Sprintf("%s at %d pairs", sh.Name, m))
				continue
			}
			// The pairs' arrays, which the graph keeps, count in its heap
			// (as the lattice's, made by potts.New); their drawing does not
			// count in the build's time.
			heap0 := liveHeap()
			pairs, err := sh.New(m, rand.New(chain.Source(cfg.Seed, 100+k)))
			if err != nil {
				return nil, fmt.Errorf("experiments: scale: %s: %w", sh.Name, err)
			}
			// Plain Gibbs costs O(deg) here, not O(Δ) of the lattice's 10⁴
			// and more: a tenth of Poisson-Gibbs's updates.
			build := pairs.Build
			if sh.Local {
				build = localBuild(ctx, pairs)
			}
			pt, err := scalePoint(ctx, ScalePoint{Shape: sh.Name}, heap0, build, s.PGUpdates, max(s.PGUpdates/10, 1), s.Reps, cfg.Seed)
			if err != nil {
				return nil, err
			}
			res.Points = append(res.Points, pt)
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// scalePoint measures the graph build builds, pt saying which: its heap
// above heap0, and the median over reps runs of pgN Poisson-Gibbs and
// gibbsN Gibbs updates (and of auto's, in random and in systematic scan,
// pgN if it minibatches any variable, else gibbsN).
func scalePoint(ctx context.Context, pt ScalePoint, heap0 float64, build func() (*factorgraph.Graph, error), pgN, gibbsN int64, reps int, seed uint64) (ScalePoint, error) {
	t0 := time.Now()
	g, err := build()
	if err != nil {
		return pt, fmt.Errorf("experiments: scale: %s %d: %w", pt.Shape, pt.Width, err)
	}
	pt.Vars, pt.Pairs, pt.BuildSeconds, pt.GraphBytes = g.NumVars(), g.NumFactors(), time.Since(t0).Seconds(), float64(g.Bytes())
	pt.PairsPerSecond = float64(pt.Pairs) / pt.BuildSeconds
	// Poisson-Gibbs with the paper's global λ = L² on the lattice, λ_i =
	// L_i² elsewhere (a hub's L_i would make every variable's λ the hub's);
	// where even that is refused (a step over gibbs.DefaultMaxDraws), NaN.
	var opt *gibbs.Options
	if pt.Shape != "lattice" {
		opt = &gibbs.Options{PerVariable: true}
	}
	pg, err := site.NewPoissonGibbs(g, rand.New(chain.Source(seed, 0)), opt)
	pt.HeapBytes = liveHeap() - heap0
	pt.PGNs = math.NaN()
	if err == nil {
		if pt.PGNs, err = medianNs(ctx, newChainTimer(pg), pgN, reps); err != nil {
			return pt, err
		}
	}
	pg = nil // its tables go before Gibbs's are made
	gb, err := site.NewGibbs(g, rand.New(chain.Source(seed, 1)), nil)
	if err != nil {
		return pt, err
	}
	if pt.GibbsNs, err = medianNs(ctx, newChainTimer(gb), gibbsN, reps); err != nil {
		return pt, err
	}
	gb = nil
	auto, err := site.NewMixed(g, rand.New(chain.Source(seed, 2)), nil)
	if err != nil {
		return pt, err
	}
	n := gibbsN
	if exact, _ := auto.Kinds(); exact < len(g.Free()) {
		n = pgN
	}
	if pt.AutoNs, err = medianNs(ctx, newChainTimer(auto), n, reps); err != nil {
		return pt, err
	}
	auto = nil
	scan, err := site.NewMixed(g, rand.New(chain.Source(seed, 3)), &gibbs.Options{Systematic: true})
	if err != nil {
		return pt, err
	}
	if pt.AutoScanNs, err = medianNs(ctx, newChainTimer(scan), n, reps); err != nil {
		return pt, err
	}
	runtime.KeepAlive(g)
	return pt, nil
}

// medianNs runs n/10 untimed updates of t, then reps timed runs of n, and
// returns the median ns per update.
func medianNs(ctx context.Context, t crossTimer, n int64, reps int) (float64, error) {
	chunk := max(n/20, 1)
	if _, err := timeUpdates(ctx, t, max(n/10, 1), chunk); err != nil {
		return 0, err
	}
	ns := make([]float64, reps)
	for k := range ns {
		d, err := timeUpdates(ctx, t, n, chunk)
		if err != nil {
			return 0, err
		}
		ns[k] = float64(d.Nanoseconds()) / float64(n)
	}
	_, med, _ := spread(ns)
	return med, nil
}

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() float64 {
	// Twice: the first collection moves sync.Pool's contents to its victim
	// cache, the second frees them, so that a pool emptied between two
	// readings does not make the heap look smaller (once seen: a width-5
	// lattice's 26 KB measured as −167 KB).
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc)
}
