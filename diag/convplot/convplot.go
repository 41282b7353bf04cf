package convplot

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pgibbs/pgibbs/diag"
)

// Quantity is one tracked scalar: Chains[k] holds chain k's draws, in
// order. All chains of a quantity must have the same number of draws; two
// quantities may differ in their numbers of chains and draws.
type Quantity struct {
	// Name labels the pictures and names their files. It may be empty
	// (the quantity is then called q<i>, i its index in the slice given to
	// [Write]) and two quantities may share a name.
	Name   string
	Chains [][]float64
}

// Options tunes [Write]. The zero value (or a nil *Options) gives the
// defaults.
type Options struct {
	// Max is the most quantities drawn (default 6): when there are more,
	// those with the largest split-R̂ are drawn (ties: the smaller bulk
	// ESS first, then the name, then the order given). A negative Max is an
	// error.
	Max int
	// Width and Height are the size of one picture (default 6×3.5 inches,
	// at most 50 inches each). A rank plot grows taller than Height when
	// there are more than four chains.
	Width, Height vg.Length
	// Prefix is put in front of every file name. It may hold only ASCII
	// letters, digits, '.', '_' and '-'.
	Prefix string
}

// Defaults and limits.
const (
	defaultMax    = 6
	defaultWidth  = 6 * vg.Inch
	defaultHeight = 3.5 * vg.Inch
	maxSide       = 50 * vg.Inch
	pngDPI        = 110

	// MinDraws is the fewest draws per chain [Write] accepts: split-R̂
	// then has two draws in each half-chain. Bulk ESS needs 6 and is
	// shown as n/a below that.
	MinDraws = 4

	maxTracePoints = 2000 // points drawn per chain in a trace plot
	rankBins       = 20   // bins of a rank histogram (fewer for short chains)
	runningPoints  = 50   // chain lengths at which the running R̂ is computed
	runningStart   = 20   // draws per chain of the first running R̂
	rhatThreshold  = 1.01 // Vehtari et al. (2021)
	maxStem        = 48   // longest file stem taken from a name
	maxLabel       = 40   // longest name shown in a picture, in runes
)

// Write draws the convergence pictures of the quantities qs into the
// existing directory dir and returns the paths of the files written, in
// this order: for each quantity drawn, worst split-R̂ first, its trace plot
// and its rank plot; then the running split-R̂ of all quantities drawn.
// Each picture is written as PNG and then as SVG:
//
//	<Prefix>trace-<stem>.png  <Prefix>trace-<stem>.svg
//	<Prefix>rank-<stem>.png   <Prefix>rank-<stem>.svg
//	<Prefix>rhat.png          <Prefix>rhat.svg
//
// where stem is the quantity's name with every character other than an
// ASCII letter, digit, '.', '_' or '-' replaced by '_' (q<i> for an empty
// name); a stem equal to an earlier quantity's, ignoring case, gets the
// suffix -2, -3, …. Existing files of these names are overwritten.
//
// Write checks everything before it writes anything: there must be at
// least one quantity, each with at least one chain, chains of equal length
// of at least [MinDraws] draws, and finite draws; dir must be an existing
// directory (Write never creates one and writes nowhere else), and a file
// it would write must not exist as anything but a regular file (a symbolic
// link, say). If writing fails part way, Write returns the files written so
// far with the error. The output depends only on the input: the same
// quantities give byte-identical files.
func Write(dir string, qs []Quantity, opt *Options) (files []string, err error) {
	o, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if err := validate(qs); err != nil {
		return nil, err
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	infos, err := summarize(qs)
	if err != nil {
		return nil, err
	}
	sel := selectWorst(qs, infos, o.Max)
	pics, err := pictures(qs, infos, sel, o)
	if err != nil {
		return nil, err
	}
	for _, pic := range pics {
		for _, ext := range []string{".png", ".svg"} {
			if err := checkTarget(filepath.Join(dir, pic.name+ext)); err != nil {
				return nil, err
			}
		}
	}
	for _, pic := range pics {
		written, err := pic.save(dir)
		files = append(files, written...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// resolve returns the options with defaults filled in, or an error.
func (opt *Options) resolve() (Options, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Max < 0 {
		return o, fmt.Errorf("convplot: Max = %d, want ≥ 0 (0 for the default %d)", o.Max, defaultMax)
	}
	if o.Max == 0 {
		o.Max = defaultMax
	}
	if o.Width == 0 {
		o.Width = defaultWidth
	}
	if o.Height == 0 {
		o.Height = defaultHeight
	}
	for _, s := range []struct {
		name string
		v    vg.Length
	}{{"Width", o.Width}, {"Height", o.Height}} {
		if !(s.v > 0 && s.v <= maxSide) {
			return o, fmt.Errorf("convplot: %s = %.4gin, want a size in (0, %gin]", s.name, s.v/vg.Inch, maxSide/vg.Inch)
		}
	}
	for _, r := range o.Prefix {
		if !stemRune(r) {
			return o, fmt.Errorf("convplot: Prefix %q: only ASCII letters, digits, '.', '_' and '-' are allowed", o.Prefix)
		}
	}
	return o, nil
}

// validate checks the quantities and names the first bad one.
func validate(qs []Quantity) error {
	if len(qs) == 0 {
		return errors.New("convplot: no quantities")
	}
	for i, q := range qs {
		if len(q.Chains) == 0 {
			return fmt.Errorf("convplot: %s: no chains", describe(i, q.Name))
		}
		n := len(q.Chains[0])
		for k, c := range q.Chains {
			if len(c) != n {
				return fmt.Errorf("convplot: %s: chain %d has %d draws, chain 0 has %d; chains must have equal lengths",
					describe(i, q.Name), k, len(c), n)
			}
		}
		if n < MinDraws {
			return fmt.Errorf("convplot: %s: %d draws per chain, need at least %d", describe(i, q.Name), n, MinDraws)
		}
		for k, c := range q.Chains {
			for j, v := range c {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("convplot: %s: chain %d, draw %d is %v", describe(i, q.Name), k, j, v)
				}
			}
		}
	}
	return nil
}

// describe names quantity i in an error message.
func describe(i int, name string) string {
	return fmt.Sprintf("quantity %d (%q)", i, name)
}

// checkDir reports an error unless dir is an existing directory.
func checkDir(dir string) error {
	if dir == "" {
		return errors.New("convplot: no directory given")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("convplot: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("convplot: %s is not a directory", dir)
	}
	return nil
}

// checkTarget reports an error if path exists as anything but a regular
// file, so that Write never writes through a link to somewhere else.
func checkTarget(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("convplot: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("convplot: %s exists and is not a regular file", path)
	}
	return nil
}

// info is what the pictures say about one quantity.
type info struct {
	label string  // name shown in pictures
	stem  string  // file stem, unique among the quantities
	rhat  float64 // split-R̂ of all draws
	ess   float64 // bulk ESS of all draws; NaN if undefined; computed lazily
	done  bool    // ess is computed
}

// summarize computes the labels, stems and split-R̂ of all quantities.
func summarize(qs []Quantity) ([]info, error) {
	infos := make([]info, len(qs))
	used := make(map[string]bool, len(qs))
	for i, q := range qs {
		r, err := diag.SplitRHat(q.Chains)
		if err != nil {
			return nil, fmt.Errorf("convplot: %s: %w", describe(i, q.Name), err)
		}
		infos[i] = info{label: label(i, q.Name), stem: uniqueStem(stem(i, q.Name), used), rhat: r}
	}
	return infos, nil
}

// bulkESS returns the bulk ESS of quantity i, computing it once; it is NaN
// when undefined (all draws equal, or fewer than 6 draws per chain).
func bulkESS(qs []Quantity, infos []info, i int) float64 {
	in := &infos[i]
	if !in.done {
		in.ess = math.NaN()
		if len(qs[i].Chains[0]) >= 6 {
			if e, err := diag.BulkESS(qs[i].Chains); err == nil {
				in.ess = e
			}
		}
		in.done = true
	}
	return in.ess
}

// selectWorst returns the indices of the at most max quantities to draw,
// worst first: largest split-R̂ (NaN, a constant quantity, counts as
// smallest), then smallest bulk ESS (NaN counts as 0), then name, then
// index.
func selectWorst(qs []Quantity, infos []info, max int) []int {
	idx := make([]int, len(qs))
	for i := range idx {
		idx[i] = i
	}
	key := func(v, nan float64) float64 {
		if math.IsNaN(v) {
			return nan
		}
		return v
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(key(infos[b].rhat, math.Inf(-1)), key(infos[a].rhat, math.Inf(-1))); c != 0 {
			return c
		}
		if c := cmp.Compare(key(bulkESS(qs, infos, a), 0), key(bulkESS(qs, infos, b), 0)); c != 0 {
			return c
		}
		if c := strings.Compare(qs[a].Name, qs[b].Name); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return idx[:min(max, len(idx))]
}

// stemRune reports whether r may appear in a file name as it is.
func stemRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
}

// stem returns the file stem of quantity i named name.
func stem(i int, name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == maxStem {
			break
		}
		if stemRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "q" + strconv.Itoa(i)
	}
	return b.String()
}

// uniqueStem returns s, or s-2, s-3, … if s (ignoring case, for file
// systems that ignore it) is in used, and marks the result used.
func uniqueStem(s string, used map[string]bool) string {
	out := s
	for k := 2; used[strings.ToLower(out)]; k++ {
		out = s + "-" + strconv.Itoa(k)
	}
	used[strings.ToLower(out)] = true
	return out
}

// label returns the name of quantity i as shown in pictures: q<i> for an
// empty name, shortened to maxLabel runes.
func label(i int, name string) string {
	if name == "" {
		return "q" + strconv.Itoa(i)
	}
	if utf8.RuneCountInString(name) > maxLabel {
		r := []rune(name)
		return string(r[:maxLabel-1]) + "…"
	}
	return name
}

// picture is one figure to be saved as PNG and SVG.
type picture struct {
	name string // file name without extension
	w, h vg.Length
	draw func(draw.Canvas)
}

// save writes the picture as dir/name.png and dir/name.svg.
func (pic picture) save(dir string) ([]string, error) {
	var out []string
	for _, ext := range []string{".png", ".svg"} {
		var buf bytes.Buffer
		var w io.WriterTo
		if ext == ".png" {
			c := vgimg.NewWith(vgimg.UseWH(pic.w, pic.h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
			pic.draw(draw.New(c))
			w = vgimg.PngCanvas{Canvas: c}
		} else {
			c := vgsvg.New(pic.w, pic.h)
			pic.draw(draw.New(c))
			w = c
		}
		if _, err := w.WriteTo(&buf); err != nil {
			return out, fmt.Errorf("convplot: encoding %s%s: %w", pic.name, ext, err)
		}
		path := filepath.Join(dir, pic.name+ext)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return out, fmt.Errorf("convplot: %w", err)
		}
		out = append(out, path)
	}
	return out, nil
}

// pictures builds every picture, in the order they are written.
func pictures(qs []Quantity, infos []info, sel []int, o Options) ([]picture, error) {
	var pics []picture
	for _, i := range sel {
		tr, err := tracePicture(qs[i], &infos[i], bulkESS(qs, infos, i), o)
		if err != nil {
			return nil, err
		}
		rk, err := rankPicture(qs[i], &infos[i], bulkESS(qs, infos, i), o)
		if err != nil {
			return nil, err
		}
		pics = append(pics, tr, rk)
	}
	rh, err := rhatPicture(qs, infos, sel, o)
	if err != nil {
		return nil, err
	}
	return append(pics, rh), nil
}

// headline returns a picture's title: the quantity's name, split-R̂ and
// bulk ESS.
func headline(kind string, in *info, ess float64) string {
	return fmt.Sprintf("%s of %s: split R-hat %s, bulk ESS %s", kind, in.label, fmtRHat(in.rhat), fmtESS(ess))
}

func fmtRHat(r float64) string {
	switch {
	case math.IsNaN(r):
		return "n/a"
	case math.IsInf(r, 1):
		return "∞ (stuck)"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

func fmtESS(e float64) string {
	if math.IsNaN(e) {
		return "n/a"
	}
	return strconv.FormatFloat(e, 'f', 0, 64)
}

// chainColors are the Okabe–Ito colours, distinguishable by most colour
// blind readers; lines beyond them cycle with dashes.
var chainColors = []color.RGBA{
	{0, 114, 178, 255},
	{213, 94, 0, 255},
	{0, 158, 115, 255},
	{204, 121, 167, 255},
	{230, 159, 0, 255},
	{86, 180, 233, 255},
	{0, 0, 0, 255},
	{153, 153, 153, 255},
}

var dashCycle = [][]vg.Length{
	nil,
	{vg.Points(4), vg.Points(2)},
	{vg.Points(1), vg.Points(1.5)},
	{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)},
}

// lineStyle returns the style of line k.
func lineStyle(k int, width vg.Length) draw.LineStyle {
	return draw.LineStyle{
		Color:  chainColors[k%len(chainColors)],
		Width:  width,
		Dashes: dashCycle[(k/len(chainColors))%len(dashCycle)],
	}
}

// newPlot returns a plot with the package's text sizes.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(9)
		a.Tick.Label.Font.Size = vg.Points(8)
	}
	return p
}

// newLegend returns a legend drawn beside a plot, top left of its strip.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(8)
	l.ThumbnailWidth = vg.Points(16)
	return l
}

// legendWidth is the width of the strip that holds l's entries.
func legendWidth(l plot.Legend, labels []string) vg.Length {
	w := vg.Length(0)
	for _, s := range labels {
		w = max(w, l.TextStyle.Width(" "+s))
	}
	return l.ThumbnailWidth + w + vg.Points(8)
}

// besideLegend draws p with l in a strip of width lw on its right.
func besideLegend(p *plot.Plot, l plot.Legend, lw vg.Length) func(draw.Canvas) {
	return func(dc draw.Canvas) {
		p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		strip := draw.Crop(dc, dc.Size().X-lw+vg.Points(4), 0, 0, -vg.Points(24))
		l.Draw(strip)
	}
}

// hline returns a dashed grey horizontal line at y from x0 to x1.
func hline(y, x0, x1 float64) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return nil, err
	}
	l.Color = color.RGBA{90, 90, 90, 255}
	l.Width = vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	return l, nil
}
