package run

import (
	"context"

	"github.com/pgibbs/pgibbs/chain"
)

// Run runs the experiment cfg in one call: it builds its chains
// (Experiment.Chain 0 to Chains−1), runs them in parallel for their steps
// (chain.Runner) and returns them pooled (Experiment.Result). A ctx
// cancelled before the run ends stops it with ctx's error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Steps == 0 {
		return nil, refuse("Steps", "0: Run needs the steps a chain (a time budget is a caller's own runner's)")
	}
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	steps, _ := e.Steps()
	chains, err := (&chain.Runner{Steps: steps}).RunBuilt(ctx, e.cfg.Chains, e.Chain)
	if err != nil {
		return nil, err
	}
	return e.Result(chains)
}
