package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/flip"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/infer"
)

// options returns the sampler options of the shared flags.
func (f *runFlags) options() gibbs.Options {
	return gibbs.Options{Lambda: f.lambda, LambdaScale: f.lambdaScale, MaxDraws: f.maxDraws, Systematic: f.scan == "systematic"}
}

// statsOf returns the counters of the run's samplers summed (what they
// did in the run: a pilot's steps left out, infer.Sampled.Stats).
func statsOf(s *infer.Sampled) gibbs.Stats {
	var st gibbs.Stats
	for k := range s.Samplers {
		st.Add(s.Stats(k))
	}
	return st
}

// lambdaOf returns λ of a minibatch sampler, 0 for the others.
func lambdaOf(s gibbs.Sampler) float64 {
	if l, ok := s.(interface{ Lambda() float64 }); ok {
		return l.Lambda()
	}
	return 0
}

// judgedVars returns the record of verdict v of f's criteria on quantities
// of the traced variables, saying which when not all free ones are.
func (f *runFlags) judgedVars(v chain.Verdict, quantities, free int) convergence {
	of := ""
	if free > chain.DefaultTracked {
		of = fmt.Sprintf("%d of %d variables, evenly spaced", chain.DefaultTracked, free)
	}
	return judged(v, f.criteria(), quantities, of)
}

// stepsPerSecond returns the update rate of one chain.
func stepsPerSecond(steps int64, chains int, seconds float64) float64 {
	if seconds == 0 {
		return 0
	}
	return float64(steps) / float64(chains) / seconds
}

// gibbsOutput is the part of the JSON output of potts, uai, spin and tgm
// that describes the samplers' run. A field that does not apply is left
// out, not written as 0: λ of a sampler that draws no minibatch, the
// factors a step evaluates for a cluster move (its draws are bond events),
// every count of an answer that sampled nothing.
type gibbsOutput struct {
	Estimator      string            `json:"estimator,omitempty"` // of the marginals: rb or counts
	Blocks         *blocked.Summary  `json:"blocks,omitempty"`    // -sampler block
	Exchange       *exchange.Summary `json:"exchange,omitempty"`  // replica exchange
	Flips          *flipSummary      `json:"phase_flips,omitempty"`
	Lambda         float64           `json:"lambda,omitempty"`
	Iterations     int64             `json:"iterations,omitempty"`
	FactorsPerStep float64           `json:"factors_per_step,omitempty"`
	DrawsPerStep   float64           `json:"draws_per_step,omitempty"`
	AcceptanceRate *float64          `json:"acceptance_rate,omitempty"`
	TriesPerStep   float64           `json:"tries_per_step,omitempty"`
	StepsPerSecond float64           `json:"steps_per_second,omitempty"`
	// Sweeps is the mean length of a chain in sweep-equivalents: variable
	// updates over free variables, whatever a step updates.
	Sweeps float64 `json:"sweep_equivalents,omitempty"`
	record
}

// samplerOutput returns the record of the chains s ran (their samplers,
// marginals if any), verdict conv, as o ran.
func (f *runFlags) samplerOutput(s *infer.Sampled, conv convergence, o *outcome) gibbsOutput {
	samplers, margs := s.Samplers, s.Marginals
	st := statsOf(s)
	out := gibbsOutput{Lambda: lambdaOf(samplers[0]), Iterations: st.Steps, FactorsPerStep: st.FactorsPerStep(),
		DrawsPerStep: st.PicksPerStep(), TriesPerStep: st.TriesPerStep(),
		StepsPerSecond: stepsPerSecond(st.Steps, len(o.Chains), o.Seconds), record: f.record(o, conv)}
	for k := range samplers {
		out.Sweeps += s.ChainSweeps(k) / float64(len(samplers))
	}
	out.ClustersPerStep = clustersPerStep(samplers)
	base := samplers[0]
	if f, ok := base.(*flip.Sampler); ok {
		tries, acc := f.Flips()
		out.Flips = &flipSummary{Groups: len(f.Groups()), Proposed: tries, Accepted: acc}
		base = f.Base()
	}
	if b, ok := base.(*blocked.Blocked); ok {
		sum := blocked.Summarise(b.Blocks())
		out.Blocks = &sum
	}
	if x, ok := samplers[0].(*exchange.Exchange); ok {
		sum := x.Summarise()
		out.Exchange = &sum
	}
	if len(margs) > 0 {
		out.Estimator = "counts"
		if margs[0].RaoBlackwellised() {
			out.Estimator = "rb"
		}
	}
	if st.Proposals > 0 {
		a := st.AcceptanceRate()
		out.AcceptanceRate = &a
	}
	return out
}

// flipSummary is what the phase flips added to blocks did (gibbs/flip).
type flipSummary struct {
	Groups   int   `json:"groups"`
	Proposed int64 `json:"proposed"`
	Accepted int64 `json:"accepted"`
}

// print adds the run's lines to a text table.
func (out gibbsOutput) print(tw io.Writer) {
	fmt.Fprintf(tw, "iterations\t%d variable updates in %d chain(s), %.2f s, %.0f a second a chain; %.4g sweep-equivalents a chain\n",
		out.Iterations, out.Chains, out.Seconds, out.StepsPerSecond, out.Sweeps)
	if out.FactorsPerStep > 0 {
		fmt.Fprintf(tw, "factors/step, draws/step\t%.2f, %.2f\n", out.FactorsPerStep, out.DrawsPerStep)
	} else { // a cluster move: its draws are bond events
		fmt.Fprintf(tw, "bond events/step\t%.2f\n", out.DrawsPerStep)
	}
	switch out.Estimator {
	case "rb":
		fmt.Fprintf(tw, "marginals\tRao–Blackwellised (the average of the conditionals drawn from)\n")
	case "counts":
		fmt.Fprintf(tw, "marginals\tvisit counts\n")
	}
	if len(out.ClustersPerStep) > 0 {
		fmt.Fprintf(tw, "clusters a step\t%s\n", intList(out.ClustersPerStep))
	}
	if b := out.Blocks; b != nil {
		fmt.Fprintf(tw, "blocks\t%d (%.1f variables on average, at most %d), elimination width ≤ %d, largest table %.0f entries\n",
			b.Count, b.MeanVars, b.MaxVars, b.MaxWidth, b.MaxTable)
		if b.Minibatched > 0 {
			fmt.Fprintf(tw, "minibatched boundaries\t%d of %d blocks (Poisson auxiliaries)\n", b.Minibatched, b.Count)
		}
	}
	if f := out.Flips; f != nil {
		fmt.Fprintf(tw, "phase flips\t%d groups (founders' phases), %d of %d proposed accepted\n", f.Groups, f.Accepted, f.Proposed)
	}
	if x := out.Exchange; x != nil {
		fmt.Fprintf(tw, "replica exchange	%d replicas on %d rungs (β %.3g to 1), swap acceptance %.2f–%.2f, %d round trips (%d–%d a walker), Houdayer moves at %d rungs",
			x.Replicas-x.LogZRungs, x.Rungs, x.BetaMin, x.AcceptanceMin, x.AcceptanceMax, x.RoundTrips, x.TripsMin, x.TripsMax, x.HoudayerRungs)
		if x.Stuck > 0 {
			fmt.Fprintf(tw, "; %d walkers made no round trip: the ladder has not carried their states through it", x.Stuck)
		}
		if x.LogZRungs > 0 {
			fmt.Fprintf(tw, "; log Z bridged on to β = 0 by a tail of %d replicas", x.LogZRungs)
		}
		fmt.Fprintln(tw)
	}
	out.stopping.print(tw)
	if out.AcceptanceRate != nil {
		fmt.Fprintf(tw, "MH acceptance rate\t%.4f\n", *out.AcceptanceRate)
	}
	if out.TriesPerStep > 0 {
		fmt.Fprintf(tw, "rejection tries/step\t%.2f\n", out.TriesPerStep)
	}
}

// constructionError is the error of a sampler's constructor as the command
// reports it: a model with no state of positive probability (evidence of
// probability zero, elim.ErrNoMass, or hard factors that contradict it,
// factorgraph.ErrNoFeasibleState) is an error of the model, exit status 1;
// any other refusal is a usage error (the sampler does not fit the model
// or the flags), exit status 2.
func constructionError(err error) error {
	switch {
	case errors.Is(err, elim.ErrNoMass) || errors.Is(err, factorgraph.ErrNoFeasibleState):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("the -seconds budget ran out while the sampler was built (%w)", err)
	case chain.Stopped(err):
		return fmt.Errorf("building the sampler: %w", err)
	}
	return usagef("%v", err)
}

// entry returns the registry's entry called name, or the zero Entry if
// there is none (the registry refuses the name when the sampler is built).
// uai's -sampler infer reports conditionals where the sampler it chooses
// does (-estimator rb applies).
func entry(name string) samplers.Entry {
	if name == inferSampler {
		return samplers.Entry{Name: name, Conditioner: true}
	}
	e, _ := samplers.Lookup(name)
	return e
}

// samplerNames returns the names of the registry's entries for which keep
// holds, joined for help texts and messages.
func samplerNames(keep func(samplers.Entry) bool) string {
	return strings.Join(samplers.NamesWhere(keep), ", ")
}

// clustersPerStep returns each Wolff sampler's clusters a step (nil for
// other samplers).
func clustersPerStep(samplers []gibbs.Sampler) []int {
	var ks []int
	for _, s := range samplers {
		if w, ok := s.(*cluster.Wolff); ok {
			ks = append(ks, w.Clusters())
		}
	}
	return ks
}

// intList formats ks as "k" or "k0, k1, …" (one a chain).
func intList(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, ", ")
}
