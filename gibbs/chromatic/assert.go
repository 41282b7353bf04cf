package chromatic

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Which of package chain's interfaces the samplers of this package
// implement, checked at compile time: each is a gibbs.Sampler (so a
// chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a chain.Counter
// and a chain.Locator.
var (
	_ gibbs.Sampler     = (*Chromatic)(nil)
	_ chain.Interrupter = (*Chromatic)(nil)
	_ chain.Snapshotter = (*Chromatic)(nil)
	_ chain.Counter     = (*Chromatic)(nil)
	_ chain.Locator     = (*Chromatic)(nil)
	_ gibbs.SweepRunner = (*Chromatic)(nil)
)
