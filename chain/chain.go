package chain

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Any is what Step returns when a step may have changed any coordinate (an
// MH step, a sweep).
const Any = -1

// Aborted is what Step returns when it stopped because its Interrupter
// channel closed (see Interrupter).
const Aborted = -2

// Interrupter is implemented by kernels whose single step can be long (a
// large minibatch, a full-data pass, many rejection tries), so that a
// cancelled run stops within a step. Before advancing, a Chain calls
// SetInterrupt with a channel that closes when the run is cancelled (and
// SetInterrupt(nil) when it returns). A step that sees the channel closed
// stops at once, leaves the state, its counters and everything else it
// carries from step to step as they were before the step, and returns
// Aborted; the Chain then restores its Sources to their states before the
// step, so the chain stands exactly at the step boundary and a checkpoint
// taken then resumes bit for bit. Sources must therefore list every
// generator the kernel draws from.
type Interrupter interface {
	SetInterrupt(done <-chan struct{})
}

// Kernel is a Markov chain's transition together with its current state:
// the one contract of both sampler families (gibbs.Sampler and mh.Sampler
// embed it). A kernel may also implement the optional interfaces this
// package defines: Interrupter (a long step stops when a run is
// cancelled), Snapshotter (checkpoints), Conditioner and BlockConditioner
// (Rao–Blackwellisation), Ahead (the next coordinate known a step early,
// for prefetching), Counter (length in sweeps) and Locator (panic
// messages); each family asserts at compile time which of its samplers
// implement which.
//
// Step moves the chain one step and returns the index of the one
// coordinate the step may have changed, or Any. State returns the current
// state, a view the caller must not modify, valid until the next Step. Once
// a step detects an error (a factor outside its declared range, NaN), the
// chain stops moving and Err returns the first error.
//
// The families' constructors share two rules: a nil *Options is the zero
// Options (every field at its default), and a nil Options.Init is the
// sampler's default start, which each family's Options.Init states (gibbs:
// each free variable drawn uniformly from its domain with the sampler's
// generator; mh: the zero vector, which must lie in the target's
// support). A non-nil Init is copied and checked.
type Kernel interface {
	Step() int
	State() []float64
	Err() error
}

// Observer sees a chain after each step past the burn-in: t is the number of
// those steps so far (1, 2, …), i what Step returned and x the state, a view
// valid only during the call.
type Observer interface {
	Observe(t int64, i int, x []float64)
}

// Conditioner is a Kernel whose single-coordinate steps draw the new value
// from a distribution over a discrete coordinate's values that it can
// report: Gibbs-type samplers, whose update is an exact draw from a
// conditional (of the target, or of an augmented target whose x-marginal is
// the target). Averaging the reported distributions instead of counting the
// drawn values is Rao–Blackwellisation (see Marginals.RaoBlackwellise).
//
// Implementing it is a promise: each reported distribution is the exact law
// the value was drawn from given everything the draw conditioned on (an
// accepted or rejected MH proposal is not), and which coordinates the
// kernel draws next never depends on the values drawn (random scan,
// systematic scan, a fixed cycle of blocks). A kernel that breaks either
// must not implement it: Marginals.RaoBlackwellise would then be biased.
type Conditioner interface {
	Kernel
	// RecordConditionals turns the recording of the distributions on or
	// off (off at first: recording costs a copy of a coordinate's weights
	// a step).
	RecordConditionals(on bool)
	// Conditional returns the coordinate the last step drew, and the
	// weights w of its values (w[v]/total the probability it drew v, total
	// > 0), a view valid until the next step; or i < 0 when the last step
	// drew nothing it can report (recording off, an observed coordinate,
	// a step of another kind).
	Conditional() (i int, w []float64, total float64)
}

// BlockConditioner is a Conditioner whose steps can draw several discrete
// coordinates jointly (blocked Gibbs), such a step returning Any. After it,
// Conditionals reports the coordinates drawn and the marginal of each under
// the joint distribution they were drawn from; Marginals.RaoBlackwellise
// credits those marginals (each the conditional expectation of the
// coordinate's indicator given what the draw conditioned on).
type BlockConditioner interface {
	Conditioner
	// Conditionals returns the coordinates the last step drew jointly and,
	// for each, p[k][v]: the probability that vars[k] was drawn as v (each
	// p[k] sums to 1), views valid until the next step; or nil when the
	// last step drew nothing it can report (recording off, a step of
	// another kind). Coordinates not listed were not drawn.
	Conditionals() (vars []int, p [][]float64)
}

// Ahead is a Kernel that knows the coordinate its next step will draw: a
// random scan that draws its coordinates ahead to prefetch their data
// (the Gibbs and Poisson-Gibbs samplers of package site on graphs far
// larger than the cache). Marginals then brings that coordinate's
// counters towards the cache as it observes a step.
type Ahead interface {
	Kernel
	// Next returns the coordinate the next Step will update, or −1 when
	// the kernel does not know it.
	Next() int
}

// Snapshotter is implemented by kernels and observers that can be
// checkpointed: Snapshot returns the object's state, Restore sets it from a
// snapshot of the same kind of object on the same model. Random sources are
// not part of it: a Chain lists them and a checkpoint saves them. Snapshots
// are versioned JSON in which float64 values round-trip exactly.
type Snapshotter interface {
	Snapshot() ([]byte, error)
	Restore(data []byte) error
}

// Chain is one Markov chain as a Runner drives it.
type Chain struct {
	// Kernel is the sampler.
	Kernel Kernel
	// Sources are every random generator the kernel and the observers draw
	// from, in a fixed order; checkpoints save and restore their states.
	Sources []*rand.PCG
	// Observers see the chain after every step past Burn.
	Observers []Observer
	// Burn is the number of steps run before observers see the chain.
	Burn int64

	steps atomic.Int64 // steps done; published for progress displays
}

// Done returns the number of steps done. It is safe to call while another
// goroutine advances the chain (the count is brought up to date every 1024
// steps and when Advance returns).
func (c *Chain) Done() int64 { return c.steps.Load() }

// Advance runs the chain until it has done `to` steps in all, numbering
// steps as an uninterrupted run would (a resumed chain continues the count).
// It checks ctx between steps and returns ctx.Err() when ctx is done, or
// the kernel's error when a step fails.
func (c *Chain) Advance(ctx context.Context, to int64) (err error) {
	if c.Kernel == nil {
		return errors.New("chain: no kernel")
	}
	k, obs, burn := c.Kernel, c.Observers, c.Burn
	t := c.steps.Load()
	defer func() {
		c.steps.Store(t)
		// A panic in user code (a factor, a target, an observer) becomes
		// this chain's error, saying where: the process goes on.
		if p := recover(); p != nil {
			err = fmt.Errorf("step %d: panic: %v%s", t+1, p, where(k))
		}
	}()
	done := ctx.Done()
	intr, _ := k.(Interrupter)
	var saved []rand.PCG // the sources before the step, for an aborted one
	if intr != nil {
		intr.SetInterrupt(done)
		defer intr.SetInterrupt(nil)
		saved = make([]rand.PCG, len(c.Sources))
	}
	for ; t < to; t++ {
		// A non-blocking receive costs a few nanoseconds: cancellation is
		// seen between steps, and within a step by an Interrupter.
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if t&1023 == 0 {
			c.steps.Store(t)
		}
		for j, src := range c.Sources[:len(saved)] {
			saved[j] = *src
		}
		i := k.Step()
		if i == Aborted {
			for j, src := range c.Sources[:len(saved)] {
				*src = saved[j]
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			return errors.New("chain: a step was aborted while the run was not cancelled")
		}
		if err := k.Err(); err != nil {
			t++
			return err
		}
		if t >= burn && len(obs) > 0 {
			x := k.State()
			for _, o := range obs {
				o.Observe(t+1-burn, i, x)
			}
		}
	}
	return nil
}

// Locator is implemented by kernels that can say what a step was doing
// when it panicked (which variable, which factor), for the error message.
type Locator interface {
	Where() string
}

func where(k Kernel) string {
	if l, ok := k.(Locator); ok {
		if w := l.Where(); w != "" {
			return " (" + w + ")"
		}
	}
	return ""
}

// Runner runs chains in parallel for a number of steps or a wall-time
// budget, with checkpoints.
type Runner struct {
	// Steps is the number of steps each chain runs in all. With a Duration
	// it is an upper bound (0: none).
	Steps int64
	// Duration, if positive, is a wall-time budget: the chains stop when it
	// has passed. Such a run depends on the machine's speed, so it cannot be
	// checkpointed.
	Duration time.Duration
	// BurnFor, if positive, with a Duration, is the most wall time the
	// chains' burn-ins may take: a chain still within its Burn steps when
	// BurnFor has passed ends its burn-in there (its Burn becomes the
	// steps it made), so that a burn-in set from an estimate of the
	// chain's speed never takes the whole budget on a machine or a model
	// slower than the estimate.
	BurnFor time.Duration
	// Checkpoint, if not empty, is the file a checkpoint is written to
	// every Every, when the run completes and when its context is cancelled.
	Checkpoint string
	// Every is the interval between checkpoints (zero: one minute).
	Every time.Duration
	// Meta is stored in the checkpoint as it is (JSON): the caller's
	// description of the run, for resuming it (ReadCheckpoint returns it).
	Meta any
	// Inputs are files the run reads (a model, data): the checkpoint
	// records their sizes and SHA-256, and Checkpoint.Restore refuses to
	// resume if one has changed.
	Inputs []string
	// Until, if set, is the run's stopping rule (a convergence check): it
	// is called whenever every chain has reached a check point, and the
	// run ends when it returns true; Steps, or Duration, stays the
	// ceiling. The check points are c₁ = CheckEvery, c_{n+1} = c_n +
	// max(CheckEvery, ⌈c_n/8⌉): every CheckEvery steps at first, then
	// growing by an eighth, so that the checks cost O(log) of the run
	// while it overshoots its stopping point by at most an eighth. They
	// are the same step counts on a resumed run, so a resumed run stops
	// where the uninterrupted one does. An error from Until ends the run
	// with that error.
	Until      func(chains []*Chain) (bool, error)
	CheckEvery int64

	inputs    []File
	converged bool
}

// RunBuilt builds chains 0 to n−1 with build (chain k on its own
// streams, as a Simulation's or an Experiment's Chain does) and runs them
// (Run), returning them as they stand when Run returns.
func (r *Runner) RunBuilt(ctx context.Context, n int, build func(k int) (*Chain, error)) ([]*Chain, error) {
	chains := make([]*Chain, n)
	for k := range chains {
		c, err := build(k)
		if err != nil {
			return nil, err
		}
		chains[k] = c
	}
	return chains, r.Run(ctx, chains)
}

// Converged reports whether the last Run ended because Until returned
// true.
func (r *Runner) Converged() bool { return r.converged }

// nextCheck returns the step count every chain runs to next: the first
// check point above the fewest steps a chain has done, capped at ceiling
// (no stopping rule: ceiling).
func (r *Runner) nextCheck(chains []*Chain, ceiling int64) int64 {
	if r.Until == nil {
		return ceiling
	}
	done := ceiling
	for _, c := range chains {
		done = min(done, c.Done())
	}
	at := r.CheckEvery
	for at <= done && at < ceiling {
		at += max(r.CheckEvery, (at+7)/8)
	}
	return min(ceiling, at)
}

// check calls Until at a check point (every chain at `at` steps, below the
// ceiling) and records its answer.
func (r *Runner) check(chains []*Chain, at, ceiling int64) (bool, error) {
	if r.Until == nil || at >= ceiling {
		return false, nil
	}
	for _, c := range chains {
		if c.Done() != at {
			return false, nil
		}
	}
	ok, err := r.Until(chains)
	if err != nil {
		return false, fmt.Errorf("chain: stopping rule after %d steps: %w", at, err)
	}
	r.converged = ok
	return ok, nil
}

// Interrupted is the error of a run stopped by its context; Checkpoint
// names the file the run was saved to (empty: none).
type Interrupted struct {
	Checkpoint string
	Err        error // the context's error
}

func (e *Interrupted) Error() string {
	if e.Checkpoint == "" {
		return "interrupted"
	}
	return "interrupted; checkpoint written to " + e.Checkpoint
}

func (e *Interrupted) Unwrap() error { return e.Err }

// Stopped reports whether err only says that a context ended.
func Stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (r *Runner) validate() error {
	switch {
	case r.Steps < 0:
		return fmt.Errorf("chain: %d steps", r.Steps)
	case r.Duration < 0:
		return fmt.Errorf("chain: negative time budget %v", r.Duration)
	case r.Steps == 0 && r.Duration == 0:
		return errors.New("chain: neither a number of steps nor a time budget")
	case r.Duration > 0 && r.Checkpoint != "":
		return errors.New("chain: a run with a time budget is not reproducible and cannot be checkpointed: give a number of steps")
	case r.Every < 0:
		return fmt.Errorf("chain: checkpoint interval %v: need a positive interval", r.Every)
	case r.Until != nil && r.CheckEvery < 1:
		return fmt.Errorf("chain: a stopping rule checked every %d steps: need at least 1", r.CheckEvery)
	}
	return nil
}

// Run runs every chain to r.Steps steps in parallel (or until r.Duration has
// passed), each from the steps it has done. The first chain to fail cancels
// the others, and Run returns its error as "chain k: …". When ctx is
// cancelled Run returns an *Interrupted after writing a checkpoint if one
// was asked for.
func (r *Runner) Run(ctx context.Context, chains []*Chain) error {
	if err := r.validate(); err != nil {
		return err
	}
	if err := r.prepare(chains); err != nil {
		return err
	}
	r.converged = false
	if r.Duration > 0 {
		return r.runFor(ctx, chains)
	}
	every := r.Every
	if every == 0 {
		every = time.Minute
	}
	lastSave := time.Now()
	for {
		to := r.nextCheck(chains, r.Steps)
		seg, cancel := context.WithCancel(context.Background())
		var timer *time.Timer
		if r.Checkpoint != "" {
			timer = time.AfterFunc(max(0, every-time.Since(lastSave)), cancel)
		}
		err := runSegment(ctx, seg, chains, to)
		if timer != nil {
			timer.Stop()
		}
		timeToSave := seg.Err() != nil
		cancel()
		if err != nil && !Stopped(err) {
			return err
		}
		complete := true
		for _, c := range chains {
			complete = complete && c.Done() >= r.Steps
		}
		if ctx.Err() == nil && !complete {
			stop, err := r.check(chains, to, r.Steps)
			if err != nil {
				return err
			}
			complete = stop
		}
		if !complete && ctx.Err() == nil && !timeToSave {
			continue // a check point: no checkpoint yet
		}
		var saveErr error
		if r.Checkpoint != "" {
			if err := r.save(chains); err != nil {
				saveErr = &SaveError{Path: r.Checkpoint, Err: err}
			}
			lastSave = time.Now()
		}
		switch {
		case complete:
			return saveErr
		case ctx.Err() != nil && saveErr != nil:
			return errors.Join(&Interrupted{Err: ctx.Err()}, saveErr)
		case ctx.Err() != nil:
			return &Interrupted{Checkpoint: r.Checkpoint, Err: ctx.Err()}
		case saveErr != nil:
			// A checkpoint that cannot be written (a full disk, a removed
			// directory) stops the run: going on would lose more work.
			return saveErr
		}
	}
}

// SaveError is the error of a run whose checkpoint could not be written.
// When it is Run's only error, the chains have completed their steps: their
// results are good, only the checkpoint is missing or stale.
type SaveError struct {
	Path string
	Err  error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("checkpoint %s not saved: %v", e.Path, e.Err)
}

func (e *SaveError) Unwrap() error { return e.Err }

// prepare checks what can be checked before any work: a run that cannot
// save its checkpoint or record its inputs should not start, nor one whose
// chains have done more than its steps.
func (r *Runner) prepare(chains []*Chain) error {
	if len(chains) == 0 {
		return errors.New("chain: no chains to run")
	}
	if r.Checkpoint != "" {
		if err := probeWritable(r.Checkpoint); err != nil {
			return err
		}
		var err error
		if r.inputs, err = HashFiles(r.Inputs...); err != nil {
			return err
		}
	}
	for k, c := range chains {
		if r.Duration == 0 && c.Done() > r.Steps {
			return fmt.Errorf("chain %d has done %d steps, more than the run's %d", k, c.Done(), r.Steps)
		}
	}
	return nil
}

// runFor runs the chains for r.Duration (and at most r.Steps steps).
func (r *Runner) runFor(ctx context.Context, chains []*Chain) error {
	to := r.Steps
	if to == 0 {
		to = 1 << 62
	}
	budget, cancel := context.WithTimeout(context.Background(), r.Duration)
	defer cancel()
	if r.BurnFor > 0 {
		if err := burnFor(ctx, budget, chains, r.BurnFor); err != nil {
			return err
		}
	}
	for {
		next := r.nextCheck(chains, to)
		err := runSegment(ctx, budget, chains, next)
		if err != nil && !Stopped(err) {
			return err
		}
		if ctx.Err() != nil {
			return &Interrupted{Err: ctx.Err()}
		}
		if budget.Err() != nil || next >= to {
			return nil
		}
		if stop, err := r.check(chains, next, to); err != nil || stop {
			return err
		}
	}
}

// burnFor advances every chain through its burn-in until ctx or budget
// is done or d has passed; a chain still within it then ends it where it
// stands (Runner.BurnFor).
func burnFor(ctx, budget context.Context, chains []*Chain, d time.Duration) error {
	seg, cancel := context.WithTimeout(budget, d)
	defer cancel()
	both, stopBoth := context.WithCancel(ctx)
	defer stopBoth()
	stop := context.AfterFunc(seg, stopBoth)
	defer stop()
	err := Parallel(both, len(chains), len(chains), func(ctx context.Context, k int) error {
		if err := chains[k].Advance(ctx, chains[k].Burn); err != nil {
			return fmt.Errorf("chain %d: %w", k, err)
		}
		return nil
	})
	if err != nil && !Stopped(err) {
		return err
	}
	if ctx.Err() != nil {
		return &Interrupted{Err: ctx.Err()}
	}
	for _, c := range chains {
		c.Burn = min(c.Burn, c.Done())
	}
	return nil
}

// runSegment advances every chain to `to` until ctx or seg is done.
func runSegment(ctx, seg context.Context, chains []*Chain, to int64) error {
	both, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(seg, cancel)
	defer stop()
	return Parallel(both, len(chains), len(chains), func(ctx context.Context, k int) error {
		if err := chains[k].Advance(ctx, to); err != nil {
			return fmt.Errorf("chain %d: %w", k, err)
		}
		return nil
	})
}

// Parallel calls f(ctx, i) for i = 0, …, n−1 on at most workers goroutines.
// The first call to fail cancels the context of the others, and Parallel
// returns its error (a failure before the cancellations it caused); if only
// cancellations occurred it returns their join.
func Parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := call(ctx, i, f); err != nil {
					errs[i] = err
					if !Stopped(err) {
						cancel()
					}
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
		if err != nil && !Stopped(err) {
			return err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// call runs f(ctx, i), turning a panic into an error: a panicking user
// factor in one chain must not crash the process.
func call(ctx context.Context, i int, f func(ctx context.Context, i int) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f(ctx, i)
}
