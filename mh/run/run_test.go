package run_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/run"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// bias returns the configuration of the bias example with k states under
// sampler.
func bias(t *testing.T, sampler string, k int) run.Config {
	t.Helper()
	target, opts, err := targets.Paper(targets.Setup{Model: "bias", Sampler: sampler, K: k}, mh.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run.Config{Target: target, Sampler: sampler, Options: opts, Chains: 3, Seed: 7, Steps: 1500, Burn: 100}
}

// TestRefused: a configuration that cannot run is refused with a
// *chain.ConfigError naming its field.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*run.Config)
	}{
		{"Target", func(c *run.Config) { c.Target = nil }},
		{"Sampler", func(c *run.Config) { c.Sampler = "gibbs" }},
		{"Chains", func(c *run.Config) { c.Chains = -1 }},
		{"Chains", func(c *run.Config) { c.Chains = run.MaxChains + 1 }},
		{"Steps", func(c *run.Config) { c.Steps = -5 }},
		{"Burn", func(c *run.Config) { c.Burn = -1 }},
		{"Burn", func(c *run.Config) { c.Burn = c.Steps }},
		{"Options", func(c *run.Config) { c.Options.Chi = -1 }},
		{"Options", func(c *run.Config) { c.Options.Proposal, c.Options.Step = nil, 0 }},
	} {
		cfg := bias(t, "tunamh", 20)
		tc.edit(&cfg)
		_, err := run.Run(context.Background(), cfg)
		var ce *chain.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: got %v, want a *ConfigError of %s", tc.field, err, tc.field)
		}
	}
	cfg := bias(t, "tunamh", 20)
	cfg.Steps, cfg.Burn = 0, 0
	if _, err := run.New(cfg); err != nil {
		t.Errorf("New with Steps 0 (a caller's time budget): %v", err)
	}
	var ce *chain.ConfigError
	if _, err := run.Run(context.Background(), cfg); !errors.As(err, &ce) || ce.Field != "Steps" {
		t.Errorf("Run with Steps 0: got %v, want a *ConfigError of Steps", err)
	}
}

// TestReproducible: the same configuration gives the same result twice,
// and chain k run alone ends where chain k of the whole run does.
func TestReproducible(t *testing.T) {
	cfg := bias(t, "tunamh", 20)
	a, err := run.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := run.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs of one configuration differ:\n%+v\n%+v", a, b)
	}
	if a.Chains != 3 || a.Stats.Steps != 3*cfg.Steps || len(a.Quantities) != 1 || len(a.Quantities[0]) != 3 || a.TV == nil {
		t.Errorf("result %+v: want 3 chains of %d steps, one quantity, a TV", a, cfg.Steps)
	}
	x, err := run.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x.Chain(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&chain.Runner{Steps: cfg.Steps}).Run(context.Background(), []*chain.Chain{c}); err != nil {
		t.Fatal(err)
	}
	alone, err := x.Result([]*chain.Chain{c})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(alone.Quantities[0][0], a.Quantities[0][1]) {
		t.Error("chain 1 run alone differs from chain 1 of the whole run")
	}
}

// TestSeries: the quantities are θ's coordinates, named x0, x1, …, cut
// to the shortest chain; chains not built by Chain are refused.
func TestSeries(t *testing.T) {
	target, opts, err := targets.Paper(targets.Setup{Model: "logistic", Sampler: "mh", N: 200, Dim: 3}, mh.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := run.New(run.Config{Target: target, Sampler: "mh", Options: opts, Chains: 2, Seed: 1, Steps: 300})
	if err != nil {
		t.Fatal(err)
	}
	var chains []*chain.Chain
	for k, steps := range []int64{300, 200} {
		c, err := x.Chain(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{c}); err != nil {
			t.Fatal(err)
		}
		chains = append(chains, c)
	}
	qs, name, err := x.Series(chains)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 || len(qs[2][0]) != len(qs[2][1]) || name(2) != "x2" {
		t.Errorf("series of %d quantities, chains of %d and %d draws, name %q: want 3, equal, x2", len(qs), len(qs[2][0]), len(qs[2][1]), name(2))
	}
	res, err := x.Result(chains)
	if err != nil || res.TV != nil || len(res.Mean) != 3 {
		t.Errorf("Result: %+v, %v: want 3 means and no TV", res, err)
	}
	if _, err := x.Result(nil); err == nil {
		t.Error("Result of no chains: no error")
	}
	if _, err := x.Result([]*chain.Chain{{Kernel: chains[0].Kernel}}); err == nil {
		t.Error("Result of a chain without observers: no error")
	}
	if _, err := x.Chain(-1); err == nil {
		t.Error("Chain(-1): no error")
	}
}
