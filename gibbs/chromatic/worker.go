package chromatic

import (
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// worker is one of a Chromatic's samplers. A sampler of the family comes
// with its state c (core.Of): the Chromatic then reads its interrupt
// channel, the flag of an aborted update, its counters and its journal
// directly, and its share of a class runs in the sampler's own loop
// (core.Core.UpdateEach), the torus loop where there is one, which writes
// the journal as it goes. Any other gibbs.Worker (c nil) is run through
// its methods: the Chromatic journals the values of its share itself
// (saved, from the shared state x) and looks at the interrupt channel
// (done) between blocks of variables.
type worker struct {
	gibbs.Worker
	c *core.Core

	x     []float64
	saved []float64
	done  <-chan struct{}
}

// asWorker returns s as a worker of a Chromatic, or an error naming it if
// it cannot be one.
func asWorker(s gibbs.Sampler) (*worker, error) {
	w, ok := s.(gibbs.Worker)
	if !ok {
		return nil, fmt.Errorf("gibbs: chromatic: sampler %T is not one of the family's single-site samplers and is not a gibbs.Worker; use one of gibbs, pgibbs, auto, mgpmh or a continuous sampler", s)
	}
	if !w.LocalUpdates() {
		return nil, fmt.Errorf("gibbs: chromatic: sampler %q reads more than A[i] in an update; use one of gibbs, pgibbs, auto, mgpmh or a continuous sampler", w.SnapshotKind())
	}
	c := core.Of(s)
	if c != nil {
		// Its Step picks through worker 0, and its snapshot is the shared
		// state's: no variables drawn ahead to keep.
		c.Prefetch = nil
	}
	return &worker{Worker: w, c: c}, nil
}

// share makes the worker work on x.
func (w *worker) share(x []float64) {
	w.Share(x)
	w.x = x
}

// setInterrupt passes done on to the worker.
func (w *worker) setInterrupt(done <-chan struct{}) {
	if w.c != nil {
		w.c.SetInterrupt(done)
		return
	}
	w.done = done
	if in, ok := w.Worker.(chain.Interrupter); ok {
		in.SetInterrupt(done)
	}
}

// startJournal empties the worker's journal at the start of an
// interruptible sweep.
func (w *worker) startJournal() {
	if b := w.c; b != nil {
		b.Saved, b.Saved01, b.Aborted = b.Saved[:0], b.Saved01[:0], false
		return
	}
	w.saved = w.saved[:0]
}

// aborted reports whether the worker aborted an update (only the family's
// workers say so; the Chromatic looks at the channel too).
func (w *worker) aborted() bool { return w.c != nil && w.c.Aborted }

// run updates vars, journalling their old values and stopping early when
// an update is aborted or the interrupt channel closed if journal is set.
// The journal is written a block of core.SweepPoll+1 variables at a time,
// just before the block's updates (by the update loop itself where it
// can: Gibbs on a nearest-neighbour torus), which then find the values in
// cache: journalling costs one more read of the state, not another pass
// over it. The journal holds the old values of a prefix of vars (of the
// worker's chunks, class by class), which rollback puts back.
//
// rows says vars is a core.CheckerRun (so is any part of it): the torus
// loop walks it row by row.
func (w *worker) run(vars []int, journal, rows bool) {
	if b := w.c; b != nil {
		if !journal {
			b.UpdateEach(vars, false, rows)
			return
		}
		for len(vars) > 0 && !b.Aborted && !b.Stop() {
			blk := vars[:min(len(vars), core.SweepPoll+1)]
			vars = vars[len(blk):]
			b.UpdateEach(blk, true, rows)
		}
		return
	}
	if !journal {
		for _, i := range vars {
			w.Update(i)
		}
		return
	}
	for len(vars) > 0 && !closed(w.done) {
		blk := vars[:min(len(vars), core.SweepPoll+1)]
		vars = vars[len(blk):]
		for _, i := range blk {
			w.saved = append(w.saved, w.x[i])
		}
		for _, i := range blk {
			w.Update(i)
		}
	}
}

// rollback puts back the values the worker journalled, a prefix of its
// variables in the chunks given (its own, chunks[class][k] for worker k),
// into x, and its counters st. A worker outside the family that stopped
// on an error keeps its counters (Resume would clear the error).
func (w *worker) rollback(x []float64, chunks [][][]int, k int, st gibbs.Stats) {
	b := w.c
	saved, saved01 := w.saved, []uint8(nil)
	if b != nil {
		saved, saved01 = b.Saved, b.Saved01
	}
	j, n := 0, max(len(saved), len(saved01))
classes:
	for _, chunk := range chunks {
		for _, i := range chunk[k] {
			if j == n {
				break classes
			}
			if len(saved01) > 0 {
				x[i] = core.From01(saved01[j])
			} else {
				x[i] = saved[j]
			}
			j++
		}
	}
	switch {
	case b != nil:
		b.Stat, b.Aborted = st, false
	case w.Err() == nil:
		w.Resume(st)
	}
}

// closed reports whether done is closed (never for nil).
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
