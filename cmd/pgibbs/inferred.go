package main

import (
	"fmt"
	"io"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/infer"
)

// The default of `pgibbs uai` (-sampler infer, package infer): every
// component of the free variables whose elimination fits -exact-memory
// and three quarters of the time budget is solved exactly; the others are
// sampled by the sampler a short pilot of each candidate measures best,
// for the rest of the budget.

// inferOutput is the JSON record of the infer path's plan and choice.
type inferOutput struct {
	// Method is how the answer was found: "exact" (every component
	// eliminated), "sampled" (none) or "exact+sampled".
	Method string `json:"method"`
	// ExactComponents of Components were eliminated exactly, holding
	// ExactVariables free variables, in ExactSeconds; LogZ is log Z of
	// the model given the evidence (infer.ExactPart.LogZ), when every
	// component is exact.
	Components      int            `json:"components"`
	ExactComponents int            `json:"exact_components"`
	ExactVariables  int            `json:"exact_variables"`
	ExactSeconds    float64        `json:"exact_seconds"`
	LogZ            *float64       `json:"log_z,omitempty"`
	Parts           []componentOut `json:"component_plans,omitempty"`
	Choice          *choiceOutput  `json:"choice,omitempty"`
	// NoChoice says why no sampler was chosen although components are
	// left to sample (the budget ran out first).
	NoChoice string `json:"no_choice,omitempty"`
}

// componentOut describes one component's plan.
type componentOut struct {
	Variables int     `json:"variables"`
	Exact     bool    `json:"exact"`
	Width     int     `json:"width"`
	Entries   float64 `json:"entries"`
	Bytes     float64 `json:"bytes"`
	Why       string  `json:"why_sampled,omitempty"`
}

// choiceOutput is the pilots' record.
type choiceOutput struct {
	Sampler string        `json:"sampler"`
	Reason  string        `json:"reason"`
	Seconds float64       `json:"pilot_seconds"`
	Pilots  []pilotOutput `json:"pilots"`
}

type pilotOutput struct {
	Sampler      string  `json:"sampler"`
	Sweeps       float64 `json:"sweeps,omitempty"`
	ESS          float64 `json:"ess_min,omitempty"`
	NsPerSweep   float64 `json:"ns_per_sweep,omitempty"`
	ESSPerSecond float64 `json:"ess_per_second,omitempty"`
	Refused      string  `json:"refused,omitempty"`
}

// inferRecord returns the record of a's plan and choice.
func inferRecord(g *factorgraph.Graph, a *infer.Answer) *inferOutput {
	ex := a.ExactPart
	o := &inferOutput{Components: len(ex.Components), ExactVariables: ex.ExactVars(), ExactSeconds: ex.Seconds}
	switch {
	case ex.All():
		o.Method = "exact"
	case ex.Any():
		o.Method = "exact+sampled"
	default:
		o.Method = "sampled"
	}
	for k, c := range ex.Components {
		o.Parts = append(o.Parts, componentOut{Variables: len(c.Vars), Exact: ex.Exact[k], Width: c.Width, Entries: c.Entries, Bytes: c.Bytes, Why: ex.Why[k]})
		if ex.Exact[k] {
			o.ExactComponents++
		}
	}
	if logZ, ok := ex.LogZ(g); ok {
		o.LogZ = &logZ
	}
	if len(o.Parts) > 20 {
		o.Parts = nil // many small components: the counts say enough
	}
	o.NoChoice = a.NoChoice
	if ch := a.Choice; ch != nil {
		co := &choiceOutput{Sampler: ch.Spec.String(), Reason: ch.Reason, Seconds: a.PilotSeconds}
		for _, p := range ch.Pilots {
			co.Pilots = append(co.Pilots, pilotOutput{Sampler: p.Spec.String(), Sweeps: p.Sweeps, ESS: p.ESS, NsPerSweep: p.NsPerSweep, ESSPerSecond: p.ESSPerSecond, Refused: p.Refused})
		}
		o.Choice = co
	}
	return o
}

// print adds the plan's and the choice's lines to a text table.
func (o *inferOutput) print(w io.Writer) {
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
}

// exactPart returns the part record of chain f.chain of a -chain k -of K
// run whose answer is exact: no chain state, the run's description and
// inputs, so that `pgibbs merge` checks the parts as it does any.
func (f *runFlags) exactPart(seconds float64) (*part, error) {
	m := meta{Command: f.command, Args: f.args, Trace: f.trace}
	var err error
	if m.Inputs, err = chain.HashFiles(f.inputPaths()...); err != nil {
		return nil, err
	}
	return &part{meta: m, Chain: f.chain, Of: f.of, Seconds: seconds}, nil
}
