package infer

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
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
