// Package elim computes exact marginals and partition functions of factor
// graphs by variable elimination, and the elimination orders and costs that
// decide whether that is affordable.
//
// A factor graph defines π(x) ∝ exp(Σ_φ φ(x)). Its free variables fall into
// connected components (two variables are connected when a factor reads
// both; evidence cuts connections), and π factorises over them, so each is
// solved on its own. [Plan] finds the components of a
// *factorgraph.Graph and, for each, an elimination order and what Solve will
// cost — [Component] reports the order's width, its largest table, its
// entries in all, the bytes Solve will allocate and its work, with a time
// estimate — without allocating a table. A caller with a budget (the
// default sampler, answering exactly where a component fits) reads the plan
// and solves the components that fit; [Component.Solve] then returns every
// variable's marginal and the component's log partition function, exactly
// up to rounding, in one upward and one downward pass over the tables.
// The factors whose variables are all observed belong to no component:
// [ClampedLogPotential] is their part of log Z (log Z of the graph given
// its evidence is it plus the components' LogZ), and [CheckEvidence]
// refuses evidence at which one of them is zero, with [ErrNoMass], the
// error Solve returns for a contradiction reached through free variables.
//
// # Orders
//
// Eliminating a variable v joins it and its neighbours into a table over
// the clique they form, and links the neighbours (the fill-in). The cost
// of an order is its tables: the induced width is the largest clique less
// one; the work and the memory follow the entries of all the tables. Finding
// the best order is NP-hard; greedy heuristics do well: [GreedyOrder] with
// [MinFill] (the fewest fill edges, Kjærulff 1990), [MinWeight] (the
// smallest table) or [WeightedMinFill] (the fill edges weighed by their
// ends' domain sizes), in O(log n) a pick beyond the rescoring of the
// vertices an elimination touches. Plan keeps the best of the three, then tries
// randomised greedy orders (ties broken at random, from a fixed seed: a plan
// is the same on every run) while their cost stays small beside the
// elimination's: on the diagnosis networks and pedigrees they cut the
// entries 2.6–5×. [Simulate] measures any order, [BestOrder] is the choice
// the blocked Gibbs sampler of package gibbs makes for its blocks.
//
// # Exactness and numerics
//
// The upward pass is bucket elimination (Dechter 1999) that leaves each
// bucket's rows as conditionals π(x_v | x_S); the downward pass is the
// division-free form of the distribute phase of Lauritzen and Spiegelhalter
// (1988) and Dawid (1992) on the bucket tree (Kask, Dechter, Larrosa and
// Dechter 2005): P_v(x_v, x_S) = π(x_v | x_S)·P_S(x_S). The root of a
// component's bucket tree is the bucket with no other variable, laid out as
// such (not recognised by its table's size: a bucket whose other variables
// all have one value has a one-row table too, and is not a root); its
// message is the component's Z. Zeros of hard factors stay exact zeros.
// Tables are held in linear space with a scale kept aside where a bound
// proves that no mass can be lost to underflow, in log space where it
// cannot; see [Component.Solve] for the argument. Every nonzero entry of a
// linear table is then a normal number, so the logarithms Solve takes are
// exact to rounding (math.Log is wrong on subnormals on amd64,
// golang/go#56600: the readers of potentials, such as package uai, take
// their logarithms with a correction). The tests check every marginal and
// log Z against enumeration to 1e-9 on random graphs (hard zeros,
// evidence, user factors, several components), on models whose potentials
// span 10⁻³⁰⁰ and less, and on hundreds of small UAI models of every kind
// read by both readers of package uai (variables of one value, duplicate
// factors, potentials from 10⁻³⁰⁰ to 10³⁰⁰, subnormal entries, factors of
// observed variables only, evidence of probability zero) against
// enumeration in exact arithmetic; they reject deliberately broken variants
// of the passes, of the numerics and of the root rule.
//
// # Speed
//
// The tables are laid out so that every input of a bucket has the bucket's
// variable fastest and every bucket's rows are its message's entries;
// a bucket is computed a chunk of a few thousand entries at a time through
// index maps (no interface call or allocation per entry), its inputs
// gathered level by level so that a factor that reads only the bucket's
// variable within a chunk costs one gather a row-block, not one an entry,
// and a bucket whose message covers its whole clique is computed in place
// in that message. On the shared UAI models of the Grids, Pedigree and
// Promedus families (widths up to 24, tables up to 2²⁵ entries, 10⁸
// entries and 0.85 GB in all) Plan takes 0.01–0.2 s and Solve 0.05–0.7 s on
// one core; about a third of it is the system's first touch of the tables'
// memory.
package elim
