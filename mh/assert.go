package mh

import "github.com/pgibbs/pgibbs/chain"

// Every sampler of this package is a Sampler (so a chain.Kernel and a
// chain.Interrupter), a chain.Snapshotter and a chain.Counter; none is a
// chain.Conditioner.
var (
	_ Sampler = (*MH)(nil)
	_ Sampler = (*PoissonMH)(nil)
	_ Sampler = (*TunaMH)(nil)
	_ Sampler = (*TFMH)(nil)
	_ Sampler = (*FlyMC)(nil)
	_ Sampler = (*MHSS)(nil)
	_ Sampler = (*Barker)(nil)
	_ Sampler = (*Austere)(nil)

	_ chain.Kernel = (*MH)(nil)
	_ chain.Kernel = (*PoissonMH)(nil)
	_ chain.Kernel = (*TunaMH)(nil)
	_ chain.Kernel = (*TFMH)(nil)
	_ chain.Kernel = (*FlyMC)(nil)
	_ chain.Kernel = (*MHSS)(nil)
	_ chain.Kernel = (*Barker)(nil)
	_ chain.Kernel = (*Austere)(nil)

	_ chain.Interrupter = (*MH)(nil)
	_ chain.Interrupter = (*PoissonMH)(nil)
	_ chain.Interrupter = (*TunaMH)(nil)
	_ chain.Interrupter = (*TFMH)(nil)
	_ chain.Interrupter = (*FlyMC)(nil)
	_ chain.Interrupter = (*MHSS)(nil)
	_ chain.Interrupter = (*Barker)(nil)
	_ chain.Interrupter = (*Austere)(nil)

	_ chain.Snapshotter = (*MH)(nil)
	_ chain.Snapshotter = (*PoissonMH)(nil)
	_ chain.Snapshotter = (*TunaMH)(nil)
	_ chain.Snapshotter = (*TFMH)(nil)
	_ chain.Snapshotter = (*FlyMC)(nil)
	_ chain.Snapshotter = (*MHSS)(nil)
	_ chain.Snapshotter = (*Barker)(nil)
	_ chain.Snapshotter = (*Austere)(nil)

	_ chain.Counter = (*MH)(nil)
	_ chain.Counter = (*PoissonMH)(nil)
	_ chain.Counter = (*TunaMH)(nil)
	_ chain.Counter = (*TFMH)(nil)
	_ chain.Counter = (*FlyMC)(nil)
	_ chain.Counter = (*MHSS)(nil)
	_ chain.Counter = (*Barker)(nil)
	_ chain.Counter = (*Austere)(nil)
)
