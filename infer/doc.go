// Package infer answers what users ask of a factor graph — the marginals
// of its free variables — by default, as well as the library can in the
// time given: exactly, by variable elimination (package elim), for every
// connected component whose elimination fits a memory budget and a time
// estimate well inside the run's; and elsewhere with the sampler that a
// short pilot of each candidate measures best — single-site Gibbs or
// Poisson-Gibbs, blocked Gibbs of growing widths with Rao–Blackwellised
// marginals, spanning forests, Swendsen–Wang and Wolff where the model is
// a ferromagnet — ranked by effective samples a second of the worst-mixing
// marginal (Choose). The answer says which variables are exact, which
// sampler ran and why, and whether its chains converged (chain.Verdict).
//
// The time given is the whole answer's, whatever the model: Budget shares
// it among the phases — planning, elimination, the pilots, building and
// running the chains — each stopping at its own deadline and handing over
// to the next (Prepare is the part before the chains, the one path
// `pgibbs uai` shares). A cancelled context stops every phase within about
// a second, and Marginals returns the answer so far with the context's
// error.
package infer
