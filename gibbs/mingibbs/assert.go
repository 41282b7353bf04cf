package mingibbs

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Which of the interfaces of packages chain and gibbs the samplers of this
// package implement, checked at compile time: each is a gibbs.Sampler (so
// a chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a
// chain.Counter, a chain.Locator, a gibbs.SweepRunner and a gibbs.Worker
// (a Chromatic's worker if its LocalUpdates says so).
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

	_ gibbs.SweepRunner = (*MINGibbs)(nil)
	_ gibbs.SweepRunner = (*MGPMH)(nil)
	_ gibbs.SweepRunner = (*DoubleMINGibbs)(nil)
	_ gibbs.Worker      = (*MINGibbs)(nil)
	_ gibbs.Worker      = (*MGPMH)(nil)
	_ gibbs.Worker      = (*DoubleMINGibbs)(nil)
)
