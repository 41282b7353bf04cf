package studies

import (
	"fmt"
	"math"
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
	for _, o := range r.Over {
		s += fmt.Sprintf("\n%s skipped: over the memory budget\n", o)
	}
	return s
}

func (r *ScaleResult) table() harness.Table {
	t := harness.Table{Header: []string{"shape", "variables", "pair factors", "build s", "pairs/s", "graph B/pair", "all-in B/pair",
		"Poisson-Gibbs ns/update", "Gibbs ns/update", "auto ns/update", "auto systematic ns/update"}}
	for _, p := range r.Points {
		shape := p.Shape
		if p.Width > 0 {
			shape = fmt.Sprintf("%s %d²", p.Shape, p.Width)
		}
		pg := harness.FmtG(p.PGNs, 4)
		if math.IsNaN(p.PGNs) {
			pg = "refused"
		}
		t.Rows = append(t.Rows, []string{shape, strconv.Itoa(p.Vars), strconv.Itoa(p.Pairs), harness.FmtG(p.BuildSeconds, 3),
			harness.FmtG(p.PairsPerSecond, 3), harness.FmtG(p.GraphBytes/float64(p.Pairs), 3), harness.FmtG(p.BytesPerPair(), 3),
			pg, harness.FmtG(p.GibbsNs, 4), harness.FmtG(p.AutoNs, 4), harness.FmtG(p.AutoScanNs, 4)})
	}
	return t
}

// WriteFigure writes scale.csv (a row a width) and the log–log figure
// scale.png and scale.svg: bytes and build ns per pair factor and ns per
// update against the number of pair factors. It returns the paths written.
func (r *ScaleResult) WriteFigure(dir string) ([]string, error) {
	var rows [][]string
	for _, p := range r.Points {
		rows = append(rows, []string{p.Shape, strconv.Itoa(p.Width), strconv.Itoa(p.Vars), strconv.Itoa(p.Pairs),
			harness.Ftoa(p.BuildSeconds), harness.Ftoa(p.GraphBytes), harness.Ftoa(p.HeapBytes), harness.Ftoa(p.PGNs), harness.Ftoa(p.GibbsNs),
			harness.Ftoa(p.AutoNs), harness.Ftoa(p.AutoScanNs)})
	}
	csvPath := filepath.Join(dir, "scale.csv")
	if err := harness.WriteCSV(csvPath, []string{"shape", "width", "vars", "pairs", "build_seconds", "graph_bytes", "heap_bytes",
		"pgibbs_ns", "gibbs_ns", "auto_ns", "auto_scan_ns"}, rows); err != nil {
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
	type series struct {
		name  string
		shape string
		y     func(ScalePoint) float64
	}
	ss := []series{
		{"lattice: bytes a pair factor, all in", "lattice", ScalePoint.BytesPerPair},
		{"lattice: build ns a pair factor", "lattice", func(s ScalePoint) float64 { return 1e9 * s.BuildSeconds / float64(s.Pairs) }},
		{"lattice: ns a Poisson-Gibbs update", "lattice", func(s ScalePoint) float64 { return s.PGNs }},
		{"lattice: ns a Gibbs update", "lattice", func(s ScalePoint) float64 { return s.GibbsNs }},
	}
	for _, sh := range r.Settings.Shapes {
		ss = append(ss, series{sh.Name + ": ns an auto update", sh.Name, func(s ScalePoint) float64 { return s.AutoNs }})
	}
	for k, sr := range ss {
		var xy plotter.XYs
		for _, pt := range r.Points {
			if y := sr.y(pt); pt.Shape == sr.shape && y > 0 {
				xy = append(xy, plotter.XY{X: float64(pt.Pairs), Y: y})
			}
		}
		if len(xy) == 0 {
			continue
		}
		st := harness.LineStyles[k%len(harness.LineStyles)]
		if err := harness.AddSeries(p, xy, st.Color, st.Dashes, nil, sr.name); err != nil {
			return nil, fmt.Errorf("experiments: scale plot: %w", err)
		}
	}
	return p, nil
}
