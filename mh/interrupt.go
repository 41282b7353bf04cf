package mh

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/internal/minibatch"
)

// Interruption and bounded steps.
//
// Every sampler implements chain.Interrupter (SetInterrupt). Its long loops
// (full-data passes, minibatch draws, growing minibatches, FlyMC's
// brightness updates) look at the channel every pollEvery data or draws; a
// step that finds it closed restores its counts and whatever it changed of
// the state it carries from step to step, and returns chain.Aborted. The
// caller (chain.Chain.Advance) restores the random source, so the step is
// undone entirely. With a nil channel a look is one comparison.

// pollEvery is the number of data (likelihood evaluations or draws) a step
// handles between two looks at its interrupt channel: a look costs a few
// nanoseconds, 4096 evaluations some tens of microseconds.
const pollEvery = 4096

// DefaultMaxDraws is the default of Options.MaxDraws: 10⁷ data a step.
const DefaultMaxDraws = 1e7

// interrupt is the part of base that serves SetInterrupt.
type interrupt struct {
	done    <-chan struct{}
	budget  int      // work left before the next look at done
	stopped bool     // done was seen closed during this step
	st0     Stats    // the counts before this step, restored by an aborted one
	thin    *thinner // draw's keep test, allocated on first use
}

// SetInterrupt implements chain.Interrupter: a step that finds done closed
// stops within a few thousand likelihood evaluations, leaves θ, Stats and
// everything the sampler carries from step to step (MH's Σℓ_i(θ), FlyMC's
// bright set and sums, AustereMH's permutation) as they were before the
// step, and returns −2 (chain.Aborted). The random source is not restored:
// the caller does that (chain.Chain.Advance restores its Sources). A nil
// done, the default, is never closed.
func (b *base) SetInterrupt(done <-chan struct{}) {
	b.done, b.budget, b.stopped = done, pollEvery, false
}

// begin starts a step: it records the counts an aborted step restores.
func (b *base) begin() {
	b.st0 = b.st
	b.stopped = false
}

// interrupted charges work (data or draws) to the budget between two looks
// at the interrupt channel and reports whether the channel has closed.
// Once it has, it keeps reporting true until the next step.
func (b *base) interrupted(work int) bool {
	if b.done == nil {
		return false
	}
	if b.stopped {
		return true
	}
	if b.budget -= work; b.budget > 0 {
		return false
	}
	b.budget = pollEvery
	select {
	case <-b.done:
		b.stopped = true
	default:
	}
	return b.stopped
}

// abort ends an interrupted step: it restores the counts (and clears an
// error the step may have recorded, which the step, run again, will find
// again) and returns chain.Aborted. The caller restores the rest.
func (b *base) abort() int {
	b.st, b.err, b.stopped = b.st0, nil, false
	return chain.Aborted
}

// draw is minibatch.Draw(b.rng, total, src, c) that looks at the interrupt
// channel every pollEvery picks: with a channel it makes the same draws
// through minibatch.DrawUntil, which stops (ok false) when the channel
// closes. It returns B, the number of picks.
func (b *base) draw(total float64, src minibatch.Source, c *minibatch.Counts) (picks int, ok bool) {
	if b.done == nil {
		return minibatch.Draw(b.rng, total, src, c), true
	}
	if b.thin == nil {
		b.thin = new(thinner) // once: a pointer in an interface allocates nothing
	}
	*b.thin = thinner{b, src, c}
	c.Reset()
	picks, stopped := minibatch.DrawUntil(b.rng, total, b.thin)
	return picks, !stopped
}

// thinner is the keep test of minibatch.Draw as a minibatch.Stopper whose
// only event is an interruption: Stop keeps the pick of k into c with
// probability src.Keep(k), drawing exactly what Draw draws.
type thinner struct {
	b   *base
	src minibatch.Source
	c   *minibatch.Counts
}

func (t *thinner) Pick(r *rand.Rand) int { return t.src.Pick(r) }

func (t *thinner) Stop(r *rand.Rand, k int) bool {
	if t.b.interrupted(1) {
		return true
	}
	if p := t.src.Keep(k); p >= 1 || r.Float64() < p {
		t.c.Add(k)
	}
	return false
}

// maxDraws returns Options.MaxDraws or its default, checked.
func maxDraws(name string, o *Options) (float64, error) {
	if o.MaxDraws == 0 {
		return DefaultMaxDraws, nil
	}
	if !(o.MaxDraws > 0) || math.IsInf(o.MaxDraws, 0) {
		return 0, fmt.Errorf("mh: %s: Options.MaxDraws = %v must be positive and finite (0 means %g)", name, o.MaxDraws, float64(DefaultMaxDraws))
	}
	return o.MaxDraws, nil
}

// tooBig returns the construction error of a sampler whose expected batch
// per step, what, exceeds MaxDraws, or nil; fix says what to change.
func (b *base) tooBig(what string, batch float64, fix string) error {
	if !(batch > b.maxDraws) {
		return nil
	}
	return fmt.Errorf("mh: %s: %s is %.8g data a step, more than Options.MaxDraws = %.8g "+
		"(each datum costs one or two likelihood evaluations); %s, or raise Options.MaxDraws if steps that long are intended",
		b.name, what, batch, b.maxDraws, fix)
}

// overBatch records an error and returns true when the expected batch of
// the current step exceeds MaxDraws.
func (b *base) overBatch(batch float64) bool {
	if !(batch > b.maxDraws) {
		return false
	}
	b.fail("the expected batch of this step, %.4g data, exceeds Options.MaxDraws = %.4g "+
		"(the proposal is too far for the declared bounds); lower the step or raise Options.MaxDraws", batch, b.maxDraws)
	return true
}

// overGrowth records an error and returns true when a sequential test's
// minibatch would grow to size data, past MaxDraws.
func (b *base) overGrowth(size int) bool {
	if !(float64(size) > b.maxDraws) {
		return false
	}
	b.fail("the minibatch would grow to %d data, past Options.MaxDraws = %.4g, before the test decides; "+
		"lower the step or raise Options.MaxDraws", size, b.maxDraws)
	return true
}

// typicalPair returns the initial state θ0 and θ0 ± Step·(1, …, 1), a
// proposal of the default random walk's typical size (E‖θ'−θ‖² =
// Step²·d), for the up-front estimate of a batch size; ok is false with a
// custom Proposal or when neither point lies in the support.
func (b *base) typicalPair(o *Options) (theta, thetaP []float64, ok bool) {
	if o.Proposal != nil {
		return nil, nil, false
	}
	thetaP = make([]float64, b.d)
	for _, sign := range []float64{1, -1} {
		for j, v := range b.x {
			thetaP[j] = v + sign*o.Step
		}
		if lp := b.target.LogPrior(thetaP); !math.IsNaN(lp) && !math.IsInf(lp, 0) {
			return b.x, thetaP, true
		}
	}
	return nil, nil, false
}

// capped returns min(batch, N) when the full-data fallback is on, batch
// otherwise: what a step expecting batch data costs.
func (b *base) capped(batch float64, fallback bool) float64 {
	if fallback {
		return min(batch, float64(b.n))
	}
	return batch
}
