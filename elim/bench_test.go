package elim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// benchModels are the shared UAI models of the benchmarks: the grids, the
// pedigrees, the diagnosis networks of the largest tables, and three with
// domains of 4–16 values.
var benchModels = []string{"Grids_11", "Grids_13", "Pedigree_11", "Pedigree_12", "Pedigree_13",
	"Promedus_14", "Promedus_17", "Promedus_18", "Promedus_19", "CSP_11", "CSP_13", "ObjectDetection_11"}

// loadBench reads a shared model with its evidence, or skips b when the
// file is missing.
func loadBench(b *testing.B, name string) *factorgraph.Graph {
	b.Helper()
	dir, err := findData()
	if err != nil {
		b.Skip(err)
	}
	path := filepath.Join(dir, name+".uai")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s: %v", name, err)
	}
	p, err := uai.ReadProblem(path, optional(path+".evid"), "")
	if err != nil {
		b.Fatal(err)
	}
	g, err := p.Model.Graph(p.Evidence)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkPlan measures Plan on the shared models.
func BenchmarkPlan(b *testing.B) {
	for _, name := range benchModels {
		b.Run("model="+name, func(b *testing.B) {
			g := loadBench(b, name)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Plan(context.Background(), g, Options{MaxBytes: 8 << 30}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSolve measures Solve of every component of the shared models
// (planned once), reporting the table entries solved a second.
func BenchmarkSolve(b *testing.B) {
	for _, name := range benchModels {
		b.Run("model="+name, func(b *testing.B) {
			g := loadBench(b, name)
			comps, err := Plan(context.Background(), g, Options{MaxBytes: 8 << 30})
			if err != nil {
				b.Fatal(err)
			}
			entries := 0.0
			for _, c := range comps {
				if c.Err != nil {
					b.Skip(c.Err)
				}
				entries += c.Entries
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range comps {
					if _, err := c.Solve(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(entries*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
