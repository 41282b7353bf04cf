package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/infer"
)

// Runs that stop when converged: -until-rhat R -min-ess E run the chains in
// checked segments until every tracked quantity has split-R̂ below R and
// bulk and tail ESS of at least E, with -iters (or -sweeps) or -seconds as
// the ceiling (chain.Runner.Until).

// defaultMinESS and defaultRhat are the other threshold when only one of
// -until-rhat and -min-ess is given (Vehtari et al. 2021: R̂ < 1.01, ESS >
// 400 for 4 chains).
const defaultMinESS, defaultRhat = 400, 1.01

// untilFlags defines -until-rhat and -min-ess on fs.
func (f *runFlags) untilFlags(fs *flag.FlagSet) {
	fs.Float64Var(&f.untilRhat, "until-rhat", 0, "stop when every tracked quantity (each value of each variable; lattices: energy and magnetisation)\n"+
		"has split-R̂ below this (e.g. 1.01) and bulk and tail ESS of at least -min-ess (default 400); -iters/-sweeps or\n"+
		"-seconds is the ceiling; R̂ compares the halves of each chain as well as the chains, so one chain will do;\n"+
		"checked every few hundred sweep-equivalents")
	fs.Float64Var(&f.minESS, "min-ess", 0, "with -until-rhat: the bulk and tail ESS every tracked quantity must reach (alone: -until-rhat 1.01)")
}

// checkUntil validates the stopping-rule flags and fills in the default of
// the one not given.
func (f *runFlags) checkUntil() error {
	if f.untilRhat == 0 && f.minESS == 0 {
		return nil
	}
	switch {
	case f.fs.Lookup("until-rhat") == nil:
		return usagef("-until-rhat and -min-ess are not available for pgibbs %s", f.command)
	case f.set["until-rhat"] && !(f.untilRhat > 1 && f.untilRhat < 10):
		return usagef("-until-rhat %v: want a threshold in (1, 10), e.g. 1.01", f.untilRhat)
	case f.set["min-ess"] && !(f.minESS >= 10 && f.minESS <= maxMinESS):
		return usagef("-min-ess %v: want 10 to %d (the traces keep %d draws a chain)", f.minESS, maxMinESS, maxMinESS)
	case f.of > 0:
		return usagef("-until-rhat needs the chains in one process (not -chain k -of K): the rule judges them together")
	}
	if f.untilRhat == 0 {
		f.untilRhat = defaultRhat
	}
	if f.minESS == 0 {
		f.minESS = defaultMinESS
	}
	return nil
}

// maxMinESS is the largest -min-ess (infer.MaxMinESS: a chain's trace
// keeps as many draws, and ESS is at most about their number).
const maxMinESS = infer.MaxMinESS

// stopping is the record of a run with a stopping rule.
type stopping struct {
	// StoppedBy says why the run ended: "converged", or "ceiling" (the
	// steps or seconds ran out first).
	StoppedBy string `json:"stopped_by"`
	// Checks is the number of convergence checks; LastToConverge names
	// the quantity that was the worst at the last check (its R̂ or ESS).
	Checks         int    `json:"checks"`
	LastToConverge string `json:"last_to_converge,omitempty"`
}

// until returns the stopping rule on the tracked quantities, judged as the
// final verdict is (chain.Judge, with f's criteria).
func (f *runFlags) until(quantities series, rec *stopping) func([]*chain.Chain) (bool, error) {
	return func([]*chain.Chain) (bool, error) {
		rec.Checks++
		qs, name := quantities()
		v := chain.Judge(qs, name, f.criteria())
		if !v.Converged { // a converged check keeps the quantity that converged last
			rec.LastToConverge = v.LastToConverge()
		}
		return v.Converged, nil
	}
}

// print adds the stopping rule's line to a text table (nothing without
// one).
func (s *stopping) print(tw io.Writer) {
	if s == nil {
		return
	}
	what := "converged"
	if s.StoppedBy != "converged" {
		what = "not converged when the ceiling was reached"
	}
	fmt.Fprintf(tw, "stopping rule\t%s after %d checks (last to converge: %s)\n", what, s.Checks, s.LastToConverge)
}
