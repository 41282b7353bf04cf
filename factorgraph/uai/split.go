package uai

import "github.com/pgibbs/pgibbs/factorgraph"

// Both readers split the soft tables over two binary variables that are
// not of Potts form into their Potts part and fields
// (factorgraph.PairSplitter): the same π and log Z, read as Potts pairs.
// The two split alike, so their graphs are the same.

// brokenSplit, for the tests' broken variant, leaves the fields out.
var brokenSplit bool

// addFields adds sp's fields to b, unless the test's broken variant is on.
func addFields(sp *factorgraph.PairSplitter, b *factorgraph.Builder) {
	if !brokenSplit {
		sp.AddFields(b)
	}
}
