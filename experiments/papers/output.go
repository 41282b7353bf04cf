package papers

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/pgibbs/pgibbs/experiments/harness"
)

// curveTable summarises curves: per sampler the updates and seconds of
// the last checkpoint reached by every run, the metric there, the work per
// update, and the acceptance rate or rejection tries where they apply.
func curveTable(curves []Curve) harness.Table {
	t := harness.Table{Header: []string{"sampler", "updates", "seconds", "final value", "µs/update", "factors/update", "draws/update", "MH acceptance", "tries/update", "note"}}
	for _, c := range curves {
		n := len(c.Iters)
		row := []string{c.Label, "0", "0", "–", "–"}
		if n > 0 {
			row = []string{c.Label, harness.FmtG(c.Iters[n-1], 7), harness.FmtG(c.Seconds[n-1], 4), harness.FmtG(c.Value[n-1], 4),
				harness.FmtG(c.Seconds[n-1]/c.Iters[n-1]*1e6, 4)}
		}
		st := c.Stats
		acc, tries := "–", "–"
		if st.Proposals > 0 {
			acc = harness.FmtG(st.AcceptanceRate(), 3)
		}
		if st.Tries > 0 {
			tries = harness.FmtG(st.TriesPerStep(), 4)
		}
		note := ""
		if c.Capped {
			note = "stopped by the time budget"
		}
		row = append(row, harness.FmtG(st.FactorsPerStep(), 4), harness.FmtG(st.PicksPerStep(), 4), acc, tries, note)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// curveFigure is a convergence figure drawn from a run's curves.
type curveFigure struct {
	title, ylabel string
	axis          axis
	logY          bool
	keys          []string // the curves drawn, in this order (nil: all)
}

// writeCurveFigure writes the figure fig of a result's curves (see
// writeCurves); figs are the figures the result can draw.
func writeCurveFigure(dir, fig string, figs map[string]curveFigure, curves []Curve) ([]string, error) {
	f, ok := figs[fig]
	if !ok {
		return nil, fmt.Errorf("experiments: no figure %q here", fig)
	}
	if f.keys != nil {
		curves = selectCurves(curves, f.keys)
	}
	return writeCurves(dir, fig, curvePlot{title: f.title, ylabel: f.ylabel, axis: f.axis, logY: f.logY, curves: curves})
}

const marginalLabel = "marginal ℓ2 error"

// pottsFigures are the figures of a Potts run.
var pottsFigures = map[string]curveFigure{
	"fig1a": {title: "Fig. 1a: Potts 20×20, marginal error", ylabel: marginalLabel, axis: byIters, keys: Fig1aKeys},
	"fig1b": {title: "Fig. 1b: Poisson-Gibbs, varying λ", ylabel: marginalLabel, axis: byIters, keys: Fig1bKeys},
	"fig2a": {title: "Fig. 2a: Potts, marginal error vs time", ylabel: marginalLabel, axis: bySeconds, keys: Fig1aKeys},
	"fig2b": {title: "Fig. 2b: Poisson-Gibbs vs time", ylabel: marginalLabel, axis: bySeconds, keys: Fig1bKeys},
}

// Markdown returns the summary of the curves in GitHub Markdown: per
// sampler the updates and seconds of the last checkpoint reached by every
// run, the error there, the work per update, and the MH acceptance rate
// where it applies.
func (r *PottsResult) Markdown() string { return curveTable(r.Curves).Markdown() }

// WriteSummary writes the summary of Markdown as dir/fig1-potts-summary.csv
// and returns its path.
func (r *PottsResult) WriteSummary(dir string) (string, error) {
	return curveTable(r.Curves).WriteCSV(dir, "fig1-potts-summary")
}

// WriteFigure writes one figure of the paper drawn from the run: fig is
// "fig1a" or "fig1b" (the error against updates of the curves Fig1aKeys or
// Fig1bKeys that were run), "fig2a" or "fig2b" (the same against seconds).
// It writes the data as dir/fig.csv (columns key, label, iterations,
// seconds, value, one row per checkpoint) and the plot, with a logarithmic
// x axis, as dir/fig.png and dir/fig.svg, and returns the paths written.
func (r *PottsResult) WriteFigure(dir, fig string) ([]string, error) {
	return writeCurveFigure(dir, fig, pottsFigures, r.Curves)
}

// spinFigures are the figures of a spin run.
var spinFigures = map[string]curveFigure{
	"fig1c": {title: "Fig. 1c: continuous spin model", ylabel: "symmetric KL", axis: byIters, logY: true},
	"fig2c": {title: "Fig. 2c: continuous spin vs time", ylabel: "symmetric KL", axis: bySeconds, logY: true},
}

// Markdown returns the summary of the curves in GitHub Markdown (as
// PottsResult.Markdown; rejection samplers report their tries per update).
func (r *SpinResult) Markdown() string { return curveTable(r.Curves).Markdown() }

// WriteSummary writes the summary of Markdown as dir/fig1c-spin-summary.csv
// and returns its path.
func (r *SpinResult) WriteSummary(dir string) (string, error) {
	return curveTable(r.Curves).WriteCSV(dir, "fig1c-spin-summary")
}

// WriteFigure writes one figure of the paper drawn from the run: fig is
// "fig1c" (the symmetric KL of every curve against updates) or "fig2c"
// (against seconds), both on log–log axes, as dir/fig.csv, dir/fig.png and
// dir/fig.svg (see PottsResult.WriteFigure). It returns the paths written.
func (r *SpinResult) WriteFigure(dir, fig string) ([]string, error) {
	return writeCurveFigure(dir, fig, spinFigures, r.Curves)
}

// Markdown returns Table 1 in GitHub Markdown, with the paper's values.
func (r *Table1Result) Markdown() string { return r.table().Markdown() }

// WriteSummary writes the table of Markdown as dir/tunamh-table1.csv and
// returns its path.
func (r *Table1Result) WriteSummary(dir string) (string, error) {
	return r.table().WriteCSV(dir, "tunamh-table1")
}

func (r *Table1Result) table() harness.Table {
	t := harness.Table{Header: []string{"sampler", "step", "acceptance", "mean batch", "± SE", "runs", "paper (Table 1)", "µs/step"}}
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, []string{row.Label, harness.FmtG(row.Options.Step, 3), harness.FmtG(row.Accept, 3), harness.FmtG(row.MeanBatch, 6),
			harness.FmtG(row.SE, 3), strconv.Itoa(len(row.Batch)), row.Paper, harness.FmtG(row.NsPerStep/1000, 4)})
	}
	return t
}

// Markdown returns the ESS comparison in GitHub Markdown, with the paper's
// values.
func (r *RLRResult) Markdown() string { return r.table().Markdown() }

// WriteSummary writes the table of Markdown as dir/tunamh-rlr.csv and
// returns its path.
func (r *RLRResult) WriteSummary(dir string) (string, error) {
	return r.table().WriteCSV(dir, "tunamh-rlr")
}

func (r *RLRResult) table() harness.Table {
	t := harness.Table{Header: []string{"sampler", "steps", "acceptance", "mean batch", "µs/step", "ESS min", "ESS mean", "ESS/s (min)", "paper ESS/s (d = 10)", "note"}}
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, []string{row.Label, strconv.FormatInt(row.Steps, 10), harness.FmtG(row.Accept, 3), harness.FmtG(row.MeanBatch, 4),
			harness.FmtG(row.UsPerStep, 4), harness.FmtG(row.ESSMin, 4), harness.FmtG(row.ESSMean, 4), harness.FmtG(row.ESSPerSec, 4), row.Paper, row.Note})
	}
	return t
}

// Markdown returns the TV distances of the density estimates and the
// samplers' work per update in GitHub Markdown.
func (r *TGMResult) Markdown() string { return r.table().Markdown() }

// WriteSummary writes the table of Markdown as dir/fig3-summary.csv and
// returns its path.
func (r *TGMResult) WriteSummary(dir string) (string, error) {
	return r.table().WriteCSV(dir, "fig3-summary")
}

func (r *TGMResult) table() harness.Table {
	t := harness.Table{Header: []string{"sampler", "samples", "seconds", "TV to truth", "factors/update", "draws/update", "MH acceptance", "tries/update", "note"}}
	for _, d := range r.Estimates {
		st := d.Stats
		acc, tries := "–", "–"
		if st.Proposals > 0 {
			acc = harness.FmtG(st.AcceptanceRate(), 3)
		}
		if st.Tries > 0 {
			tries = harness.FmtG(float64(st.Tries)/float64(max(st.Steps, 1)), 4)
		}
		t.Rows = append(t.Rows, []string{d.Label, strconv.FormatInt(d.Samples, 10), harness.FmtG(d.Seconds, 4), harness.FmtG(d.TV, 3),
			harness.FmtG(st.FactorsPerStep(), 5), harness.FmtG(st.PicksPerStep(), 5), acc, tries, d.Err})
	}
	return t
}

// WriteFigure writes Fig. 3: the density grid as dir/fig3.csv (columns x1,
// x2, truth and one per estimate: the probability of each cell) and the
// heat maps, the truth first, as dir/fig3.png and dir/fig3.svg. Densities
// are drawn per unit area, on one colour scale from 0 to 1.5 times the true
// density's maximum (noisier estimates saturate above it). It returns the
// paths written.
func (r *TGMResult) WriteFigure(dir string) ([]string, error) {
	const name = "fig3"
	s := r.Settings
	wx, wy := (s.X1-s.X0)/float64(s.NX), (s.Y1-s.Y0)/float64(s.NY)
	all := append([]Density{r.Truth}, r.Estimates...)
	header := []string{"x1", "x2"}
	for _, d := range all {
		header = append(header, d.Key)
	}
	rows := make([][]string, 0, s.NX*s.NY)
	for i := range s.NX {
		for j := range s.NY {
			row := []string{harness.Ftoa(s.X0 + (float64(i)+0.5)*wx), harness.Ftoa(s.Y0 + (float64(j)+0.5)*wy)}
			for _, d := range all {
				row = append(row, harness.Ftoa(d.P[i*s.NY+j]))
			}
			rows = append(rows, row)
		}
	}
	csvPath := filepath.Join(dir, name+".csv")
	if err := harness.WriteCSV(csvPath, header, rows); err != nil {
		return nil, err
	}
	paths, err := writeHeatMaps(dir, name, "x1", "x2", r.heatPanels(all), 1.5*maxOf(r.Truth.P)/(wx*wy))
	return append([]string{csvPath}, paths...), err
}

// heatPanels returns the panels of densities ds: their cells' probabilities
// divided by the cell's area.
func (r *TGMResult) heatPanels(ds []Density) []heatPanel {
	s := r.Settings
	area := (s.X1 - s.X0) / float64(s.NX) * ((s.Y1 - s.Y0) / float64(s.NY))
	var panels []heatPanel
	for _, d := range ds {
		z := make([]float64, len(d.P))
		for k, p := range d.P {
			z[k] = p / area
		}
		title := d.Label
		switch {
		case d.Key == "truth":
		case d.Samples == 0:
			title += ": no sample"
		default:
			title += fmt.Sprintf(" (TV %.2f)", d.TV)
		}
		panels = append(panels, heatPanel{title: title, grid: grid{s.NX, s.NY, s.X0, s.X1, s.Y0, s.Y1, z}})
	}
	return panels
}
