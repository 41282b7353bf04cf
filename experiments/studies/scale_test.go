package studies

import (
	"context"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/potts"
)

// TestScale checks the scale study's figures against the graphs
// themselves, a width and a shape's size over the memory budget skipped,
// and the figures written.
func TestScale(t *testing.T) {
	s := ScalePaper(true)
	s.Widths, s.PGUpdates, s.GibbsUpdates, s.Reps, s.MaxBytes = []int{5, 60}, 1000, 100, 1, 1e6
	for k := range s.Shapes {
		s.Shapes[k].Pairs = []int{2000, 1e6}
	}
	res, err := Scale(context.Background(), s, harness.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1+len(s.Shapes) || !slices.Equal(res.Skipped, []int{60}) || len(res.Over) != len(s.Shapes) {
		t.Fatalf("points %+v, skipped %v and %v: want width 5 and every shape at 2000 pairs measured, the rest skipped", res.Points, res.Skipped, res.Over)
	}
	for _, pt := range res.Points[1:] {
		if pt.Pairs < 1900 || pt.Pairs > 2100 || !(pt.GibbsNs > 0) || !(pt.AutoNs > 0) || pt.GraphBytes <= 0 || !(pt.HeapBytes >= pt.GraphBytes) {
			t.Errorf("%s: %+v", pt.Shape, pt)
		}
	}
	if _, err := res.WriteFigure(t.TempDir()); err != nil {
		t.Fatal(err)
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
