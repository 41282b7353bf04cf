package simulation_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/lattice/simulation"
)

// ising returns a small Ising configuration of sampler.
func ising(sampler string) simulation.Config {
	return simulation.Config{Params: lattice.Params{Dim: 2, Size: 8, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.4},
		Sampler: sampler, Seed: 7, Sweeps: 200, Burn: 20}
}

// TestConfigRefused: configurations that cannot run are refused with a
// *chain.ConfigError naming the field, never a panic.
func TestConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(c *simulation.Config)
	}{
		{"Params", func(c *simulation.Config) { c.Params.Dim = 4 }},
		{"Params", func(c *simulation.Config) { c.Params.Beta = math.NaN() }},
		{"Params", func(c *simulation.Config) { c.Params.Coupling = nil }},
		{"Sampler", func(c *simulation.Config) { c.Sampler = "metropolis" }},
		{"Sampler", func(c *simulation.Config) { c.Sampler = "" }},
		{"Sampler", func(c *simulation.Config) { c.Sampler = "pgda" }},                                                     // continuous on discrete spins
		{"Sampler", func(c *simulation.Config) { c.Sampler = "mingibbs" }},                                                 // needs a factor graph
		{"Sampler", func(c *simulation.Config) { c.Params.Spin = lattice.Continuous(-1, 1) }},                              // pgibbs on continuous spins
		{"Sampler", func(c *simulation.Config) { c.Sampler, c.Params.Coupling = "chromatic", lattice.PowerLaw{Sigma: 1} }}, // no colouring
		{"Update", func(c *simulation.Config) { c.Sampler, c.Update = "chromatic", "sw" }},                                 // not a site update
		{"Update", func(c *simulation.Config) { c.Update = "gibbs" }},                                                      // not chromatic
		{"Workers", func(c *simulation.Config) { c.Workers = 2 }},
		{"Workers", func(c *simulation.Config) { c.Sampler, c.Workers = "chromatic", 5000 }},
		{"Workers", func(c *simulation.Config) { c.Workers = -1 }},
		{"Chains", func(c *simulation.Config) { c.Chains = -1 }},
		{"Chains", func(c *simulation.Config) { c.Chains = simulation.MaxChains + 1 }},
		{"Chains", func(c *simulation.Config) { c.Params.Size, c.Chains = 4096, 8 }},
		{"Sweeps", func(c *simulation.Config) { c.Sweeps = 3 }},
		{"Burn", func(c *simulation.Config) { c.Burn = -1 }},
		{"MeasureEvery", func(c *simulation.Config) { c.MeasureEvery = 51 }},
		{"MeasureEvery", func(c *simulation.Config) { c.MeasureEvery = -1 }},
		{"EnergySamples", func(c *simulation.Config) { c.EnergySamples = -2 }},
		{"Start", func(c *simulation.Config) { c.Start = 7 }},
		{"Reweight", func(c *simulation.Config) { c.Reweight = &simulation.Grid{Lo: 0.5, Hi: 0.4, N: 3} }},
		{"Reweight", func(c *simulation.Config) { c.Reweight = &simulation.Grid{Lo: 0.3, Hi: 0.4, N: 0} }},
		{"Reweight", func(c *simulation.Config) { c.Reweight = &simulation.Grid{Lo: 0.3, Hi: math.Inf(1), N: 3} }},
		{"Reweight", func(c *simulation.Config) { c.Reweight = &simulation.Grid{Lo: 0.3, Hi: 0.4, N: 3, MinFraction: 1} }},
		{"Reweight", func(c *simulation.Config) { c.Reweight, c.EnergySamples = &simulation.Grid{Lo: 0.3, Hi: 0.4, N: 3}, 10 }}, // Monte Carlo energies
	} {
		cfg := ising("pgibbs")
		tc.edit(&cfg)
		_, err := simulation.New(cfg)
		var ce *chain.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%+v: error %v; want a *ConfigError of %s", cfg, err, tc.field)
			continue
		}
		if _, err := simulation.Run(context.Background(), cfg); err == nil {
			t.Errorf("%+v: Run accepted what New refused", cfg)
		}
	}
	var pe *lattice.ParamsError
	if _, err := simulation.New(simulation.Config{Sampler: "gibbs", Sweeps: 10}); !errors.As(err, &pe) {
		t.Errorf("zero Params: %v; want the lattice's *ParamsError", err)
	}
}

// TestDefaults: the zero fields take their defaults.
func TestDefaults(t *testing.T) {
	cfg := ising(simulation.Chromatic)
	s, err := simulation.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Config()
	if c.Chains != 1 || c.Workers != 1 || c.MeasureEvery != 1 || c.Update != "auto" || s.Classes() != 2 {
		t.Errorf("defaults: %d chains, %d workers, every %d, update %q, %d classes", c.Chains, c.Workers, c.MeasureEvery, c.Update, s.Classes())
	}
	cfg.Params.Spin = lattice.Continuous(-1, 1)
	if s, err = simulation.New(cfg); err != nil || s.Config().Update != "pgda" {
		t.Errorf("continuous spins: %v, update %q; want pgda", err, s.Config().Update)
	}
}

// TestChainsAreTheirOwn: chain k is the same chain built alone, in a run
// of several chains, or by Run; Result pools whatever chains it is given.
func TestChainsAreTheirOwn(t *testing.T) {
	for _, sampler := range []string{"pgibbs", "sw", simulation.Chromatic} {
		cfg := ising(sampler)
		cfg.Chains, cfg.Start = 3, simulation.Cold
		if sampler == simulation.Chromatic {
			cfg.Workers = 2
		}
		res, err := simulation.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := simulation.New(cfg)
		c2, err := s.Chain(2)
		if err != nil {
			t.Fatal(err)
		}
		steps, burn := s.Steps()
		if steps != 220 || burn != 20 || c2.Burn != 20 {
			t.Fatalf("%s: steps %d, burn %d, the chain's burn %d", sampler, steps, burn, c2.Burn)
		}
		if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{c2}); err != nil {
			t.Fatal(err)
		}
		one, err := s.Result([]*chain.Chain{c2})
		if err != nil {
			t.Fatal(err)
		}
		if one.Chains != 1 || one.Measurements != 200 || res.Chains != 3 || res.Measurements != 200 {
			t.Errorf("%s: %d and %d chains of %d and %d measurements", sampler, one.Chains, res.Chains, one.Measurements, res.Measurements)
		}
		// Run's chain 2 is c2: compare through a run of chains 0..2 built here.
		cs := make([]*chain.Chain, 3)
		for k := range cs {
			cs[k], _ = s.Chain(k)
		}
		cs[2] = c2
		if err := (&chain.Runner{Steps: steps}).Run(context.Background(), cs[:2]); err != nil {
			t.Fatal(err)
		}
		all, err := s.Result(cs)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(all.Observables)
		b, _ := json.Marshal(res.Observables)
		if all.Energy != res.Energy || all.Magnetisation != res.Magnetisation || string(a) != string(b) ||
			all.Verdict.RHatMax != res.Verdict.RHatMax || all.Stats != res.Stats {
			t.Errorf("%s: the chains built one by one differ from Run's: %+v, %+v", sampler, all.Energy, res.Energy)
		}
	}
}

// TestTraceAndSeries: the trace's rows are the Measurer's measurements at
// their sweeps, and Series holds them.
func TestTraceAndSeries(t *testing.T) {
	cfg := ising("gibbs")
	cfg.MeasureEvery = 5
	s, err := simulation.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.Chain(0)
	header, every, row, err := s.Trace(c)
	if err != nil || every != 5 || header != simulation.TraceHeader {
		t.Fatalf("trace every %d, %v", every, err)
	}
	steps, _ := s.Steps()
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), []*chain.Chain{c}); err != nil {
		t.Fatal(err)
	}
	qs, name, err := s.Series([]*chain.Chain{c})
	if err != nil || len(qs) != 2 || len(qs[0][0]) != 40 || name(1) != "magnetisation" {
		t.Fatalf("series %v, %v", len(qs), err)
	}
	m, _ := simulation.Measurer(c)
	if got, want := string(row(nil, 200, nil)), "220,"+fmtG(m.Energies()[39])+","+fmtG(m.Magnetisations()[39]); got != want {
		t.Errorf("last row %q, want %q", got, want)
	}
	if _, _, _, err := s.Trace(&chain.Chain{}); err == nil {
		t.Error("a chain without a Measurer: no error")
	}
	if _, err := s.Result([]*chain.Chain{{Kernel: c.Kernel}}); err == nil {
		t.Error("Result of a chain without a Measurer: no error")
	}
	if _, err := s.Chain(-1); err == nil {
		t.Error("chain −1 built")
	}
}

// TestReweight: the grid's points inside the window carry observables,
// the others are refused; the peak is found or a note says why.
func TestReweight(t *testing.T) {
	cfg := ising("sw")
	cfg.Params.Beta, cfg.Sweeps = 0.44, 400
	cfg.Reweight = &simulation.Grid{Lo: 0.40, Hi: 0.48, N: 5}
	res, err := simulation.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rw := res.Reweighted
	if rw == nil || len(rw.Points) != 5 || rw.MinFraction != lattice.DefaultMinFraction || rw.Beta0 != 0.44 {
		t.Fatalf("reweighted: %+v", rw)
	}
	for _, p := range rw.Points {
		inside := p.Beta >= rw.Window[0] && p.Beta <= rw.Window[1]
		if inside != (p.Observables != nil) || inside == (p.Refused != "") {
			t.Errorf("β = %v, window %v: observables %v, refused %q", p.Beta, rw.Window, p.Observables != nil, p.Refused)
		}
	}
	if rw.Peak == nil && len(rw.Notes) == 0 || rw.Peak != nil && rw.Peak.Edge && len(rw.Notes) == 0 {
		t.Errorf("peak %+v, notes %q", rw.Peak, rw.Notes)
	}
}

// TestRegistryNames: every discrete sampler of the registry that runs on
// a lattice runs a short simulation.
func TestRegistryNames(t *testing.T) {
	for _, name := range samplers.NamesWhere(func(e samplers.Entry) bool { return !e.Continuous && !e.Graph }) {
		cfg := ising(name)
		cfg.Sweeps, cfg.Burn = 8, 2
		if _, err := simulation.Run(context.Background(), cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
