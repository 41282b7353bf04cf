package factorgraph

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// Bytes returns the memory the graph holds, in bytes: its variables, its
// rows and pick tables, and its factors' records (a factor added as a value
// counts as its interface value, 16 bytes, not its contents; a bulk
// table's values count once however many factors share them). It is what
// Build allocates and the graph keeps alive, beyond the factor values the
// caller made; Build's scratch and the builder's own arrays come on top
// while it runs (Size.BuildBytes). Tables built on first use are not
// counted: FactorIndex's (4 bytes a soft entry), Active's (4 bytes an
// active factor), and the MIN-Gibbs family's description (44 bytes a
// factor).
func (g *Graph) Bytes() int {
	b := g.domains.bytes() + bytesOf(g.observed) + bytesOf(g.evidence) + bytesOf(g.free) + bytesOf(g.li) +
		bytesOf(g.objLo) + bytesOf(g.objM)
	s := &g.fs
	b += bytesOf(s.runs) + bytesOf(s.obj) + bytesOf(s.pa) + bytesOf(s.pb) + bytesOf(s.pw) + bytesOf(s.pots)
	k := g.kern
	b += bytesOf(k.SoftStart) + bytesOf(k.Nbr) + bytesOf(k.W) + k.OneWeightBytes() + bytesOf(k.Ops) + bytesOf(k.FieldVals) + bytesOf(k.HardStart) + bytesOf(k.Hard) +
		bytesOf(k.Heads) + bytesOf(k.HeadStart) + bytesOf(k.Head) + bytesOf(k.HeadLo) + bytesOf(k.BandStart) + bytesOf(k.Bands) +
		bytesOf(k.BandCols) + bytesOf(k.BandLo) +
		bytesOf(k.PairOff) + bytesOf(k.PairOther) + bytesOf(k.PairTab)
	// The table factors: the kernel's extend the bulk ones (a *Table's
	// values are the caller's).
	t := &k.Tabs
	b += bytesOf(t.Off) + bytesOf(t.Vars) + bytesOf(t.Pot) + bytesOf(t.Pots)
	for j, p := range s.tab.Pots { // the factors of one call share strides, and values if they share a table
		if j == 0 || &p.Strides[0] != &s.tab.Pots[j-1].Strides[0] {
			b += bytesOf(p.Strides)
		}
		if j == 0 || &p.Values[0] != &s.tab.Pots[j-1].Values[0] {
			b += len(p.Values) * 8
		}
	}
	return b
}

// bytesOf returns the bytes of a slice's backing array.
func bytesOf[T any](s []T) int {
	var z T
	return cap(s) * int(unsafe.Sizeof(z))
}

// MaxDomain is the largest number of values a discrete variable may have,
// 2²⁴ = 16,777,216: Build refuses a larger Discrete domain, package uai a
// larger cardinality, package edgelist a larger q.
//
// A domain costs memory in every chain, not in the graph: an update of a
// variable of D values evaluates its factors at all D values and draws
// from D weights, and every sampler of package gibbs keeps three buffers
// of D float64s for it (the energies and two scratch rows: 24 bytes a
// value, 384 MiB a chain at this bound; the MIN-Gibbs family two more, a
// chromatic sweep a set per worker), besides the D marginal counts a
// chain keeps of each such variable. And a plain Gibbs update evaluates
// each factor of the variable D times, which beyond 10⁷ the samplers
// refuse by default (gibbs.DefaultMaxDraws): a larger domain could not be
// sampled without raising that limit, while its buffers would take
// gigabytes a chain. The bound keeps every domain a sampler's default
// accepts (lattice models have at most 2¹⁶ Potts states, the shared UAI
// models far fewer values) and sizes fit in the int32s the samplers keep.
const MaxDomain = 1 << 24

// Size is what the memory of a factor graph depends on, as known before it
// is built: the counts a file's header declares, or those a Builder holds.
// Its estimates let a reader or Build refuse a graph that would not fit
// before allocating it (see BuildBytes).
type Size struct {
	Vars       int // variables
	DomainSize int // the largest domain size (Build's scratch for Tabulator factors)
	// Pairs are Potts pairs added with AddPottsPairs: 16 bytes each, and
	// their entries in the rows of their two variables.
	Pairs int
	// Tables are table factors added with AddTables, TableVars their
	// scopes' variables in all, Potentials their distinct tables (one a
	// factor unless a table is shared) and Entries those tables' entries.
	Tables, TableVars, Potentials, Entries int
	// Factors are factors added as values with AddFactor and FactorVars
	// their scopes' variables in all (the values themselves are the
	// caller's and not counted).
	Factors, FactorVars int
	// PairEntries are the entries of the soft tables over two variables,
	// not of Potts form, whose potential no other table shares (bulk or
	// added as values): Build lays each out again in both its variables'
	// rows (compiled.Graph.PairOff), twice their entries, with 8 bytes
	// more an op.
	PairEntries int
	// OneWeight says the factors are Potts pairs all of one weight (bit
	// for bit), as on a random sparse graph or a lattice of equal
	// couplings: every row is uniform (a pick is a uniform one from the
	// row itself) and has no pick tables, and its entries no weights (24
	// bytes a pair instead of 40). A Builder's size says so when it
	// holds nothing else; a reader's header cannot, and estimates with
	// pick tables (an upper bound).
	OneWeight bool
}

// Layout costs of Size's estimates, in bytes (see GraphBytes).
const (
	// A variable: its evidence flag, free index, L_i, row offsets (soft,
	// hard) and head size. Its domain costs nothing when every variable
	// has the same (2 bytes if there are several, 24 past 65536 distinct
	// ones) and its evidence value 8 bytes only in a model with evidence;
	// neither is counted.
	varBytes = 1 + 8 + 8 + 2*8 + 4
	// A variable's offset of its head columns, which a graph whose rows
	// are all uniform does without (and one laid out at a stride), and
	// of its bands, which only rows with light factors need.
	headVarBytes = 8
	bandVarBytes = 8
	// An entry of a row: the neighbour or op reference and the weight;
	// in a graph of pairs of one weight, the neighbour alone.
	entryBytes = 4 + 8
	nbrBytes   = 4
	// An op: a table or generic factor's entry (compiled.Op).
	opBytes = 32
	// A Potts pair record of AddPottsPairs: two int32 and a float64.
	pairBytes = 16
	// A table factor record: its offset and potential index.
	tableBytes = 8 + 4
	// A potential: its compiled.Pot and its description (potential).
	potBytes = 48 + 56
	// A factor added as a value: its interface value, its lo and M_φ,
	// and for a *Table its record in the kernel's tables.
	objBytes = 16 + 16 + 64
	// A head column of a pick table (compiled.Col and its low word), and
	// a band of light factors (compiled.Band, its column and low word).
	colBytes  = 16 + 4
	bandBytes = 24 + 16 + 4
	// Build's scratch a variable: the builder's domain, the counts of
	// every row and the fill positions.
	buildVarBytes = 24 + 2*4 + 2*8
	// Build's own: its small allocations and the rounding of its large
	// ones to whole pages (8 KB for each of its twenty arrays or so).
	buildFixed = 256 << 10
)

// GraphBytes estimates the memory of a graph of size s once built, the
// bytes Graph.Bytes reports: to a few percent for pairwise models whose
// kernel decays with distance (the heavy few neighbours of a variable in
// the head of its pick table, the light rest in bands) and for dense
// tables (their entries and scopes, exactly). A row of 20 to 512 factors
// of equal weights has them all in its head, 20 bytes a factor more than
// estimated (a random graph of degree 64 takes 29% more). Table and
// generic factors are counted as soft factors whose entries are ops: a
// Potts-form table (a pair) or a hard one costs a little less.
//
// It returns a float64 so that no count overflows it.
func (s Size) GraphBytes() float64 {
	if s.Vars <= 0 {
		return 0
	}
	n := float64(s.Vars)
	pairs, tables, tvars := float64(s.Pairs), float64(s.Tables), float64(s.TableVars)
	objs, ovars := float64(s.Factors), float64(s.FactorVars)
	entry := float64(entryBytes)
	if s.OneWeight {
		entry = nbrBytes // no weight an entry (compiled.Graph.W0)
	}
	b := varBytes*n + (pairBytes+2*entry)*pairs
	b += tableBytes*tables + (4+entryBytes+opBytes)*tvars + potBytes*float64(s.Potentials) + 8*float64(s.Entries)
	b += objBytes*objs + (entryBytes+opBytes)*ovars
	if s.PairEntries > 0 {
		b += 2*8*float64(s.PairEntries) + 8*(tvars+ovars)
	}
	if s.OneWeight || pairs+tvars+ovars == 0 {
		return b // uniform or empty rows: no pick tables, nor their offsets
	}
	// The pick tables, from the mean number of soft factors a variable.
	deg := (2*pairs + tvars + ovars) / n
	head := min(deg, headGuess)
	perVar := colBytes*head + headVarBytes
	if deg > head {
		// The light entry, the bands, and the offsets of both (rows of a
		// few heavy factors have neither bands nor, in a stride, offsets).
		perVar += colBytes + bandsGuess*bandBytes + bandVarBytes
	}
	return b + n*perVar
}

// BuildBytes estimates the memory that building a graph of size s takes at
// its peak: the graph (GraphBytes), the builder's arrays (its domains, 24
// bytes a variable; the records of the bulk adds, counted in GraphBytes, as
// they grow, twice), and Build's scratch (the counts and fill positions of
// the rows, 24 bytes a variable; for factors added as values a mark and a
// state a variable and a row of the largest domain; 4 bytes a table or
// generic factor's entry to number them in row order; and 256 KB for its
// small allocations and the rounding of its large ones). It is what a
// reader or Build compares with the memory limit before allocating:
// without factors, a variable costs 85 bytes to build and 37 to keep.
func (s Size) BuildBytes() float64 {
	if s.Vars <= 0 {
		return 0
	}
	n := float64(s.Vars)
	b := s.GraphBytes() + buildVarBytes*n + buildFixed
	// The records appended one call or factor at a time grow by copying.
	b += tableBytes*float64(s.Tables) + 4*float64(s.TableVars) + potBytes*float64(s.Potentials) + 16*float64(s.Factors)
	// The ops' renumbering in row order (opsInRowOrder): an int32 an op.
	b += 4 * float64(s.TableVars+s.FactorVars)
	if s.Factors > 0 {
		b += 16*n + 8*float64(max(s.DomainSize, 1))
	}
	return b
}

// PairGraphBytes estimates the memory of a graph of vars discrete variables
// and pairs Potts pairs of varying weights added with AddPottsPairs, the
// bytes Graph.Bytes reports once it is built: Size{Vars: vars, Pairs:
// pairs}.GraphBytes(), to a few percent for rows of a kernel decaying with
// distance, the heavy few neighbours in the head and the light rest in
// bands. Pairs all of one weight (a random sparse graph of equal couplings,
// a nearest-neighbour lattice) have no pick tables and no weight an entry:
// Size{Vars: vars, Pairs: pairs, OneWeight: true}.GraphBytes() is their
// estimate, exact but for the rounding of allocations. It lets a caller refuse a model it cannot
// hold before building it (Size.BuildBytes adds what building it takes
// besides).
//
// A pair costs 40 bytes: its record (two int32 variables and its float64
// weight, 16) and its entry in each of its two rows (the other variable and
// the weight, 12 each). A variable costs its flags, L_i and offsets (37
// bytes; its domain nothing when all variables share one) and its pick
// tables: a head of up to 64 heavy neighbours (20 bytes a column and 8 for
// its offset; a kernel like the Gaussian's puts its nearest 19 there, the
// two nearest shells and the next) and bands over the light ones (44 bytes
// a band). Pairs of one weight cost 24 bytes (their rows hold the other
// variable only): at degree 10 such a graph takes 31.4 bytes a pair, at
// degree 20 27.7 (BenchmarkSparse). Factors added otherwise cost more: see
// Size and Bytes.
func PairGraphBytes(vars, pairs int) int {
	return int(Size{Vars: vars, Pairs: pairs}.GraphBytes())
}

// headGuess and bandsGuess are the head and bands the estimates assume
// a variable with many neighbours has (the Gaussian kernel's 19 heavy
// neighbours and 6 bands; a nearest-neighbour lattice's whole row).
const (
	headGuess  = 19
	bandsGuess = 6
)

// DefaultMaxBytes returns the memory limit that Builder and the readers of
// packages uai and edgelist apply by default: the memory this process may
// use (its cgroup's limit, else the machine's memory, as the command
// line's -max-memory by default), or +Inf, no limit, when neither can be
// read. It is read once.
func DefaultMaxBytes() float64 { return defaultMaxBytes() }

var defaultMaxBytes = sync.OnceValue(func() float64 {
	if m := sysmem.Total(); m > 0 {
		return m
	}
	return math.Inf(1)
})

// MemoryError reports a graph (or a model) refused before it was
// allocated: the memory it needs, estimated from its counts, exceeds the
// limit. Its message names the counts, the estimate, the limit and what
// sets it: "edgelist: header declares n = 67108864 variables of q = 3
// states and m = 200 pairs: the graph needs about 8.3 GB, more than the
// limit of 2 GB (Options.MaxBytes)".
type MemoryError struct {
	What    string  // the call or the input and its counts: "factorgraph: AddVariables(…)", "edgelist: header declares …"
	Of      string  // what needs the memory: "the graph" if empty
	Need    float64 // the estimate, in bytes
	Limit   float64 // the limit, in bytes
	Setting string  // what sets the limit: "Builder.SetMaxBytes", "Options.MaxBytes"
}

func (e *MemoryError) Error() string {
	of := e.Of
	if of == "" {
		of = "the graph"
	}
	return fmt.Sprintf("%s: %s needs about %s, more than the limit of %s (%s)",
		e.What, of, sysmem.String(e.Need), sysmem.String(e.Limit), e.Setting)
}

// CheckBytes returns a *MemoryError naming what and setting when need
// bytes exceed the limit maxBytes means: DefaultMaxBytes() for 0, else
// maxBytes itself (+Inf: no limit). It returns an error for a negative or
// NaN maxBytes. Readers call it with their header's estimate (Size's) before
// allocating anything for it.
func CheckBytes(need, maxBytes float64, what, setting string) error {
	limit, err := memoryLimit(maxBytes, setting)
	if err != nil {
		return err
	}
	if need > limit {
		return &MemoryError{What: what, Need: need, Limit: limit, Setting: setting}
	}
	return nil
}

// memoryLimit returns the limit maxBytes means (see CheckBytes).
func memoryLimit(maxBytes float64, setting string) (float64, error) {
	switch {
	case maxBytes == 0:
		return DefaultMaxBytes(), nil
	case !(maxBytes > 0):
		return 0, fmt.Errorf("factorgraph: memory limit %v (%s): want a number of bytes > 0 (0: the default, the machine's memory; +Inf: none)", maxBytes, setting)
	}
	return maxBytes, nil
}
