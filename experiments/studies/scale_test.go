package studies

import (
	"context"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/potts"
)

// TestScale checks the scale study's figures against the graphs
// themselves, and a width over the memory budget skipped.
func TestScale(t *testing.T) {
	s := ScalePaper(true)
	s.Widths, s.PGUpdates, s.GibbsUpdates, s.Reps, s.MaxBytes = []int{5, 60}, 1000, 100, 1, 1e6
	res, err := Scale(context.Background(), s, harness.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 || !slices.Equal(res.Skipped, []int{60}) {
		t.Fatalf("points %+v, skipped %v: want width 5 measured, 60 skipped", res.Points, res.Skipped)
	}
	p5 := potts.Paper()
	p5.Width = 5
	g, err := potts.New(p5)
	if err != nil {
		t.Fatal(err)
	}
	pt := res.Points[0]
	if pt.Pairs != g.NumFactors() || pt.GraphBytes != float64(g.Bytes()) || !(pt.HeapBytes >= pt.GraphBytes) || !(pt.PGNs > 0) || !(pt.GibbsNs > 0) {
		t.Errorf("width 5: %+v; the graph has %d pairs and %d bytes", pt, g.NumFactors(), g.Bytes())
	}
}
