package infer

import (
	"context"
	"time"
)

// Budget is the time of one answer and how it is shared among the answer's
// phases: planning the exact elimination, solving it, the pilots that
// choose a sampler, the race that may revise the choice, and the
// sampling. Every phase stops at its own deadline
// (a phase that overruns its share leaves the rest to the next phases), so
// that the whole answer ends at Start + Time, whatever the model (an
// answer exact once its last elimination ends: by lateDeadline).
type Budget struct {
	// Start is when the answer started. A command line starts it before
	// reading the model, so that reading counts too.
	Start time.Time
	// Time is the whole answer's time. Zero means none: a run counted in
	// sweeps, whose phases have fixed limits of their own instead (a
	// minute of exact elimination by its estimates, NoTimePilots of
	// pilots by the cost model); a signal still stops every phase.
	Time time.Duration
}

// Shares of the budget, each of the time left when its phase begins:
// planning stops at planShare of it (the components not planned by then
// are sampled); the eliminations may take up to exactShare by their time
// estimates and are stopped at exactLimit (a component not done then is
// sampled); the pilots take pilotShare of what is left by the cost model
// (a deterministic count) and stop at pilotLimit of it by the clock (their
// constructions are not in the cost model: where they overrun, the
// sampling still has half of the time left). A race (race.go) gives the
// chosen candidate and the runner-up raceShare each of the sampling time
// by the cost model, stopped by the answer's deadline; the winner's race
// counts towards its burn-in, its draws past it towards its marginals.
const (
	planShare  = 0.15
	exactShare = 0.75
	exactLimit = 0.9
	pilotShare = 0.1
	pilotLimit = 0.5
)

// lateGrace is how far past the answer's deadline, as a share of its Time,
// the last elimination of an answer that is exact if it ends may run while
// the rate of its work so far would end it by then (ExactPart.SolveBy):
// an exact answer a tenth late rather than none (Promedus_19 at -seconds 2
// on a slow day: its elimination stopped at 1.55 s, no time left for the
// pilots, score 0 in five runs of six). Marginals' answers stay within the
// 1.25 times their budget that the commands promise.
const lateGrace = 0.1

// lateDeadline returns when the last elimination of an answer that is
// exact if it ends must end: the deadline plus lateGrace of Time (zero if b
// has no Time).
func (b Budget) lateDeadline() time.Time {
	d, ok := b.Deadline()
	if !ok {
		return time.Time{}
	}
	return d.Add(time.Duration(lateGrace * float64(b.Time)))
}

// VerdictShare is the part of the budget kept, out of the sampling's
// time, for the convergence verdict once the chains stop (whose traces
// are cut to fit it: chain.Monitor.Budget).
const VerdictShare = 0.05

// Fixed limits of a Budget without Time: the exact eliminations' time by
// their estimates, and the pilots' budget in nanoseconds of the cost model
// (see ChooseOptions.Budget).
const (
	NoTimeExact  = time.Minute
	NoTimePilots = 2e9
)

// Deadline returns when the answer must be done, and false if b has no
// Time.
func (b Budget) Deadline() (time.Time, bool) {
	if b.Time <= 0 {
		return time.Time{}, false
	}
	return b.Start.Add(b.Time), true
}

// Left returns the time left now (zero if none is, or b has no Time).
func (b Budget) Left() time.Duration {
	d, ok := b.Deadline()
	if !ok {
		return 0
	}
	return max(time.Until(d), 0)
}

// share returns a context that ends at frac of the time left now, and no
// later than the answer's deadline (ctx itself if b has no Time).
func (b Budget) share(ctx context.Context, frac float64) (context.Context, context.CancelFunc) {
	if _, ok := b.Deadline(); !ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, time.Duration(frac*float64(b.Left())))
}

// within returns a context that ends at the answer's deadline (ctx itself
// if b has no Time).
func (b Budget) within(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := b.Deadline(); ok {
		return context.WithDeadline(ctx, d)
	}
	return context.WithCancel(ctx)
}

// interrupted reports whether ctx, the caller's context, was cancelled (a
// signal, the caller's own deadline): every phase then stops and the answer
// so far is returned with ctx's error. A phase's own deadline passing is
// not an interruption: the next phase takes over.
func interrupted(ctx context.Context) bool { return ctx.Err() != nil }
