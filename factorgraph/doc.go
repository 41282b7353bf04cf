// Package factorgraph holds the factor graphs that the samplers of this
// module run on.
//
// A factor graph over variables x = (x_0, …, x_{n−1}) defines
//
//	π(x) ∝ exp(Σ_φ φ(x)),
//
// where each factor φ is a log-potential (larger is more probable) that reads
// a few variables, its scope. Variables are discrete, with values 0, …, D−1,
// or continuous on an interval [a, b]; a state is one []float64.
//
// Every factor declares a range lo ≤ φ(x) ≤ hi. The engine works with the
// shifted factor φ̃ = φ − lo ∈ [0, M_φ], M_φ = hi − lo, and with the
// quantities of Zhang & De Sa (NeurIPS 2019, §1.1):
//
//	A[i] = factors whose scope contains i,   Δ = max_i |A[i]|,
//	L_i = Σ_{φ∈A[i]} M_φ,   L = max_i L_i,   Ψ = Σ_φ M_φ.
//
// Poisson-minibatching samplers touch O(λ + L) factors a step instead of the
// |A[i]| of plain Gibbs, so a model with many weak factors (large Δ, small
// L) is cheap to sample. Factors with M_φ = 0 never change a conditional and
// belong to no A[i]. A factor declared with hi = +Inf is a hard factor (a
// zero of a probability table, a constraint): it may take the value −Inf,
// and every sampler evaluates it exactly instead of minibatching it.
//
// A [Builder] collects variables, factors and evidence; Build checks every
// input, returning an error that names the offending factor or variable, and
// compiles an immutable [Graph]: A[i] in compressed sparse row form split into
// soft and hard factors, sorted by decreasing M_φ, M_φ, L_i, L, Ψ, Δ, and per
// variable a pick table that draws a soft factor of A[i] with probability
// M_φ/L_i in O(1) (an alias table over its heaviest factors, bands of the
// sorted row for the light rest).
// Samplers see a graph through the [Model] interface, which implicit
// lattices (whose factors are never stored) implement as well; a model of
// one's own is checked against the contract by package
// factorgraph/modeltest (counts, bounds, values, the pick table's
// frequencies, concurrent evaluation) before a sampler runs on it. Build also
// compiles the factors of the kinds it knows — [Potts] pairs and [Table]s,
// exactly those types — into flat per-variable arrays (internal to the
// module: package compiled's Form, which a Graph embeds unexported) that
// the samplers' hot loops read with no interface call or range check per
// factor (their ranges are proven when compiled, so a Potts W or a table's
// entries must not change after Build); factors of any other type are
// evaluated through the interface, range checks included.
//
// Ready-made factors: [Table] (a dense table of log-potentials over discrete
// variables, the UAI layout), [NewUnary] (a one-variable Table: a field, a
// prior or soft evidence; hard evidence is [Builder.Observe]), [Potts]
// (W·δ(x_a, x_b)) and [Func] (any Go function with a declared range). Factors may implement [Tabulator], a
// fast path that evaluates a factor at every value of one discrete variable
// at once, and [Sectioner], its continuous twin, which evaluates a factor at
// many values of one variable (the Chebyshev nodes of the continuous
// samplers) in one call. A table over two binary variables compiles as a
// Potts pair where it is of Potts form (Table.PottsForm); any other soft
// one — an RBM's exp(W·v·h) — is a generic table, 40 times dearer a
// read, unless [PairSplitter] splits it into a Potts pair and fields as it
// is added (the UAI readers do).
//
// Graphs of 10⁸ factors: [Builder.AddPottsPairs] and [Builder.AddTables] add
// factors from flat slices, without a Factor value each (16 bytes a Potts
// pair; a table factor its scope and 16 bytes, its table shared or its own),
// and give the same graph as the same factors added one by one; the rows
// A[i] are stored once, in the compiled form. [Graph.Bytes] is what a graph
// holds, and [PairGraphBytes] predicts it before a pairwise model is built.
// Package uai streams .uai files into a graph (uai.ReadGraph) and package
// edgelist reads a binary edge list of Potts pairs; both build through the
// bulk adds.
//
// # Limits
//
// Nothing is allocated for a graph that would not fit. The bulk adds and
// Build estimate the memory of building the graph from the builder's
// counts ([Size.BuildBytes]: 85 bytes a variable, 40 a Potts pair and its
// two row entries, a table factor's scope, record and entries, the pick
// tables) and refuse, with a [*MemoryError] naming the call, the estimate
// and the limit, a graph above [Builder.SetMaxBytes], by default the
// memory of the machine or its container ([DefaultMaxBytes], as the
// command line's -max-memory). The readers of packages uai and edgelist
// check the same estimate against their header's counts before reading
// the rest (their Options.MaxBytes), so that a file of a few bytes
// declaring 2²⁸ variables is refused at once. A discrete domain has at
// most [MaxDomain] = 2²⁴ values: every chain keeps rows of D values for a
// variable's update, and the readers refuse larger cardinalities too.
//
// # Coupling conventions
//
// Every pairwise model of the module is, in the end, a sum of log-potentials
// φ_ij in π(x) ∝ exp(Σ φ_ij); the packages differ only in how they write the
// weight of a pair. With β the inverse temperature, J (or J(r)) a coupling,
// δ = δ(x_i, x_j) and, for Ising spins, s = 2x − 1 ∈ {−1, +1} stored as
// x ∈ {0, 1}:
//
//	where                         log-potential of a pair     as a Potts W·δ
//	factorgraph.NewPotts(a,b,W)   W·δ                         W
//	potts.New (Params β, γ)       β·exp(−γd²)·δ               β·exp(−γd²)
//	potts.NearestNeighbour        β·δ                         β
//	potts.Ising(width, β)         β·s_i·s_j                   2β  (+ constant −β)
//	lattice Potts(q), J(r)        β·J(r)·δ                    β·J(r)
//	lattice Ising(),  J(r)        β·J(r)·s_i·s_j              2β·J(r)  (+ constant −β·J(r))
//	lattice Continuous, J(r)      β·J(r)·x_i·x_j              — (not a Potts pair)
//
// Because s_i·s_j = 2δ(x_i, x_j) − 1, an Ising pair with coupling β·J is the
// Potts pair W = 2βJ up to a constant, which no conditional and no sampler
// sees: the Ising model at β is the 2-state Potts model at 2β. Energies are
// reported in each model's own units (lattice's Ising energies and
// magnetisations in spin units). The lattice package's test
// TestCouplingConvention checks the table numerically: a lattice Ising pair
// and a NewPotts pair with W = 2βJ give the same conditionals.
//
// # Locality
//
// A graph is stored in its variables' numbering: a variable's row of
// A[i], its value in a state and its marginals sit at its index. A scan
// in storage order (gibbs.Options.Systematic, sweeps) reads its rows as
// they are stored, and reads its neighbours' values from cache when their
// indices are close to its own — as on a lattice in row-major order, not
// on a mesh or a geometric graph numbered at random. [LocalityOrder] finds
// an order with locality (reverse Cuthill–McKee), [Locality] measures how
// much a numbering has, and [Renumber] stores the graph in that order;
// [OriginalOrder] takes per-variable values of the renumbered graph back
// to the caller's numbering (package infer's Options.Locality does all of
// it, `pgibbs uai -order locality` too). On a random geometric graph of
// 10⁶ variables this makes a systematic Poisson-Gibbs update 1.5× cheaper
// (docs/RESULTS.md, "A locality order at build"); plain Gibbs, which reads
// its neighbours from a one-byte copy of the state, gains little, and
// a random graph has no locality to find.
//
// The bipartite variable–factor graph is assembled with
// github.com/dominikbraun/graph on demand, for [Graph.Components] and
// [Graph.WriteDOT].
package factorgraph
