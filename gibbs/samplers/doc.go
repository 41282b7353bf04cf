// Package samplers is the registry of the module's Gibbs-type samplers:
// every sampler by name, with what a caller needs to know of it. [Lookup]
// returns an [Entry] — whether it samples continuous or discrete
// variables, draws Poisson minibatches (λ applies), Rao–Blackwellises
// (chain.Conditioner), steps a sweep at a time (the cluster moves), can be
// a chromatic worker (local updates), needs a model that lists its
// factors — and [Entry.New] builds it with a [Config]: the family's
// options and the samplers' own configuration (blocks' bounds, Wolff's
// clusters a step, auto's single-site form, the replicas and ladder of
// "exchange": replica exchange over any other discrete entry, plain Gibbs
// by default; blocked replicas share the blocks built on the model). [Entries], [Names] and
// [NamesWhere] list them, so that no caller keeps a list of its own;
// [New] and [FactoryOf] are the short forms with every configuration at
// its default, as package mh's registry has for its family.
//
// The registry's "auto" ([NewAuto]) chooses by the model: blocked Gibbs
// (gibbs/blocked) where single-site chains would freeze — deterministic
// links or strong couplings on at least a tenth of the links, absorbed by
// blocks at a bounded cost — and site.Mixed (plain Gibbs or Poisson-Gibbs
// variable by variable) elsewhere, or always with Config.SingleSite. The
// choice depends on the model only, so the same seed gives the same chain;
// for the marginals themselves, with exact elimination where it fits and a
// convergence verdict, see package infer.
package samplers
