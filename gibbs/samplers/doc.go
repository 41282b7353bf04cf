// Package samplers names every Gibbs-type sampler of the module: [New]
// builds one by name ([Names]), [FactoryOf] returns a name's constructor as
// a gibbs.Factory, as package mh's registry does for its family.
//
// The registry's "auto" ([NewAuto]) chooses by the model: blocked Gibbs
// (gibbs/blocked) where single-site chains would freeze — deterministic
// links or strong couplings on at least a tenth of the links, absorbed by
// blocks at a bounded cost — and site.Mixed (plain Gibbs or Poisson-Gibbs
// variable by variable) elsewhere. The choice depends on the model only,
// so the same seed gives the same chain; for the marginals themselves,
// with exact elimination where it fits and a convergence verdict, see
// package infer.
package samplers
