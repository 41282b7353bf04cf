package main

import (
	"fmt"
	"io"
	"math"

	"github.com/pgibbs/pgibbs/diag"
)

// convergence summarises the chains' agreement: the largest
// rank-normalised R̂ and the smallest bulk ESS over quantities, each given
// as chains × draws. A quantity constant in every chain is left out (it
// says nothing); one constant within each chain at values that differ
// makes R̂ infinite (reported as nil with a note) and ESS 0.
type convergence struct {
	RhatMax    *float64 `json:"rhat_max"`
	ESSBulkMin float64  `json:"ess_bulk_min"`
	Note       string   `json:"convergence_note,omitempty"`
}

// summarize computes the convergence summary of quantities[q][chain][draw].
func summarize(quantities [][][]float64) (convergence, error) {
	var c convergence
	rmax, essMin := 0.0, math.Inf(1)
	stuck, used := 0, 0
	for _, chains := range quantities {
		if len(chains) == 0 || len(chains[0]) < 6 {
			c.Note = fmt.Sprintf("too few draws (%d a chain, one a sweep) for R̂ and ESS: run at least 6 sweeps", len(chains[0]))
			return c, nil
		}
		if constant(chains) {
			continue
		}
		used++
		ess, err := diag.BulkESS(chains)
		if err != nil {
			return c, err
		}
		if math.IsNaN(ess) {
			ess = 0
		}
		essMin = min(essMin, ess)
		if len(chains) > 1 {
			r, err := diag.RHat(chains)
			if err != nil {
				return c, err
			}
			switch {
			case math.IsInf(r, 1):
				stuck++
			case !math.IsNaN(r):
				rmax = max(rmax, r)
			}
		}
	}
	if used == 0 {
		c.Note = "every traced quantity was constant: no diagnostics"
		return c, nil
	}
	c.ESSBulkMin = essMin
	switch {
	case stuck > 0:
		c.Note = fmt.Sprintf("R̂ is infinite for %d quantities: chains stuck at different values", stuck)
	case len(quantities[0]) > 1:
		c.RhatMax = &rmax
	}
	return c, nil
}

// constant reports whether every draw of every chain is the same value.
func constant(chains [][]float64) bool {
	v := chains[0][0]
	for _, ch := range chains {
		for _, x := range ch {
			if x != v {
				return false
			}
		}
	}
	return true
}

// printConvergence adds the convergence lines to a text table.
func printConvergence(w io.Writer, c convergence) {
	if c.ESSBulkMin > 0 {
		fmt.Fprintf(w, "bulk ESS (min over variables)\t%.1f\n", c.ESSBulkMin)
	}
	if c.RhatMax != nil {
		fmt.Fprintf(w, "R̂ (max over variables)\t%.4f\n", *c.RhatMax)
	}
	if c.Note != "" {
		fmt.Fprintf(w, "convergence\t%s\n", c.Note)
	}
}
