// Package infer answers what users ask of a factor graph — the marginals
// of its free variables — by default, as well as the library can in the
// time given: exactly, by variable elimination (package elim), for every
// connected component whose elimination fits a memory budget and a time
// estimate well inside the run's; and elsewhere with the sampler that a
// short pilot of each candidate measures best — single-site Gibbs or
// Poisson-Gibbs, blocked Gibbs of growing widths with Rao–Blackwellised
// marginals (adding blocks over the regions their chain moves together on
// models without hard factors), spanning forests, Swendsen–Wang and Wolff where the model is
// a ferromagnet, replica exchange — ranked by effective samples a second
// of the worst-mixing marginal (Choose), by rule where no pilot resolved
// its mixing — after the pilots that the budget cut short (a dense model,
// whose sweeps are costly) have been continued to a full pilot's length,
// so that a chain that mixes is not passed over for want of draws
// (extendPilots). A choice made on little evidence — by rule, or over a
// runner-up within a factor of three — is raced before the run commits
// (race.go): both pilots' chains continue for a tenth of the sampling
// time each, and the runner-up takes the run only if its batch-means
// error is clearly the smaller, the two chains' marginals agree and it
// keeps the choice's log Z, if any (Choice.Race). The answer says which variables are exact, which sampler ran
// and why, whether its chains converged (chain.Verdict), and log Z: exact
// where every component was eliminated, estimated with a standard error
// where replica exchange sampled (Answer.LogZ).
//
// The sampled marginals are then shrunk toward the beliefs of loopy belief
// propagation (package bp, run on the components left to sampling in a
// small share of the time) by one weight the run measures: the
// positive-part James–Stein estimator, with the chains' errors by batch
// means (Shrinkage). Where the beliefs are within the samples' error of
// each other the answer takes the beliefs (weak couplings, as on a
// restricted Boltzmann machine, where they are far more precise than
// any sampler in the time); where the samples contradict them (strong or
// frustrated loops, pedigrees) the weight is nil and the answer is the
// chains'. Options.NoShrink keeps the chains' marginals.
//
// The time given is the whole answer's, whatever the model: Budget shares
// it among the phases — planning, elimination, the pilots, building and
// running the chains — each stopping at its own deadline and handing over
// to the next (Prepare is the part before the chains). A cancelled context
// stops every phase within about a second, and Marginals returns the
// answer so far with the context's error. A run counted in sweeps
// (Options.Sweeps) or steps has no clock: its answer depends on the seed
// alone.
//
// The sampled part is one path (sample.go), for every caller: chain k
// draws from stream k of the seed (chain.Source), chain 0 from the start
// state every pilot starts from; chain 0 of an answer whose sampler the
// pilots chose continues the chosen pilot's chain (its construction and
// its steps, part of the burn-in, done: Choice). Every pilot draws from
// stream 0 too, so the default's chain is the one a caller naming the
// sampler it chose (Run.Spec) gets with the same seed, shortened by the
// pilots' time: the two answers differ by the choosing, not by the luck
// of two streams. Each chain has its
// marginals (Rao–Blackwellised where the sampler reports its
// conditionals) and a trace of the convergence monitor (chain.Monitor,
// whose verdict includes the rule on variables that never moved), the
// length and burn-in follow one rule (Sampled.length), and the chains'
// marginals are pooled. With Options.Locality a large graph numbered
// without locality is answered in its factorgraph.LocalityOrder, the
// answer mapped back to the caller's numbering (Answer.Order, OrderNote).
// Options.Run is what a command line adds to it —
// a sampler of its own instead of the pilots' choice, a length in steps,
// the chains of one part of a run split across processes, a memory
// limit, and hooks: a runner template (checkpoints), Built (resume, trace
// files, merged parts), Started (progress), AtCheck (anytime output) and
// Until (stop when converged). `pgibbs uai` is flags, one call of
// Marginals and output: it answers what Marginals answers, bit for bit.
package infer
