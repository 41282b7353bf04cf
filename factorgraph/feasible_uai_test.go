package factorgraph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// linkage lists the genetic-linkage pedigrees of the UAI 2014 competition
// in ../shared/data/uai-hard: Bayesian networks of 400 to 1 300 variables
// whose CPTs are half zeros, the evidence folded in as variables of one
// value. A depth-first search with forward checking gave up on each after
// 10⁶ nodes.
var linkage = []string{"linkage_13", "linkage_16", "linkage_18", "linkage_20", "linkage_26"}

// readLinkage reads a linkage pedigree, skipping the test if the shared
// data are absent.
func readLinkage(tb testing.TB, name string) *factorgraph.Graph {
	tb.Helper()
	file := filepath.Join("..", "..", "shared", "data", "uai-hard", name+".uai")
	if _, err := os.Stat(file); err != nil {
		tb.Skipf("%s absent: %v", file, err)
	}
	p, err := uai.ReadGraphProblem(file, "", "")
	if err != nil {
		tb.Fatal(err)
	}
	return p.Graph
}

// TestFeasibleStateLinkage: each pedigree has a feasible start, found in
// a few hundred nodes; the same seed gives the same one.
func TestFeasibleStateLinkage(t *testing.T) {
	for _, name := range linkage {
		t.Run(name, func(t *testing.T) {
			g := readLinkage(t, name)
			var first []float64
			for seed := range uint64(3) {
				start := time.Now()
				x, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 34)), 0)
				elapsed := time.Since(start)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				lp := 0.0
				for f := range g.NumFactors() {
					lp += g.Factor(f).Value(x)
				}
				if math.IsInf(lp, 0) || math.IsNaN(lp) {
					t.Fatalf("seed %d: log-probability %v", seed, lp)
				}
				t.Logf("seed %d: %v, log-probability %.1f", seed, elapsed, lp)
				if seed == 0 {
					first = x
				}
			}
			again, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(0, 34)), 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range first {
				if math.Float64bits(first[i]) != math.Float64bits(again[i]) {
					t.Fatalf("seed 0 gave two states, differing at variable %d", i)
				}
			}
		})
	}
}

// BenchmarkFeasibleStateLinkage times the search on each pedigree.
func BenchmarkFeasibleStateLinkage(b *testing.B) {
	for _, name := range linkage {
		b.Run("model="+name, func(b *testing.B) {
			g := readLinkage(b, name)
			b.ReportAllocs()
			seed := uint64(0)
			for b.Loop() {
				seed++
				if _, err := g.FeasibleState(context.Background(), rand.New(rand.NewPCG(seed, 34)), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
