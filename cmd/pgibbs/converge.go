package main

import (
	"fmt"
	"io"
	"math"

	"github.com/pgibbs/pgibbs/chain"
)

// convergence is the verdict a run's record carries (chain.Judge on the
// tracked quantities: each value of each traced variable, one draw a
// sweep-equivalent; a lattice's energy and magnetisation series): whether
// every quantity has rank-normalised split-R̂ below the threshold and bulk
// and tail ESS above it — within each chain's halves as well as across
// chains, so one chain is judged too —, the worst values, and in words why
// not. Undefined diagnostics are null, and so is an infinite R̂ (a
// variable that never moved although nothing shows its marginal
// degenerate, counted in frozen_variables, or a quantity constant within
// each chain at different values: the note says which), which JSON cannot
// write.
type convergence struct {
	Converged  bool     `json:"converged"`
	RhatMax    *float64 `json:"rhat_max"`
	ESSBulkMin *float64 `json:"ess_bulk_min"`
	ESSTailMin *float64 `json:"ess_tail_min,omitempty"`
	Draws      int      `json:"draws_per_chain,omitempty"`
	Constant   int      `json:"constant_quantities,omitempty"`
	// Frozen counts the traced variables that never moved in any chain
	// although nothing shows their marginals degenerate
	// (chain.Verdict.Frozen): they fail the verdict.
	Frozen int      `json:"frozen_variables,omitempty"`
	Worst  []string `json:"worst,omitempty"`
	Note   string   `json:"convergence_note,omitempty"`

	// Of says which variables were judged when not all: "1000 of 40000
	// variables, evenly spaced" (chain.Tracked).
	Of string `json:"judged_variables,omitempty"`

	summary string // the verdict in one line (chain.Verdict.Summary)
	rhat    string // R̂ max in words (chain.Verdict.RHat): "∞ (12 variables never moved, …)"
}

// criteria returns the thresholds of the verdict: -until-rhat and -min-ess
// when set, else chain's defaults (R̂ < 1.01, ESS ≥ 100).
func (f *runFlags) criteria() chain.Criteria {
	return chain.Criteria{RHat: f.untilRhat, MinESS: f.minESS}
}

// judged returns the record of verdict v under criteria c over
// quantities, of (if not empty) saying which variables were judged.
func judged(v chain.Verdict, c chain.Criteria, quantities int, of string) convergence {
	def := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return convergence{Converged: v.Converged, RhatMax: def(v.RHatMax), ESSBulkMin: def(v.BulkESSMin), ESSTailMin: def(v.TailESSMin),
		Draws: v.Draws, Constant: v.Constant, Frozen: v.Frozen, Worst: v.Worst, Note: v.Reason, Of: of,
		summary: v.Summary(c, quantities, of), rhat: v.RHat()}
}

// printConvergence adds the convergence lines to a text table.
func printConvergence(w io.Writer, c convergence) {
	if c.ESSBulkMin != nil {
		fmt.Fprintf(w, "bulk ESS (min over quantities)\t%.1f\n", *c.ESSBulkMin)
	}
	if c.ESSTailMin != nil {
		fmt.Fprintf(w, "tail ESS (min over quantities)\t%.1f\n", *c.ESSTailMin)
	}
	switch {
	case c.rhat != "":
		fmt.Fprintf(w, "R̂ (max over quantities)\t%s\n", c.rhat)
	case c.RhatMax != nil:
		fmt.Fprintf(w, "R̂ (max over quantities)\t%.4f\n", *c.RhatMax)
	}
	fmt.Fprintf(w, "convergence\t%s\n", c.summary)
}

// warn tells stderr when a run ended unconverged (the record says it too;
// variables that never moved lead the note, with R̂ ∞).
func (f *runFlags) warn(c convergence) {
	if c.Converged || f.env == nil || f.env.stderr == nil || f.of > 0 {
		return
	}
	fmt.Fprintf(f.env.stderr, "pgibbs %s: warning: the chains have not converged: %s\n", f.command, c.Note)
}
