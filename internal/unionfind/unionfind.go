// Package unionfind is the disjoint-set forest the module's graph
// algorithms share (cluster moves, block construction, elimination plans):
// a parent array of int32 indices, roots pointing at themselves, with path
// halving (Tarjan & van Leeuwen 1984). How two sets are joined — by size, by
// smallest index, with what bookkeeping — is the caller's: it finds both
// roots and points one at the other.
package unionfind

// Init makes every element of parent a singleton set.
func Init(parent []int32) {
	for i := range parent {
		parent[i] = int32(i)
	}
}

// Find returns the root of a's set, halving the path on the way (each node
// visited points to its grandparent: the one-pass form of path compression,
// with the same near-constant amortised cost).
func Find(parent []int32, a int32) int32 {
	for parent[a] != a {
		parent[a] = parent[parent[a]]
		a = parent[a]
	}
	return a
}
