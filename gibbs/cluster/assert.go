package cluster

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// Which of package chain's interfaces the samplers of this package
// implement, checked at compile time: each is a gibbs.Sampler (so a
// chain.Kernel), a chain.Interrupter, a chain.Snapshotter, a chain.Counter
// and a chain.Locator.
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
)

// base is the state every sampler of the family shares (the chain, its
// counters, interruption and snapshots), embedded under an unexported name.
type base = core.Core
