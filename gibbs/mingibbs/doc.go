// Package mingibbs holds the MIN-Gibbs family of De Sa, Chen & Wong,
// "Minibatch Gibbs Sampling on Large Graphical Models" (ICML 2018), which
// the Poisson-Gibbs paper measures itself against, on discrete variables:
//
//   - [MINGibbs]: global exponentially-unbiased energy estimates, cached
//     for the current state;
//   - [MGPMH]: a local minibatch proposal corrected by Metropolis–Hastings
//     with the exact energies of A[i];
//   - [DoubleMINGibbs]: the same proposal, corrected with a second, global
//     estimate.
//
// All are exact; they pay for it with a Metropolis–Hastings step or with
// estimates over the whole graph (cost Ψ² rather than L²), and the
// estimates make the chains sticky unless their batches are large. They
// are gibbs.Samplers with the family's options, errors, interruption and
// snapshots (see package gibbs); the global estimates need a model that
// lists its factors (factorgraph.GlobalModel).
package mingibbs
