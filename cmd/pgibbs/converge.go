package main

import (
	"fmt"
	"io"
	"math"

	"github.com/pgibbs/pgibbs/diag"
)

// convergence summarises the chains' agreement (diag.WorstOf): the largest
// rank-normalised R̂ and the smallest bulk and tail ESS over quantities,
// each given as chains × draws. A quantity constant in every chain is left
// out (it says nothing); one constant within each chain at values that
// differ makes R̂ infinite (reported as nil with a note).
type convergence struct {
	RhatMax    *float64 `json:"rhat_max"`
	ESSBulkMin float64  `json:"ess_bulk_min"`
	ESSTailMin *float64 `json:"ess_tail_min,omitempty"`
	Note       string   `json:"convergence_note,omitempty"`
}

// summarize computes the convergence summary of quantities[q][chain][draw].
func summarize(quantities [][][]float64) (convergence, error) {
	var c convergence
	for _, chains := range quantities {
		if len(chains) == 0 || len(chains[0]) < 6 {
			c.Note = fmt.Sprintf("too few draws (%d a chain, one a sweep) for R̂ and ESS: run at least 6 sweeps", len(chains[0]))
			return c, nil
		}
	}
	w, err := diag.WorstOf(quantities)
	switch {
	case err != nil:
		return c, err
	case w.Used == 0:
		c.Note = "every traced quantity was constant: no diagnostics"
		return c, nil
	}
	c.ESSBulkMin = w.BulkESSMin
	if t := w.TailESSMin; !math.IsNaN(t) {
		c.ESSTailMin = &t
	}
	switch {
	case w.Stuck > 0:
		c.Note = fmt.Sprintf("R̂ is infinite for %d quantities: chains stuck at different values", w.Stuck)
	case len(quantities[0]) > 1:
		r := w.RHatMax
		if math.IsNaN(r) {
			r = 0
		}
		c.RhatMax = &r
	}
	return c, nil
}

// printConvergence adds the convergence lines to a text table.
func printConvergence(w io.Writer, c convergence) {
	if c.ESSBulkMin > 0 {
		fmt.Fprintf(w, "bulk ESS (min over variables)\t%.1f\n", c.ESSBulkMin)
	}
	if c.ESSTailMin != nil {
		fmt.Fprintf(w, "tail ESS (min over variables)\t%.1f\n", *c.ESSTailMin)
	}
	if c.RhatMax != nil {
		fmt.Fprintf(w, "R̂ (max over variables)\t%.4f\n", *c.RhatMax)
	}
	if c.Note != "" {
		fmt.Fprintf(w, "convergence\t%s\n", c.Note)
	}
}
