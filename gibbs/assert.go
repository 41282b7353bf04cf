package gibbs

import (
	"github.com/pgibbs/pgibbs/chain"
)

// A Sweeper is a chain.Kernel with the optional interfaces passed on to
// its sampler (checked at compile time).
var (
	_ chain.Kernel      = Sweeper{}
	_ chain.Interrupter = Sweeper{}
	_ chain.Snapshotter = Sweeper{}
	_ chain.Locator     = Sweeper{}
)
