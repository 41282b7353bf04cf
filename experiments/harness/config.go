package harness

import (
	"math/rand/v2"
	"runtime"

	"github.com/pgibbs/pgibbs/chain"
)

// Config holds what every driver shares: the seed, the number of
// independent runs averaged, the parallelism, where to report progress and
// where to cache ground truths.
type Config struct {
	// Seed is the base seed; run r of curve c draws from
	// chain.Source(Seed, c·Runs + r), so every number a driver reports
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

// NumRuns returns the number of runs: Runs, or 3 if Runs is not positive.
func (c Config) NumRuns() int {
	if c.Runs <= 0 {
		return 3
	}
	return c.Runs
}

// NumWorkers returns the runs in flight at once: Workers, or GOMAXPROCS
// if Workers is not positive.
func (c Config) NumWorkers() int {
	if c.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return c.Workers
}

// Progress receives a driver's progress: Start announces a phase of total
// units of work (variable updates, MH steps), Add reports n more units done.
// Add is called from several goroutines at once; implementations must be
// safe for concurrent use. A Progress drawn on a terminal may also be a
// ProgressDone.
type Progress interface {
	Start(label string, total int64)
	Add(n int64)
}

// ProgressDone is a Progress drawn on a terminal whose Done erases its
// line: experiments.Reproduce calls it before it prints.
type ProgressDone interface {
	Progress
	Done()
}

// noProgress is the Progress of a nil Config.Progress.
type noProgress struct{}

func (noProgress) Start(string, int64) {}
func (noProgress) Add(int64)           {}

// ProgressOrNone returns Progress, or a Progress that discards what it is
// told if Progress is nil.
func (c Config) ProgressOrNone() Progress {
	if c.Progress == nil {
		return noProgress{}
	}
	return c.Progress
}

// RandStream returns the RNG of stream src of seed (chain.Source): the
// random numbers of every run, chain and data set of the experiments.
func RandStream(seed, src uint64) *rand.Rand {
	return rand.New(chain.Source(seed, int(src)))
}
