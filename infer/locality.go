package infer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// LocalityVars is the fewest free variables Options.Locality renumbers: a
// smaller graph's state and rows stay in cache whatever their order.
const LocalityVars = 1 << 15

// localityMin is LocalityVars, and localityWindow the distance in places
// within which a neighbour's value counts as near (factorgraph.Locality):
// 4096 values are 32 kB. Tests lower both to renumber small graphs.
var (
	localityMin    = LocalityVars
	localityWindow = 4096
)

// The thresholds of Options.Locality: a numbering with at least
// localKept of its entries near is kept; the order must bring at least
// localGain more of them near to be worth a second graph.
const (
	localKept = 0.5
	localGain = 0.25
)

// orderNsPerEntry is the cost of LocalityOrder and Renumber a row entry
// (three searches and a build, each a cache miss an entry on a graph
// numbered at random), for the time check of Options.Locality.
const orderNsPerEntry = 250

// renumbered answers for g stored in its LocalityOrder (Options.Locality)
// and maps the answer back to g's numbering; where renumbering does not
// pay or does not fit, it answers for g as numbered, OrderNote saying why.
func renumbered(ctx context.Context, g *factorgraph.Graph, opt Options, start time.Time) (*Answer, error) {
	opt.Locality = false
	h, order, note, err := localityGraph(ctx, g, opt, start)
	switch {
	case err != nil && ctx.Err() != nil:
		return interruptedOrdering(ctx, g, opt, start, err), fmt.Errorf("infer: ordering for locality: %w", err)
	case err != nil:
		return nil, err
	}
	if h == nil {
		a, err := marginals(ctx, g, opt, start)
		if a != nil {
			a.OrderNote = note
		}
		return a, err
	}
	opt.names = order
	if run := opt.Run; run != nil && run.AtCheck != nil {
		r := *run
		var buf [][]float64
		r.AtCheck = func(m [][]float64) error {
			buf = factorgraph.OriginalOrder(buf, m, order)
			return run.AtCheck(buf)
		}
		opt.Run = &r
	}
	a, err := marginals(ctx, h, opt, start)
	if a == nil {
		return nil, err
	}
	a.Marginals = factorgraph.OriginalOrder(nil, a.Marginals, order)
	a.Exact = factorgraph.OriginalOrder(nil, a.Exact, order)
	a.Order, a.OrderNote = order, note
	return a, err
}

// localityGraph returns g renumbered in its LocalityOrder and the order,
// or nil and why not: fewer than LocalityVars free variables, a numbering
// local already, an order that finds no locality (a random graph), a
// factor that cannot be renumbered, a second graph beyond Run.MaxBytes or
// (in a run with a time budget) the machine's memory, or more than a
// quarter of a time budget to build it. Every reason but the time and the
// machine's memory depends on the graph and the options alone, so that a
// run counted in steps and resumed from its checkpoint makes the same
// choice; the machine's memory is an error there. An error is that or
// ctx's.
func localityGraph(ctx context.Context, g *factorgraph.Graph, opt Options, start time.Time) (*factorgraph.Graph, []int, string, error) {
	if opt.Run != nil && !opt.Run.Start.IsZero() {
		start = opt.Run.Start // the budget's start (Budget.Start)
	}
	if n := len(g.Free()); n < localityMin {
		return nil, nil, fmt.Sprintf("kept the numbering: %d free variables (below %d) stay in cache in any order", n, localityMin), nil
	}
	before := factorgraph.Locality(g, nil, localityWindow)
	if before >= localKept {
		return nil, nil, fmt.Sprintf("kept the numbering: %.0f%% of the neighbours already within %d places", 100*before, localityWindow), nil
	}
	if opt.Run != nil && opt.Run.MaxBytes > 0 && 2*float64(g.Bytes()) > opt.Run.MaxBytes {
		return nil, nil, fmt.Sprintf("kept the numbering: a renumbered copy of the graph (%.3g GB) does not fit the memory limit", float64(g.Bytes())/1e9), nil
	}
	entries := 2 * float64(g.NumFactors()) // pairs; a table's scope counts as one pair, a low estimate
	if opt.Time > 0 && !opt.counted() {
		if est := time.Duration(entries * orderNsPerEntry); est > opt.Time/4-time.Since(start) {
			return nil, nil, fmt.Sprintf("kept the numbering: renumbering would take about %v of the %v budget", est.Round(time.Millisecond), opt.Time), nil
		}
	}
	octx := ctx
	if opt.Time > 0 && !opt.counted() {
		var cancel context.CancelFunc
		octx, cancel = context.WithDeadline(ctx, start.Add(opt.Time/4))
		defer cancel()
	}
	order, err := factorgraph.LocalityOrder(octx, g)
	switch {
	case ctx.Err() != nil:
		return nil, nil, "", ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return nil, nil, fmt.Sprintf("kept the numbering: ordering ran past a quarter of the %v budget", opt.Time), nil
	case err != nil:
		return nil, nil, "", err
	}
	after := factorgraph.Locality(g, order, localityWindow)
	if after-before < localGain {
		return nil, nil, fmt.Sprintf("kept the numbering: the locality order brings %.0f%% of the neighbours within %d places against %.0f%% (no locality to find)", 100*after, localityWindow, 100*before), nil
	}
	h, err := factorgraph.Renumber(g, order)
	var me *factorgraph.MemoryError
	switch {
	case errors.As(err, &me) && opt.counted():
		// A run counted in steps may be checkpointed and resumed on
		// another machine: whether its chains are renumbered must not
		// depend on this one's memory.
		return nil, nil, "", fmt.Errorf("infer: Options.Locality: %w (answer with the graph as numbered, or with more memory)", err)
	case err != nil: // a factor of its own, or no memory for the copy
		return nil, nil, "kept the numbering: " + err.Error(), nil
	}
	return h, order, fmt.Sprintf("renumbered for locality: %.0f%% of the neighbours within %d places, against %.0f%% as numbered", 100*after, localityWindow, 100*before), nil
}

// interruptedOrdering is the answer of a run interrupted while ordering:
// nothing sampled (no chain is built, so no checkpoint of chains on the
// graph as numbered is written that a resumed, renumbered run would
// restore), the evidence's point masses and uniform marginals elsewhere,
// Incomplete saying why (Marginals' contract for a cancelled ctx).
func interruptedOrdering(ctx context.Context, g *factorgraph.Graph, opt Options, start time.Time, err error) *Answer {
	n := g.NumVars()
	a := &Answer{Exact: make([]bool, n), Marginals: pointMasses(g, nil), OrderNote: "interrupted while ordering (" + err.Error() + ")"}
	for i := range n {
		_, a.Exact[i] = g.Observed(i)
	}
	a.stop(fmt.Sprintf("interrupted (%v) while ordering for locality, before sampling", context.Cause(ctx)))
	if opt.Run != nil && !opt.Run.Start.IsZero() {
		start = opt.Run.Start
	}
	a.setLogZ(g)
	a.finish(start)
	return a
}
