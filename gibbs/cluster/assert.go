package cluster

import (
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/gibbs"
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
