package infer

import (
	"context"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// TestPilotIsNamedChain: every pilot of Choose is the start of the chain
// that naming its sampler runs with the same seed (Run.Spec): run for the
// pilot's steps, that chain ends in the pilot's state. So the default's
// answer continues the chain a user gets by naming the sampler it chose,
// and the pilots are compared on common random numbers. On a model with
// zeros the start is the feasible state both search for. Pilots on their
// own streams, or a named chain starting from its own random state, fail.
func TestPilotIsNamedChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *factorgraph.Graph
	}{
		{"torus", isingTorus(t, 6, 0.6)},
		{"zeros", frozenCycle(t, false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const seed = 11
			ch, err := Choose(context.Background(), tc.g, ChooseOptions{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			type kept struct {
				spec Spec
				c    *pilotChain
			}
			var ks []kept
			if ch.adopt != nil {
				ks = append(ks, kept{ch.Spec, ch.adopt})
			}
			if ch.rival != nil {
				ks = append(ks, kept{ch.Pilots[ch.rivalPilot].Spec, ch.rival})
			}
			compared := 0
			for _, k := range ks {
				spec := k.spec
				a, err := Marginals(context.Background(), tc.g, Options{Seed: seed, Run: &Run{Spec: &spec, Steps: k.c.steps}})
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				got, want := a.Run.Samplers[0].State(), k.c.smp.State()
				if !slices.Equal(got, want) {
					t.Errorf("%s after %d steps: named chain in %v, pilot in %v", spec, k.c.steps, got, want)
				}
				compared++
			}
			if compared < 2 {
				t.Fatalf("%d pilots compared, want at least 2", compared)
			}
		})
	}
}
