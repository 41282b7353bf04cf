// Package continuous samples continuous variables (and the discrete ones
// of a mixed model) by the six samplers of type [Continuous], Section 3 of
// Zhang & De Sa (NeurIPS 2019):
//
//   - [NewPGITS] and [NewPGDA]: a Chebyshev approximation of the
//     Poisson-minibatched conditional energy (PGITS) or density (PGDA,
//     Algorithm 3), sampled by inverse transform (a polynomial CDF inverted
//     by bisection) and corrected by Metropolis–Hastings, so exact;
//   - [NewGibbsITS] and [NewGibbsDA]: the same on the exact energies of
//     A[i];
//   - [NewGibbsRejection] and [NewPGRejection]: rejection sampling with
//     uniform proposals on the variable's interval, accepted on the exact
//     or the Poisson-minibatched energy.
//
// The approximations are chebyshev's; the inverse transform is
// its's. The samplers are gibbs.Samplers with the family's
// options, errors, interruption and snapshots (see package gibbs).
package continuous
