package experiments

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot sizes: a single figure for a report, and one panel of a row of
// heat maps.
const (
	plotWidth  = 5 * vg.Inch
	plotHeight = 3.5 * vg.Inch
	panelSide  = 2.6 * vg.Inch
	pngDPI     = 110
)

// ftoa formats v with the fewest digits that read back exactly.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeCSV writes a header row and rows to path.
func writeCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		f.Close()
		return err
	}
	if err := w.WriteAll(rows); err != nil { // WriteAll flushes
		f.Close()
		return err
	}
	return f.Close()
}

// axis selects the x axis of a convergence plot.
type axis int

const (
	byIters   axis = iota // against variable updates (Fig. 1)
	bySeconds             // against sampling wall time (Fig. 2)
)

// curvePlot describes a convergence figure.
type curvePlot struct {
	title  string
	ylabel string
	axis   axis
	logY   bool
	curves []Curve
}

// writeCurves writes dir/name.csv (columns key, label, iterations,
// seconds, value, one row per checkpoint) and the figure as dir/name.png
// and dir/name.svg, with a logarithmic x axis. It returns the paths written.
func writeCurves(dir, name string, cp curvePlot) ([]string, error) {
	var rows [][]string
	for _, c := range cp.curves {
		for k := range c.Iters {
			rows = append(rows, []string{c.Key, c.Label, ftoa(c.Iters[k]), ftoa(c.Seconds[k]), ftoa(c.Value[k])})
		}
	}
	csvPath := filepath.Join(dir, name+".csv")
	if err := writeCSV(csvPath, []string{"key", "label", "iterations", "seconds", "value"}, rows); err != nil {
		return nil, err
	}
	p, err := cp.plot()
	if err != nil {
		return nil, err
	}
	paths, err := savePlot(p, dir, name)
	return append([]string{csvPath}, paths...), err
}

// lineStyles are distinguishable in colour and in dashes (for print).
var lineStyles = []struct {
	c    color.RGBA
	dash []vg.Length
}{
	{color.RGBA{0, 0, 0, 255}, nil},
	{color.RGBA{213, 94, 0, 255}, nil},
	{color.RGBA{0, 114, 178, 255}, []vg.Length{vg.Points(5), vg.Points(2)}},
	{color.RGBA{0, 158, 115, 255}, []vg.Length{vg.Points(2), vg.Points(2)}},
	{color.RGBA{204, 121, 167, 255}, []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}},
	{color.RGBA{230, 159, 0, 255}, []vg.Length{vg.Points(1), vg.Points(1)}},
	{color.RGBA{86, 180, 233, 255}, nil},
}

// logLogPlot returns a plot with both axes logarithmic, a grid, the legend
// top left in small type: the frame of the log–log figures.
func logLogPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Left, p.Legend.Top = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	return p
}

// plot draws the curves with a logarithmic x axis.
func (cp curvePlot) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = cp.title
	p.X.Label.Text = "iterations"
	if cp.axis == bySeconds {
		p.X.Label.Text = "wall time (s)"
	}
	p.Y.Label.Text = cp.ylabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	if cp.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	// The curves fall from the top left: the legend goes bottom left.
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	for k, c := range cp.curves {
		var xy plotter.XYs
		for i := range c.Iters {
			x := c.Iters[i]
			if cp.axis == bySeconds {
				x = c.Seconds[i]
			}
			y := c.Value[i]
			// Log axes cannot show zero; a point at 0 s or a zero metric is
			// left out.
			if !(x > 0) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || (cp.logY && !(y > 0)) {
				continue
			}
			xy = append(xy, plotter.XY{X: x, Y: y})
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("bench: plot %s: %w", c.Key, err)
		}
		st := lineStyles[k%len(lineStyles)]
		l.Color = st.c
		l.Dashes = st.dash
		l.Width = vg.Points(1.3)
		p.Add(l)
		p.Legend.Add(c.Label, l)
	}
	return p, nil
}

// savePlot saves p as dir/name.png and dir/name.svg.
func savePlot(p *plot.Plot, dir, name string) ([]string, error) {
	var out []string
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(dir, name+ext)
		w, err := canvasFor(ext, plotWidth, plotHeight, func(dc draw.Canvas) { p.Draw(dc) })
		if err != nil {
			return out, err
		}
		if err := writeFile(path, w); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}

// canvasFor draws with draw on a w×h canvas for the format of ext and
// returns its encoder.
func canvasFor(ext string, w, h vg.Length, drawFn func(draw.Canvas)) (io.WriterTo, error) {
	switch ext {
	case ".png":
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
		drawFn(draw.New(c))
		return vgimg.PngCanvas{Canvas: c}, nil
	case ".svg":
		c := vgsvg.New(w, h)
		drawFn(draw.New(c))
		return c, nil
	}
	return nil, fmt.Errorf("bench: unknown plot format %q", ext)
}

func writeFile(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// grid is a heat map's data: cell (i, j) of an nx×ny grid on
// [x0, x1] × [y0, y1] at z[i·ny + j].
type grid struct {
	nx, ny         int
	x0, x1, y0, y1 float64
	z              []float64
}

func (g grid) Dims() (c, r int)   { return g.nx, g.ny }
func (g grid) Z(c, r int) float64 { return g.z[c*g.ny+r] }
func (g grid) X(c int) float64    { return g.x0 + (float64(c)+0.5)*(g.x1-g.x0)/float64(g.nx) }
func (g grid) Y(r int) float64    { return g.y0 + (float64(r)+0.5)*(g.y1-g.y0)/float64(g.ny) }

// maxOf returns the largest element of z (−Inf for none).
func maxOf(z []float64) float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	return m
}

// heatPalette is a perceptually uniform palette from white-ish black-body
// colours: the moreland extended black body, reversed so that zero density
// is light.
func heatPalette(n int) palette.Palette {
	m := moreland.ExtendedBlackBody()
	return palette.Reverse(m).Palette(n)
}

// heatPanel is one panel of a row of heat maps.
type heatPanel struct {
	title string
	grid
}

// writeHeatMaps draws panels side by side, all on one colour scale from 0
// to zmax (values above it get the darkest colour; zmax ≤ 0 means the
// largest value of all panels), and saves them as dir/name.png and
// dir/name.svg. It returns the paths written.
func writeHeatMaps(dir, name, xlabel, ylabel string, panels []heatPanel, zmax float64) ([]string, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("bench: no heat map panels")
	}
	top := 0.0
	for _, hp := range panels {
		if len(hp.z) != hp.nx*hp.ny || hp.nx < 1 || hp.ny < 1 {
			return nil, fmt.Errorf("bench: heat map %q: %d values for %d×%d cells", hp.title, len(hp.z), hp.nx, hp.ny)
		}
		top = max(top, maxOf(hp.z))
	}
	if !(zmax > 0) {
		zmax = top
	}
	if !(zmax > 0) {
		zmax = 1
	}
	pal := heatPalette(64)
	plots := make([][]*plot.Plot, 1)
	for _, hp := range panels {
		p := plot.New()
		p.Title.Text = hp.title
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
		hm := plotter.NewHeatMap(hp.grid, pal)
		hm.Min, hm.Max = 0, zmax
		hm.Overflow = pal.Colors()[len(pal.Colors())-1]
		hm.Rasterized = true
		p.Add(hm)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = hp.x0, hp.x1, hp.y0, hp.y1
		plots[0] = append(plots[0], p)
	}
	return saveRow(plots[0], dir, name, panelSide*vg.Length(len(panels)), panelSide+0.2*vg.Inch, vg.Points(6), vg.Points(2))
}

// saveRow draws plots side by side, aligned, on a w×h canvas (padX between
// panels, padRight at the right edge) and saves it as dir/name.png and
// dir/name.svg, returning the paths written.
func saveRow(plots []*plot.Plot, dir, name string, w, h, padX, padRight vg.Length) ([]string, error) {
	var out []string
	for _, ext := range []string{".png", ".svg"} {
		wt, err := canvasFor(ext, w, h, func(dc draw.Canvas) {
			tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: padX, PadY: vg.Points(4),
				PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: padRight}
			cs := plot.Align([][]*plot.Plot{plots}, tiles, dc)
			for j, p := range plots {
				p.Draw(cs[0][j])
			}
		})
		if err != nil {
			return out, err
		}
		path := filepath.Join(dir, name+ext)
		if err := writeFile(path, wt); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}
