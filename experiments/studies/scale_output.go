package studies

import (
	"fmt"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/pgibbs/pgibbs/experiments/harness"
)

// Markdown returns the scale study's table.
func (r *ScaleResult) Markdown() string {
	s := r.table().Markdown()
	for _, w := range r.Skipped {
		s += fmt.Sprintf("\nwidth %d skipped: over the memory budget\n", w)
	}
	return s
}

func (r *ScaleResult) table() harness.Table {
	t := harness.Table{Header: []string{"width", "pair factors", "build s", "pairs/s", "graph B/pair", "all-in B/pair",
		"Poisson-Gibbs ns/update", "Gibbs ns/update"}}
	for _, p := range r.Points {
		t.Rows = append(t.Rows, []string{strconv.Itoa(p.Width), strconv.Itoa(p.Pairs), harness.FmtG(p.BuildSeconds, 3),
			harness.FmtG(p.PairsPerSecond, 3), harness.FmtG(p.GraphBytes/float64(p.Pairs), 3), harness.FmtG(p.BytesPerPair(), 3),
			harness.FmtG(p.PGNs, 4), harness.FmtG(p.GibbsNs, 4)})
	}
	return t
}

// WriteFigure writes scale.csv (a row a width) and the log–log figure
// scale.png and scale.svg: bytes and build ns per pair factor and ns per
// update against the number of pair factors. It returns the paths written.
func (r *ScaleResult) WriteFigure(dir string) ([]string, error) {
	var rows [][]string
	for _, p := range r.Points {
		rows = append(rows, []string{strconv.Itoa(p.Width), strconv.Itoa(p.Vars), strconv.Itoa(p.Pairs),
			harness.Ftoa(p.BuildSeconds), harness.Ftoa(p.GraphBytes), harness.Ftoa(p.HeapBytes), harness.Ftoa(p.PGNs), harness.Ftoa(p.GibbsNs)})
	}
	csvPath := filepath.Join(dir, "scale.csv")
	if err := harness.WriteCSV(csvPath, []string{"width", "vars", "pairs", "build_seconds", "graph_bytes", "heap_bytes",
		"pgibbs_ns", "gibbs_ns"}, rows); err != nil {
		return nil, err
	}
	p, err := r.plot()
	if err != nil {
		return []string{csvPath}, err
	}
	paths, err := harness.SavePlot(p, dir, "scale")
	return append([]string{csvPath}, paths...), err
}

func (r *ScaleResult) plot() (*plot.Plot, error) {
	p := harness.LogLogPlot("Cost per factor and per update against the graph's size", "pair factors", "bytes, or ns")
	series := []struct {
		name string
		y    func(ScalePoint) float64
	}{
		{"bytes a pair factor, all in", ScalePoint.BytesPerPair},
		{"build ns a pair factor", func(s ScalePoint) float64 { return 1e9 * s.BuildSeconds / float64(s.Pairs) }},
		{"ns a Poisson-Gibbs update", func(s ScalePoint) float64 { return s.PGNs }},
		{"ns a Gibbs update", func(s ScalePoint) float64 { return s.GibbsNs }},
	}
	for k, sr := range series {
		var xy plotter.XYs
		for _, pt := range r.Points {
			if y := sr.y(pt); y > 0 {
				xy = append(xy, plotter.XY{X: float64(pt.Pairs), Y: y})
			}
		}
		st := harness.LineStyles[k%len(harness.LineStyles)]
		if err := harness.AddSeries(p, xy, st.Color, st.Dashes, nil, sr.name); err != nil {
			return nil, fmt.Errorf("experiments: scale plot: %w", err)
		}
	}
	return p, nil
}
