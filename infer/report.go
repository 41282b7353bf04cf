package infer

import (
	"math"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Report is an answer's plan and choice as a record (its JSON is `pgibbs
// uai`'s "infer" object): how the answer was found, each component's
// plan, and what the pilots measured.
type Report struct {
	// Method is how the answer was found (Answer.Method): "exact" (every
	// component eliminated), "mixed" (some) or "sampled" (none); Seconds
	// the answer's wall time (Answer.Seconds).
	Method  string  `json:"method"`
	Seconds float64 `json:"seconds"`
	// ExactComponents of Components were eliminated exactly, holding
	// ExactVariables free variables, in ExactSeconds; LogZ is log Z of
	// the model given the evidence (Answer.LogZ): exact when every
	// component is, else an estimate with its standard error LogZError.
	Components      int             `json:"components"`
	ExactComponents int             `json:"exact_components"`
	ExactVariables  int             `json:"exact_variables"`
	ExactSeconds    float64         `json:"exact_seconds"`
	LogZ            *float64        `json:"log_z,omitempty"`
	LogZError       *float64        `json:"log_z_error,omitempty"`
	Parts           []ComponentPlan `json:"component_plans,omitempty"`
	Choice          *ChoiceReport   `json:"choice,omitempty"`
	// NoChoice says why no sampler was chosen although components are
	// left to sample (the budget ran out first).
	NoChoice string `json:"no_choice,omitempty"`
	// Shrink is how the sampled marginals were shrunk toward loopy BP's
	// beliefs (Answer.Shrink).
	Shrink *Shrinkage `json:"shrink,omitempty"`
}

// ComponentPlan is one component's plan: its size, whether it was
// eliminated, its width and table, and why it was sampled if it was.
type ComponentPlan struct {
	Variables int     `json:"variables"`
	Exact     bool    `json:"exact"`
	Width     int     `json:"width"`
	Entries   float64 `json:"entries"`
	Bytes     float64 `json:"bytes"`
	Why       string  `json:"why_sampled,omitempty"`
}

// ChoiceReport is the pilots' record: the sampler chosen, why, their wall
// time, and each candidate's pilot.
type ChoiceReport struct {
	Sampler string        `json:"sampler"`
	Reason  string        `json:"reason"`
	Seconds float64       `json:"pilot_seconds"`
	Pilots  []PilotReport `json:"pilots"`
	// Race is the race of the pilots' choice against the runner-up, if
	// the run raced them (Choice.Race).
	Race *RaceReport `json:"race,omitempty"`
}

// RaceReport is Race's record: the two candidates (the pilots' choice
// first), their sweep-equivalents in the race, estimated errors and
// frozen variables, the distance between their marginals and its
// expected size, and the one that took the run.
type RaceReport struct {
	Samplers [2]string  `json:"samplers"`
	Sweeps   [2]float64 `json:"sweeps"`
	Error    [2]float64 `json:"estimated_error"`
	Frozen   [2]int     `json:"frozen"`
	Distance float64    `json:"distance"`
	Expected float64    `json:"expected_distance"`
	Winner   string     `json:"winner"`
}

// PilotReport is what one candidate's pilot measured, or why it was
// refused.
type PilotReport struct {
	Sampler      string  `json:"sampler"`
	Sweeps       float64 `json:"sweeps,omitempty"`
	ESS          float64 `json:"ess_min,omitempty"`
	NsPerSweep   float64 `json:"ns_per_sweep,omitempty"`
	ESSPerSecond float64 `json:"ess_per_second,omitempty"`
	Refused      string  `json:"refused,omitempty"`
}

// Report returns the record of a's plan and choice on g (the graph it
// answers: log Z needs its clamped factors). A list of more than 20
// components is left out (the counts say enough).
func (a *Answer) Report(g *factorgraph.Graph) *Report {
	ex := a.ExactPart
	o := &Report{Method: a.Method, Seconds: a.Seconds, Components: len(ex.Components), ExactVariables: ex.ExactVars(), ExactSeconds: ex.Seconds}
	for k, c := range ex.Components {
		o.Parts = append(o.Parts, ComponentPlan{Variables: len(c.Vars), Exact: ex.Exact[k], Width: c.Width, Entries: c.Entries, Bytes: c.Bytes, Why: ex.Why[k]})
		if ex.Exact[k] {
			o.ExactComponents++
		}
	}
	if z, se := a.LogZ, a.LogZError; !math.IsNaN(z) {
		o.LogZ = &z
		if se > 0 {
			o.LogZError = &se
		}
	}
	if len(o.Parts) > 20 {
		o.Parts = nil // many small components: the counts say enough
	}
	o.NoChoice, o.Shrink = a.NoChoice, a.Shrink
	if ch := a.Choice; ch != nil {
		co := &ChoiceReport{Sampler: ch.Spec.String(), Reason: ch.Reason, Seconds: a.PilotSeconds}
		for _, p := range ch.Pilots {
			co.Pilots = append(co.Pilots, PilotReport{Sampler: p.Spec.String(), Sweeps: p.Sweeps, ESS: p.ESS, NsPerSweep: p.NsPerSweep, ESSPerSecond: p.ESSPerSecond, Refused: p.Refused})
		}
		if r := ch.Race; r != nil {
			co.Race = &RaceReport{Samplers: [2]string{r.Specs[0].String(), r.Specs[1].String()}, Sweeps: r.Sweeps, Error: r.Error,
				Frozen: r.Frozen, Distance: r.Distance, Expected: r.Expected, Winner: r.Specs[r.Winner].String()}
		}
		o.Choice = co
	}
	return o
}
