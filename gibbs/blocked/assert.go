package blocked

import "github.com/pgibbs/pgibbs/gibbs/internal/core"

// base is the state every sampler of the family shares (the chain, its
// counters, interruption and snapshots), embedded under an unexported name.
type base = core.Core
