package chain

import "fmt"

// NewRBMarginals returns Marginals over coordinates of the given domain
// sizes (as NewMarginals) that average the distributions k's steps draw
// from — Rao–Blackwellised marginals (see Marginals.RaoBlackwellise) — in
// one call. k must be a Conditioner, the chain's kernel, and the returned
// Marginals its chain's Observer; recording of k's conditionals is turned
// on. When k is not a Conditioner (a Metropolis–Hastings sampler, a
// wrapper that does not pass the contract on) it returns nil and an error
// naming k's type: visit counts (NewMarginals) are then the estimator.
func NewRBMarginals(k Kernel, sizes []int) (*Marginals, error) {
	c, ok := k.(Conditioner)
	if !ok {
		return nil, fmt.Errorf("chain: Rao–Blackwellised marginals need a Conditioner kernel, whose steps report the distribution they draw from; %T is not one (count visits with NewMarginals instead)", k)
	}
	mg := NewMarginals(sizes)
	mg.RaoBlackwellise(c)
	return mg, nil
}
