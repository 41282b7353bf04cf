package studies

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
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
}

// ScalePaper returns the settings of `pgibbs reproduce scale`: widths 22
// (10⁵ pairs) to 516 (2·10⁸ pairs, about 9 GB), or up to 80 when quick.
func ScalePaper(quick bool) ScaleSettings {
	s := ScaleSettings{Model: potts.Paper(), Widths: []int{22, 40, 80, 160, 320, 516},
		PGUpdates: 2_000_000, GibbsUpdates: 20_000, Reps: 3}
	if quick {
		s.Widths, s.PGUpdates, s.GibbsUpdates = []int{22, 40, 80}, 500_000, 5_000
	}
	return s
}

// ScalePoint is the scale study at one width.
type ScalePoint struct {
	Width, Vars, Pairs int
	// BuildSeconds is the time of potts.New; PairsPerSecond Pairs over it.
	BuildSeconds, PairsPerSecond float64
	// GraphBytes is Graph.Bytes; HeapBytes the live heap the graph and a
	// Poisson-Gibbs sampler on it take (measured after a collection, less
	// the heap before the build).
	GraphBytes, HeapBytes float64
	// PGNs and GibbsNs are the median ns per random-scan update.
	PGNs, GibbsNs float64
}

// BytesPerPair returns HeapBytes over Pairs: what a pair factor costs all
// in, the sampler's tables and the variables' share included.
func (p ScalePoint) BytesPerPair() float64 { return p.HeapBytes / float64(p.Pairs) }

// ScaleResult is the scale study's outcome.
type ScaleResult struct {
	Settings ScaleSettings
	Points   []ScalePoint
	Skipped  []int // widths over the memory budget
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
		pt, err := scalePoint(ctx, p, s, cfg.Seed)
		if err != nil {
			return nil, err
		}
		res.Points = append(res.Points, pt)
		prog.Add(1)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// scalePoint measures one width.
func scalePoint(ctx context.Context, p potts.Params, s ScaleSettings, seed uint64) (ScalePoint, error) {
	heap0 := liveHeap()
	t0 := time.Now()
	g, err := potts.New(p)
	if err != nil {
		return ScalePoint{}, fmt.Errorf("experiments: scale: width %d: %w", p.Width, err)
	}
	pt := ScalePoint{Width: p.Width, Vars: g.NumVars(), Pairs: g.NumFactors(), BuildSeconds: time.Since(t0).Seconds(),
		GraphBytes: float64(g.Bytes())}
	pt.PairsPerSecond = float64(pt.Pairs) / pt.BuildSeconds
	pg, err := site.NewPoissonGibbs(g, rand.New(chain.Source(seed, 0)), nil)
	if err != nil {
		return pt, err
	}
	pt.HeapBytes = liveHeap() - heap0
	if pt.PGNs, err = medianNs(ctx, newChainTimer(pg), s.PGUpdates, s.Reps); err != nil {
		return pt, err
	}
	pg = nil // its tables go before Gibbs's are made
	gb, err := site.NewGibbs(g, rand.New(chain.Source(seed, 1)), nil)
	if err != nil {
		return pt, err
	}
	if pt.GibbsNs, err = medianNs(ctx, newChainTimer(gb), s.GibbsUpdates, s.Reps); err != nil {
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
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc)
}
