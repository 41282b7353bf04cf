// Package uai reads and writes discrete graphical models in the UAI
// inference-competition formats and turns them into factor graphs for the
// samplers of package gibbs.
//
// # Formats
//
// A model file (.uai) is a sequence of white-space separated tokens, in
// which lines whose first non-blank character is 'c' are comments:
//
//	MARKOV                 (or BAYES)
//	3                      number of variables n
//	2 2 3                  their cardinalities
//	2                      number of factors F
//	2 0 1                  scope of factor 0: its size k, then k variables
//	2 1 2                  scope of factor 1
//	4  0.5 0.0 0.0 0.5     table of factor 0: its size, then Π cards values
//	6  0.2 0.3 0.5 …       table of factor 1
//
// Tables are in row-major order over their scope (the last variable varies
// fastest) and hold non-negative potentials: π(x) ∝ Π_f T_f(x_{scope f}).
// In a BAYES file the last variable of a scope is the child and its table a
// conditional probability table; the joint is the same product. A zero is
// a hard constraint: [Model.Graph] makes such a factor a hard factor of the
// factor graph (log 0 = −Inf), which every sampler evaluates exactly. The
// log-potentials are exact to rounding for every positive double, subnormal
// entries down to 5e-324 included (math.Log, which is not on amd64,
// golang/go#56600, is corrected there).
//
// An evidence file (.evid) lists observed variables, "n v_1 x_1 … v_n
// x_n"; [ReadEvidenceSamples] documents the older multi-sample form and
// the rule that tells the forms apart ("0", "0 0" and "0\n0" mean no
// evidence). A marginals file (.MAR) is "MAR" followed by "n d_1 p_1(0) …
// p_1(d_1−1) d_2 …", the exact marginals of every variable (a point mass
// for evidence).
//
// # Errors and limits
//
// Malformed input never panics: the readers return a [*ParseError] naming
// the line and the token (a non-number, a negative or NaN probability, a
// scope variable out of range, a wrong number of table values, a truncated
// file, trailing data). Header counts are checked against [MaxVars],
// [MaxFactors], [MaxTableSize] and [MaxTotalSize] before anything is
// allocated for them, and slices grow with the tokens actually read, so a
// short file cannot make the reader allocate much more than its own size.
// A cardinality is at most factorgraph.MaxDomain (2²⁴ values: a sampler
// keeps rows of D values for an update). The memory the model will need
// is checked against a limit ([Options].MaxBytes, by default the machine's
// memory, factorgraph.DefaultMaxBytes) as its counts come: once the
// number of variables is read, once the number of factors is, and once
// the scopes give the tables' sizes — before the tables are read. For
// [ReadGraph] it is the memory of reading the model and building its
// graph (factorgraph.Size.BuildBytes), for [Read] that of the Model's
// scopes and tables; a model above it is refused with a
// *factorgraph.MemoryError naming the line, the counts, the estimate and
// the limit. [Model.Write] writes numbers in the shortest form that reads
// back exactly: Read(Write(m)) equals m. The fuzz targets FuzzRead,
// FuzzReadEvidence and FuzzReadMarginals check these properties, FuzzRead
// and FuzzReadGraph also that no input makes Read or ReadGraph allocate
// more than a limit of 64 MB.
//
// # Sampling
//
// [Model.Graph] builds the factor graph, with evidence clamped through
// factorgraph.Builder.Observe: samplers never resample an observed variable
// and its neighbours' conditionals use its value. Run any sampler of package
// gibbs on it and compare the run-average marginals of the free variables
// with a .MAR file by diag.MarginalAbsVars, the UAI convention (mean and
// maximum absolute error over variable–value pairs); the command
// `pgibbs uai -sampler NAME` does exactly that. For the marginals
// themselves — exact where an elimination fits, a measured choice of
// sampler elsewhere, with a verdict — use infer.Marginals, which `pgibbs
// uai` runs by default. [Options].Context stops a reading under way (a
// deadline, a signal): the input is read 64 KB at a time, each checked.
//
// For large models, [ReadGraph] (and [ReadGraphFile], [ReadGraphProblem])
// reads a .uai file straight into the same factor graph, without a
// [Model]: the scopes go into one flat array and the tables, as they are
// read, to factorgraph.Builder.AddTables in runs of one shape, with no heap
// object per factor and the tables held once. It returns an [Info] (the
// type, the cardinalities, the counts) and the errors Read then Graph
// return, word for word (FuzzReadGraph checks both properties), but for a
// refusal for memory: each estimates what it builds. A run of factors that
// repeat one table (a lattice's coupling written out factor by factor)
// keeps that table once, so a Potts model read from a file takes about the
// bytes of its pairs added in bulk (factorgraph.Builder.AddPottsPairs).
//
// Both readers split a soft table over two binary variables that is not of
// Potts form — a restricted Boltzmann machine's exp(W·v·h), a binary CPT —
// into its Potts part, which stays the file's factor, and a field on each
// variable, summed a variable into tables added after the file's factors
// (Graph): π and log Z are the same, and the samplers read the pairs inline.
// On K₂₅₀,₂₅₀ of RBM tables a plain Gibbs update took 9.5 µs before, 0.23
// µs after (TestSplitBinaryPairs checks the log-potential of every state
// of random models against the file's tables).
//
// The reader scans its 64-KB buffer in place and reads the usual numbers
// (digits with at most one point, up to 15 digits) in the same pass,
// exactly as strconv reads them; anything else goes through strconv. A
// 396-MB model of 10⁶ variables and 5·10⁶ pairs reads into a graph in
// about 6 s on one core of a slow VM, about 70 MB of text a second
// (BenchmarkReadGraph: MB/s on the largest shared model, a grid and a
// Potts lattice).
package uai
