package site

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
)

// Which of the interfaces of packages chain and gibbs the samplers of this
// package implement, checked at compile time: each is a gibbs.Sampler (so
// a chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a
// chain.Counter, a chain.Locator, a gibbs.SweepRunner and a gibbs.Worker
// (a Chromatic's worker if its LocalUpdates says so); and a chain.Conditioner.
var (
	_ gibbs.Sampler     = (*Gibbs)(nil)
	_ gibbs.Sampler     = (*PoissonGibbs)(nil)
	_ gibbs.Sampler     = (*Mixed)(nil)
	_ chain.Interrupter = (*Gibbs)(nil)
	_ chain.Interrupter = (*PoissonGibbs)(nil)
	_ chain.Interrupter = (*Mixed)(nil)
	_ chain.Snapshotter = (*Gibbs)(nil)
	_ chain.Snapshotter = (*PoissonGibbs)(nil)
	_ chain.Snapshotter = (*Mixed)(nil)
	_ chain.Counter     = (*Gibbs)(nil)
	_ chain.Counter     = (*PoissonGibbs)(nil)
	_ chain.Counter     = (*Mixed)(nil)
	_ chain.Locator     = (*Gibbs)(nil)
	_ chain.Locator     = (*PoissonGibbs)(nil)
	_ chain.Locator     = (*Mixed)(nil)
	_ chain.Conditioner = (*Gibbs)(nil)
	_ chain.Conditioner = (*Mixed)(nil)
	_ chain.Conditioner = (*PoissonGibbs)(nil)

	_ gibbs.SweepRunner = (*Gibbs)(nil)
	_ gibbs.SweepRunner = (*PoissonGibbs)(nil)
	_ gibbs.SweepRunner = (*Mixed)(nil)
	_ gibbs.Worker      = (*Gibbs)(nil)
	_ gibbs.Worker      = (*PoissonGibbs)(nil)
	_ gibbs.Worker      = (*Mixed)(nil)
)
