package studies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/infer"
)

// UAISettings configure UAIScores: the UAI competitions' MAR task on
// every model of Dir that comes with its evidence and exact marginals,
// answered by the library's default (package infer: exact elimination
// where it fits, else the sampler its pilots choose), on one core.
type UAISettings struct {
	// Dir holds the models: M.uai, M.uai.evid, M.uai.MAR.
	Dir string
	// Models are the names to run (nil: every M.uai of Dir with a .MAR).
	Models []string
	// Seconds is the budget a model (the competitions' tracks: 20, 1200,
	// 3600); Seed seeds the pilots and the chain.
	Seconds float64
	Seed    uint64
}

// UAIPaper returns the settings of the 20-second track on the shared
// models (quick: 2 seconds a model).
func UAIPaper(quick bool) UAISettings {
	s := UAISettings{Dir: filepath.Join("..", "shared", "data", "uai"), Seconds: 20, Seed: 1}
	if quick {
		s.Seconds = 2
	}
	return s
}

// UAIRow is one model's result.
type UAIRow struct {
	Model           string
	Free            int
	Method          string  // "exact", "sampled" or "exact+sampled"
	ExactVariables  int     // free variables answered exactly
	Sampler         string  // the sampler the pilots chose ("" if none ran)
	Seconds         float64 // wall time of the whole answer
	MeanHellinger   float64 // mean Hellinger error over free variables, against the .MAR
	Score           float64 // the UAI 2022 score: max(0, 100·(1 − HErr/HErr_uniform))
	Converged       string  // the sampled part's verdict ("" if nothing was sampled)
	IBIA, UAI14     float64 // the competition's published 20-second scores (NaN: none)
	MARDisagreement string  // a note where the .MAR file is known not to fit its model
}

// UAIResult is UAIScores's result.
type UAIResult struct {
	Settings UAISettings
	Rows     []UAIRow
}

// published holds the UAI 2022 competition's per-instance MAR scores on
// the 20-second track (ibia-mar, the 2022 leader, and uai14-mar), as
// issue 24 quotes them; the Pedigree and Promedus scores of every solver
// there (0–34) were computed against other reference marginals than the
// shared .MAR files, and are left out.
var published = map[string][2]float64{
	"Alchemy_11": {100, 0}, "CSP_11": {100, 0}, "CSP_12": {100, 100}, "CSP_13": {100, 0},
	"Grids_11": {100, 0}, "Grids_12": {100, 100}, "Grids_13": {100, 0},
	"ObjectDetection_11": {100, 99.8}, "ObjectDetection_12": {100, 99.1}, "ObjectDetection_13": {97.1, 95.1},
	"Segmentation_11": {100, 100},
}

// UAIScores answers the MAR task on each model within s.Seconds on one
// core (GOMAXPROCS = 1 for the duration: the competition's single-core
// track), one chain, and scores it against the model's .MAR file.
func UAIScores(ctx context.Context, s UAISettings, cfg harness.Config) (*UAIResult, error) {
	models := s.Models
	if models == nil {
		files, err := filepath.Glob(filepath.Join(s.Dir, "*.uai"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if ok, _ := filepath.Glob(f + ".MAR"); len(ok) == 1 {
				models = append(models, strings.TrimSuffix(filepath.Base(f), ".uai"))
			}
		}
		if len(models) == 0 {
			return nil, fmt.Errorf("experiments: no model with a .MAR file in %s", s.Dir)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	prog := cfg.ProgressOrNone()
	prog.Start("uai", int64(len(models)))
	res := &UAIResult{Settings: s}
	for _, name := range models {
		row, err := uaiRow(ctx, s, name)
		if err != nil {
			return res, fmt.Errorf("experiments: %s: %w", name, err)
		}
		res.Rows = append(res.Rows, row)
		prog.Add(1)
	}
	return res, nil
}

// uaiRow answers and scores one model.
func uaiRow(ctx context.Context, s UAISettings, name string) (UAIRow, error) {
	path := filepath.Join(s.Dir, name+".uai")
	evid := path + ".evid"
	if ok, _ := filepath.Glob(evid); len(ok) == 0 {
		evid = ""
	}
	start := time.Now()
	p, err := uai.ReadProblem(path, evid, path+".MAR")
	if err != nil {
		return UAIRow{}, err
	}
	g, err := p.Model.Graph(p.Evidence)
	if err != nil {
		return UAIRow{}, err
	}
	budget := time.Duration(s.Seconds*float64(time.Second)) - time.Since(start)
	a, err := infer.Marginals(ctx, g, infer.Options{Time: budget, Seed: s.Seed})
	if err != nil {
		return UAIRow{}, err
	}
	row := UAIRow{Model: name, Free: len(g.Free()), Seconds: time.Since(start).Seconds(), ExactVariables: a.ExactPart.ExactVars(),
		IBIA: math.NaN(), UAI14: math.NaN()}
	switch {
	case a.ExactPart.All():
		row.Method = "exact"
	case a.ExactPart.Any():
		row.Method = "exact+sampled"
	default:
		row.Method = "sampled"
	}
	if a.Choice != nil {
		row.Sampler = a.Choice.Spec.String()
		row.Converged = "yes"
		if !a.Verdict.Converged {
			row.Converged = "no: " + a.Verdict.Reason
		}
	}
	if row.Score, row.MeanHellinger, err = diag.MARScore(a.Marginals, p.Exact, g.Free()); err != nil {
		return UAIRow{}, err
	}
	if sc, ok := published[name]; ok {
		row.IBIA, row.UAI14 = sc[0], sc[1]
	}
	if strings.HasPrefix(name, "dv-rel") {
		row.MARDisagreement = "the .MAR file does not fit the model (enumeration of every component agrees with the elimination to 1e-14)"
	}
	return row, nil
}

// Markdown returns the result as a Markdown table.
func (r *UAIResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "UAI MAR task, %g s a model, one core, one chain, seed %d (package infer's default answer)\n\n", r.Settings.Seconds, r.Settings.Seed)
	b.WriteString("| model | free | answer | sampler | s | mean Hellinger | score | ibia-mar | uai14-mar |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		pub := func(x float64) string {
			if math.IsNaN(x) {
				return "—"
			}
			return fmt.Sprintf("%.1f", x)
		}
		answer := row.Method
		if row.Method == "exact+sampled" {
			answer = fmt.Sprintf("%d exact, %d sampled", row.ExactVariables, row.Free-row.ExactVariables)
		}
		score := fmt.Sprintf("%.2f", row.Score)
		if row.MARDisagreement != "" {
			score += " (.MAR off)"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.1f | %.2g | %s | %s | %s |\n", row.Model, row.Free, answer,
			cmp.Or(row.Sampler, "—"), row.Seconds, row.MeanHellinger, score, pub(row.IBIA), pub(row.UAI14))
	}
	return b.String()
}

// WriteCSV writes the result to dir/uai-scores.csv and returns its path.
func (r *UAIResult) WriteCSV(dir string) (string, error) {
	path := filepath.Join(dir, "uai-scores.csv")
	header := []string{"model", "free", "method", "exact_variables", "sampler", "seconds", "mean_hellinger", "score", "converged", "ibia_mar", "uai14_mar", "note"}
	var rows [][]string
	for _, row := range r.Rows {
		rows = append(rows, []string{row.Model, fmt.Sprint(row.Free), row.Method, fmt.Sprint(row.ExactVariables), row.Sampler,
			fmt.Sprintf("%.3f", row.Seconds), fmt.Sprintf("%.6g", row.MeanHellinger), fmt.Sprintf("%.4f", row.Score), row.Converged,
			fmt.Sprint(row.IBIA), fmt.Sprint(row.UAI14), row.MARDisagreement})
	}
	return path, harness.WriteCSV(path, header, rows)
}
