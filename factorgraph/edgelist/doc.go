// Package edgelist reads and writes pairwise Potts models in a compact
// binary form, the PGEL edge list: n variables, each with the domain
// {0, …, q−1}, and m Potts pairs, pair k the factor
//
//	w_k·δ(x_{i_k}, x_{j_k})
//
// (factorgraph.NewPotts, or one entry of factorgraph.Builder.AddPottsPairs).
// It is the form for models too large for a text format: 16 bytes a pair,
// read at memory speed into the three flat slices AddPottsPairs takes,
// allocated once at their exact size, without a heap object per pair.
//
// # Format, version 1
//
// All integers are little-endian; w is an IEEE 754 binary64. A file of m
// pairs is 24 + 16·m + 8 bytes:
//
//	offset        size  field
//	0             4     magic: the bytes "PGEL" (0x50 0x47 0x45 0x4C)
//	4             4     version: uint32, 1
//	8             4     n: uint32, the number of variables, 1 ≤ n ≤ 2³¹−1
//	12            4     q: uint32, the states of every variable, 1 ≤ q ≤ 2²⁴ (factorgraph.MaxDomain)
//	16            8     m: uint64, the number of pairs
//	24 + 16·k     4     i_k: int32, a variable, 0 ≤ i_k < n        (k = 0, …, m−1)
//	28 + 16·k     4     j_k: int32, a variable, 0 ≤ j_k < n, j_k ≠ i_k
//	32 + 16·k     8     w_k: float64, finite (any sign; 0 is allowed and adds nothing to any A[i])
//	24 + 16·m     8     trailer: uint64, m again
//
// The trailer catches a file cut short at a record boundary; nothing may
// follow it. Pair k is factor k of the graph, variable v its v-th
// variable. A pair may repeat another (the factors add up); the order of
// i_k and j_k within a pair does not matter to π.
//
// # Reading
//
// [Read] checks the header before it allocates anything: m·16 bytes must
// be within the caller's limit ([Options].MaxPairs, by default
// [DefaultMaxPairs]), n within [Options].MaxVars, q within
// factorgraph.MaxDomain (a sampler keeps rows of q values per chain), and,
// when the length of the input is known — an *os.File of a regular file,
// by Stat, or a reader with a Len method such as *bytes.Reader — the input
// must be exactly 24 + 16·m + 8 bytes long from the header on. The memory
// that reading the file and building its graph will take, estimated from n
// and m (factorgraph.Size.BuildBytes: about 85 bytes a variable and 40 a
// pair, besides the pick tables), must be within [Options].MaxBytes, by
// default the machine's memory (factorgraph.DefaultMaxBytes): a file of a
// few bytes whose header declares 2²⁸ variables (33 GB to build) is
// refused with a *factorgraph.MemoryError on a machine with less. Then it
// allocates the three slices at their exact size (on an input of unknown
// length they grow with the input, never beyond m) and fills them through
// a buffered reader, 4,096 records at a time. Every error names what is
// wrong and where: the byte offset from the header's start and, for a
// record, its index. The fuzz target FuzzRead checks that no input makes
// Read panic or allocate more than its memory limit, and that what it
// accepts is the graph its header declares.
package edgelist
