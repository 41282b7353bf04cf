// Package minibatch is the one Poisson-minibatch mechanism that every
// minibatch sampler of this module shares.
//
// Poisson-Gibbs, the MIN-Gibbs estimators, Poisson-MH, TunaMH and their
// relatives all need, at every step, independent Poisson counts
//
//	s_k ~ Poisson(rate_k),  k = 0, …, n−1,
//
// for a set of n items (factors, data points) whose rates are bounded by
// known weights, rate_k ≤ total·w_k/W with W = Σ_k w_k. Drawing the n counts one by
// one costs O(n). Drawing them by thinning costs O(total) on average, which
// is what makes these samplers' cost per step independent of the size of the
// model (Statement 1 of Zhang & De Sa, NeurIPS 2019; Appendix D of Zhang,
// Cooper & De Sa, NeurIPS 2020):
//
//  1. B ~ Poisson(total);
//  2. B times: pick k with probability w_k/W (a Walker alias table, O(1) a pick)
//     and keep it with probability rate_k / (total·w_k/W);
//  3. s_k is the number of kept copies of k.
//
// By Poisson splitting and thinning the kept counts are independent with
// exactly the requested means. [Draw] does this; the caller supplies the
// pick and the keep probability through the [Source] interface. Repeated
// picks of one item are aggregated by [Counts], a stamp array that needs no
// hashing and no allocation per draw. [Alias] is the alias table.
//
// Nothing in this package allocates after construction.
package minibatch
