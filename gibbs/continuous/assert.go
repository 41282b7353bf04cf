package continuous

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
	_ gibbs.Sampler     = (*Continuous)(nil)
	_ chain.Interrupter = (*Continuous)(nil)
	_ chain.Snapshotter = (*Continuous)(nil)
	_ chain.Counter     = (*Continuous)(nil)
	_ chain.Locator     = (*Continuous)(nil)

	_ gibbs.SweepRunner = (*Continuous)(nil)
	_ gibbs.Worker      = (*Continuous)(nil)
)
