package studies

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// TestDenseRBM: DenseRBM writes each model and its reference marginals
// and scores the default on them: K_{6,6} (exact elimination answers it)
// against a short reference, so the score is the reference's own
// agreement with the truth.
func TestDenseRBM(t *testing.T) {
	s := Dense(true)
	s.N, s.Models, s.RefSeconds, s.UAI.Seconds = 6, []DenseModel{{0.05, 1}, {0.3, 2}}, 0.3, 0.5
	dir := t.TempDir()
	res, err := DenseRBM(context.Background(), s, dir, harness.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(res.Rows))
	}
	for _, row := range res.Rows {
		p, err := uai.ReadProblem(filepath.Join(dir, row.Model+".uai"), "", filepath.Join(dir, row.Model+".uai.MAR"))
		if err != nil {
			t.Fatal(err)
		}
		if p.Model.NumVars() != 12 || len(p.Model.Scopes) != 12+36 {
			t.Errorf("%s: %d variables and %d factors, want 12 and 48", row.Model, p.Model.NumVars(), len(p.Model.Scopes))
		}
		if row.Method != "exact" || row.Score < 95 {
			t.Errorf("%s: %s, score %.2f against a reference of 0.3 s: want exact, ≥ 95", row.Model, row.Method, row.Score)
		}
	}
	csv, err := res.WriteCSV(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(csv) != filepath.Base(dir)+"-scores.csv" {
		t.Errorf("wrote %s", csv)
	}
	if _, err := os.Stat(csv); err != nil {
		t.Error(err)
	}
}
