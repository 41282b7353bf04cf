package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Config holds what every driver shares: the seed, the number of
// independent runs averaged, the parallelism, where to report progress and
// where to cache ground truths.
type Config struct {
	// Seed is the base seed; run r of curve c draws from
	// gibbs.StreamSource(Seed, c·Runs + r), so every number a driver reports
	// against iterations is a function of Seed alone.
	Seed uint64
	// Runs is the number of independent runs averaged per curve (the papers
	// average 3). Zero means 3.
	Runs int
	// Workers bounds the runs in flight at once. Zero means GOMAXPROCS.
	// Wall times are measured per run, so with more workers than idle cores
	// they grow.
	Workers int
	// Progress, if not nil, receives the driver's progress.
	Progress Progress
	// Dir, if not empty, is a directory where a driver may cache an
	// expensive ground truth (Fig. 1c's long exact run) and reuse it when a
	// later call asks for the same settings.
	Dir string
}

func (c Config) runs() int {
	if c.Runs <= 0 {
		return 3
	}
	return c.Runs
}

func (c Config) workers() int {
	if c.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return c.Workers
}

// Progress receives a driver's progress: Start announces a phase of total
// units of work (variable updates, MH steps), Add reports n more units done.
// Add is called from several goroutines at once; implementations must be
// safe for concurrent use.
type Progress interface {
	Start(label string, total int64)
	Add(n int64)
}

// noProgress is the Progress of a nil Config.Progress.
type noProgress struct{}

func (noProgress) Start(string, int64) {}
func (noProgress) Add(int64)           {}

func (c Config) progress() Progress {
	if c.Progress == nil {
		return noProgress{}
	}
	return c.Progress
}

// Sampler names one curve of a figure: a sampler of package gibbs with its
// options.
type Sampler struct {
	// Key identifies the curve in CSV files and selections ("pgibbs-1").
	Key string
	// Label is the legend entry ("Poisson-Gibbs, λ = L²").
	Label string
	// Name is the sampler's name for gibbs.New.
	Name string
	// Options are passed to gibbs.New (Init is set by the driver).
	Options gibbs.Options
	// Iters caps the updates of each run; zero means the figure's default.
	Iters int64
}

// Curve is one sampler's metric as a function of iterations and of wall
// time, averaged over runs.
type Curve struct {
	Sampler
	// Iters are the checkpoints (variable updates since the start), in
	// increasing order, reached by every run.
	Iters []float64
	// Seconds is the mean over runs of the sampling time up to each
	// checkpoint (the metric's own computation is not counted).
	Seconds []float64
	// Value is the mean over runs of the metric at each checkpoint.
	Value []float64
	// Runs is the number of runs averaged.
	Runs int
	// Stats sums the samplers' counters over the runs.
	Stats gibbs.Stats
	// Capped says that a run stopped at the time budget before its
	// iteration cap.
	Capped bool
}

// logCheckpoints returns about perDecade checkpoints a decade from first
// to last, rounded to integers, strictly increasing, last included.
func logCheckpoints(first, last int64, perDecade int) []int64 {
	if last < 1 {
		return nil
	}
	first = max(1, min(first, last))
	var out []int64
	lf, ll := math.Log10(float64(first)), math.Log10(float64(last))
	n := int(math.Ceil((ll - lf) * float64(perDecade)))
	for k := 0; k <= n; k++ {
		c := int64(math.Round(math.Pow(10, lf+float64(k)/float64(perDecade))))
		c = min(c, last)
		if len(out) == 0 || c > out[len(out)-1] {
			out = append(out, c)
		}
	}
	if out[len(out)-1] != last {
		out = append(out, last)
	}
	return out
}

// metricRun is one run of a sampler on a model with a metric computed at
// checkpoints.
type metricRun struct {
	model   factorgraph.Model
	spec    Sampler
	init    []float64
	iters   int64
	budget  time.Duration // 0: no time budget
	first   int64         // first checkpoint
	perDec  int
	src     uint64 // stream index
	observe func() (gibbs.Observer, func() (float64, error))
}

// runTrace is what one metricRun measured.
type runTrace struct {
	iters   []int64
	seconds []float64
	values  []float64
	stats   gibbs.Stats
	capped  bool
}

// run performs r, reporting progress in updates.
func (r *metricRun) run(ctx context.Context, seed uint64, prog Progress) (*runTrace, error) {
	opts := r.spec.Options
	opts.Init = r.init
	s, err := gibbs.New(r.spec.Name, r.model, randStream(seed, r.src), &opts)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", r.spec.Key, err)
	}
	obs, metric := r.observe()
	tr := &runTrace{}
	var done, reported int64
	var elapsed time.Duration
	chunk := int64(16)
	report := func() {
		target := done
		if r.budget > 0 {
			target = max(target, int64(float64(r.iters)*min(1, elapsed.Seconds()/r.budget.Seconds())))
		}
		if target > reported {
			prog.Add(target - reported)
			reported = target
		}
	}
	defer func() { // the whole run counts as done, however it ended
		if r.iters > reported {
			prog.Add(r.iters - reported)
		}
	}()
	for _, c := range logCheckpoints(r.first, r.iters, r.perDec) {
		for done < c {
			n := min(chunk, c-done)
			start := time.Now()
			err := gibbs.Runner{Steps: n, Observers: []gibbs.Observer{obs}}.Run(ctx, s)
			d := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("bench: %s: %w", r.spec.Key, err)
			}
			elapsed += d
			done += n
			// Chunks of about 20 ms keep cancellation, budgets and progress
			// responsive without measurable overhead.
			if d < 10*time.Millisecond {
				chunk *= 2
			} else if d > 40*time.Millisecond && chunk > 1 {
				chunk /= 2
			}
			report()
			if r.budget > 0 && elapsed >= r.budget && done < c {
				tr.capped = true
				tr.stats = s.Stats()
				return tr, nil
			}
		}
		v, err := metric()
		if err != nil {
			return nil, fmt.Errorf("bench: %s at %d updates: %w", r.spec.Key, c, err)
		}
		tr.iters = append(tr.iters, c)
		tr.seconds = append(tr.seconds, elapsed.Seconds())
		tr.values = append(tr.values, v)
		if r.budget > 0 && elapsed >= r.budget {
			tr.capped = c < r.iters
			break
		}
	}
	tr.stats = s.Stats()
	return tr, nil
}

// parallel runs f(0..n-1) on at most workers goroutines and returns the
// first error (other than cancellations it caused); an error cancels the
// rest.
func parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(ctx, i); err != nil {
					errs[i] = err
					cancel()
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// runCurves runs every spec Runs times and averages the traces into curves.
func runCurves(ctx context.Context, cfg Config, label string, mk func(curve int, spec Sampler) *metricRun, specs []Sampler) ([]Curve, error) {
	runs := cfg.runs()
	jobs := make([]*metricRun, 0, len(specs)*runs)
	var total int64
	for c, sp := range specs {
		for r := range runs {
			j := mk(c, sp)
			j.src = uint64(c*runs + r)
			jobs = append(jobs, j)
			total += j.iters
		}
	}
	prog := cfg.progress()
	prog.Start(label, total)
	traces := make([]*runTrace, len(jobs))
	// Longest jobs first would balance better, but the order does not
	// change any result: each job owns its RNG stream.
	err := parallel(ctx, len(jobs), cfg.workers(), func(ctx context.Context, i int) error {
		t, err := jobs[i].run(ctx, cfg.Seed, prog)
		traces[i] = t
		return err
	})
	if err != nil {
		return nil, err
	}
	curves := make([]Curve, len(specs))
	for c, sp := range specs {
		ts := traces[c*runs : (c+1)*runs]
		curves[c] = average(sp, ts)
	}
	return curves, nil
}

// average combines runs of one sampler: checkpoints reached by every run,
// mean time and mean metric.
func average(sp Sampler, ts []*runTrace) Curve {
	cv := Curve{Sampler: sp, Runs: len(ts)}
	n := math.MaxInt
	for _, t := range ts {
		n = min(n, len(t.iters))
		cv.Capped = cv.Capped || t.capped
		cv.Stats.Add(t.stats)
	}
	for k := range n {
		cv.Iters = append(cv.Iters, float64(ts[0].iters[k]))
		s, v := 0.0, 0.0
		for _, t := range ts {
			s += t.seconds[k]
			v += t.values[k]
		}
		cv.Seconds = append(cv.Seconds, s/float64(len(ts)))
		cv.Value = append(cv.Value, v/float64(len(ts)))
	}
	return cv
}

// randStream returns the RNG of stream src of seed (gibbs.StreamSource).
func randStream(seed, src uint64) *rand.Rand {
	return rand.New(gibbs.StreamSource(seed, int(src)))
}
