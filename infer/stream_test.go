package infer

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/glass"
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

// TestExchangePilotIsNamedChain: replica exchange with Houdayer moves,
// built as Choose builds a pilot — from the start state, on stream 0, its
// ladder tuned for a number of sweeps, not for a time — is the chain that
// naming it runs (`pgibbs uai -sampler exchange -houdayer`): after the
// same steps, the same β = 1 state. Choose keeps only its choice's and
// runner-up's chains, so TestPilotIsNamedChain sees exchange only where
// it wins; this checks its construction on a glass either way.
func TestExchangePilotIsNamedChain(t *testing.T) {
	g, err := glass.New(glass.Spec{L: 5, Beta: 1, FieldSD: 0.3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	const seed, steps = 9, 4000
	spec := Spec{Name: "exchange", Houdayer: true}
	o, err := pilotOptions(context.Background(), g, ChooseOptions{Seed: seed}, time.Now(), time.Time{}, false)
	if err != nil {
		t.Fatal(err)
	}
	smp, err := spec.New(g, rand.New(chain.Source(seed, 0)), o)
	if err != nil {
		t.Fatal(err)
	}
	for range steps {
		smp.Step()
	}
	a, err := Marginals(context.Background(), g, Options{Seed: seed, Run: &Run{Spec: &spec, Steps: steps}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Run.Samplers[0].State(), smp.State(); !slices.Equal(got, want) {
		t.Errorf("after %d steps: named chain in %v, pilot in %v", steps, got, want)
	}
}
