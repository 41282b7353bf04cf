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
// # Generators
//
// Every step of these samplers draws one Poisson count and a few dozen
// picks, so the variates are written for their cost floor, each exact (up
// to floating-point rounding, about 2⁻⁵³) and with a cost that does not grow
// with its parameter:
//
//   - [Poisson] and [PoissonGen] draw B. Below a mean of 10 by inversion, a
//     sequential search of the CDF from 0 (1+mean steps on average, one
//     uniform variate); from 10 up to [MaxMean] = 10¹⁵ by Hörmann's
//     transformed rejection with squeeze, PTRS (W. Hörmann, "The
//     transformed rejection method for generating Poisson random
//     variables", Insurance: Mathematics and Economics 12(1):39–45, 1993):
//     1.1 to 1.3 tries of two uniform variates a draw, a logarithm only in
//     the tries its squeeze leaves open, and log-probabilities from a table
//     of log k! or, for large k, Loader's deviance form (C. Loader, "Fast
//     and accurate computation of binomial probabilities", 2000), which
//     keeps them accurate at means where k·log(mean) − mean − log k!
//     cancels to nothing. PoissonGen holds the constants of one mean for a
//     caller that draws from it repeatedly, and [NewPoissonTable] a guide
//     table for one mean (inversion with one 64-bit word and about one
//     comparison a draw, for a per-variable batch size); Poisson builds them
//     on the fly and gives the same draws (below 10 it pays for e^{−mean}
//     in each draw that needs it). [NewPoissonPair] draws two independent
//     counts of fixed means with one 64-bit word: an alias pick (below)
//     over the cells (k1, k2) of a rectangle that holds all but about 2⁻¹⁹
//     of their joint law and one cell for the rest, drawn exactly from the
//     tails (Poisson-Gibbs's two phases of a factor: half the draws, and no
//     branch on the word). They
//     replace gonum's distuv.Poisson,
//     slower at most means and, in gonum v0.17, never 0 from a mean of 10
//     up (its PTRS rejects k = 0 where Hörmann rejects only k < 0).
//   - [Alias.Pick] is Walker's alias method (A. J. Walker, "An efficient
//     method for generating discrete random variables with general
//     distributions", ACM TOMS 3(3):253–256, 1977) with Vose's O(n) table
//     construction (M. D. Vose, "A linear algorithm for generating random
//     numbers with a given distribution", IEEE TSE 17(9):972–975, 1991).
//     A pick takes one 64-bit word x: the high word of the 128-bit product
//     x·n is the column, the top 53 bits of the low word the uniform
//     threshold ([Column]; the multiply-shift of D. Lemire, "Fast random
//     integer generation in an interval", ACM TOMACS 29(1), 2019, without
//     its rejection step: column and threshold are each uniform to within
//     n·2⁻⁶⁴).
//   - [Threshold] turns a keep probability into an integer t with
//     P(r.Uint64() < t) = p to within 2⁻⁶⁴, for a caller that stores its
//     thinning probabilities precomputed.
//
// Every variate comes from the *rand.Rand passed in: the same seed gives
// the same draws, bit for bit. The random streams changed twice: when these
// generators replaced gonum's Poisson and the Float64-based alias pick
// (issue 12), and when NewPoissonPair's joint table became an alias table
// (issue 36; it was inversion through a guide table). A seed gives the
// same chain on every run, but not the chain it gave before a change; a
// checkpoint written before one resumes, and continues as the new code
// draws.
//
// Nothing in this package allocates after construction.
package minibatch
