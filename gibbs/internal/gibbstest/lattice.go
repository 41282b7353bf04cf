package gibbstest

import (
	"fmt"
	"math"
	"slices"
	"testing"

	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/lattice"
)

// NewLattice builds the lattice of p, failing t on an error.
func NewLattice(t testing.TB, p lattice.Params) *lattice.Lattice {
	t.Helper()
	l, err := lattice.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// LatticePi returns π over the states of l (site 0 fastest) from its exact
// energy: π(x) ∝ exp(−β·n·Energy(x)).
func LatticePi(l *lattice.Lattice) []float64 {
	n, q := l.Sites(), l.Domain(0).Size
	size := 1
	for range n {
		size *= q
	}
	x := make([]float64, n)
	logp := make([]float64, size)
	mx := math.Inf(-1)
	for s := range logp {
		DecodeLattice(s, q, x)
		logp[s] = -l.Params().Beta * float64(n) * l.Energy(x)
		mx = max(mx, logp[s])
	}
	return normalise(logp, mx)
}

// DecodeLattice sets x to the state of index s of a lattice of q-state
// spins (LatticePi's order).
func DecodeLattice(s, q int, x []float64) {
	for i := range x {
		x[i] = float64(s % q)
		s /= q
	}
}

// LatticeZ is exactness for a lattice: the largest batch-means z-score of
// the frequencies of the joint states, of the sites' values and of the
// energy levels (the cells that stay informative when the states are too
// many to be visited often) against π.
func LatticeZ(l *lattice.Lattice, s gibbs.Sampler, steps int) (float64, string) {
	pi := LatticePi(l)
	n, q := l.Sites(), l.Domain(0).Size
	probs := slices.Clone(pi)
	names := make([]string, 0, len(pi)+n*q)
	for st := range pi {
		names = append(names, fmt.Sprintf("state %d", st))
	}
	x := make([]float64, n)
	marg := make([]float64, n*q)
	level := make([]int, len(pi)) // energy level of each state
	levels := map[float64]int{}
	var levelP []float64
	for st, p := range pi {
		DecodeLattice(st, q, x)
		for i, v := range x {
			marg[i*q+int(v)] += p
		}
		e := math.Round(l.Energy(x)*1e9) / 1e9
		lv, ok := levels[e]
		if !ok {
			lv = len(levelP)
			levels[e] = lv
			levelP = append(levelP, 0)
			names = append(names, "") // named below
		}
		level[st] = lv
		levelP[lv] += p
	}
	names = names[:len(pi)]
	for c := range marg {
		names = append(names, fmt.Sprintf("P(x%d=%d)", c/q, c%q))
	}
	lvNames := make([]string, len(levelP))
	for e, lv := range levels {
		lvNames[lv] = fmt.Sprintf("P(energy %.4f)", e)
	}
	probs = append(probs, marg...)
	probs = append(probs, levelP...)
	names = append(names, lvNames...)
	cells := func(x []float64, dst []int) []int {
		st, stride := 0, 1
		for _, v := range x {
			st += int(v) * stride
			stride *= q
		}
		dst = append(dst[:0], st)
		for i, v := range x {
			dst = append(dst, len(pi)+i*q+int(v))
		}
		return append(dst, len(pi)+n*q+level[st])
	}
	return BatchZ(s, steps, probs, names, cells)
}
