package infer

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// TestRunLayout: the sampled part's random streams and hooks. A run
// counted in sweeps gives the same marginals bit for bit twice; chain 1
// run alone (Run.Indices, one part of a run split across processes) ends
// where chain 1 of the whole run does (chain k: stream k); Observe adds
// observers to each chain, NoMarginals keeps none; a memory limit below
// the estimate is refused with a *factorgraph.MemoryError before any chain is built.
func TestRunLayout(t *testing.T) {
	g := isingTorus(t, 6, 0.3)
	site := &Spec{Name: "site"}
	run := func(r *Run, sweeps float64) *Answer {
		t.Helper()
		a, err := Marginals(t.Context(), g, Options{Seed: 3, Chains: 2, Sweeps: sweeps, MaxBytes: 1, Run: r})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := run(nil, 200), run(nil, 200)
	for i := range a.Marginals {
		for v := range a.Marginals[i] {
			if math.Float64bits(a.Marginals[i][v]) != math.Float64bits(b.Marginals[i][v]) {
				t.Fatalf("p(x_%d = %d): %v, then %v for the same seed and sweeps", i, v, a.Marginals[i][v], b.Marginals[i][v])
			}
		}
	}
	whole := run(&Run{Spec: site, Steps: 3000, Burn: 300}, 0)
	part := run(&Run{Spec: site, Steps: 3000, Burn: 300, Indices: []int{1}}, 0)
	if w, p := chain.StateHash(chain.States(whole.Run.Chains[1:])...), chain.StateHash(chain.States(part.Run.Chains)...); w != p {
		t.Errorf("chain 1 alone ends in state %s, chain 1 of the run in %s", p, w)
	}
	seen := 0
	obs := run(&Run{Spec: site, Steps: 1000, NoMarginals: true, Observe: func(int) []chain.Observer {
		seen++
		return []chain.Observer{chain.NewMarginals(factorgraph.Sizes(g))}
	}}, 0)
	if seen != 2 || len(obs.Run.Marginals) != 0 || len(obs.Run.Chains[0].Observers) != 2 {
		t.Errorf("Observe called %d times, %d marginals kept, %d observers a chain; want 2, 0, 2 (the caller's and the trace)",
			seen, len(obs.Run.Marginals), len(obs.Run.Chains[0].Observers))
	}
	_, err := Marginals(t.Context(), g, Options{Seed: 3, Run: &Run{Spec: site, Steps: 1000, MaxBytes: 100}})
	var me *factorgraph.MemoryError
	if !errors.As(err, &me) || !strings.Contains(me.Of, "1 chain(s)") || me.Limit != 100 {
		t.Errorf("a run over its memory limit: %v, want a *MemoryError of 1 chain over 100 bytes", err)
	}
}

// TestRunContinuesPilot: the run's chain 0 continues the chosen pilot's
// chain (Choice.keep): its sampler as the pilot left it, so that its
// updates before the run are the pilot's; the rule's burn-in less the
// pilot's steps, the measured part as long as without the pilot; the
// run's counters (Sampled.Stats, ChainSweeps, Answer.Sweeps) without the
// pilot's. With two chains the burn-in is kept whole and chain 1 is built
// from stream 1; with a given sampler (Run.Spec) there is no pilot to
// continue.
func TestRunContinuesPilot(t *testing.T) {
	g := isingTorus(t, 6, 0.3)
	const sweeps = 2000 // a burn-in of 1000, longer than any pilot
	for _, chains := range []int{1, 2} {
		a, err := Marginals(t.Context(), g, Options{Seed: 3, Chains: chains, Sweeps: sweeps, MaxBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, ch := a.Run, a.Choice
		var p *Pilot
		for k := range ch.Pilots {
			if ch.Pilots[k].Spec == ch.Spec {
				p = &ch.Pilots[k]
			}
			if ch.Pilots[k].chain != nil {
				t.Errorf("%d chain(s): pilot %v's chain kept after the choice", chains, ch.Pilots[k].Spec)
			}
		}
		if p == nil || p.err != nil || ch.adopt != nil {
			t.Fatalf("%d chain(s): chose %v (%+v), its pilot chain still in the choice: %v", chains, ch.Spec, p, ch.adopt != nil)
		}
		sps := gibbs.StepsPerSweep(s.Samplers[0])
		pilot := int64(math.Round(p.Sweeps * sps))
		total, _ := chain.Sweeps(s.Samplers[0])
		before := total - s.ChainSweeps(0)
		if s.pilotSteps[0] != pilot || math.Abs(before-p.Sweeps) > 0.01*p.Sweeps {
			t.Errorf("%d chain(s): chain 0 made %d steps, %.4g sweeps before the run; its pilot %d steps, %.4g sweeps",
				chains, s.pilotSteps[0], before, pilot, p.Sweeps)
		}
		rule := int64(min(1000, sweeps/2) * sps)
		want := rule - pilot
		if chains > 1 {
			want = rule
			if s.pilotSteps[1] != 0 {
				t.Errorf("chain 1 made %d steps before the run, want 0 (built from its stream)", s.pilotSteps[1])
			}
		}
		if s.Burn != want || s.Chains[0].Burn != want || s.Steps != want+int64(math.Round(sweeps*sps)) {
			t.Errorf("%d chain(s): burn-in %d (chain 0: %d) of %d steps; want %d of %d (the rule's %d, the pilot's %d)",
				chains, s.Burn, s.Chains[0].Burn, s.Steps, want, want+int64(math.Round(sweeps*sps)), rule, pilot)
		}
		st := s.Stats(0)
		if got, run := st.Steps, s.Samplers[0].Stats().Steps; got <= 0 || got >= run {
			t.Errorf("%d chain(s): the run's counters %d updates, the sampler's %d: want the pilot's left out", chains, got, run)
		}
		if got, want := s.ChainSweeps(0), float64(s.Steps)/sps; math.Abs(got-want) > 0.01*want {
			t.Errorf("%d chain(s): the run's sweep-equivalents %.6g, want %.6g (its steps)", chains, got, want)
		}
	}
	a, err := Marginals(t.Context(), g, Options{Seed: 3, Sweeps: sweeps, MaxBytes: 1, Run: &Run{Spec: &Spec{Name: "site"}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Run; s.pilotSteps[0] != 0 || s.Burn != int64(min(1000, sweeps/2)*gibbs.StepsPerSweep(s.Samplers[0])) {
		t.Errorf("a given sampler: %d steps before the run, burn-in %d; want 0 and the rule's", s.pilotSteps[0], s.Burn)
	}
}
