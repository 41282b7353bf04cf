package infer

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/glass"
)

// TestLogZ: log Z is exact (error 0) where elimination answers, and where
// replica exchange samples (exact elimination forbidden) its estimate, over
// two chains, is within four standard errors of the exact value; a chain
// of another sampler gives none.
func TestLogZ(t *testing.T) {
	g, err := glass.New(glass.Spec{L: 5, Beta: 1, FieldSD: 0.3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exact, err := Marginals(ctx, g, Options{Time: 10 * time.Second})
	if err != nil || exact.Method != MethodExact || exact.LogZError != 0 || math.IsNaN(exact.LogZ) {
		t.Fatalf("exact: %v, method %s, log Z %v ± %v", err, exact.Method, exact.LogZ, exact.LogZError)
	}
	for _, c := range []struct {
		spec Spec
		want bool
	}{{Spec{Name: "exchange", Houdayer: true}, true}, {Spec{Name: "site"}, false}} {
		a, err := Marginals(ctx, g, Options{Sweeps: 3000, Chains: 2, MaxBytes: 1, Run: &Run{Spec: &c.spec}})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !c.want && !math.IsNaN(a.LogZ):
			t.Errorf("%s: log Z %v", c.spec, a.LogZ)
		case c.want && !(math.Abs(a.LogZ-exact.LogZ) <= 4*a.LogZError && a.LogZError > 0 && a.LogZError < 0.1):
			t.Errorf("%s: log Z %v ± %v, exact %v", c.spec, a.LogZ, a.LogZError, exact.LogZ)
		}
	}
}

// TestExchangeMemory: Run.MaxBytes bounds an exchange's tempered copies of
// the model too, refusing a ladder that would exceed what it leaves.
func TestExchangeMemory(t *testing.T) {
	g, err := glass.New(glass.Spec{L: 12, Beta: 2, FieldSD: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	model, perChain := runBytes(g)
	_, err = Marginals(context.Background(), g, Options{Sweeps: 100, MaxBytes: 1,
		Run: &Run{Spec: &Spec{Name: "exchange", Houdayer: true}, MaxBytes: model + perChain + 1e5}})
	var me *factorgraph.MemoryError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "exchange") || !strings.Contains(err.Error(), "ladder") {
		t.Errorf("a ladder over the run's memory: %v", err)
	}
}

// TestLogZRaceLoser: where replica exchange lost the race (Choice.Race)
// to a sampler that gives no log Z, the answer's log Z is the loser's
// estimate; without a losing exchange, none.
func TestLogZRaceLoser(t *testing.T) {
	g, err := glass.New(glass.Spec{L: 5, Beta: 1, FieldSD: 0.3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	xa, err := Marginals(ctx, g, Options{Sweeps: 3000, MaxBytes: 1, Run: &Run{Spec: &Spec{Name: "exchange", Houdayer: true}}})
	if err != nil {
		t.Fatal(err)
	}
	x := xa.Run.Samplers[0]
	for _, loser := range []bool{true, false} {
		a, err := Marginals(ctx, g, Options{Sweeps: 300, MaxBytes: 1, Run: &Run{Spec: &Spec{Name: "site"}}})
		if err != nil {
			t.Fatal(err)
		}
		a.Choice = &Choice{Race: &Race{}}
		if loser {
			a.Choice.Race.loser = x
		}
		a.setLogZ(g)
		switch {
		case loser && (a.LogZ != xa.LogZ || a.LogZError != xa.LogZError || math.IsNaN(a.LogZ)):
			t.Errorf("exchange lost: log Z %v ± %v, want its %v ± %v", a.LogZ, a.LogZError, xa.LogZ, xa.LogZError)
		case !loser && !math.IsNaN(a.LogZ):
			t.Errorf("no exchange lost: log Z %v, want none", a.LogZ)
		}
	}
}
