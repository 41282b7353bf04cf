package studies

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
)

// TestUAIScores: the UAI study scores a model it answers exactly at 100,
// runs the sampled path within its budget, and writes its table.
func TestUAIScores(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "data", "uai")
	if _, err := os.Stat(filepath.Join(dir, "Grids_12.uai")); err != nil {
		t.Skip("the shared UAI models are not here")
	}
	s := UAIPaper(true)
	s.Dir, s.Models, s.Seconds = dir, []string{"Grids_12", "Promedus_13"}, 1
	res, err := UAIScores(context.Background(), s, harness.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Rows {
		if row.Method != "exact" || row.Score < 99.99 || row.Seconds > 1.5 {
			t.Errorf("%+v, want an exact answer scoring 100 within the second", row)
		}
	}
	if md := res.Markdown(); !strings.Contains(md, "| Grids_12 | ") || !strings.Contains(md, "ibia-mar") || !strings.Contains(md, "| 100.00 | 100.0 | 100.0 |") {
		t.Errorf("table:\n%s", md)
	}
	p, err := res.WriteCSV(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exptest.CheckFile(t, p)
}
