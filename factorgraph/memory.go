package factorgraph

import "unsafe"

// Bytes returns the memory the graph holds, in bytes: its variables, its
// rows and pick tables, and its factors' records (a factor added as a value
// counts as its interface value, 16 bytes, not its contents; a bulk
// table's values count once however many factors share them). It is what
// Build allocates and the graph keeps alive, beyond the factor values the
// caller made; Build's scratch is small (a few arrays a variable). Tables
// built on first use are not counted: FactorIndex's (4 bytes a soft entry),
// Active's (4 bytes an active factor), and the MIN-Gibbs family's
// description (44 bytes a factor).
func (g *Graph) Bytes() int {
	b := bytesOf(g.domains) + bytesOf(g.observed) + bytesOf(g.evidence) + bytesOf(g.free) + bytesOf(g.li) +
		bytesOf(g.objLo) + bytesOf(g.objM)
	s := &g.fs
	b += bytesOf(s.runs) + bytesOf(s.obj) + bytesOf(s.pa) + bytesOf(s.pb) + bytesOf(s.pw) + bytesOf(s.pots)
	k := g.kern
	b += bytesOf(k.SoftStart) + bytesOf(k.Nbr) + bytesOf(k.W) + bytesOf(k.Ops) + bytesOf(k.HardStart) + bytesOf(k.Hard) +
		bytesOf(k.Heads) + bytesOf(k.HeadStart) + bytesOf(k.Head) + bytesOf(k.HeadLo) + bytesOf(k.BandStart) + bytesOf(k.Bands) +
		bytesOf(k.BandCols) + bytesOf(k.BandLo)
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

// PairGraphBytes estimates the memory of a graph of vars discrete variables
// and pairs Potts pairs added with AddPottsPairs, the bytes Graph.Bytes
// reports once it is built (to a few percent for rows of a kernel decaying
// with distance, the heavy few neighbours in the head and the light rest in
// bands): it lets a caller refuse a model it cannot hold before building it.
//
// A pair costs 40 bytes: its record (two int32 variables and its float64
// weight, 16) and its entry in each of its two rows (the other variable and
// the weight, 12 each). A variable costs its domain, evidence and offsets
// (about 90 bytes) and its pick tables: a head of up to 64 heavy
// neighbours (20 bytes a column; a kernel like the Gaussian's puts its
// nearest 19 there, the two nearest shells and the next) and bands over the light ones (about 36 bytes a band).
// Factors added otherwise cost more: see Bytes.
func PairGraphBytes(vars, pairs int) int {
	if vars <= 0 {
		return 0
	}
	perVar := 24 + 1 + 8 + 8 + 8 + 5*8 + 4 // domain, observed, evidence, free, L_i, offsets, head size
	deg := 2 * pairs / vars
	head := min(deg, headGuess)
	perVar += 20 * head
	if deg > head {
		perVar += 20 + bandsGuess*36 // the light entry, the bands
	}
	return 40*pairs + vars*perVar
}

// headGuess and bandsGuess are the head and bands PairGraphBytes assumes
// a variable with many neighbours has (the Gaussian kernel's 19 heavy
// neighbours and 6 bands; a nearest-neighbour lattice's whole row).
const (
	headGuess  = 19
	bandsGuess = 6
)
