package papers

import (
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/pgibbs/pgibbs/experiments/harness"
)

// panelSide is the side of one panel of a row of heat maps.
const panelSide = 2.6 * vg.Inch

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
			rows = append(rows, []string{c.Key, c.Label, harness.Ftoa(c.Iters[k]), harness.Ftoa(c.Seconds[k]), harness.Ftoa(c.Value[k])})
		}
	}
	csvPath := filepath.Join(dir, name+".csv")
	if err := harness.WriteCSV(csvPath, []string{"key", "label", "iterations", "seconds", "value"}, rows); err != nil {
		return nil, err
	}
	p, err := cp.plot()
	if err != nil {
		return nil, err
	}
	paths, err := harness.SavePlot(p, dir, name)
	return append([]string{csvPath}, paths...), err
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
			return nil, fmt.Errorf("experiments: plot %s: %w", c.Key, err)
		}
		st := harness.LineStyles[k%len(harness.LineStyles)]
		l.Color = st.Color
		l.Dashes = st.Dashes
		l.Width = vg.Points(1.3)
		p.Add(l)
		p.Legend.Add(c.Label, l)
	}
	return p, nil
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
		return nil, fmt.Errorf("experiments: no heat map panels")
	}
	top := 0.0
	for _, hp := range panels {
		if len(hp.z) != hp.nx*hp.ny || hp.nx < 1 || hp.ny < 1 {
			return nil, fmt.Errorf("experiments: heat map %q: %d values for %d×%d cells", hp.title, len(hp.z), hp.nx, hp.ny)
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
	return harness.SaveRow(plots[0], dir, name, panelSide*vg.Length(len(panels)), panelSide+0.2*vg.Inch, vg.Points(6), vg.Points(2))
}
