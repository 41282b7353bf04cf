package simulation

import (
	"context"

	"github.com/pgibbs/pgibbs/chain"
)

// Run runs the simulation cfg in one call: it builds its chains
// (Simulation.Chain 0 to Chains−1), runs them in parallel for the burn-in
// and the measured sweeps (chain.Runner) and returns their pooled
// measurements, observables and verdict (Simulation.Result). A ctx
// cancelled before the run ends stops it with ctx's error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	steps, _ := s.Steps()
	chains, err := (&chain.Runner{Steps: steps}).RunBuilt(ctx, s.cfg.Chains, s.Chain)
	if err != nil {
		return nil, err
	}
	return s.Result(chains)
}
