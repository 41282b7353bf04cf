package infer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// ExactPart is the part of an answer that variable elimination gives: the
// planned components of the free variables, which of them are solved
// exactly, and, once solved, their results.
type ExactPart struct {
	Components []*elim.Component
	// Exact[k] says component k fits the budgets and is (to be) solved
	// exactly; Why[k] says why not otherwise.
	Exact []bool
	Why   []string
	// Results[k] is component k's solution (nil until Solve, and for the
	// components not solved exactly); Seconds the wall time of Solve.
	Results []*elim.Result
	Seconds float64
}

// PlanExact plans the exact elimination of every component of g's free
// variables and marks exact those whose elimination needs at most
// maxBytes (per component) and whose time estimate (stretched by the
// memory it touches), with the earlier components', stays within maxTime.
// A component of continuous variables, or one whose best order found needs
// more, is left to sampling, with the reason; so is one not planned when
// ctx ended (elim.Plan: a deadline on the planning); the caller tells a
// cancelled ctx by ctx.Err(). Evidence of probability zero at a factor
// whose variables are all observed is an error wrapping elim.ErrNoMass,
// naming the factor (elim.CheckEvidence); Solve's error for a
// contradiction reached through free variables wraps it too.
func PlanExact(ctx context.Context, g *factorgraph.Graph, maxBytes float64, maxTime time.Duration) (*ExactPart, error) {
	if g == nil {
		return nil, errors.New("infer: nil graph")
	}
	if err := elim.CheckEvidence(g); err != nil {
		return nil, fmt.Errorf("infer: %w", err)
	}
	comps, err := elim.Plan(ctx, g, elim.Options{MaxBytes: maxBytes, MaxTime: maxTime})
	if err != nil {
		return nil, err
	}
	e := &ExactPart{Components: comps, Exact: make([]bool, len(comps)), Why: make([]string, len(comps)), Results: make([]*elim.Result, len(comps))}
	var spent time.Duration
	for k, c := range comps {
		switch est := stretched(c); {
		case c.Err != nil && (errors.Is(c.Err, context.DeadlineExceeded) || errors.Is(c.Err, context.Canceled)):
			e.Why[k] = "its elimination was not planned within the planning's share of the budget"
		case c.Err != nil:
			e.Why[k] = c.Err.Error()
		case spent+est > maxTime:
			e.Why[k] = fmt.Sprintf("its elimination (width %d, %.3g table entries, %s) would take about %v, beyond the %v it may have", c.Width, c.Entries, sysmem.String(c.Bytes), est.Round(time.Millisecond), (maxTime - spent).Round(time.Millisecond))
		default:
			e.Exact[k] = true
			spent += est
		}
	}
	return e, nil
}

// stretched returns c's time estimate stretched by the memory it touches:
// elim's estimate is calibrated on eliminations of up to a gigabyte, and
// beyond the caches and the kernel's ready pages a larger one runs slower
// (ObjectDetection_13's 10 GB ran 2.7 times its estimate on one core), so
// the estimate is multiplied by 1 + Bytes/4 GB.
func stretched(c *elim.Component) time.Duration {
	return time.Duration(float64(c.Estimate()) * (1 + c.Bytes/4e9))
}

// All reports whether every component is exact.
func (e *ExactPart) All() bool {
	for _, x := range e.Exact {
		if !x {
			return false
		}
	}
	return true
}

// Any reports whether some component is exact.
func (e *ExactPart) Any() bool {
	for _, x := range e.Exact {
		if x {
			return true
		}
	}
	return false
}

// Solve solves the exact components, each by deadline (zero: none): a
// component whose elimination is not done by then is handed back to
// sampling (Exact false, Why saying so) — its time estimate was wrong —
// and the others are still tried. If ctx is cancelled, Solve returns its
// error at once; the components solved so far keep their Results.
func (e *ExactPart) Solve(ctx context.Context, deadline time.Time) error {
	return e.SolveBy(ctx, deadline, deadline)
}

// SolveBy is Solve with deadline soft, except for the last elimination of
// an answer that is exact if it ends (every component exact, the others
// solved): that one may run on past soft up to hard while the rate of its
// work so far would end it by then (elim.Component.SolveBy). Handing it
// back to sampling at soft would leave the sampler the time between soft
// and hard, little beside the elimination's own, for the whole answer.
func (e *ExactPart) SolveBy(ctx context.Context, soft, hard time.Time) error {
	start := time.Now()
	defer func() { e.Seconds = time.Since(start).Seconds() }()
	// The components in the order of their estimates (the longest last,
	// the one that may run on), each solved once.
	order := make([]int, len(e.Components))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(e.Components[a].Estimate(), e.Components[b].Estimate())
	})
	for n, k := range order {
		c := e.Components[k]
		if !e.Exact[k] {
			continue
		}
		cctx, cancel := ctx, context.CancelFunc(func() {})
		by := soft
		// The last to solve, every other one exact and solved (one handed
		// back to sampling is no longer Exact).
		if n == len(order)-1 && e.All() && hard.After(soft) {
			by = hard
		}
		if !by.IsZero() {
			cctx, cancel = context.WithDeadline(ctx, by)
		}
		r, err := c.SolveBy(cctx, soft, by)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			e.Exact[k] = false
			e.Why[k] = fmt.Sprintf("its elimination (estimated %v) was not done within the %v it had", stretched(c).Round(time.Millisecond), by.Sub(start).Round(time.Millisecond))
			continue
		case err != nil && ctx.Err() != nil:
			// Interrupted: this component and those after it are not
			// exact; the ones solved keep their results.
			for _, j := range order[n:] {
				if e.Exact[j] {
					e.Exact[j] = false
					e.Why[j] = "the run was interrupted before its elimination was done"
				}
			}
			return fmt.Errorf("infer: exact elimination: %w", ctx.Err())
		case err != nil:
			return fmt.Errorf("infer: exact component of %d variables: %w", len(c.Vars), err)
		}
		e.Results[k] = r
	}
	return nil
}

// Overlay writes the exact components' marginals into marg (indexed by
// variable) and marks their variables in exact (if not nil).
func (e *ExactPart) Overlay(marg [][]float64, exact []bool) {
	for k, r := range e.Results {
		if r == nil || !e.Exact[k] {
			continue
		}
		for j, v := range r.Vars {
			marg[v] = append(marg[v][:0], r.Marginals[j]...)
			if exact != nil {
				exact[v] = true
			}
		}
	}
}

// LogZ returns log Z of g given its evidence — elim.ClampedLogPotential(g),
// the factors whose variables are all observed, plus the LogZ of every
// component — and true, when every component has been solved exactly; 0
// and false otherwise. g is the graph e was planned for.
func (e *ExactPart) LogZ(g *factorgraph.Graph) (float64, bool) {
	logZ := elim.ClampedLogPotential(g)
	for k, r := range e.Results {
		if r == nil || !e.Exact[k] {
			return 0, false
		}
		logZ += r.LogZ
	}
	return logZ, true
}

// ExactVars returns the number of free variables in exact components.
func (e *ExactPart) ExactVars() int {
	n := 0
	for k, c := range e.Components {
		if e.Exact[k] {
			n += len(c.Vars)
		}
	}
	return n
}
