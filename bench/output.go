package bench

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// Table is a small table of results, written as CSV and printed as
// Markdown.
type Table struct {
	Header []string
	Rows   [][]string
}

// WriteCSV writes the table to dir/name.csv and returns the path.
func (t Table) WriteCSV(dir, name string) (string, error) {
	path := filepath.Join(dir, name+".csv")
	return path, WriteCSV(path, t.Header, t.Rows)
}

// Markdown returns the table in GitHub Markdown.
func (t Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// fmtG formats v with digits significant digits ("–" for NaN).
func fmtG(v float64, digits int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// CurveTable summarises curves: per sampler the updates and seconds of
// the last checkpoint reached by every run, the metric there, the work per
// update, and the acceptance rate or rejection tries where they apply.
func CurveTable(curves []Curve) Table {
	t := Table{Header: []string{"sampler", "updates", "seconds", "final value", "µs/update", "factors/update", "draws/update", "MH acceptance", "tries/update", "note"}}
	for _, c := range curves {
		n := len(c.Iters)
		row := []string{c.Label, "0", "0", "–", "–"}
		if n > 0 {
			row = []string{c.Label, fmtG(c.Iters[n-1], 7), fmtG(c.Seconds[n-1], 4), fmtG(c.Value[n-1], 4),
				fmtG(c.Seconds[n-1]/c.Iters[n-1]*1e6, 4)}
		}
		st := c.Stats
		acc, tries := "–", "–"
		if st.Proposals > 0 {
			acc = fmtG(st.AcceptanceRate(), 3)
		}
		if st.Tries > 0 {
			tries = fmtG(st.TriesPerStep(), 4)
		}
		note := ""
		if c.Capped {
			note = "stopped by the time budget"
		}
		row = append(row, fmtG(st.FactorsPerStep(), 4), fmtG(st.PicksPerStep(), 4), acc, tries, note)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Table returns Table 1 with the paper's values.
func (r *Table1Result) Table() Table {
	t := Table{Header: []string{"sampler", "step", "acceptance", "mean batch", "± SE", "runs", "paper (Table 1)", "µs/step"}}
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, []string{row.Label, fmtG(row.Options.Step, 3), fmtG(row.Accept, 3), fmtG(row.MeanBatch, 6),
			fmtG(row.SE, 3), strconv.Itoa(len(row.Batch)), row.Paper, fmtG(row.NsPerStep/1000, 4)})
	}
	return t
}

// Table returns the ESS comparison with the paper's values.
func (r *RLRResult) Table() Table {
	t := Table{Header: []string{"sampler", "steps", "acceptance", "mean batch", "µs/step", "ESS min", "ESS mean", "ESS/s (min)", "paper ESS/s (d = 10)", "note"}}
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, []string{row.Label, strconv.FormatInt(row.Steps, 10), fmtG(row.Accept, 3), fmtG(row.MeanBatch, 4),
			fmtG(row.UsPerStep, 4), fmtG(row.ESSMin, 4), fmtG(row.ESSMean, 4), fmtG(row.ESSPerSec, 4), row.Paper, row.Note})
	}
	return t
}

// Table returns the TV distances of the density estimates.
func (r *TGMResult) Table() Table {
	t := Table{Header: []string{"sampler", "samples", "seconds", "TV to truth", "factors/update", "draws/update", "MH acceptance", "tries/update", "note"}}
	for _, d := range r.Estimates {
		st := d.Stats
		acc, tries := "–", "–"
		if st.Proposals > 0 {
			acc = fmtG(st.AcceptanceRate(), 3)
		}
		if st.Tries > 0 {
			tries = fmtG(float64(st.Tries)/float64(max(st.Steps, 1)), 4)
		}
		t.Rows = append(t.Rows, []string{d.Label, strconv.FormatInt(d.Samples, 10), fmtG(d.Seconds, 4), fmtG(d.TV, 3),
			fmtG(st.FactorsPerStep(), 5), fmtG(st.PicksPerStep(), 5), acc, tries, d.Err})
	}
	return t
}

// Write writes the density grid as dir/name.csv (columns x1, x2, truth and
// one per estimate: the probability of each cell) and the heat maps, the
// truth first, as dir/name.png and dir/name.svg. Densities are drawn per
// unit area, on one colour scale from 0 to 1.5 times the true density's
// maximum (noisier estimates saturate above it).
func (r *TGMResult) Write(dir, name string) ([]string, error) {
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
			row := []string{ftoa(s.X0 + (float64(i)+0.5)*wx), ftoa(s.Y0 + (float64(j)+0.5)*wy)}
			for _, d := range all {
				row = append(row, ftoa(d.P[i*s.NY+j]))
			}
			rows = append(rows, row)
		}
	}
	csvPath := filepath.Join(dir, name+".csv")
	if err := WriteCSV(csvPath, header, rows); err != nil {
		return nil, err
	}
	var panels []HeatPanel
	zmax := 1.5 * maxOf(r.Truth.P) / (wx * wy)
	for _, d := range all {
		z := make([]float64, len(d.P))
		for k, p := range d.P {
			z[k] = p / (wx * wy)
		}
		title := d.Label
		switch {
		case d.Key == "truth":
		case d.Samples == 0:
			title += ": no sample"
		default:
			title += fmt.Sprintf(" (TV %.2f)", d.TV)
		}
		panels = append(panels, HeatPanel{Title: title, NX: s.NX, NY: s.NY, X0: s.X0, X1: s.X1, Y0: s.Y0, Y1: s.Y1, Z: z})
	}
	paths, err := WriteHeatMaps(dir, name, "x1", "x2", panels, zmax)
	return append([]string{csvPath}, paths...), err
}
