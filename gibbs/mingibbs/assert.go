package mingibbs

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Which of package chain's interfaces the samplers of this package
// implement, checked at compile time: each is a gibbs.Sampler (so a
// chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a chain.Counter
// and a chain.Locator.
var (
	_ gibbs.Sampler     = (*MINGibbs)(nil)
	_ gibbs.Sampler     = (*MGPMH)(nil)
	_ gibbs.Sampler     = (*DoubleMINGibbs)(nil)
	_ chain.Interrupter = (*MINGibbs)(nil)
	_ chain.Interrupter = (*MGPMH)(nil)
	_ chain.Interrupter = (*DoubleMINGibbs)(nil)
	_ chain.Snapshotter = (*MINGibbs)(nil)
	_ chain.Snapshotter = (*MGPMH)(nil)
	_ chain.Snapshotter = (*DoubleMINGibbs)(nil)
	_ chain.Counter     = (*MINGibbs)(nil)
	_ chain.Counter     = (*MGPMH)(nil)
	_ chain.Counter     = (*DoubleMINGibbs)(nil)
	_ chain.Locator     = (*MINGibbs)(nil)
	_ chain.Locator     = (*MGPMH)(nil)
	_ chain.Locator     = (*DoubleMINGibbs)(nil)
)
