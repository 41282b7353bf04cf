package studies

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgibbs/pgibbs/experiments/harness"
)

// clustersNames are the samplers' names in tables and legends.
var clustersNames = map[string]string{
	ClustersGibbs:  "heat-bath Gibbs (checkerboard)",
	ClustersPGibbs: "Poisson-Gibbs (checkerboard)",
	ClustersSW:     "Swendsen–Wang",
	ClustersWolff:  "Wolff (a sweep's worth)",
}

// ClustersName returns the name of sampler key of the τ study (one of
// ClustersGibbs, ClustersPGibbs, ClustersSW, ClustersWolff) for notes,
// tables and legends; an unknown key is its own name.
func ClustersName(key string) string {
	if n, ok := clustersNames[key]; ok {
		return n
	}
	return key
}

// ClustersCostName returns the name of sampler key of the cost study,
// whose Poisson-Gibbs runs systematic sweeps (a long-range lattice has no
// colouring).
func ClustersCostName(key string) string {
	if key == ClustersPGibbs {
		return "Poisson-Gibbs (systematic)"
	}
	return ClustersName(key)
}

// Targets of issue 15.
const (
	clustersTargetRatio     = 100 // τ(heat bath)/τ(SW) at 128²
	clustersTargetRatioSize = 128
	clustersTargetPowerNN   = 3   // SW sweep, power law ÷ nearest neighbour
	clustersTargetPowerSecs = 0.3 // SW sweep seconds, power law, 10⁶ sites
	clustersTargetSites     = 1_000_000
)

// TauRatio returns τ(num)/τ(den) at the largest size both samplers ran,
// with its standard error from the two τ errors (independent chains), and
// false if they share no size.
func (r *ClustersResult) TauRatio(num, den string) (size int, ratio, err float64, ok bool) {
	for _, a := range r.Tau {
		if a.Sampler != num {
			continue
		}
		for _, b := range r.Tau {
			if b.Sampler == den && b.Size == a.Size && a.Size >= size {
				size, ok = a.Size, true
				ratio = a.Tau.Tau / b.Tau.Tau
				err = ratio * math.Hypot(a.Tau.Err/a.Tau.Tau, b.Tau.Err/b.Tau.Tau)
			}
		}
	}
	return size, ratio, err, ok
}

// CostRatio returns the median seconds per sweep of sampler on kernel num
// over those on kernel den at the largest side both ran, and false if they
// share no side.
func (r *ClustersResult) CostRatio(sampler, num, den string) (sites int, ratio float64, ok bool) {
	for _, a := range r.Cost {
		if a.Sampler != sampler || a.Kernel != num {
			continue
		}
		for _, b := range r.Cost {
			if b.Sampler == sampler && b.Kernel == den && b.Side == a.Side && a.Sites >= sites {
				sites, ratio, ok = a.Sites, a.Median/b.Median, true
			}
		}
	}
	return sites, ratio, ok
}

// costAt returns the point of sampler on kernel at the largest side.
func (r *ClustersResult) costAt(sampler, kernel string) (ClustersCostPoint, bool) {
	var best ClustersCostPoint
	ok := false
	for _, p := range r.Cost {
		if p.Sampler == sampler && p.Kernel == kernel && p.Sites >= best.Sites {
			best, ok = p, true
		}
	}
	return best, ok
}

// fit returns the fit of sampler key.
func (r *ClustersResult) fit(key string) (ClustersFit, bool) {
	for _, f := range r.Fits {
		if f.Sampler == key {
			return f, true
		}
	}
	return ClustersFit{}, false
}

// Markdown returns the study's tables in GitHub Markdown: τ at each point,
// the fitted exponents, issue 15's targets, and the seconds per sweep.
func (r *ClustersResult) Markdown() string {
	var out string
	for _, t := range []harness.Table{r.tauTable(), r.fitTable(), r.targetTable(), r.costTable()} {
		if len(t.Rows) == 0 {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += t.Markdown()
	}
	return out
}

// pm formats v ± e.
func pm(v, e float64, digits int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return harness.FmtG(v, digits) + " ± " + harness.FmtG(e, 2)
}

// tauTable returns one row per sampler and size. (The pipes of |m| in the
// header are escaped for Markdown.)
func (r *ClustersResult) tauTable() harness.Table {
	t := harness.Table{Header: []string{"sampler", "L", "chains × sweeps", "burn-in", `τ(\|m\|) (sweeps)`, "W", "N/τ", `⟨\|m\|⟩`,
		"ms/sweep", "ms per τ", "Wolff clusters/step (sites/step ÷ N)"}}
	for _, p := range r.Tau {
		tau := pm(p.Tau.Tau, p.Tau.Err, 4)
		if !p.Tau.Converged {
			tau = "≥ " + harness.FmtG(p.Tau.Tau, 4) + " (no window)"
		}
		cl := "–"
		if p.Sampler == ClustersWolff {
			cl = fmt.Sprintf("%s (%s)", harness.FmtG(p.Clusters, 4), harness.FmtG(p.StepSweeps, 3))
		}
		t.Rows = append(t.Rows, []string{ClustersName(p.Sampler), strconv.Itoa(p.Size),
			fmt.Sprintf("%d × %d", p.Chains, p.Sweeps), strconv.FormatInt(p.Burn, 10), tau, strconv.Itoa(p.Tau.Window),
			harness.FmtG(float64(p.Tau.N)/p.Tau.Tau, 3), pm(p.Tau.Mean, p.Tau.MeanErr, 4),
			harness.FmtG(p.SweepSeconds*1e3, 3), harness.FmtG(p.SweepSeconds*p.Tau.Tau*1e3, 3), cl})
	}
	return t
}

// fitTable returns the dynamic exponent of each sampler.
func (r *ClustersResult) fitTable() harness.Table {
	t := harness.Table{Header: []string{"sampler", "sizes fitted", "z", "A (τ ≈ A·L^z)", "χ²"}}
	for _, f := range r.Fits {
		var sizes []int
		for _, p := range r.Tau {
			if p.Sampler == f.Sampler && p.Tau.Converged {
				sizes = append(sizes, p.Size)
			}
		}
		t.Rows = append(t.Rows, []string{ClustersName(f.Sampler), fmt.Sprint(sizes), pm(f.Z, f.ZErr, 3), harness.FmtG(f.A, 3), harness.FmtG(f.Chi2, 3)})
	}
	return t
}

// targetTable returns issue 15's targets: the τ ratio of the heat bath to
// Swendsen–Wang, and the cost of a long-range Swendsen–Wang sweep.
func (r *ClustersResult) targetTable() harness.Table {
	t := harness.Table{Header: []string{"quantity", "measured", "target"}}
	if size, ratio, e, ok := r.TauRatio(ClustersGibbs, ClustersSW); ok {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("τ(heat bath) ÷ τ(Swendsen–Wang) at L = %d", size), pm(ratio, e, 3),
			targetNote(ratio >= clustersTargetRatio, size == clustersTargetRatioSize,
				fmt.Sprintf("≥ %d at L = %d", clustersTargetRatio, clustersTargetRatioSize))})
	}
	if sites, ratio, ok := r.CostRatio(ClustersSW, "power", "nn"); ok {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("Swendsen–Wang sweep, power law ÷ nearest neighbour, at %d sites", sites), harness.FmtG(ratio, 3),
			targetNote(ratio <= clustersTargetPowerNN, sites >= clustersTargetSites, fmt.Sprintf("≤ %d at 10⁶ sites", clustersTargetPowerNN))})
	}
	if p, ok := r.costAt(ClustersSW, "power"); ok {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("Swendsen–Wang sweep, power law, at %d sites", p.Sites), harness.FmtG(p.Median, 3) + " s",
			targetNote(p.Median <= clustersTargetPowerSecs, p.Sites >= clustersTargetSites, fmt.Sprintf("≤ %g s at 10⁶ sites", clustersTargetPowerSecs))})
	}
	return t
}

// targetNote says whether a target is met, or that the run is too small
// to tell.
func targetNote(met, applies bool, target string) string {
	switch {
	case !applies:
		return target + " (not at this size)"
	case met:
		return target + ": met"
	}
	return target + ": not met"
}

// costTable returns one row per kernel, side and sampler.
func (r *ClustersResult) costTable() harness.Table {
	t := harness.Table{Header: []string{"kernel", "β", "L = ΣM", "offsets", "sampler", "N", "sites", "s/sweep (median)", "min", "max",
		"sweeps timed", "ns/site", "events/site"}}
	for _, p := range r.Cost {
		t.Rows = append(t.Rows, []string{p.Kernel, harness.FmtG(p.Beta, 4), harness.FmtG(p.L, 4), strconv.Itoa(p.Offsets), ClustersCostName(p.Sampler),
			strconv.Itoa(p.Side), strconv.Itoa(p.Sites), harness.FmtG(p.Median, 3), harness.FmtG(p.Min, 3), harness.FmtG(p.Max, 3),
			strconv.Itoa(p.Sweeps), harness.FmtG(p.Median/float64(p.Sites)*1e9, 3), harness.FmtG(p.Events, 3)})
	}
	return t
}

// WriteFigure writes the study's files into dir and returns their paths:
// for the τ study clusters-tau.csv (one row per sampler and size: sampler,
// size, sites, beta, chains, sweeps and burn-in per chain, measurements,
// tau, tau_err, window, converged, mean_abs_m, mean_abs_m_err,
// wolff_clusters, sweeps_per_step (site updates a step ÷ sites),
// sweep_seconds, and the sampler's fitted z, z_err, A) and
// the log–log plot of τ against L with the fitted lines,
// clusters-tau.png and .svg; for the cost study clusters-cost.csv (one row
// per kernel, side and sampler: kernel, beta, L, offsets, sampler, side,
// sites, seconds_median, seconds_min, seconds_max, sweeps, events_per_site)
// and the log–log plot of seconds per sweep against sites,
// clusters-cost.png and .svg.
func (r *ClustersResult) WriteFigure(dir string) ([]string, error) {
	var out []string
	if len(r.Tau) > 0 {
		var rows [][]string
		for _, p := range r.Tau {
			f, _ := r.fit(p.Sampler)
			rows = append(rows, []string{p.Sampler, strconv.Itoa(p.Size), strconv.Itoa(p.Sites), harness.Ftoa(r.Settings.Beta),
				strconv.Itoa(p.Chains), strconv.FormatInt(p.Sweeps, 10), strconv.FormatInt(p.Burn, 10), strconv.Itoa(p.Tau.N),
				harness.Ftoa(p.Tau.Tau), harness.Ftoa(p.Tau.Err), strconv.Itoa(p.Tau.Window), strconv.FormatBool(p.Tau.Converged),
				harness.Ftoa(p.Tau.Mean), harness.Ftoa(p.Tau.MeanErr), harness.Ftoa(p.Clusters), harness.Ftoa(p.StepSweeps), harness.Ftoa(p.SweepSeconds),
				csvNum(f.Z), csvNum(f.ZErr), csvNum(f.A)})
		}
		path := filepath.Join(dir, "clusters-tau.csv")
		if err := harness.WriteCSV(path, []string{"sampler", "size", "sites", "beta", "chains", "sweeps_per_chain", "burn_per_chain",
			"measurements", "tau", "tau_err", "window", "converged", "mean_abs_m", "mean_abs_m_err", "wolff_clusters",
			"sweeps_per_step", "sweep_seconds", "z", "z_err", "A"}, rows); err != nil {
			return out, err
		}
		out = append(out, path)
		p, err := r.tauPlot()
		if err != nil {
			return out, err
		}
		paths, err := harness.SavePlot(p, dir, "clusters-tau")
		if out = append(out, paths...); err != nil {
			return out, err
		}
	}
	if len(r.Cost) > 0 {
		var rows [][]string
		for _, p := range r.Cost {
			rows = append(rows, []string{p.Kernel, harness.Ftoa(p.Beta), harness.Ftoa(p.L), strconv.Itoa(p.Offsets), p.Sampler,
				strconv.Itoa(p.Side), strconv.Itoa(p.Sites), harness.Ftoa(p.Median), harness.Ftoa(p.Min), harness.Ftoa(p.Max),
				strconv.Itoa(p.Sweeps), harness.Ftoa(p.Events)})
		}
		path := filepath.Join(dir, "clusters-cost.csv")
		if err := harness.WriteCSV(path, []string{"kernel", "beta", "L", "offsets", "sampler", "side", "sites",
			"seconds_median", "seconds_min", "seconds_max", "sweeps", "events_per_site"}, rows); err != nil {
			return out, err
		}
		out = append(out, path)
		p, err := r.costPlot()
		if err != nil {
			return out, err
		}
		paths, err := harness.SavePlot(p, dir, "clusters-cost")
		if out = append(out, paths...); err != nil {
			return out, err
		}
	}
	return out, nil
}

// errorPoints are points with vertical error bars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// clustersGlyphs are the markers of the samplers.
var clustersGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}}

// tauPlot draws τ against L on log–log axes: each sampler's points with
// their error bars and its fitted power law.
func (r *ClustersResult) tauPlot() (*plot.Plot, error) {
	p := harness.LogLogPlot(fmt.Sprintf("Integrated autocorrelation time of |m|, 2-D Ising at β = %.5g", r.Settings.Beta), "L (L×L torus)", "τ (sweeps)")
	p.Title.TextStyle.Font.Size = vg.Points(10)
	for _, f := range r.Fits {
		k := max(slices.Index(clustersTauKeys, f.Sampler), 0) // the sampler's style
		var pts errorPoints
		var lo, hi float64
		for _, pt := range r.Tau {
			if pt.Sampler != f.Sampler || !(pt.Tau.Tau > 0) {
				continue
			}
			x := float64(pt.Size)
			pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: pt.Tau.Tau})
			e := pt.Tau.Err
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: min(e, 0.9*pt.Tau.Tau), High: e})
			if lo == 0 || x < lo {
				lo = x
			}
			hi = max(hi, x)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		st := harness.LineStyles[(k+1)%len(harness.LineStyles)]
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, fmt.Errorf("experiments: clusters plot: %w", err)
		}
		sc.Color, sc.Shape, sc.Radius = st.Color, clustersGlyphs[k%len(clustersGlyphs)], vg.Points(2.5)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("experiments: clusters plot: %w", err)
		}
		eb.Color = st.Color
		p.Add(sc, eb)
		label := ClustersName(f.Sampler)
		if !math.IsNaN(f.Z) {
			line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: f.A * math.Pow(lo, f.Z)}, {X: hi, Y: f.A * math.Pow(hi, f.Z)}})
			if err != nil {
				return nil, fmt.Errorf("experiments: clusters plot: %w", err)
			}
			line.Color, line.Dashes, line.Width = st.Color, st.Dashes, vg.Points(1.2)
			p.Add(line)
			label += fmt.Sprintf(": z = %.2f ± %.2f", f.Z, f.ZErr)
			p.Legend.Add(label, line, sc)
		} else {
			p.Legend.Add(label, sc)
		}
	}
	return p, nil
}

// costPlot draws seconds per sweep against the number of sites on log–log
// axes: a line per kernel (colour) and sampler (dashes and marker).
func (r *ClustersResult) costPlot() (*plot.Plot, error) {
	p := harness.LogLogPlot("Seconds per sweep, 2-D Ising near β_c", "sites", "seconds per sweep")
	for ki, kn := range r.Settings.Kernels {
		for si, key := range r.Settings.CostSamplers {
			var xy plotter.XYs
			for _, pt := range r.Cost {
				if pt.Kernel == kn.Key && pt.Sampler == key && pt.Median > 0 {
					xy = append(xy, plotter.XY{X: float64(pt.Sites), Y: pt.Median})
				}
			}
			var dashes []vg.Length
			if si > 0 {
				dashes = []vg.Length{vg.Points(5), vg.Points(2)}
			}
			c := harness.LineStyles[(ki+1)%len(harness.LineStyles)].Color
			label := fmt.Sprintf("%s, %s (β = %.4g)", ClustersCostName(key), kn.Key, kn.Beta)
			if err := harness.AddSeries(p, xy, c, dashes, clustersGlyphs[si%len(clustersGlyphs)], label); err != nil {
				return nil, fmt.Errorf("experiments: clusters cost plot: %w", err)
			}
		}
	}
	return p, nil
}
