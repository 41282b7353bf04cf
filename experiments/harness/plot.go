package harness

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotWidth and PlotHeight are the size of a single figure for a report.
const (
	PlotWidth  = 5 * vg.Inch
	PlotHeight = 3.5 * vg.Inch
	pngDPI     = 110
)

// LineStyle is a line's colour and dash pattern (nil: solid).
type LineStyle struct {
	Color  color.RGBA
	Dashes []vg.Length
}

// LineStyles are distinguishable in colour and in dashes (for print).
var LineStyles = []LineStyle{
	{color.RGBA{0, 0, 0, 255}, nil},
	{color.RGBA{213, 94, 0, 255}, nil},
	{color.RGBA{0, 114, 178, 255}, []vg.Length{vg.Points(5), vg.Points(2)}},
	{color.RGBA{0, 158, 115, 255}, []vg.Length{vg.Points(2), vg.Points(2)}},
	{color.RGBA{204, 121, 167, 255}, []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}},
	{color.RGBA{230, 159, 0, 255}, []vg.Length{vg.Points(1), vg.Points(1)}},
	{color.RGBA{86, 180, 233, 255}, nil},
}

// LogLogPlot returns a plot with both axes logarithmic, a grid, the legend
// top left in small type: the frame of the log–log figures.
func LogLogPlot(title, xlabel, ylabel string) *plot.Plot {
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

// AddSeries adds xy to p as a line through markers, 1.3 pt wide with
// markers of radius 2.5 pt, in colour c with dashes (nil: solid) and the
// marker shape (nil: the default ring), and labels it in the legend. An
// empty xy adds nothing.
func AddSeries(p *plot.Plot, xy plotter.XYs, c color.Color, dashes []vg.Length, shape draw.GlyphDrawer, label string) error {
	if len(xy) == 0 {
		return nil
	}
	l, sc, err := plotter.NewLinePoints(xy)
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.3)
	sc.Color, sc.Radius = c, vg.Points(2.5)
	if shape != nil {
		sc.Shape = shape
	}
	p.Add(l, sc)
	p.Legend.Add(label, l, sc)
	return nil
}

// SavePlot saves p, PlotWidth × PlotHeight, as dir/name.png and
// dir/name.svg, and returns the paths written.
func SavePlot(p *plot.Plot, dir, name string) ([]string, error) {
	var out []string
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(dir, name+ext)
		w, err := canvasFor(ext, PlotWidth, PlotHeight, func(dc draw.Canvas) { p.Draw(dc) })
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

// SaveRow draws plots side by side, aligned, on a w×h canvas (padX between
// panels, padRight at the right edge) and saves it as dir/name.png and
// dir/name.svg, returning the paths written.
func SaveRow(plots []*plot.Plot, dir, name string, w, h, padX, padRight vg.Length) ([]string, error) {
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
	return nil, fmt.Errorf("experiments: unknown plot format %q", ext)
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
