package convplot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgibbs/pgibbs/diag"
)

// tracePicture draws each chain's draws against the draw number.
func tracePicture(q Quantity, in *info, ess float64, o Options) (picture, error) {
	p := newPlot(headline("trace", in, ess), "draw", in.label)
	p.Add(plotter.NewGrid())
	l := newLegend()
	labels := make([]string, len(q.Chains))
	for k, c := range q.Chains {
		xy := thin(c, maxTracePoints)
		// The PNG rasteriser slows down quadratically on long jagged
		// paths: stroke the trace in short pieces that share their ends.
		for lo := 0; lo < len(xy)-1 || lo == 0; lo += tracePiece {
			line, err := plotter.NewLine(xy[lo:min(lo+tracePiece+1, len(xy))])
			if err != nil {
				return picture{}, fmt.Errorf("convplot: trace of %s, chain %d: %w", in.label, k, err)
			}
			line.LineStyle = lineStyle(k, vg.Points(0.7))
			p.Add(line)
			if lo == 0 {
				labels[k] = "chain " + strconv.Itoa(k)
				l.Add(labels[k], line)
			}
		}
	}
	p.X.Min, p.X.Max = 1, float64(len(q.Chains[0]))
	p.X.Tick.Marker = plainTicks{}
	p.Y.Min, p.Y.Max = padRange(q.Chains)
	return picture{name: o.Prefix + "trace-" + in.stem, w: o.Width, h: o.Height,
		draw: besideLegend(p, l, legendWidth(l, labels))}, nil
}

// padRange returns the range of all draws widened by 4% on each side (by
// max(0.5, 4% of the value) for constant draws), so that no line runs
// along the frame. A range wider than the largest float64 is cut to
// [−MaxFloat64/4, MaxFloat64/4].
func padRange(chains [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range chains {
		lo, hi = min(lo, slices.Min(c)), max(hi, slices.Max(c))
	}
	if math.IsInf(hi-lo, 0) {
		// gonum's axes need a finite width (its ticks never end
		// otherwise): show the middle of the float64 range only.
		lo, hi = max(lo, -math.MaxFloat64/4), min(hi, math.MaxFloat64/4)
	}
	pad := 0.04 * (hi - lo)
	if !(pad > 0) {
		pad = math.Max(0.5, 0.04*math.Abs(lo))
	}
	return lo - pad, hi + pad
}

// tracePiece is the number of segments stroked at once in a trace plot.
const tracePiece = 64

// thin returns the points (draw number, value) of x, at most about
// maxPoints of them: when x is longer, each of maxPoints/2 runs of
// consecutive draws is replaced by its smallest and largest draw, in the
// order they occur, so that the envelope of the trace, spikes included,
// survives.
func thin(x []float64, maxPoints int) plotter.XYs {
	n := len(x)
	if n <= maxPoints {
		xy := make(plotter.XYs, n)
		for i, v := range x {
			xy[i] = plotter.XY{X: float64(i + 1), Y: v}
		}
		return xy
	}
	runs := maxPoints / 2
	xy := make(plotter.XYs, 0, maxPoints)
	for r := range runs {
		lo, hi := r*n/runs, (r+1)*n/runs
		imin, imax := lo, lo
		for i := lo + 1; i < hi; i++ {
			if x[i] < x[imin] {
				imin = i
			}
			if x[i] > x[imax] {
				imax = i
			}
		}
		a, b := min(imin, imax), max(imin, imax)
		xy = append(xy, plotter.XY{X: float64(a + 1), Y: x[a]})
		if b != a {
			xy = append(xy, plotter.XY{X: float64(b + 1), Y: x[b]})
		}
	}
	return xy
}

// rankCounts pools the draws of all chains, ranks them and returns, for
// each chain, the histogram of its ranks in bins equal-width bins of
// [0, S), S the number of draws (the draw of rank r, 1 ≤ r ≤ S, occupies
// [r−1, r)). Tied draws share their ranks evenly: a group of g equal draws
// occupying [lo, lo+g) puts 1/g of each of its draws on every unit of that
// interval, so the counts are those expected if ties were broken at random
// and a discrete quantity that mixes well still gives flat histograms.
func rankCounts(chains [][]float64, bins int) [][]float64 {
	type draw struct {
		v float64
		k int
	}
	d := make([]draw, 0, len(chains)*len(chains[0]))
	for k, c := range chains {
		for _, v := range c {
			d = append(d, draw{v, k})
		}
	}
	// The draws are finite (validated), so < is a total order; the order
	// within a tie group does not matter.
	slices.SortFunc(d, func(a, b draw) int { return cmp.Compare(a.v, b.v) })
	counts := make([][]float64, len(chains))
	for k := range counts {
		counts[k] = make([]float64, bins)
	}
	s := len(d)
	width := float64(s) / float64(bins)
	for lo := 0; lo < s; {
		hi := lo + 1
		for hi < s && d[hi].v == d[lo].v {
			hi++
		}
		g := float64(hi - lo)
		for b := int(float64(lo) / width); b < bins && float64(b)*width < float64(hi); b++ {
			overlap := math.Min(float64(hi), float64(b+1)*width) - math.Max(float64(lo), float64(b)*width)
			if overlap <= 0 {
				continue
			}
			for _, e := range d[lo:hi] {
				counts[e.k][b] += overlap / g
			}
		}
		lo = hi
	}
	return counts
}

// rankPicture draws ArviZ's rank plot: one panel per chain, stacked, with
// the histogram of the chain's ranks among all draws and the count a
// uniform histogram would have.
func rankPicture(q Quantity, in *info, ess float64, o Options) (picture, error) {
	k, n := len(q.Chains), len(q.Chains[0])
	bins := min(rankBins, n)
	counts := rankCounts(q.Chains, bins)
	s := float64(k * n)
	expect := float64(n) / float64(bins)
	top := expect
	for _, c := range counts {
		top = max(top, slices.Max(c))
	}
	rows := make([][]*plot.Plot, k)
	for c := range counts {
		p := newPlot("", "", "chain "+strconv.Itoa(c))
		p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: expect, Label: strconv.FormatFloat(expect, 'f', -1, 64)}}
		if c == k-1 {
			p.X.Label.Text = "rank among all draws"
		} else {
			p.X.Tick.Label.Color = color.Transparent
		}
		h := &plotter.Histogram{FillColor: fade(chainColors[c%len(chainColors)]), LineStyle: lineStyle(c, vg.Points(0.5))}
		h.LineStyle.Dashes = nil
		for b, v := range counts[c] {
			h.Bins = append(h.Bins, plotter.HistogramBin{Min: float64(b) * s / float64(bins), Max: float64(b+1) * s / float64(bins), Weight: v})
		}
		u, err := hline(expect, 0, s)
		if err != nil {
			return picture{}, fmt.Errorf("convplot: rank plot of %s: %w", in.label, err)
		}
		p.Add(h, u)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, s, 0, 1.08*top
		rows[c] = []*plot.Plot{p}
	}
	title := headline("ranks", in, ess)
	h := max(o.Height, vg.Inch*(0.5+0.8*vg.Length(k)))
	return picture{name: o.Prefix + "rank-" + in.stem, w: o.Width, h: h, draw: func(dc draw.Canvas) {
		drawTitle(dc, title)
		body := draw.Crop(dc, 0, 0, 0, -vg.Points(20))
		tiles := draw.Tiles{Rows: k, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2),
			PadLeft: vg.Points(2), PadRight: vg.Points(8)}
		for r, cs := range plot.Align(rows, tiles, body) {
			rows[r][0].Draw(cs[0])
		}
	}}, nil
}

// fade returns c mixed with white, for filled bars.
func fade(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8((int(v) + 2*255) / 3) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

// drawTitle writes a figure title centred at the top of dc.
func drawTitle(dc draw.Canvas, title string) {
	p := newPlot(title, "", "")
	sty := p.Title.TextStyle
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)}, title)
}

// runningRHat returns the split-R̂ of the first n draws of every chain for
// about points values of n, evenly spaced from min(runningStart, N) (at
// least MinDraws) to all N draws.
func runningRHat(chains [][]float64, points int) (ns []int, rhat []float64, err error) {
	n := len(chains[0])
	start := max(MinDraws, min(runningStart, n))
	prefix := make([][]float64, len(chains))
	for j := range points {
		m := start
		if points > 1 {
			m = start + int(math.Round(float64(j)*float64(n-start)/float64(points-1)))
		}
		if len(ns) > 0 && ns[len(ns)-1] == m {
			continue
		}
		for k, c := range chains {
			prefix[k] = c[:m]
		}
		r, err := diag.SplitRHat(prefix)
		if err != nil {
			return nil, nil, err
		}
		ns, rhat = append(ns, m), append(rhat, r)
	}
	return ns, rhat, nil
}

// rhatPicture draws the running split-R̂ of the selected quantities against
// the number of draws per chain, on an axis logarithmic in R̂ − 1.
func rhatPicture(qs []Quantity, infos []info, sel []int, o Options) (picture, error) {
	p := newPlot("running split R-hat (first n draws of every chain)", "draws per chain n", "split R-hat")
	p.Add(plotter.NewGrid())
	l := newLegend()
	var labels []string
	top, right := 1.1, 1.0 // the axis reaches 1.1 at least: the threshold always shows
	for j, i := range sel {
		ns, r, err := runningRHat(qs[i].Chains, runningPoints)
		if err != nil {
			return picture{}, fmt.Errorf("convplot: running R-hat of %s: %w", infos[i].label, err)
		}
		xy, peak := rhatPoints(ns, r)
		right = max(right, float64(ns[len(ns)-1]))
		lbl := infos[i].label
		if len(xy) == 0 {
			labels = append(labels, lbl+" (R-hat undefined)")
			l.Add(labels[len(labels)-1])
			continue
		}
		top = max(top, peak)
		line, err := plotter.NewLine(xy)
		if err != nil {
			return picture{}, fmt.Errorf("convplot: running R-hat of %s: %w", lbl, err)
		}
		line.LineStyle = lineStyle(j, vg.Points(1.2))
		p.Add(line)
		labels = append(labels, lbl)
		l.Add(lbl, line)
		if len(xy) == 1 { // a single chain length: a line would not show
			dot, err := plotter.NewScatter(xy)
			if err != nil {
				return picture{}, fmt.Errorf("convplot: running R-hat of %s: %w", lbl, err)
			}
			dot.GlyphStyle = draw.GlyphStyle{Color: line.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
			p.Add(dot)
		}
	}
	thr, err := hline(rhatThreshold, 0, right)
	if err != nil {
		return picture{}, err
	}
	p.Add(thr)
	l.Add("R-hat = 1.01", thr)
	labels = append(labels, "R-hat = 1.01")
	p.X.Min, p.X.Max = 0, right
	p.X.Tick.Marker = plainTicks{}
	p.Y.Scale = rhatScale{}
	p.Y.Tick.Marker = plot.TickerFunc(rhatTicks)
	p.Y.Min, p.Y.Max = 1+rhatFloor, 1+math.Pow(10, math.Ceil(math.Log10(top-1)))
	return picture{name: o.Prefix + "rhat", w: o.Width, h: o.Height, draw: besideLegend(p, l, legendWidth(l, labels))}, nil
}

// rhatFloor is the smallest R̂ − 1 the running R̂ axis shows: values below
// it (R̂ slightly below 1 included) are drawn on the bottom edge.
const rhatFloor = 1e-4

// rhatCap is the largest R̂ the running R̂ axis shows.
const rhatCap = 101

// rhatPoints returns the points of a running R̂ curve and its largest
// value: an R̂ above rhatCap (+Inf included: chains each constant at
// different values) is drawn at rhatCap, a NaN one (all draws equal) is
// left out.
func rhatPoints(ns []int, r []float64) (plotter.XYs, float64) {
	var xy plotter.XYs
	peak := math.Inf(-1)
	for j, v := range r {
		if math.IsNaN(v) {
			continue
		}
		v = min(v, rhatCap)
		xy = append(xy, plotter.XY{X: float64(ns[j]), Y: v})
		peak = max(peak, v)
	}
	return xy, peak
}

// rhatScale maps R̂ to log(R̂ − 1), clamped below at rhatFloor, so that the
// approach to 1 is visible at every scale.
type rhatScale struct{}

func (rhatScale) Normalize(lo, hi, x float64) float64 {
	f := func(v float64) float64 { return math.Log(max(v-1, rhatFloor)) }
	return (f(x) - f(lo)) / (f(hi) - f(lo))
}

// rhatTicks marks R̂ = 1 + 10^e for whole e in [lo, hi].
func rhatTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(max(lo-1, rhatFloor))); e <= math.Log10(hi-1)+1e-9; e++ {
		v := 1 + math.Pow(10, e)
		lbl := strconv.FormatFloat(v, 'g', -1, 64)
		if v <= 1+rhatFloor {
			lbl = "≤ " + lbl
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: lbl})
		for m := 2.0; m < 10; m++ {
			if w := 1 + m*math.Pow(10, e); w <= hi {
				ticks = append(ticks, plot.Tick{Value: w})
			}
		}
	}
	return ticks
}

// plainTicks are gonum's default ticks with labels in the shortest
// format, so that counts of draws read 25 rather than 25.00.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
	}
	return ticks
}
