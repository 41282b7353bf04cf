package cluster

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Which of the interfaces of packages chain and gibbs the samplers of this
// package implement, checked at compile time: each is a gibbs.Sampler (so
// a chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a
// chain.Counter, a chain.Locator, a gibbs.SweepRunner and a
// gibbs.StepsPerSweeper (a step is not one variable's update).
var (
	_ gibbs.Sampler     = (*SwendsenWang)(nil)
	_ gibbs.Sampler     = (*Wolff)(nil)
	_ chain.Interrupter = (*SwendsenWang)(nil)
	_ chain.Interrupter = (*Wolff)(nil)
	_ chain.Snapshotter = (*SwendsenWang)(nil)
	_ chain.Snapshotter = (*Wolff)(nil)
	_ chain.Counter     = (*SwendsenWang)(nil)
	_ chain.Counter     = (*Wolff)(nil)
	_ chain.Locator     = (*SwendsenWang)(nil)
	_ chain.Locator     = (*Wolff)(nil)

	_ gibbs.SweepRunner     = (*SwendsenWang)(nil)
	_ gibbs.SweepRunner     = (*Wolff)(nil)
	_ gibbs.StepsPerSweeper = (*SwendsenWang)(nil)
	_ gibbs.StepsPerSweeper = (*Wolff)(nil)
)
