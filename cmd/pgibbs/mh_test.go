package main

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
	mhrun "github.com/pgibbs/pgibbs/mh/run"
	"github.com/pgibbs/pgibbs/mh/targets"
)

func TestMHJSON(t *testing.T) {
	for _, tc := range [][]string{
		{"-model", "tgm", "-n", "2000", "-sampler", "tunamh"},
		{"-model", "tgm", "-n", "2000", "-sampler", "poissonmh", "-lambda", "50"},
		{"-model", "rlr", "-n", "500", "-d", "3", "-sampler", "mhss1", "-chains", "2"},
		{"-model", "logistic", "-n", "500", "-d", "3", "-sampler", "flymc"},
		{"-model", "bias", "-K", "20", "-sampler", "barker"},
	} {
		args := append([]string{"mh", "-iters", "3000", "-json"}, tc...)
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc, code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: not one JSON object: %v", tc, err)
		}
		for _, k := range []string{"avg_batch_size", "acceptance_rate", "iterations", "seconds", "ess_per_second"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%v: JSON lacks %q", tc, k)
			}
		}
		if a := got["acceptance_rate"].(float64); !(a > 0 && a <= 1) {
			t.Errorf("%v: acceptance %v", tc, a)
		}
	}
	for _, args := range [][]string{
		{"mh", "-sampler", "gibbs"}, {"mh", "-model", "potts"}, {"mh", "-step", "-1"}, {"mh", "-chi", "NaN"},
		{"mh", "-iters", "10", "-burn", "10"}, {"mh", "-chains", "0"}, {"mh", "-K", "1", "-model", "bias"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, want 2 with a message", args, code)
		}
	}
}

// TestMHLibrary: `pgibbs mh` reports what mhrun.Run returns for the same
// target, sampler, seed and steps.
func TestMHLibrary(t *testing.T) {
	code, out, stderr := runCLI(t, "mh", "-model", "bias", "-K", "20", "-sampler", "tunamh", "-iters", "2000", "-burn", "200",
		"-chains", "2", "-seed", "5", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got mhOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	target, opts, err := targets.Paper(targets.Setup{Model: "bias", Sampler: "tunamh", K: 20, Seed: 5}, mh.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := mhrun.Run(context.Background(), mhrun.Config{Target: target, Sampler: "tunamh", Options: opts,
		Chains: 2, Seed: 5, Steps: 2000, Burn: 200})
	if err != nil {
		t.Fatal(err)
	}
	if got.Iterations != res.Stats.Steps || got.AcceptanceRate != res.Stats.AcceptanceRate() || got.AvgBatchSize != res.Stats.MeanBatch() ||
		!reflect.DeepEqual(got.Mean, res.Mean) || got.TV == nil || *got.TV != *res.TV || got.Draws != res.Verdict.Draws {
		t.Errorf("pgibbs mh %+v\ndiffers from mhrun.Run %+v", got, res)
	}
}
