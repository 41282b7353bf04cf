package mh_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
	"github.com/pgibbs/pgibbs/tgm"
)

// TestSnapshotResume: a chain snapshotted (with its PCG source) and resumed
// into a fresh sampler continues exactly as the uninterrupted one.
func TestSnapshotResume(t *testing.T) {
	logit, _, err := targets.GenerateLogistic(300, 2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	mode := make([]float64, 2)
	if err := logit.Mode(mode); err != nil {
		t.Fatal(err)
	}
	cfg := tgm.MHConfig()
	cfg.N = 300
	mix, err := tgm.Generate(cfg, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range mh.Names() {
		var target mh.Target = logit
		opts := mh.Options{Step: 0.05, Chi: 1e-3, Lambda: 50, Init: mode, Ref: mode}
		if name == "poissonmh" { // needs global ranges
			target, opts.Init, opts.Ref = mix.Target(), []float64{0, 1}, []float64{0, 1}
		}
		build := func() (mh.Sampler, *rand.PCG) {
			src := rand.NewPCG(9, 9)
			s, err := mh.New(name, target, rand.New(src), &opts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return s, src
		}
		s1, _ := build()
		for range 600 {
			s1.Step()
		}
		s2, src2 := build()
		for range 250 {
			s2.Step()
		}
		snap, err := s2.(chain.Snapshotter).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		rng, _ := src2.MarshalBinary()
		s3, src3 := build()
		for range 17 {
			s3.Step()
		}
		if err := src3.UnmarshalBinary(rng); err != nil {
			t.Fatal(err)
		}
		if err := s3.(chain.Snapshotter).Restore(snap); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for range 350 {
			s3.Step()
		}
		if !slices.Equal(s1.State(), s3.State()) || s1.Stats() != s3.Stats() {
			t.Errorf("%s: resumed chain differs: %v %+v vs %v %+v", name, s3.State(), s3.Stats(), s1.State(), s1.Stats())
		}
		// A snapshot of another sampler is refused.
		other := "mh"
		if name == "mh" {
			other = "tfmh"
		}
		s4, err := mh.New(other, logit, rand.New(rand.NewPCG(1, 1)), &mh.Options{Step: 0.05, Init: mode, Ref: mode})
		if err == nil && name != "poissonmh" {
			if err := s4.(chain.Snapshotter).Restore(snap); err == nil {
				t.Errorf("%s's snapshot restored into %s", name, other)
			}
		}
	}
}
