package main

import (
	"fmt"
	"io"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/infer"
)

// The default of `pgibbs uai` (-sampler infer, package infer): every
// component of the free variables whose elimination fits -exact-memory
// and three quarters of the time budget is solved exactly; the others are
// sampled by the sampler a short pilot of each candidate measures best,
// for the rest of the budget.

// print adds the plan's and the choice's lines to a text table.
func printReport(w io.Writer, o *infer.Report) {
	if o == nil {
		return
	}
	fmt.Fprintf(w, "exact\t%d of %d components (%d free variables) by variable elimination, %.2f s\n",
		o.ExactComponents, o.Components, o.ExactVariables, o.ExactSeconds)
	for _, p := range o.Parts {
		if !p.Exact {
			fmt.Fprintf(w, "sampled\ta component of %d variables: %s\n", p.Variables, p.Why)
		}
	}
	if c := o.Choice; c != nil {
		fmt.Fprintf(w, "sampler chosen\t%s (pilots %.2f s)\n", c.Reason, c.Seconds)
	}
	if o.NoChoice != "" {
		fmt.Fprintf(w, "no sampler chosen\t%s\n", o.NoChoice)
	}
	if o.Shrink != nil {
		fmt.Fprintf(w, "shrinkage\t%s\n", o.Shrink)
	}
}

// exactPart returns the part record of chain f.chain of a -chain k -of K
// run whose answer is exact: no chain state, the run's description and
// inputs, so that `pgibbs merge` checks the parts as it does any.
func (f *runFlags) exactPart(seconds float64) (*chain.Part, error) {
	m := f.meta()
	var err error
	if m.Inputs, err = chain.HashFiles(f.inputPaths()...); err != nil {
		return nil, err
	}
	return &chain.Part{Meta: m, Chain: f.chain, Of: f.of, Seconds: seconds}, nil
}
