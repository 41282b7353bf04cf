package studies

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	lat "github.com/pgibbs/pgibbs/lattice"
)

// FSSModel is one model of the finite-size-scaling study: 2-D Ising spins
// with Kernel on L×L tori of the sides Sizes.
type FSSModel struct {
	// Key names the model in tables and files ("nn", "power"); Label in
	// the figures.
	Key, Label string
	Kernel     lat.Coupling
	// Beta is the first stage's β₀ at every size: the critical point, or
	// an estimate of it. BetaC is the exact critical point to compare the
	// Binder crossings with, NaN when none is known; BetaRef a published
	// estimate (NaN for none) and BetaRefNote where it comes from.
	Beta, BetaC float64
	BetaRef     float64
	BetaRefNote string
	// GammaNu is the expected γ/ν, NaN for none; GammaNuNote says why.
	GammaNu     float64
	GammaNuNote string
	Sizes       []int
	// Sweeps[k] is the number of measured Swendsen–Wang sweeps of a stage
	// at Sizes[k], all chains together (each runs Sweeps[k]/chains).
	Sweeps []int64
}

// FSSSettings configures the finite-size-scaling study (issue 25): for
// each model and size, Swendsen–Wang chains at β₀ = Model.Beta (stage 1),
// reweighted (lattice.Reweighter) to locate the peak of the connected
// susceptibility χ; a second stage runs at that peak (clamped to stage 1's
// window), which both checks the reweighting against a direct run and
// locates the peak from a run centred on it; further stages (up to Stages)
// run while the peak lies at the edge of the last stage's window. Then
// γ/ν is fitted to the peak heights against L, and the Binder cumulants of
// consecutive sizes are crossed.
type FSSSettings struct {
	Models []FSSModel
	// Chains is the number of independent chains of each stage at each
	// size, pooled; 0 means harness.Config.Runs.
	Chains int
	// Burn is the number of Swendsen–Wang sweeps each chain runs from a
	// uniformly random state before it measures.
	Burn int64
	// Stages is the most stages a size runs, at least 2.
	Stages int
	// MinFraction is the reweighting window's smallest effective fraction
	// (0: lattice.DefaultMinFraction).
	MinFraction float64
	// CurvePoints is the number of β at which each size's reweighted
	// curves are written and drawn.
	CurvePoints int
}

// IsingGammaNu is γ/ν of the 2-D Ising universality class, 7/4.
const IsingGammaNu = 1.75

// powerLawBetaRef is the literature's critical coupling of the 2-D Ising
// model with J(r) = r^−3 (σ = 1) in this package's units (J(1) = 1,
// π ∝ exp(β Σ_{i<j} J_ij s_i s_j)), as issue 25 quotes it.
const powerLawBetaRef = 0.126

// fssModels returns the study's two models with their sizes and sweeps.
func fssModels(quick bool) []FSSModel {
	nn := FSSModel{Key: "nn", Label: "nearest neighbour", Kernel: lat.NearestNeighbour{}, Beta: IsingBetaC, BetaC: IsingBetaC,
		BetaRef: IsingBetaC, BetaRefNote: "Onsager, ln(1 + √2)/2",
		GammaNu: IsingGammaNu, GammaNuNote: "2-D Ising, exact",
		Sizes:  []int{16, 24, 32, 48, 64, 96, 128},
		Sweeps: []int64{40_000, 40_000, 40_000, 40_000, 40_000, 40_000, 40_000}}
	power := FSSModel{Key: "power", Label: "power law J = r^-3 (σ = 1)", Kernel: lat.PowerLaw{Sigma: 1}, Beta: 0.127, BetaC: math.NaN(),
		BetaRef: powerLawBetaRef, BetaRefNote: "literature value quoted in issue 25 (J = r^−3, J(1) = 1)",
		GammaNu: 1, GammaNuNote: "σ = d/2: mean-field η = 2 − σ, so γ/ν = σ = 1, with logarithmic corrections",
		Sizes:  []int{16, 24, 32, 48, 64, 96},
		Sweeps: []int64{40_000, 40_000, 40_000, 40_000, 40_000, 40_000}}
	if quick {
		nn.Sizes, nn.Sweeps = []int{16, 32, 64, 128}, []int64{8000, 8000, 8000, 8000}
		power.Sizes, power.Sweeps = []int{16, 32, 64}, []int64{8000, 8000, 8000}
	}
	return []FSSModel{nn, power}
}

// FSSPaper returns the study's settings. Full: the nearest-neighbour model
// at sides 16 to 128 and the power law at 16 to 96, 40 000 measured sweeps
// a stage and size (split between the chains), two stages: about 4.6
// core-minutes, 3 minutes on two cores. Quick: sides 16, 32, 64, 128 and
// 16, 32, 64, 8000 sweeps, in about 20 s on two cores.
func FSSPaper(quick bool) FSSSettings {
	return FSSSettings{Models: fssModels(quick), Burn: 500, Stages: 3, CurvePoints: 41}
}

func (s FSSSettings) validate(chains int) error {
	bad := func(format string, args ...any) error { return fmt.Errorf("experiments: fss: "+format, args...) }
	if len(s.Models) == 0 {
		return bad("no models")
	}
	switch {
	case chains < 1 || chains > 1024:
		return bad("%d chains: need 1 to 1024", chains)
	case s.Burn < 0:
		return bad("%d burn-in sweeps", s.Burn)
	case s.Stages < 2 || s.Stages > 10:
		return bad("%d stages: need 2 to 10", s.Stages)
	case s.MinFraction < 0 || s.MinFraction >= 1:
		return bad("effective fraction %v: need 0 (the default) or 0 < f < 1", s.MinFraction)
	case s.CurvePoints < 2 || s.CurvePoints > 10_000:
		return bad("%d curve points: need 2 to 10 000", s.CurvePoints)
	}
	keys := map[string]bool{}
	for _, m := range s.Models {
		if m.Key == "" || keys[m.Key] || m.Kernel == nil {
			return bad("model %q: need a kernel and a distinct non-empty key", m.Key)
		}
		keys[m.Key] = true
		if !(m.Beta > 0) || math.IsInf(m.Beta, 0) {
			return bad("%s: β₀ = %v: need a finite β₀ > 0", m.Key, m.Beta)
		}
		if len(m.Sizes) < 2 || len(m.Sweeps) != len(m.Sizes) {
			return bad("%s: %d sizes and %d sweep counts: need at least 2 sizes, a count each", m.Key, len(m.Sizes), len(m.Sweeps))
		}
		for k, n := range m.Sizes {
			if n < 3 || n > 1024 || k > 0 && n <= m.Sizes[k-1] {
				return bad("%s: sizes %v: need increasing sides from 3 to 1024", m.Key, m.Sizes)
			}
			if m.Sweeps[k] < int64(chains)*16 {
				return bad("%s at L = %d: %d sweeps for %d chains: need at least 16 a chain", m.Key, n, m.Sweeps[k], chains)
			}
		}
	}
	return nil
}

// FSSRun is one stage at one size: its chains pooled at β₀.
type FSSRun struct {
	Stage  int
	Beta0  float64
	Chains int
	// Sweeps is each chain's measured sweeps (after Settings.Burn).
	Sweeps int64
	// Lo and Hi bound the reweighting window.
	Lo, Hi float64
	// Direct are the observables at β₀ (lattice.ComputeObservables).
	Direct lat.Observables
	// Peak is χ's peak found by reweighting this run.
	Peak lat.Peak
	// Seconds is the wall time of the stage's chains, summed.
	Seconds float64
}

// FSSCheck compares the observables of a stage reweighted to the next
// stage's β₀ with that stage's direct ones (independent chains).
type FSSCheck struct {
	Beta float64
	// Reweighted are stage From's observables at Beta, Direct stage To's.
	From, To   int
	Reweighted lat.Reweighted
	Direct     lat.Observables
	// Worst is the largest |reweighted − direct|/√(σ_r² + σ_d²) over the
	// nine observables, WorstName its observable; Checked counts them.
	Worst     float64
	WorstName string
	Checked   int
}

// FSSPoint is one model at one size.
type FSSPoint struct {
	Model       string
	Size, Sites int
	Runs        []FSSRun
	// Peak is the last stage's χ peak, the one the fit uses.
	Peak lat.Peak
	// Checks compare each stage reweighted to the next one's β₀.
	Checks []FSSCheck
	// Curve is the first stage's observables reweighted across its window
	// (Settings.CurvePoints of β).
	Curve []lat.Reweighted
}

// FSSCrossing is the crossing of the Binder cumulants of two consecutive
// sizes of a model.
type FSSCrossing struct {
	Model  string
	L1, L2 int
	// Stages are the stages whose reweighted curves crossed (the first
	// stages unless their windows hold no crossing).
	Stage1, Stage2 int
	Found          bool
	Crossing       lat.Crossing
	// Note says why no crossing was found.
	Note string
}

// FSSFit is γ/ν fitted to a model's χ peak heights: χ_max ≈ A·L^(γ/ν) by
// weighted least squares of log χ_max on log L.
type FSSFit struct {
	Model string
	// MinSize is the smallest size fitted (every size from it on).
	MinSize int
	Points  int
	GammaNu float64
	Err     float64 // scaled by √(χ²/dof) when that exceeds 1
	A, Chi2 float64
}

// FSSShift is β_c extrapolated from a model's χ peak positions: the
// weighted least-squares line β_peak(L) = β_c + a/L (the shift of a
// pseudo-critical point goes as L^(−1/ν), and 1/ν = 1 both for the 2-D
// Ising class and, as L^(−d/2), at σ = d/2 = 1), weights 1/σ².
type FSSShift struct {
	Model   string
	MinSize int
	Points  int
	BetaC   float64
	Err     float64 // scaled by √(χ²/dof) when that exceeds 1
	Slope   float64 // a
	Chi2    float64
}

// FSSResult is what FSS measured.
type FSSResult struct {
	Settings  FSSSettings
	Chains    int
	Points    []FSSPoint
	Crossings []FSSCrossing
	Fits      []FSSFit
	Shifts    []FSSShift
	Seconds   float64
}

// fssJob is one stage at one size: chains run in parallel, then pooled.
type fssJob struct {
	model, size, stage int
	l                  *lat.Lattice
	beta0              float64
	sweeps             int64 // per chain
	series             []lat.Series
	seconds            []float64
}

// FSS runs the study. Stage g of size k of model m draws chain c from
// stream ((m·16 + k)·10 + g)·chains + c of cfg.Seed, so every number but
// the wall times is a function of the seed and the settings. All chains of
// a stage (every model and size) run cfg.Workers at a time, largest first;
// each starts from a uniformly random state, runs Burn Swendsen–Wang sweeps
// and measures after every sweep (lattice.Measurer; on lattices with more
// than lattice.AutoExactOffsets offsets the energy is computed exactly by
// FFT, in the Measurer, since reweighting needs exact energies).
func FSS(ctx context.Context, s FSSSettings, cfg harness.Config) (*FSSResult, error) {
	chains := s.Chains
	if chains == 0 {
		chains = cfg.NumRuns()
	}
	if err := s.validate(chains); err != nil {
		return nil, err
	}
	start := time.Now()
	res := &FSSResult{Settings: s, Chains: chains}
	var states []*fssState
	for _, m := range s.Models {
		for _, n := range m.Sizes {
			states = append(states, &fssState{pt: &FSSPoint{Model: m.Key, Size: n, Sites: n * n}})
		}
	}
	prog := cfg.ProgressOrNone()
	for stage := range s.Stages {
		jobs, err := fssJobs(s, states, stage, chains)
		if err != nil {
			return nil, err
		}
		if len(jobs) == 0 {
			break
		}
		if err := runFSSStage(ctx, jobs, s, chains, cfg, prog); err != nil {
			return nil, err
		}
		if err := fssCollect(s, states, jobs, stage); err != nil {
			return nil, err
		}
	}
	if err := res.finish(states); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// fssState is one (model, size) of the study across its stages: its point
// so far, the reweighter of each stage, and whether its χ peak has left
// the windows' edges.
type fssState struct {
	pt   *FSSPoint
	rws  []*lat.Reweighter
	done bool
}

// fssJobs returns the jobs of a stage: every (model, size) not done, at
// its model's β₀ in stage 0 and at the previous stage's χ peak (within its
// window) after.
func fssJobs(s FSSSettings, states []*fssState, stage, chains int) ([]*fssJob, error) {
	var jobs []*fssJob
	k := 0
	for mi, m := range s.Models {
		for si := range m.Sizes {
			st := states[k]
			k++
			if st.done {
				continue
			}
			beta := m.Beta
			if stage > 0 {
				last := st.pt.Runs[stage-1]
				beta = min(max(last.Peak.Beta.Mean, last.Lo), last.Hi)
			}
			l, err := lat.New(lat.Params{Dim: 2, Size: m.Sizes[si], Coupling: m.Kernel, Spin: lat.Ising(), Beta: beta})
			if err != nil {
				return nil, fmt.Errorf("experiments: fss: %s at L = %d: %w", m.Key, m.Sizes[si], err)
			}
			jobs = append(jobs, &fssJob{model: mi, size: si, stage: stage, l: l, beta0: beta, sweeps: m.Sweeps[si] / int64(chains)})
		}
	}
	return jobs, nil
}

// fssCollect pools a stage's chains into each state's run and reweighter,
// checks the reweighting of the stage before against this stage's direct
// run, and marks the states whose peak left the window's edge done.
func fssCollect(s FSSSettings, states []*fssState, jobs []*fssJob, stage int) error {
	for _, j := range jobs {
		st := states[indexOf(s.Models, j.model, j.size)]
		run, rw, err := j.pool(s)
		if err != nil {
			return fmt.Errorf("experiments: fss: %s at L = %d, stage %d: %w", s.Models[j.model].Key, s.Models[j.model].Sizes[j.size], stage+1, err)
		}
		st.pt.Runs = append(st.pt.Runs, run)
		st.rws = append(st.rws, rw)
		if stage > 0 {
			chk, err := fssCheck(st.rws[stage-1], stage-1, stage, run)
			if err != nil {
				return fmt.Errorf("experiments: fss: %s at L = %d: %w", st.pt.Model, st.pt.Size, err)
			}
			st.pt.Checks = append(st.pt.Checks, chk)
			st.done = !run.Peak.Edge
		}
		st.pt.Peak = run.Peak
	}
	return nil
}

// finish adds the states' points with their stage-1 curves, the Binder
// crossings of consecutive sizes, and each model's fits of γ/ν and of the
// peak shift (from its smallest size, and from the middle one when it has
// more than three).
func (res *FSSResult) finish(states []*fssState) error {
	s := res.Settings
	for _, st := range states {
		curve, err := fssCurve(st.rws[0], s.CurvePoints)
		if err != nil {
			return fmt.Errorf("experiments: fss: %s at L = %d: %w", st.pt.Model, st.pt.Size, err)
		}
		st.pt.Curve = curve
		res.Points = append(res.Points, *st.pt)
	}
	k := 0
	for _, m := range s.Models {
		for si := range m.Sizes {
			if si > 0 {
				res.Crossings = append(res.Crossings, fssCrossing(m.Key, states[k-1].pt.Size, states[k].pt.Size, states[k-1].rws, states[k].rws))
			}
			k++
		}
		res.Fits = append(res.Fits, res.fit(m.Key, m.Sizes[0]))
		res.Shifts = append(res.Shifts, res.shift(m.Key, m.Sizes[0]))
		if len(m.Sizes) > 3 {
			res.Fits = append(res.Fits, res.fit(m.Key, m.Sizes[len(m.Sizes)/2-1]))
			res.Shifts = append(res.Shifts, res.shift(m.Key, m.Sizes[len(m.Sizes)/2-1]))
		}
	}
	return nil
}

// indexOf returns the position of size si of model mi in the flattened
// list of (model, size).
func indexOf(models []FSSModel, mi, si int) int {
	k := 0
	for _, m := range models[:mi] {
		k += len(m.Sizes)
	}
	return k + si
}

// runFSSStage runs the chains of every job of a stage, largest first.
func runFSSStage(ctx context.Context, jobs []*fssJob, s FSSSettings, chains int, cfg harness.Config, prog harness.Progress) error {
	type task struct {
		j *fssJob
		c int
	}
	var tasks []task
	var total int64
	for _, j := range jobs {
		j.series, j.seconds = make([]lat.Series, chains), make([]float64, chains)
		for c := range chains {
			tasks = append(tasks, task{j, c})
		}
		total += int64(chains) * int64(j.l.Sites()) * (s.Burn + j.sweeps)
	}
	slices.SortStableFunc(tasks, func(a, b task) int {
		ca, cb := int64(a.j.l.Sites())*a.j.sweeps, int64(b.j.l.Sites())*b.j.sweeps
		switch {
		case ca > cb:
			return -1
		case ca < cb:
			return 1
		}
		return 0
	})
	prog.Start(fmt.Sprintf("fss: stage %d", jobs[0].stage+1), total)
	return chain.Parallel(ctx, len(tasks), cfg.NumWorkers(), func(ctx context.Context, i int) error {
		t := tasks[i]
		stream := uint64(((t.j.model*16+t.j.size)*10+t.j.stage)*chains + t.c)
		start := time.Now()
		ser, err := fssChain(ctx, t.j.l, s.Burn, t.j.sweeps, cfg.Seed, stream, prog)
		if err != nil {
			return fmt.Errorf("experiments: fss: L = %d, β = %.6g: %w", t.j.l.Params().Size, t.j.beta0, err)
		}
		t.j.series[t.c], t.j.seconds[t.c] = ser, time.Since(start).Seconds()
		return nil
	})
}

// fssChain runs one Swendsen–Wang chain on l: burn sweeps from a random
// state, then sweeps measured ones, and returns its Series.
func fssChain(ctx context.Context, l *lat.Lattice, burn, sweeps int64, seed, stream uint64, prog harness.Progress) (lat.Series, error) {
	r := harness.RandStream(seed, stream)
	sw, err := cluster.NewSwendsenWang(l, r, nil)
	if err != nil {
		return lat.Series{}, err
	}
	// Exact energies, as reweighting needs: the measurement pass's on
	// short-range lattices, by FFT on long-range ones.
	m, err := lat.NewMeasurer(l, r, lat.ExactEnergy)
	if err != nil {
		return lat.Series{}, err
	}
	c := &chain.Chain{Kernel: sw, Burn: burn, Observers: []chain.Observer{m}}
	sites := int64(l.Sites())
	chunk := max(1, (1<<20)/sites)
	for to := burn + sweeps; c.Done() < to; {
		from := c.Done()
		err := c.Advance(ctx, min(from+chunk, to))
		prog.Add((c.Done() - from) * sites)
		if err != nil {
			return lat.Series{}, err
		}
	}
	if err := sw.Err(); err != nil {
		return lat.Series{}, err
	}
	ser := m.Series()
	if len(ser.E) != int(sweeps) {
		return lat.Series{}, fmt.Errorf("%d measurements of %d sweeps", len(ser.E), sweeps)
	}
	return ser, nil
}

// pool returns the stage's run at one size: its chains' observables at β₀,
// the reweighting window and χ's peak.
func (j *fssJob) pool(s FSSSettings) (FSSRun, *lat.Reweighter, error) {
	run := FSSRun{Stage: j.stage + 1, Beta0: j.beta0, Chains: len(j.series), Sweeps: j.sweeps}
	for _, sec := range j.seconds {
		run.Seconds += sec
	}
	rw, err := j.l.Reweighter(j.series...)
	if err != nil {
		return run, nil, err
	}
	if s.MinFraction > 0 {
		if err := rw.SetMinFraction(s.MinFraction); err != nil {
			return run, nil, err
		}
	}
	run.Lo, run.Hi = rw.Window()
	at, err := rw.At(j.beta0)
	if err != nil {
		return run, nil, err
	}
	run.Direct = at.Observables
	if run.Peak, err = rw.ChiPeak(); err != nil {
		return run, nil, err
	}
	return run, rw, nil
}

// fssNames are the observables compared by the checks, in table order.
var fssNames = []string{"|m|", "m²", "m⁴", "e", "χ", "χ'", "C", "U", "ξ₂"}

// fssEstimates returns the observables of o in the order of fssNames.
func fssEstimates(o lat.Observables) []diag.Estimate {
	return []diag.Estimate{o.AbsM, o.M2, o.M4, o.Energy, o.Chi, o.ChiDisconnected, o.SpecificHeat, o.Binder, o.Xi}
}

// fssCheck compares stage from's reweighting at stage to's β₀ with stage
// to's direct observables.
func fssCheck(rw *lat.Reweighter, from, to int, run FSSRun) (FSSCheck, error) {
	chk := FSSCheck{Beta: run.Beta0, From: from + 1, To: to + 1, Direct: run.Direct}
	var err error
	if chk.Reweighted, err = rw.At(run.Beta0); err != nil {
		return chk, err
	}
	a, b := fssEstimates(chk.Reweighted.Observables), fssEstimates(run.Direct)
	for i := range a {
		e := math.Hypot(a[i].Err, b[i].Err)
		if !(e > 0) || math.IsNaN(a[i].Mean) || math.IsNaN(b[i].Mean) {
			continue
		}
		chk.Checked++
		if z := math.Abs(a[i].Mean-b[i].Mean) / e; z > chk.Worst {
			chk.Worst, chk.WorstName = z, fssNames[i]
		}
	}
	return chk, nil
}

// fssCurve reweights rw across its window at points β.
func fssCurve(rw *lat.Reweighter, points int) ([]lat.Reweighted, error) {
	lo, hi := rw.Window()
	var out []lat.Reweighted
	for i := range points {
		b := lo + (hi-lo)*float64(i)/float64(points-1)
		if i == points-1 {
			b = hi
		}
		o, err := rw.At(b)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// fssCrossing crosses the Binder cumulants of two sizes: the first stages'
// curves, or, if their windows hold no crossing, the first pair of stages
// whose windows do.
func fssCrossing(model string, l1, l2 int, a, b []*lat.Reweighter) FSSCrossing {
	out := FSSCrossing{Model: model, L1: l1, L2: l2}
	var first error
	for i := range a {
		for j := range b {
			c, err := lat.BinderCrossing(a[i], b[j])
			if err == nil {
				out.Found, out.Crossing, out.Stage1, out.Stage2 = true, c, i+1, j+1
				return out
			}
			if first == nil {
				first = err
			}
		}
	}
	out.Note = first.Error()
	return out
}

// fit fits γ/ν to the χ peaks of model at the sizes from minSize on.
func (r *FSSResult) fit(model string, minSize int) FSSFit {
	var sizes, h, e []float64
	for _, p := range r.Points {
		if p.Model == model && p.Size >= minSize && !p.Peak.Edge {
			sizes, h, e = append(sizes, float64(p.Size)), append(h, p.Peak.Height.Mean), append(e, p.Peak.Height.Err)
		}
	}
	f := FSSFit{Model: model, MinSize: minSize, Points: len(sizes)}
	f.GammaNu, f.A, f.Err, f.Chi2 = fitExponent(sizes, h, e)
	return f
}

// shift extrapolates the χ peak positions of model, at the sizes from
// minSize on, linearly in 1/L.
func (r *FSSResult) shift(model string, minSize int) FSSShift {
	var x, y, w []float64
	for _, p := range r.Points {
		if p.Model == model && p.Size >= minSize && !p.Peak.Edge && p.Peak.Beta.Err > 0 {
			x, y = append(x, 1/float64(p.Size)), append(y, p.Peak.Beta.Mean)
			w = append(w, 1/(p.Peak.Beta.Err*p.Peak.Beta.Err))
		}
	}
	f := FSSShift{Model: model, MinSize: minSize, Points: len(x), BetaC: math.NaN(), Err: math.NaN(), Slope: math.NaN(), Chi2: math.NaN()}
	if len(x) < 2 {
		return f
	}
	var sw, swx, swxx, swy, swxy float64
	for k := range x {
		sw += w[k]
		swx += w[k] * x[k]
		swxx += w[k] * x[k] * x[k]
		swy += w[k] * y[k]
		swxy += w[k] * x[k] * y[k]
	}
	det := sw*swxx - swx*swx
	f.BetaC = (swxx*swy - swx*swxy) / det
	f.Slope = (sw*swxy - swx*swy) / det
	f.Chi2 = 0
	for k := range x {
		res := y[k] - f.BetaC - f.Slope*x[k]
		f.Chi2 += w[k] * res * res
	}
	f.Err = math.Sqrt(swxx / det)
	if dof := len(x) - 2; dof > 0 && f.Chi2/float64(dof) > 1 {
		f.Err *= math.Sqrt(f.Chi2 / float64(dof))
	}
	return f
}
