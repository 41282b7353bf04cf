package gibbs

import "github.com/pgibbs/pgibbs/chain"

// Which of package chain's interfaces each sampler implements, checked at
// compile time (Blocked's are in block.go and block_marginals.go): every
// sampler is a Sampler (so a chain.Kernel), a chain.Interrupter, a
// chain.Snapshotter, a chain.Counter and a chain.Locator; the exact
// single-site samplers are chain.Conditioners (see conditional.go for why
// MGPMH and DoubleMIN-Gibbs are not); a Sweeper is a chain.Kernel with the
// optional interfaces passed on to its sampler.
var (
	_ Sampler = (*Gibbs)(nil)
	_ Sampler = (*PoissonGibbs)(nil)
	_ Sampler = (*Mixed)(nil)
	_ Sampler = (*MINGibbs)(nil)
	_ Sampler = (*MGPMH)(nil)
	_ Sampler = (*DoubleMINGibbs)(nil)
	_ Sampler = (*Continuous)(nil)
	_ Sampler = (*SwendsenWang)(nil)
	_ Sampler = (*Wolff)(nil)
	_ Sampler = (*Chromatic)(nil)

	_ chain.Interrupter = (*Gibbs)(nil)
	_ chain.Interrupter = (*PoissonGibbs)(nil)
	_ chain.Interrupter = (*Mixed)(nil)
	_ chain.Interrupter = (*MINGibbs)(nil)
	_ chain.Interrupter = (*MGPMH)(nil)
	_ chain.Interrupter = (*DoubleMINGibbs)(nil)
	_ chain.Interrupter = (*Continuous)(nil)
	_ chain.Interrupter = (*SwendsenWang)(nil)
	_ chain.Interrupter = (*Wolff)(nil)
	_ chain.Interrupter = (*Chromatic)(nil)

	_ chain.Snapshotter = (*Gibbs)(nil)
	_ chain.Snapshotter = (*PoissonGibbs)(nil)
	_ chain.Snapshotter = (*Mixed)(nil)
	_ chain.Snapshotter = (*MINGibbs)(nil)
	_ chain.Snapshotter = (*MGPMH)(nil)
	_ chain.Snapshotter = (*DoubleMINGibbs)(nil)
	_ chain.Snapshotter = (*Continuous)(nil)
	_ chain.Snapshotter = (*SwendsenWang)(nil)
	_ chain.Snapshotter = (*Wolff)(nil)
	_ chain.Snapshotter = (*Chromatic)(nil)

	_ chain.Counter = (*Gibbs)(nil)
	_ chain.Counter = (*PoissonGibbs)(nil)
	_ chain.Counter = (*Mixed)(nil)
	_ chain.Counter = (*MINGibbs)(nil)
	_ chain.Counter = (*MGPMH)(nil)
	_ chain.Counter = (*DoubleMINGibbs)(nil)
	_ chain.Counter = (*Continuous)(nil)
	_ chain.Counter = (*SwendsenWang)(nil)
	_ chain.Counter = (*Wolff)(nil)
	_ chain.Counter = (*Chromatic)(nil)

	_ chain.Locator = (*Gibbs)(nil)
	_ chain.Locator = (*PoissonGibbs)(nil)
	_ chain.Locator = (*Mixed)(nil)
	_ chain.Locator = (*MINGibbs)(nil)
	_ chain.Locator = (*MGPMH)(nil)
	_ chain.Locator = (*DoubleMINGibbs)(nil)
	_ chain.Locator = (*Continuous)(nil)
	_ chain.Locator = (*SwendsenWang)(nil)
	_ chain.Locator = (*Wolff)(nil)
	_ chain.Locator = (*Chromatic)(nil)

	_ chain.Conditioner = (*Gibbs)(nil)
	_ chain.Conditioner = (*Mixed)(nil)
	_ chain.Conditioner = (*PoissonGibbs)(nil)

	_ chain.Kernel      = Sweeper{}
	_ chain.Interrupter = Sweeper{}
	_ chain.Snapshotter = Sweeper{}
	_ chain.Locator     = Sweeper{}
)
