package studies

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	lat "github.com/pgibbs/pgibbs/lattice"
)

// Targets of issue 25.
const (
	fssTargetGammaNu  = 0.05  // |γ/ν − 7/4| of the nearest-neighbour model
	fssTargetCrossing = 0.005 // |β× − β_c|/β_c of its Binder crossings
	fssTargetZ        = 4     // reweighted against direct, in combined errors
)

// model returns the settings of model key.
func (r *FSSResult) model(key string) FSSModel {
	for _, m := range r.Settings.Models {
		if m.Key == key {
			return m
		}
	}
	return FSSModel{Key: key, BetaC: math.NaN(), BetaRef: math.NaN(), GammaNu: math.NaN()}
}

// WorstCheck returns the largest |reweighted − direct| in combined errors
// over every check, where it was, and the number of comparisons.
func (r *FSSResult) WorstCheck() (worst float64, where string, n int) {
	for _, p := range r.Points {
		for _, c := range p.Checks {
			n += c.Checked
			if c.Worst >= worst {
				worst = c.Worst
				where = fmt.Sprintf("%s, L = %d, %s at β = %.6g (stage %d reweighted, stage %d direct)", p.Model, p.Size, c.WorstName, c.Beta, c.From, c.To)
			}
		}
	}
	return worst, where, n
}

// Markdown returns the study's tables in GitHub Markdown: each size's
// stages and χ peak, the Binder crossings, the fitted γ/ν and issue 25's
// targets.
func (r *FSSResult) Markdown() string {
	var parts []string
	for _, t := range []harness.Table{r.pointTable(), r.crossingTable(), r.shiftTable(), r.fitTable(), r.targetTable()} {
		if len(t.Rows) > 0 {
			parts = append(parts, t.Markdown())
		}
	}
	return strings.Join(parts, "\n")
}

// pointTable returns one row per model and size.
func (r *FSSResult) pointTable() harness.Table {
	t := harness.Table{Header: []string{"model", "L", "stage β₀ (window)", "chains × sweeps", "U(β₁)", "ξ₂/L (β₁)", "τ(χ) (β₁)",
		"χ peak β", "χ peak height", "reweighted vs direct (worst of 9)"}}
	for _, p := range r.Points {
		var stages []string
		for _, run := range p.Runs {
			stages = append(stages, fmt.Sprintf("%.6g [%.5g, %.5g]", run.Beta0, run.Lo, run.Hi))
		}
		first := p.Runs[0]
		peak := pm(p.Peak.Beta.Mean, p.Peak.Beta.Err, 6)
		if p.Peak.Edge {
			peak += " (window edge)"
		}
		var checks []string
		for _, c := range p.Checks {
			checks = append(checks, fmt.Sprintf("%.2fσ (%s)", c.Worst, c.WorstName))
		}
		t.Rows = append(t.Rows, []string{p.Model, strconv.Itoa(p.Size), strings.Join(stages, "; "),
			fmt.Sprintf("%d × %d", first.Chains, first.Sweeps),
			pm(first.Direct.Binder.Mean, first.Direct.Binder.Err, 4),
			pm(first.Direct.Xi.Mean/float64(p.Size), first.Direct.Xi.Err/float64(p.Size), 4),
			harness.FmtG(first.Direct.Chi.Tau, 3),
			peak, pm(p.Peak.Height.Mean, p.Peak.Height.Err, 5), strings.Join(checks, "; ")})
	}
	return t
}

// crossingTable returns the Binder crossing of each pair of consecutive
// sizes, against β_c or the literature's estimate.
func (r *FSSResult) crossingTable() harness.Table {
	t := harness.Table{Header: []string{"model", "L₁ × L₂", "β× (crossing)", "U×", "against β_c", "stages"}}
	for _, c := range r.Crossings {
		m := r.model(c.Model)
		if !c.Found {
			t.Rows = append(t.Rows, []string{c.Model, fmt.Sprintf("%d × %d", c.L1, c.L2), "none: " + c.Note, "–", "–", "–"})
			continue
		}
		b := c.Crossing.Beta
		vs := versus(m, b.Mean, b.Err)
		t.Rows = append(t.Rows, []string{c.Model, fmt.Sprintf("%d × %d", c.L1, c.L2), pm(b.Mean, b.Err, 6),
			pm(c.Crossing.U.Mean, c.Crossing.U.Err, 4), vs, fmt.Sprintf("%d, %d", c.Stage1, c.Stage2)})
	}
	return t
}

// shiftTable returns β_c extrapolated from the χ peak positions.
func (r *FSSResult) shiftTable() harness.Table {
	t := harness.Table{Header: []string{"model", "sizes fitted", "β_c from β_peak(L) = β_c + a/L", "against β_c", "a", "χ²"}}
	for _, f := range r.Shifts {
		m := r.model(f.Model)
		sizes := r.fittedSizes(f.Model, f.MinSize)
		t.Rows = append(t.Rows, []string{f.Model, fmt.Sprint(sizes), pm(f.BetaC, f.Err, 6), versus(m, f.BetaC, f.Err), harness.FmtG(f.Slope, 3), harness.FmtG(f.Chi2, 3)})
	}
	return t
}

// fittedSizes returns the sizes of model, from minSize up, whose χ peak
// lies inside the scanned β range: the points a fit uses.
func (r *FSSResult) fittedSizes(model string, minSize int) []int {
	var sizes []int
	for _, p := range r.Points {
		if p.Model == model && p.Size >= minSize && !p.Peak.Edge {
			sizes = append(sizes, p.Size)
		}
	}
	return sizes
}

// versus compares an estimate of β_c with the model's exact value, or
// with the literature's.
func versus(m FSSModel, v, err float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case !math.IsNaN(m.BetaC):
		return fmt.Sprintf("%+.3f%% (%+.1fσ) of β_c = %.7g", 100*(v/m.BetaC-1), (v-m.BetaC)/err, m.BetaC)
	case !math.IsNaN(m.BetaRef):
		return fmt.Sprintf("%+.2f%% (%+.1fσ) of %.4g (literature)", 100*(v/m.BetaRef-1), (v-m.BetaRef)/err, m.BetaRef)
	}
	return "–"
}

// fitTable returns the fitted γ/ν of each model.
func (r *FSSResult) fitTable() harness.Table {
	t := harness.Table{Header: []string{"model", "sizes fitted", "γ/ν", "expected", "A (χ_max ≈ A·L^(γ/ν))", "χ²"}}
	for _, f := range r.Fits {
		m := r.model(f.Model)
		sizes := r.fittedSizes(f.Model, f.MinSize)
		exp := "–"
		if !math.IsNaN(m.GammaNu) {
			exp = fmt.Sprintf("%g (%s)", m.GammaNu, m.GammaNuNote)
		}
		t.Rows = append(t.Rows, []string{f.Model, fmt.Sprint(sizes), pm(f.GammaNu, f.Err, 4), exp, harness.FmtG(f.A, 4), harness.FmtG(f.Chi2, 3)})
	}
	return t
}

// targetTable returns issue 25's targets: γ/ν and the Binder crossings of
// the nearest-neighbour model, and the agreement of reweighted and direct
// observables.
func (r *FSSResult) targetTable() harness.Table {
	t := harness.Table{Header: []string{"quantity", "measured", "target"}}
	for _, f := range r.Fits {
		m := r.model(f.Model)
		if m.Key != "nn" || f.MinSize != m.Sizes[0] || math.IsNaN(f.GammaNu) {
			continue
		}
		d := math.Abs(f.GammaNu - IsingGammaNu)
		t.Rows = append(t.Rows, []string{fmt.Sprintf("γ/ν, nearest neighbour, L = %d–%d", f.MinSize, m.Sizes[len(m.Sizes)-1]),
			pm(f.GammaNu, f.Err, 4), targetNote(d <= fssTargetGammaNu, true, fmt.Sprintf("within %g of 7/4", fssTargetGammaNu))})
	}
	worst, n := 0.0, 0
	var where string
	for _, c := range r.Crossings {
		m := r.model(c.Model)
		if m.Key != "nn" || math.IsNaN(m.BetaC) {
			continue
		}
		n++
		d := math.Inf(1)
		if c.Found {
			d = math.Abs(c.Crossing.Beta.Mean/m.BetaC - 1)
		}
		if d >= worst {
			worst, where = d, fmt.Sprintf("%d × %d", c.L1, c.L2)
		}
	}
	if n > 0 {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("Binder crossings, nearest neighbour: the farthest from β_c of %d (%s)", n, where),
			fmt.Sprintf("%.3f%%", 100*worst), targetNote(worst <= fssTargetCrossing, true, fmt.Sprintf("within %g%% of β_c", 100*fssTargetCrossing))})
	}
	if z, where, k := r.WorstCheck(); k > 0 {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("reweighted against direct runs: the worst of %d comparisons (%s)", k, where),
			fmt.Sprintf("%.2fσ", z), targetNote(z <= fssTargetZ, true, fmt.Sprintf("agree within errors (≤ %dσ for the worst)", fssTargetZ))})
	}
	return t
}

// fssObservableColumns are the CSV columns of a set of observables.
var fssObservableColumns = []string{"abs_m", "m2", "m4", "energy", "chi", "chi_disconnected", "specific_heat", "binder", "xi"}

// observableCells returns the CSV cells of o: each observable's mean and
// error.
func observableCells(o lat.Observables) []string {
	var out []string
	for _, e := range fssEstimates(o) {
		out = append(out, csvNum(e.Mean), csvNum(e.Err))
	}
	return out
}

// observableHeader returns the CSV header of observableCells, prefixed.
func observableHeader(prefix string) []string {
	var out []string
	for _, c := range fssObservableColumns {
		out = append(out, prefix+c, prefix+c+"_err")
	}
	return out
}

// WriteFigure writes the study's files into dir and returns their paths:
// fss.csv (one row per model, size and stage: the run, its window, its
// direct observables with errors, the χ peak found by reweighting it, and
// the check of the previous stage reweighted to its β₀),
// fss-crossings.csv (one row per pair of consecutive sizes), fss-fits.csv
// (the fits of γ/ν and of β_c from the peak positions: fit, model,
// min_size, points, value, err, A_or_slope, chi2, expected), fss-curves.csv (each size's first stage reweighted across its
// window), and the figures fss-chi.png/.svg (χ peak heights against L on
// log–log axes with the fitted power laws) and fss-binder.png/.svg (U(β)
// of every size near the crossings, one panel a model).
func (r *FSSResult) WriteFigure(dir string) ([]string, error) {
	var out []string
	for _, t := range []struct {
		name   string
		header []string
		rows   func() [][]string
	}{
		{"fss.csv", fssRunHeader(), r.runRows},
		{"fss-crossings.csv", []string{"model", "L1", "L2", "found", "stage1", "stage2", "beta", "beta_err", "U", "U_err",
			"searched_lo", "searched_hi", "note"}, r.crossingRows},
		{"fss-fits.csv", []string{"fit", "model", "min_size", "points", "value", "err", "A_or_slope", "chi2", "expected"}, r.fitRows},
		{"fss-curves.csv", append([]string{"model", "size", "beta", "ess"}, observableHeader("")...), r.curveRows},
	} {
		path := filepath.Join(dir, t.name)
		if err := harness.WriteCSV(path, t.header, t.rows()); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	p, err := r.chiPlot()
	if err != nil {
		return out, err
	}
	paths, err := harness.SavePlot(p, dir, "fss-chi")
	if out = append(out, paths...); err != nil {
		return out, err
	}
	var panels []*plot.Plot
	for _, m := range r.Settings.Models {
		bp, err := r.binderPlot(m)
		if err != nil {
			return out, err
		}
		panels = append(panels, bp)
	}
	paths, err = savePanels(panels, dir, "fss-binder")
	return append(out, paths...), err
}

// fssRunHeader is the header of fss.csv: a row a stage of each size.
func fssRunHeader() []string {
	header := append([]string{"model", "size", "sites", "stage", "beta0", "chains", "sweeps_per_chain", "window_lo", "window_hi",
		"block", "blocks"}, observableHeader("")...)
	return append(header, "chi_tau", "peak_beta", "peak_beta_err", "peak_height", "peak_height_err", "peak_edge",
		"check_worst_z", "check_worst_observable", "seconds")
}

// runRows are the rows of fss.csv.
func (r *FSSResult) runRows() [][]string {
	var rows [][]string
	for _, p := range r.Points {
		for k, run := range p.Runs {
			row := []string{p.Model, strconv.Itoa(p.Size), strconv.Itoa(p.Sites), strconv.Itoa(run.Stage), harness.Ftoa(run.Beta0),
				strconv.Itoa(run.Chains), strconv.FormatInt(run.Sweeps, 10), harness.Ftoa(run.Lo), harness.Ftoa(run.Hi),
				strconv.Itoa(run.Direct.Block), strconv.Itoa(run.Direct.Blocks)}
			row = append(row, observableCells(run.Direct)...)
			z, name := "", ""
			if k > 0 && k-1 < len(p.Checks) {
				z, name = harness.Ftoa(p.Checks[k-1].Worst), p.Checks[k-1].WorstName
			}
			row = append(row, csvNum(run.Direct.Chi.Tau), csvNum(run.Peak.Beta.Mean), csvNum(run.Peak.Beta.Err),
				csvNum(run.Peak.Height.Mean), csvNum(run.Peak.Height.Err), strconv.FormatBool(run.Peak.Edge), z, name, harness.Ftoa(run.Seconds))
			rows = append(rows, row)
		}
	}
	return rows
}

// crossingRows are the rows of fss-crossings.csv.
func (r *FSSResult) crossingRows() [][]string {
	var rows [][]string
	for _, c := range r.Crossings {
		b, u := c.Crossing.Beta, c.Crossing.U
		if !c.Found {
			b, u = diag.Estimate{Mean: math.NaN(), Err: math.NaN()}, diag.Estimate{Mean: math.NaN(), Err: math.NaN()}
		}
		rows = append(rows, []string{c.Model, strconv.Itoa(c.L1), strconv.Itoa(c.L2), strconv.FormatBool(c.Found),
			strconv.Itoa(c.Stage1), strconv.Itoa(c.Stage2), csvNum(b.Mean), csvNum(b.Err), csvNum(u.Mean), csvNum(u.Err),
			csvNum(c.Crossing.Lo), csvNum(c.Crossing.Hi), c.Note})
	}
	return rows
}

// fitRows are the rows of fss-fits.csv: γ/ν fits, then β_c from the peaks.
func (r *FSSResult) fitRows() [][]string {
	var rows [][]string
	for _, f := range r.Fits {
		rows = append(rows, []string{"gamma_nu", f.Model, strconv.Itoa(f.MinSize), strconv.Itoa(f.Points), csvNum(f.GammaNu), csvNum(f.Err),
			csvNum(f.A), csvNum(f.Chi2), csvNum(r.model(f.Model).GammaNu)})
	}
	for _, f := range r.Shifts {
		m := r.model(f.Model)
		ref := m.BetaC
		if math.IsNaN(ref) {
			ref = m.BetaRef
		}
		rows = append(rows, []string{"beta_c_from_peaks", f.Model, strconv.Itoa(f.MinSize), strconv.Itoa(f.Points), csvNum(f.BetaC), csvNum(f.Err),
			csvNum(f.Slope), csvNum(f.Chi2), csvNum(ref)})
	}
	return rows
}

// curveRows are the rows of fss-curves.csv: each size's reweighted curve.
func (r *FSSResult) curveRows() [][]string {
	var rows [][]string
	for _, p := range r.Points {
		for _, o := range p.Curve {
			row := []string{p.Model, strconv.Itoa(p.Size), harness.Ftoa(o.Beta), harness.Ftoa(o.ESS)}
			rows = append(rows, append(row, observableCells(o.Observables)...))
		}
	}
	return rows
}

// chiPlot draws the χ peak heights against L on log–log axes, a model a
// colour, with the fitted power laws (over every size).
func (r *FSSResult) chiPlot() (*plot.Plot, error) {
	p := harness.LogLogPlot("Peak of the connected susceptibility, 2-D Ising (Swendsen–Wang, reweighted)", "L (L×L torus)", "χ_max")
	p.Title.TextStyle.Font.Size = vg.Points(10)
	var ticks []plot.Tick
	for _, m := range r.Settings.Models {
		for _, n := range m.Sizes {
			if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == float64(n) }) {
				ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
			}
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for k, m := range r.Settings.Models {
		var pts errorPoints
		for _, pt := range r.Points {
			if pt.Model == m.Key && pt.Peak.Height.Mean > 0 && !pt.Peak.Edge {
				pts.XYs = append(pts.XYs, plotter.XY{X: float64(pt.Size), Y: pt.Peak.Height.Mean})
				e := pt.Peak.Height.Err
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: min(e, 0.9*pt.Peak.Height.Mean), High: e})
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		st := harness.LineStyles[(k+1)%len(harness.LineStyles)]
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, fmt.Errorf("experiments: fss plot: %w", err)
		}
		sc.Color, sc.Shape, sc.Radius = st.Color, clustersGlyphs[k%len(clustersGlyphs)], vg.Points(2.5)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("experiments: fss plot: %w", err)
		}
		eb.Color = st.Color
		p.Add(sc, eb)
		label := cmp.Or(m.Label, m.Key)
		for _, f := range r.Fits {
			if f.Model != m.Key || f.MinSize != m.Sizes[0] || math.IsNaN(f.GammaNu) {
				continue
			}
			lo, hi := pts.XYs[0].X, pts.XYs[len(pts.XYs)-1].X
			line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: f.A * math.Pow(lo, f.GammaNu)}, {X: hi, Y: f.A * math.Pow(hi, f.GammaNu)}})
			if err != nil {
				return nil, fmt.Errorf("experiments: fss plot: %w", err)
			}
			line.Color, line.Dashes, line.Width = st.Color, st.Dashes, vg.Points(1.2)
			p.Add(line)
			label += fmt.Sprintf(": γ/ν = %.3f ± %.3f", f.GammaNu, f.Err)
			if !math.IsNaN(m.GammaNu) {
				label += fmt.Sprintf(" (expected %g)", m.GammaNu)
			}
			p.Legend.Add(label, line, sc)
			label = ""
		}
		if label != "" {
			p.Legend.Add(label, sc)
		}
	}
	return p, nil
}

// binderPlot draws U(β) of every size of model m (the first stages,
// reweighted) over the β where the two largest sizes' windows lie, with a
// vertical line at β_c (or at the literature's estimate).
func (r *FSSResult) binderPlot(m FSSModel) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Binder cumulant U, " + cmp.Or(m.Label, m.Key)
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.X.Label.Text, p.Y.Label.Text = "β", "U = 1 - <m^4>/(3<m^2>^2)"
	p.Legend.Left, p.Legend.Top = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	// The β range: the windows of the two largest sizes, widened by half.
	var pts []FSSPoint
	for _, pt := range r.Points {
		if pt.Model == m.Key {
			pts = append(pts, pt)
		}
	}
	if len(pts) == 0 {
		return p, nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts[max(0, len(pts)-2):] {
		lo, hi = min(lo, pt.Runs[0].Lo), max(hi, pt.Runs[0].Hi)
	}
	w := hi - lo
	lo, hi = lo-w/2, hi+w/2
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for k, pt := range pts {
		var xy plotter.XYs
		for _, o := range pt.Curve {
			if o.Beta >= lo && o.Beta <= hi && !math.IsNaN(o.Binder.Mean) {
				xy = append(xy, plotter.XY{X: o.Beta, Y: o.Binder.Mean})
				ylo, yhi = min(ylo, o.Binder.Mean), max(yhi, o.Binder.Mean)
			}
		}
		if len(xy) < 2 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("experiments: fss plot: %w", err)
		}
		st := harness.LineStyles[k%len(harness.LineStyles)]
		l.Color, l.Dashes, l.Width = st.Color, st.Dashes, vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("L = %d", pt.Size), l)
	}
	ref, refLabel := m.BetaC, "β_c"
	if math.IsNaN(ref) {
		ref, refLabel = m.BetaRef, "literature β_c"
	}
	if !math.IsNaN(ref) && ref >= lo && ref <= hi && yhi > ylo {
		v, err := plotter.NewLine(plotter.XYs{{X: ref, Y: ylo}, {X: ref, Y: yhi}})
		if err != nil {
			return nil, fmt.Errorf("experiments: fss plot: %w", err)
		}
		v.Color, v.Dashes = harness.LineStyles[5].Color, []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(v)
		p.Legend.Add(fmt.Sprintf("%s = %.5g", refLabel, ref), v)
	}
	p.X.Min, p.X.Max = lo, hi
	return p, nil
}

// savePanels draws plots side by side and saves them as dir/name.png and
// dir/name.svg.
func savePanels(plots []*plot.Plot, dir, name string) ([]string, error) {
	if len(plots) == 0 {
		return nil, fmt.Errorf("experiments: no panels for %s", name)
	}
	return harness.SaveRow(plots, dir, name, harness.PlotWidth*vg.Length(len(plots))*0.8, harness.PlotHeight, vg.Points(8), vg.Points(4))
}
