package papers

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// Sampler names one curve of a figure: a sampler of package gibbs with its
// options.
type Sampler struct {
	// Key identifies the curve in CSV files and selections ("pgibbs-1").
	Key string
	// Label is the legend entry ("Poisson-Gibbs, λ = L²").
	Label string
	// Name is the sampler's name for samplers.New.
	Name string
	// Options are passed to samplers.New (Init is set by the driver).
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

// timedChain advances a chain in chunks of about 10 to 40 ms of sampling,
// so that time budgets and progress reports stay responsive without
// measurable overhead (Advance itself sees cancellation between steps),
// and sums the sampling time.
type timedChain struct {
	c       *chain.Chain
	chunk   int64
	elapsed time.Duration
}

func newTimedChain(c *chain.Chain) *timedChain { return &timedChain{c: c, chunk: 1} }

// advance runs the chain to `to` steps in all, or until its sampling time
// reaches budget when budget is positive, calling report after each chunk.
// It returns the first error of Advance.
func (t *timedChain) advance(ctx context.Context, to int64, budget time.Duration, report func()) error {
	for t.c.Done() < to && (budget <= 0 || t.elapsed < budget) {
		start := time.Now()
		err := t.c.Advance(ctx, min(t.c.Done()+t.chunk, to))
		d := time.Since(start)
		t.elapsed += d
		if err != nil {
			return err
		}
		switch {
		case d < 10*time.Millisecond:
			t.chunk *= 2
		case d > 40*time.Millisecond && t.chunk > 1:
			t.chunk /= 2
		}
		report()
	}
	return nil
}

// runProgress reports one run's share of a phase: total units, of which
// report is told how many are done; for a run under a time budget, the
// larger of that count and the budget's elapsed fraction of total. finish
// adds what remains, so that the run counts as done however it ended.
type runProgress struct {
	prog     harness.Progress
	total    int64
	budget   time.Duration // 0: none
	reported int64
}

func (p *runProgress) report(done int64, elapsed time.Duration) {
	if p.budget > 0 {
		done = max(done, int64(float64(p.total)*min(1, elapsed.Seconds()/p.budget.Seconds())))
	}
	if done = min(done, p.total); done > p.reported {
		p.prog.Add(done - p.reported)
		p.reported = done
	}
}

func (p *runProgress) finish() {
	if p.total > p.reported {
		p.prog.Add(p.total - p.reported)
		p.reported = p.total
	}
}

// advanceBy advances c by n steps in chunks of at most chunk steps, adding
// the steps of each chunk to prog.
func advanceBy(ctx context.Context, c *chain.Chain, n, chunk int64, prog harness.Progress) error {
	to := c.Done() + n
	for c.Done() < to {
		from := c.Done()
		err := c.Advance(ctx, min(from+chunk, to))
		prog.Add(c.Done() - from)
		if err != nil {
			return err
		}
	}
	return nil
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
	observe func() (chain.Observer, func() (float64, error))
}

// runTrace is what one metricRun measured.
type runTrace struct {
	iters   []int64
	seconds []float64
	values  []float64
	stats   gibbs.Stats
	capped  bool
}

// run performs r, reporting progress in updates: the chain runs from
// checkpoint to checkpoint, and the metric is read at each one.
func (r *metricRun) run(ctx context.Context, seed uint64, prog harness.Progress) (*runTrace, error) {
	opts := r.spec.Options
	opts.Init = r.init
	s, err := samplers.New(r.spec.Name, r.model, harness.RandStream(seed, r.src), &opts)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", r.spec.Key, err)
	}
	obs, metric := r.observe()
	tc := newTimedChain(&chain.Chain{Kernel: s, Observers: []chain.Observer{obs}})
	rp := &runProgress{prog: prog, total: r.iters, budget: r.budget}
	defer rp.finish()
	report := func() { rp.report(tc.c.Done(), tc.elapsed) }
	tr := &runTrace{}
	for _, c := range logCheckpoints(r.first, r.iters, r.perDec) {
		if err := tc.advance(ctx, c, r.budget, report); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", r.spec.Key, err)
		}
		if tc.c.Done() < c { // the budget ran out before the checkpoint
			tr.capped = true
			break
		}
		v, err := metric()
		if err != nil {
			return nil, fmt.Errorf("experiments: %s at %d updates: %w", r.spec.Key, c, err)
		}
		tr.iters = append(tr.iters, c)
		tr.seconds = append(tr.seconds, tc.elapsed.Seconds())
		tr.values = append(tr.values, v)
		if r.budget > 0 && tc.elapsed >= r.budget {
			tr.capped = c < r.iters
			break
		}
	}
	tr.stats = s.Stats()
	return tr, nil
}

// runCurves runs every spec Runs times and averages the traces into curves.
func runCurves(ctx context.Context, cfg harness.Config, label string, mk func(curve int, spec Sampler) *metricRun, specs []Sampler) ([]Curve, error) {
	runs := cfg.NumRuns()
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
	prog := cfg.ProgressOrNone()
	prog.Start(label, total)
	traces := make([]*runTrace, len(jobs))
	// Longest jobs first would balance better, but the order does not
	// change any result: each job owns its RNG stream.
	err := chain.Parallel(ctx, len(jobs), cfg.NumWorkers(), func(ctx context.Context, i int) error {
		t, err := jobs[i].run(ctx, cfg.Seed, prog)
		traces[i] = t
		return err
	})
	if err != nil {
		return nil, err
	}
	curves := make([]Curve, len(specs))
	for c, sp := range specs {
		curves[c] = average(sp, traces[c*runs:(c+1)*runs])
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
