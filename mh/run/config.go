package run

import (
	"slices"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/mh"
)

// Limits of the runs New accepts.
const (
	MaxChains = 4096    // Config.Chains
	MaxSteps  = 1 << 40 // Config.Steps
)

// Config is an experiment: the target, the sampler, the chains and their
// length. The zero value of Chains, Seed, Burn and Criteria is their
// default.
type Config struct {
	// Target is the posterior the chains sample (targets.Paper builds the
	// papers').
	Target mh.Target
	// Sampler is a name of the mh registry (mh.Names), and Options its
	// options (mh.New; targets.Paper returns the paper's).
	Sampler string
	Options mh.Options
	// Chains is the number of independent chains Run runs (default 1).
	Chains int
	// Seed picks every chain's random stream (see Experiment.Chain).
	Seed uint64
	// Steps is the steps a chain, burn-in included (1 to MaxSteps; 0
	// for a caller whose own runner stops on a time budget, which Run
	// refuses), Burn the first of them, which are not observed (0 ≤ Burn <
	// Steps, or ≤ MaxSteps when Steps is 0).
	Steps, Burn int64
	// Criteria are the convergence verdict's thresholds (zero: chain's
	// defaults).
	Criteria chain.Criteria
}

// refuse returns a *chain.ConfigError of field.
func refuse(field, format string, args ...any) error {
	return chain.Refuse("mh/run", field, format, args...)
}

// check validates c and fills its defaults. The Options are mh.New's to
// judge (Chain).
func (c *Config) check() error {
	switch {
	case c.Target == nil:
		return refuse("Target", "nil: want a target (targets.Paper builds the papers')")
	case !slices.Contains(mh.Names(), c.Sampler):
		return refuse("Sampler", "%q: want one of %v", c.Sampler, mh.Names())
	case c.Chains < 0 || c.Chains > MaxChains:
		return refuse("Chains", "%d: need 1 to %d (0: 1)", c.Chains, MaxChains)
	case c.Steps < 0 || c.Steps > MaxSteps:
		return refuse("Steps", "%d: need 1 to 2⁴⁰ steps a chain (0: a time budget)", c.Steps)
	case c.Burn < 0 || c.Burn > MaxSteps:
		return refuse("Burn", "%d: need 0 to Steps−1", c.Burn)
	case c.Steps > 0 && c.Burn >= c.Steps:
		return refuse("Burn", "%d: need 0 to Steps−1 = %d", c.Burn, c.Steps-1)
	case c.Target.Dim() < 1:
		return refuse("Target", "of dimension %d: need at least 1", c.Target.Dim())
	}
	c.Chains = max(c.Chains, 1)
	return nil
}
