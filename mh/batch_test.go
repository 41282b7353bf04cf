package mh_test

import (
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/tgm"
)

// noBatch is the mixture target without its batched fast paths
// (BatchLogLiker, SumLogLiker): the fields shadow the promoted methods.
type noBatch struct {
	tgm.Target
	LogLikBatch, SumLogLik struct{}
}

var (
	_ mh.BatchLogLiker = tgm.Target{}
	_ mh.SumLogLiker   = tgm.Target{}
)

// TestBatchedPathsSameChain: the samplers that use the batched fast paths
// (MH's full sums, the full-data fallback steps, Poisson-MH's kept set,
// FlyMC's bright set) run the same chain, bit for bit, state and counts,
// as on the same target evaluated one LogLik call at a time.
func TestBatchedPathsSameChain(t *testing.T) {
	cfg := tgm.MHConfig()
	cfg.N, cfg.Beta = 700, 0.05 // N > the full-data block, not a multiple of it
	m, err := tgm.Generate(cfg, rng(21, 22))
	if err != nil {
		t.Fatal(err)
	}
	fast := m.Target()
	slow := noBatch{Target: fast}
	if _, ok := mh.Target(slow).(mh.BatchLogLiker); ok {
		t.Fatal("noBatch still has LogLikBatch")
	}
	if _, ok := mh.Target(slow).(mh.SumLogLiker); ok {
		t.Fatal("noBatch still has SumLogLik")
	}
	init := []float64{0, 1}
	for _, c := range []struct {
		name string
		o    mh.Options
	}{
		{"mh", mh.Options{Step: 0.3}},
		{"poissonmh", mh.Options{Step: 0.3, Lambda: 40}},
		{"flymc", mh.Options{Step: 0.03, QDarkToBright: 0.1}},
		{"tunamh", mh.Options{Step: 0.5, Chi: 1e-2, Fallback: true}},
		{"tfmh", mh.Options{Step: 1.5, Fallback: true}},
		{"smh1", mh.Options{Step: 0.5, Fallback: true}},
		{"mhss1", mh.Options{Step: 0.5, Fallback: true}},
	} {
		c.o.Init, c.o.Ref = init, init
		run := func(target mh.Target) ([]float64, mh.Stats) {
			s, err := mh.New(c.name, target, rng(23, 24), &c.o)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for range 400 {
				s.Step()
			}
			if err := s.Err(); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			return slices.Clone(s.State()), s.Stats()
		}
		x1, st1 := run(fast)
		x2, st2 := run(slow)
		if !slices.Equal(x1, x2) || st1 != st2 {
			t.Errorf("%s: batched chain %v %+v, one call a datum %v %+v", c.name, x1, st1, x2, st2)
		}
		if st1.Accepted == 0 || st1.Accepted == st1.Steps {
			t.Errorf("%s: accepted %d of %d: the test does not exercise both branches", c.name, st1.Accepted, st1.Steps)
		}
		if c.o.Fallback && st1.FullSteps == 0 {
			t.Errorf("%s: no full-data step: the fallback path is not exercised", c.name)
		}
		t.Logf("%s: accepted %d/%d, full steps %d, evaluations %d", c.name, st1.Accepted, st1.Steps, st1.FullSteps, st1.Evals)
	}
}
