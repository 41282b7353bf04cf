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

// TestUAIPeerNote: a peer's note reaches the table as a footnote on the
// best peer's cell and the CSV's note column, beside a .MAR note; the
// uai-hard settings carry the one on linkage_13, whose best peer is the
// best answer (WMB's 80.5), not BP's NaN beliefs.
func TestUAIPeerNote(t *testing.T) {
	s := UAIHard(true)
	if got := s.Peers["linkage_13"]; got[len(got)-1] != 80.5 || s.PeerNotes["linkage_13"] == "" {
		t.Fatalf("linkage_13's peers %v, note %q", got, s.PeerNotes["linkage_13"])
	}
	res := &UAIResult{Settings: s, Rows: []UAIRow{
		{Model: "linkage_13", Method: "sampled", Peers: s.Peers["linkage_13"], PeerNote: "a peer note", MARDisagreement: "a MAR note"},
		{Model: "linkage_16", Method: "exact", Peers: s.Peers["linkage_16"]},
	}}
	md := res.Markdown()
	if !strings.Contains(md, "| 80.5 [1] |") || !strings.Contains(md, "\n[1] linkage_13: a peer note.\n") || strings.Contains(md, "[2]") {
		t.Errorf("table:\n%s", md)
	}
	p, err := res.WriteCSV(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "a MAR note; a peer note") {
		t.Errorf("csv:\n%s", data)
	}
}
