package studies

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgibbs/pgibbs/experiments/harness"
)

// Markdown returns the study's tables in GitHub Markdown: one row per
// point (the times per update, their ratios and Poisson-Gibbs's work per
// update), then the crossovers of each family.
func (r *CrossoverResult) Markdown() string {
	return r.table().Markdown() + "\n" + r.summaryTable().Markdown()
}

// table returns one row per point: the times per update (medians), the
// speed-ups of Poisson-Gibbs against the faster hand-written loop and
// against Gibbs, and Poisson-Gibbs's work per update.
func (r *CrossoverResult) table() harness.Table {
	t := harness.Table{Header: []string{"family", "size", "Δ", "mean |A[i]|", "β",
		"stencil ns/update", "CSR ns/update", "best hand-written ns/neighbour", "Gibbs ns/update", "Poisson-Gibbs ns/update",
		"PG draws/update", "PG factors/update", "best hand ÷ PG", "Gibbs ÷ PG", "Gibbs ÷ best hand"}}
	for _, f := range r.Families {
		for _, p := range f.Points {
			hand, _ := p.BestHand()
			csr := "–"
			if p.CSR.Updates > 0 {
				csr = harness.FmtG(p.CSR.Median, 4)
			}
			t.Rows = append(t.Rows, []string{f.Key, strconv.Itoa(p.Size), strconv.Itoa(p.Delta), harness.FmtG(p.MeanDegree, 5), harness.FmtG(p.Beta, 4),
				harness.FmtG(p.Stencil.Median, 4), csr, harness.FmtG(hand/p.MeanDegree, 3), harness.FmtG(p.Gibbs.Median, 4), harness.FmtG(p.PGibbs.Median, 4),
				harness.FmtG(p.PGDraws, 4), harness.FmtG(p.PGFactors, 4),
				harness.FmtG(hand/p.PGibbs.Median, 3), harness.FmtG(p.Gibbs.Median/p.PGibbs.Median, 3), harness.FmtG(p.Gibbs.Median/hand, 3)})
		}
	}
	return t
}

// summaryTable returns the crossovers of each family.
func (r *CrossoverResult) summaryTable() harness.Table {
	t := harness.Table{Header: []string{"family", "L", "λ", "Δ measured", "PG faster than the best hand-written loop from Δ =", "PG faster than Gibbs from Δ ="}}
	for _, f := range r.Families {
		span, l, lambda := "–", "–", "–"
		if n := len(f.Points); n > 0 {
			span = fmt.Sprintf("%d–%d", f.Points[0].Delta, f.Points[n-1].Delta)
			l, lambda = harness.FmtG(f.Points[0].L, 5), harness.FmtG(f.Points[0].Lambda, 4)
		}
		t.Rows = append(t.Rows, []string{f.Label, l, lambda, span, f.VsHand.String(), f.VsGibbs.String()})
	}
	return t
}

// crossoverSamplers are the curves of a point, in plotting order.
var crossoverSamplers = []string{CrossoverStencil, CrossoverCSR, CrossoverGibbs, CrossoverPGibbs}

// timing returns the timing of the sampler key at p (Updates 0 if it was
// not run).
func (p CrossoverPoint) timing(key string) Timing {
	switch key {
	case CrossoverStencil:
		return p.Stencil
	case CrossoverCSR:
		return p.CSR
	case CrossoverGibbs:
		return p.Gibbs
	}
	return p.PGibbs
}

// WriteFigure writes dir/crossover.csv (one row per point and sampler:
// family, size, sites, delta, mean_degree, beta, L, lambda, sampler,
// ns_median, ns_min, ns_max, updates, draws, factors; draws and factors are
// Poisson-Gibbs's, empty for the others), dir/crossover-summary.csv
// (family, against which sampler, the crossover Δ — empty when not reached
// — and whether it is only an upper bound) and the log–log plot of
// ns/update against Δ as dir/crossover.png and dir/crossover.svg. It
// returns the paths written.
func (r *CrossoverResult) WriteFigure(dir string) ([]string, error) {
	const name = "crossover"
	var rows [][]string
	for _, f := range r.Families {
		for _, p := range f.Points {
			for _, key := range crossoverSamplers {
				tm := p.timing(key)
				if tm.Updates == 0 {
					continue
				}
				draws, factors := "", ""
				if key == CrossoverPGibbs {
					draws, factors = harness.Ftoa(p.PGDraws), harness.Ftoa(p.PGFactors)
				}
				rows = append(rows, []string{f.Key, strconv.Itoa(p.Size), strconv.Itoa(p.Sites), strconv.Itoa(p.Delta),
					harness.Ftoa(p.MeanDegree), harness.Ftoa(p.Beta), harness.Ftoa(p.L), harness.Ftoa(p.Lambda), key,
					harness.Ftoa(tm.Median), harness.Ftoa(tm.Min), harness.Ftoa(tm.Max), strconv.FormatInt(tm.Updates, 10), draws, factors})
			}
		}
	}
	csvPath := filepath.Join(dir, name+".csv")
	if err := harness.WriteCSV(csvPath, []string{"family", "size", "sites", "delta", "mean_degree", "beta", "L", "lambda", "sampler",
		"ns_median", "ns_min", "ns_max", "updates", "draws", "factors"}, rows); err != nil {
		return nil, err
	}
	out := []string{csvPath}
	var srows [][]string
	for _, f := range r.Families {
		for _, c := range []struct {
			vs string
			c  Crossing
		}{{"best-handwritten", f.VsHand}, {CrossoverGibbs, f.VsGibbs}} {
			srows = append(srows, []string{f.Key, c.vs, csvNum(c.c.Delta), strconv.FormatBool(c.c.Below)})
		}
	}
	sumPath := filepath.Join(dir, name+"-summary.csv")
	if err := harness.WriteCSV(sumPath, []string{"family", "pgibbs_faster_than", "delta", "at_most"}, srows); err != nil {
		return out, err
	}
	out = append(out, sumPath)
	p, err := r.plot()
	if err != nil {
		return out, err
	}
	paths, err := harness.SavePlot(p, dir, name)
	return append(out, paths...), err
}

// csvNum formats v for CSV, NaN as an empty field.
func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return harness.Ftoa(v)
}

// Plot styles: one colour per sampler, one dash pattern and marker per
// family.
var (
	crossoverColours = map[string]color.RGBA{
		CrossoverStencil: {0, 0, 0, 255},
		CrossoverCSR:     {150, 150, 150, 255},
		CrossoverGibbs:   {213, 94, 0, 255},
		CrossoverPGibbs:  {0, 114, 178, 255},
	}
	crossoverFamilyStyle = map[string]struct {
		dash  []vg.Length
		glyph draw.GlyphDrawer
	}{
		CrossoverPower: {nil, draw.CircleGlyph{}},
		CrossoverGauss: {[]vg.Length{vg.Points(5), vg.Points(2)}, draw.TriangleGlyph{}},
	}
	crossoverNames = map[string]string{
		CrossoverStencil: "hand-written stencil", CrossoverCSR: "hand-written CSR",
		CrossoverGibbs: "Gibbs", CrossoverPGibbs: "Poisson-Gibbs",
		CrossoverPower: "power law", CrossoverGauss: "Gaussian Potts",
	}
)

// plot draws ns/update against Δ on log–log axes: a curve per sampler and
// family.
func (r *CrossoverResult) plot() (*plot.Plot, error) {
	p := harness.LogLogPlot("Time per update against the degree Δ", "Δ (factors per variable)", "ns per update")
	for _, f := range r.Families {
		for _, key := range crossoverSamplers {
			var xy plotter.XYs
			for _, pt := range f.Points {
				if tm := pt.timing(key); tm.Updates > 0 && pt.Delta > 0 && tm.Median > 0 && !math.IsInf(tm.Median, 0) {
					xy = append(xy, plotter.XY{X: float64(pt.Delta), Y: tm.Median})
				}
			}
			st := crossoverFamilyStyle[f.Key]
			if err := harness.AddSeries(p, xy, crossoverColours[key], st.dash, st.glyph, crossoverNames[key]+", "+crossoverNames[f.Key]); err != nil {
				return nil, fmt.Errorf("experiments: crossover plot: %w", err)
			}
		}
	}
	return p, nil
}
