package continuous

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Which of package chain's interfaces the samplers of this package
// implement, checked at compile time: each is a gibbs.Sampler (so a
// chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a chain.Counter
// and a chain.Locator.
var (
	_ gibbs.Sampler     = (*Continuous)(nil)
	_ chain.Interrupter = (*Continuous)(nil)
	_ chain.Snapshotter = (*Continuous)(nil)
	_ chain.Counter     = (*Continuous)(nil)
	_ chain.Locator     = (*Continuous)(nil)
)
