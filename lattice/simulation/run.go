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
	chains := make([]*chain.Chain, s.cfg.Chains)
	for k := range chains {
		if chains[k], err = s.Chain(k); err != nil {
			return nil, err
		}
	}
	steps, _ := s.Steps()
	if err := (&chain.Runner{Steps: steps}).Run(ctx, chains); err != nil {
		return nil, err
	}
	return s.Result(chains)
}
