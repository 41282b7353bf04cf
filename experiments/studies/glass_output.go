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

	"github.com/pgibbs/pgibbs/experiments/harness"
)

// glassNames are the samplers' names in tables and legends.
var glassNames = map[string]string{
	GlassGibbs:    "Gibbs",
	GlassExchange: "exchange",
	GlassHoudayer: "exchange + Houdayer",
	GlassDefault:  "default answer",
}

// GlassName returns the name of sampler key of the glass study for notes,
// tables and legends; an unknown key is its own name.
func GlassName(key string) string {
	if n, ok := glassNames[key]; ok {
		return n
	}
	return key
}

// Markdown returns the study's table: a row an instance and sampler.
func (r *GlassResult) Markdown() string {
	t := harness.Table{Header: []string{"L", "β", "sampler", "s", "sweeps", "τ(E) sweeps", "replicas", "round trips",
		"swap acc.", "mean Hellinger", "score", "log Z err / var", "within 2 se"}}
	multi := len(r.Settings.Seeds) > 1
	for _, row := range r.Rows {
		name := GlassName(row.Sampler)
		if row.Choice != "" {
			name += " (" + row.Choice + ")"
		}
		if multi {
			name += fmt.Sprintf(", seed %d", row.Seed)
		}
		dash := func(ok bool, s string) string {
			if !ok {
				return "–"
			}
			return s
		}
		ex := row.Replicas > 0
		hasZ := !math.IsNaN(row.LogZ)
		within := dash(hasZ, map[bool]string{true: "yes", false: "no"}[row.LogZWithin2SE()])
		t.Rows = append(t.Rows, []string{strconv.Itoa(row.L), harness.FmtG(row.Beta, 3), name,
			fmt.Sprintf("%.1f", row.Seconds), harness.FmtG(math.Round(row.Sweeps), 6), glassTau(row.Tau), dash(ex, strconv.Itoa(row.Replicas)),
			dash(ex, strconv.FormatInt(row.RoundTrips, 10)), dash(ex, fmt.Sprintf("%.2f", row.SwapAcceptance)),
			fmt.Sprintf("%.2g", row.MeanHellinger), fmt.Sprintf("%.1f", row.Score),
			dash(hasZ, fmt.Sprintf("%+.1e ± %.1e", row.LogZErrorPerVar(), row.LogZErr/float64(row.L*row.L))), within})
	}
	return t.Markdown()
}

// glassTau formats τ with its error, "≥ τ" where Sokal's window was not
// reached (an underestimate), "–" where there is none.
func glassTau(e TauEstimate) string {
	switch {
	case e.N == 0 || math.IsNaN(e.Tau):
		return "–"
	case !e.Converged:
		return "≥ " + harness.FmtG(e.Tau, 3)
	}
	return harness.FmtG(e.Tau, 3) + " ± " + harness.FmtG(e.Err, 2)
}

// glassHeader is glass.csv's header.
var glassHeader = []string{"L", "beta", "field_sd", "seed", "sampler", "choice", "seconds", "sweeps", "replicas",
	"round_trips", "swap_acceptance", "tau_energy", "tau_energy_err", "tau_converged", "energy_samples",
	"mean_hellinger", "score", "log_z", "log_z_se", "exact_log_z", "log_z_err_per_var", "log_z_within_2se"}

// WriteFigure writes glass.csv (a row an instance and sampler) and the
// figure glass.png and glass.svg: the score against L, a line a sampler
// (the mean over the seeds), a panel a β. It returns the paths written.
func (r *GlassResult) WriteFigure(dir string) ([]string, error) {
	var rows [][]string
	for _, row := range r.Rows {
		rows = append(rows, []string{strconv.Itoa(row.L), harness.Ftoa(row.Beta), harness.Ftoa(r.Settings.FieldSD),
			strconv.FormatUint(row.Seed, 10), row.Sampler, row.Choice, harness.Ftoa(row.Seconds), harness.Ftoa(row.Sweeps),
			strconv.Itoa(row.Replicas), strconv.FormatInt(row.RoundTrips, 10), harness.Ftoa(row.SwapAcceptance),
			harness.Ftoa(row.Tau.Tau), harness.Ftoa(row.Tau.Err), strconv.FormatBool(row.Tau.Converged), strconv.Itoa(row.Tau.N),
			harness.Ftoa(row.MeanHellinger), harness.Ftoa(row.Score), harness.Ftoa(row.LogZ), harness.Ftoa(row.LogZErr),
			harness.Ftoa(row.ExactLogZ), harness.Ftoa(row.LogZErrorPerVar()), strconv.FormatBool(row.LogZWithin2SE())})
	}
	csvPath := filepath.Join(dir, "glass.csv")
	if err := harness.WriteCSV(csvPath, glassHeader, rows); err != nil {
		return nil, err
	}
	var plots []*plot.Plot
	for _, b := range r.Settings.Betas {
		p, err := r.scorePlot(b)
		if err != nil {
			return []string{csvPath}, err
		}
		plots = append(plots, p)
	}
	paths, err := savePanels(plots, dir, "glass")
	return append([]string{csvPath}, paths...), err
}

// scorePlot draws the score against L at β = beta: a line a sampler
// through the mean score over the seeds.
func (r *GlassResult) scorePlot(beta float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("2-D ±J glass, β = %g, %g s a run", beta, r.Settings.Seconds)
	p.X.Label.Text, p.Y.Label.Text = "L (L×L, free boundaries)", "UAI score (100: exact)"
	p.Y.Min, p.Y.Max = 0, 100
	// Top left, below the scores near 100 of small L (and above Gibbs's).
	p.Legend.Left, p.Legend.Top, p.Legend.YOffs = true, true, -vg.Points(50)
	p.Legend.TextStyle.Font.Size = 7
	p.Add(plotter.NewGrid())
	for _, key := range r.Settings.Samplers {
		var xy plotter.XYs
		for _, l := range r.Settings.Sizes {
			sum, n := 0.0, 0
			for _, row := range r.Rows {
				if row.Sampler == key && row.L == l && row.Beta == beta {
					sum, n = sum+row.Score, n+1
				}
			}
			if n > 0 {
				xy = append(xy, plotter.XY{X: float64(l), Y: sum / float64(n)})
			}
		}
		k := max(slices.Index(glassKeys, key), 0)
		st := harness.LineStyles[(k+1)%len(harness.LineStyles)]
		if err := harness.AddSeries(p, xy, st.Color, st.Dashes, clustersGlyphs[k%len(clustersGlyphs)], GlassName(key)); err != nil {
			return nil, fmt.Errorf("experiments: glass plot: %w", err)
		}
	}
	return p, nil
}
