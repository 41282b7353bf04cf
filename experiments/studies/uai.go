package studies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
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
	// Peers are other solvers' published scores on these models, a
	// column each (PeerNames), NaN where one has none.
	PeerNames []string
	Peers     map[string][]float64
	// PeerNotes, by model, say where a published score is not what it
	// seems; they go to the row's note.
	PeerNotes map[string]string
	// MaxBytes bounds one component's exact elimination
	// (infer.Options.MaxBytes; 0: infer's default).
	MaxBytes float64
}

// UAIPaper returns the settings of the 20-second track on the shared
// models (quick: 2 seconds a model).
func UAIPaper(quick bool) UAISettings {
	s := UAISettings{Dir: filepath.Join("..", "shared", "data", "uai"), Seconds: 20, Seed: 1, PeerNames: []string{"ibia-mar", "uai14-mar"}, Peers: published}
	if quick {
		s.Seconds = 2
	}
	return s
}

// UAIHard returns the settings of the 20-second track on the shared
// models beyond exact elimination (../shared/data/uai-hard: five linkage
// pedigrees, a DBN and a 20×20 grid of UAI 2014), beside the two
// established solvers of its PEERS.md (quick: 4 seconds a model).
func UAIHard(quick bool) UAISettings {
	s := UAISettings{Dir: filepath.Join("..", "shared", "data", "uai-hard"), Seconds: 20, Seed: 1,
		PeerNames: []string{"libDAI HAK", "Merlin WMB", "libDAI AIE", "libDAI BP", "best peer"}, Peers: hardPeers,
		PeerNotes: map[string]string{"linkage_13": linkage13BP}}
	if quick {
		s.Seconds = 4
	}
	return s
}

// hardPeers holds ../shared/data/uai-hard/PEERS.md's scores: libDAI's
// HAK, Merlin's WMB, libDAI's AIE and BP, and the best of them that is an
// answer, 20 s on one core. PEERS.md's best on linkage_13 is BP's 100,
// which is no answer (linkage13BP): the best there is WMB's 80.5.
var hardPeers = map[string][]float64{
	"linkage_13": {78.0, 80.5, 0, 100, 80.5},
	"linkage_16": {97.7, 93.6, 0, 29.3, 97.7},
	"linkage_18": {88.0, 88.8, 0, 30.1, 88.8},
	"linkage_20": {91.9, 86.4, 0, 66.2, 91.9},
	"linkage_26": {86.8, 94.3, 0, 24.4, 94.3},
	"DBN_11":     {math.NaN(), 100, 100, 30.5, 100},
	"Grids_16":   {58.2, 14.4, 57.6, 0, 58.2},
}

// linkage13BP is the note on libDAI BP's 100 on linkage_13 in PEERS.md:
// see docs/uai.md, "libDAI's BP on linkage_13".
const linkage13BP = "PEERS.md's libDAI BP 100 is every belief NaN, which a scorer taking max(0, H) of NaN counts as error 0 (docs/uai.md); the best answer among the peers is WMB's 80.5"

// UAIRow is one model's result.
type UAIRow struct {
	Model           string
	Free            int
	Method          string    // infer.Answer.Method: "exact", "sampled" or "mixed"
	ExactVariables  int       // free variables answered exactly
	Sampler         string    // the sampler the pilots chose ("" if none ran)
	Seconds         float64   // wall time of the whole answer
	MeanHellinger   float64   // mean Hellinger error over free variables, against the .MAR
	Score           float64   // the UAI 2022 score: max(0, 100·(1 − HErr/HErr_uniform))
	Converged       string    // the sampled part's verdict ("" if nothing was sampled)
	BPWeight        float64   // the weight of loopy BP's beliefs in the answer (infer.Shrinkage; NaN: not shrunk)
	Peers           []float64 // the settings' peers' scores (NaN: none)
	MARDisagreement string    // a note where the .MAR file is known not to fit its model
	PeerNote        string    // a note where a peer's published score is not what it seems
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
var published = map[string][]float64{
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
	a, err := infer.Marginals(ctx, g, infer.Options{Time: budget, Seed: s.Seed, MaxBytes: s.MaxBytes})
	if err != nil {
		return UAIRow{}, err
	}
	row := UAIRow{Model: name, Free: len(g.Free()), Seconds: time.Since(start).Seconds(), ExactVariables: a.ExactPart.ExactVars()}
	for k := range s.PeerNames {
		row.Peers = append(row.Peers, math.NaN())
		if sc, ok := s.Peers[name]; ok && k < len(sc) {
			row.Peers[k] = sc[k]
		}
	}
	row.PeerNote = s.PeerNotes[name]
	row.Method = a.Method
	row.BPWeight = math.NaN()
	if sh := a.Shrink; sh != nil && sh.Why == "" {
		row.BPWeight = sh.Weight
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
	if strings.HasPrefix(name, "dv-rel") {
		row.MARDisagreement = "the .MAR file does not fit the model (enumeration of every component agrees with the elimination to 1e-14)"
	}
	return row, nil
}

// Markdown returns the result as a Markdown table.
func (r *UAIResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "UAI MAR task, %g s a model, one core, one chain, seed %d (package infer's default answer)\n\n", r.Settings.Seconds, r.Settings.Seed)
	b.WriteString("| model | free | answer | sampler | BP weight | s | mean Hellinger | score |")
	for _, p := range r.Settings.PeerNames {
		b.WriteString(" " + p + " |")
	}
	b.WriteString("\n|---|---|---|---|---|---|---|---|" + strings.Repeat("---|", len(r.Settings.PeerNames)) + "\n")
	var notes []string
	for _, row := range r.Rows {
		pub := func(x float64) string {
			if math.IsNaN(x) {
				return "—"
			}
			return fmt.Sprintf("%.1f", x)
		}
		answer := row.Method
		if row.Method == "mixed" {
			answer = fmt.Sprintf("%d exact, %d sampled", row.ExactVariables, row.Free-row.ExactVariables)
		}
		score := fmt.Sprintf("%.2f", row.Score)
		if row.MARDisagreement != "" {
			score += " (.MAR off)"
		}
		weight := "—"
		if !math.IsNaN(row.BPWeight) {
			weight = fmt.Sprintf("%.2g", row.BPWeight)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %.1f | %.2g | %s |", row.Model, row.Free, answer,
			cmp.Or(row.Sampler, "—"), weight, row.Seconds, row.MeanHellinger, score)
		for k, x := range row.Peers {
			cell := pub(x)
			if k == len(row.Peers)-1 && row.PeerNote != "" {
				notes = append(notes, row.Model+": "+row.PeerNote+".")
				cell += fmt.Sprintf(" [%d]", len(notes))
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	for k, n := range notes {
		fmt.Fprintf(&b, "\n[%d] %s\n", k+1, n)
	}
	return b.String()
}

// WriteCSV writes the result to dir/D-scores.csv, D the models' folder
// (uai-scores.csv, uai-hard-scores.csv), and returns its path.
func (r *UAIResult) WriteCSV(dir string) (string, error) {
	path := filepath.Join(dir, filepath.Base(r.Settings.Dir)+"-scores.csv")
	header := []string{"model", "free", "method", "exact_variables", "sampler", "bp_weight", "seconds", "mean_hellinger", "score", "converged", "note"}
	for _, p := range r.Settings.PeerNames {
		header = append(header, strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(p)))
	}
	var rows [][]string
	for _, row := range r.Rows {
		cells := []string{row.Model, fmt.Sprint(row.Free), row.Method, fmt.Sprint(row.ExactVariables), row.Sampler, fmt.Sprint(row.BPWeight),
			fmt.Sprintf("%.3f", row.Seconds), fmt.Sprintf("%.6g", row.MeanHellinger), fmt.Sprintf("%.4f", row.Score), row.Converged, strings.Join(slices.DeleteFunc([]string{row.MARDisagreement, row.PeerNote}, func(s string) bool { return s == "" }), "; ")}
		for _, x := range row.Peers {
			cells = append(cells, fmt.Sprint(x))
		}
		rows = append(rows, cells)
	}
	return path, harness.WriteCSV(path, header, rows)
}
