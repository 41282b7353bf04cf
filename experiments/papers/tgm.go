package papers

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/tgm"
)

// TGMSettings configures Fig. 3 of the Poisson-Gibbs paper (§4.3): 2-D
// density estimates of the truncated Gaussian mixture's posterior by
// minibatch continuous samplers, next to the true density.
type TGMSettings struct {
	// Config is the model (the paper's: tgm.GibbsConfig(), N = 10⁶,
	// β = 10⁻⁴, box [−6, 6]²); DataSeed seeds its data.
	Config   tgm.Config
	DataSeed uint64
	// Samplers are the panels. Each runs cfg.Runs chains of Iters updates
	// after Burn updates (a Sampler's own Iters overrides Iters); the chains'
	// histograms are pooled.
	Samplers []Sampler
	Iters    int64
	Burn     int64
	// Budget, if positive, stops a chain when its sampling time exceeds it
	// (checked between updates).
	Budget time.Duration
	// The density grid: NX×NY cells on the window [X0, X1] × [Y0, Y1] of
	// (x1, x2). Samples outside the window count towards the TV distance.
	X0, X1, Y0, Y1 float64
	NX, NY         int
	// Sub is the number of midpoints per cell axis at which the true
	// density is evaluated and averaged (Sub² per cell).
	Sub int
	// DataBins is the number of equal bins the data are grouped into to
	// evaluate Σ_i ℓ_i on the grid (see TGM).
	DataBins int
}

// TGMPaper returns the paper's setting: N = 10⁶ data (seed 1), λ = 500,
// m = 20, k = 25; PGITS and PGDA, each harness.Config.Runs chains of 10⁴
// updates after 200 updates of burn-in (quick: 600 after 100), and
// PG-rejection with at most 10⁵ tries per update (quick 10⁴); the window
// [−1.5, 2.5] × [−3, 3] (which holds all but about 10⁻⁶ of the mass)
// in 80×120 cells, 2×2 midpoints a cell, data in 10⁴ bins.
//
// The paper draws 10⁶ samples per method. Here a minibatch step costs about
// 10 ms (λ + L ≈ 1900 factors at each of the m + 1 = 21 Chebyshev nodes),
// so 10⁶ samples would take three hours per sampler.
func TGMPaper(quick bool) TGMSettings {
	opts := gibbs.Options{Lambda: 500, M: 20, K: 25}
	rej := opts
	rej.MaxTries = 100_000
	s := TGMSettings{Config: tgm.GibbsConfig(), DataSeed: 1, Iters: 10_000, Burn: 200,
		X0: -1.5, X1: 2.5, Y0: -3, Y1: 3, NX: 80, NY: 120, Sub: 2, DataBins: 10_000}
	if quick {
		s.Iters, s.Burn = 600, 100
		rej.MaxTries = 10_000
	}
	s.Samplers = []Sampler{
		{Key: "pgits", Label: "PGITS", Name: "pgits", Options: opts},
		{Key: "pgda", Label: "PGDA", Name: "pgda", Options: opts},
		{Key: "pg-rejection", Label: "PG-rejection", Name: "pg-rejection", Options: rej},
	}
	return s
}

// Density is a density estimate on the grid of a TGMResult.
type Density struct {
	Key, Label string
	// P holds the fraction of samples in each cell, cell (i, j) at
	// P[i·NY + j] (the true density: its probability).
	P []float64
	// Samples is the number of samples (updates counted), Outside how many
	// fell outside the window.
	Samples, Outside int64
	// TV is the total variation distance to the truth over the cells and
	// the outside of the window (NaN without samples).
	TV float64
	// Seconds is the sampling time summed over chains.
	Seconds float64
	// Stats sums the samplers' counters.
	Stats gibbs.Stats
	// Err is the error that stopped a chain ("" if none): a rejection
	// sampler that exceeds its MaxTries stops with one, and its estimate
	// is what it sampled until then.
	Err string
}

// TGMResult is what TGM measured.
type TGMResult struct {
	Settings TGMSettings
	// L is the factor graph's L; the paper printed 1581.14 for its data.
	L float64
	// Truth is the true density on the grid; TruthOutside its mass outside
	// the window (on a coarse grid of the box).
	Truth        Density
	TruthOutside float64
	// TruthLogErr bounds the error of the binned Σ_i ℓ_i at every grid
	// point (see TGM): the true density's cell values are exact to a
	// factor exp(±2·TruthLogErr), apart from the midpoint rule.
	TruthLogErr float64
	// Mode is the grid point of largest true density.
	Mode [2]float64
	// RejectionLog10Tries is log₁₀ of the expected number of uniform
	// proposals Gibbs-rejection (envelope exp(L_i) above the lowest
	// energy) needs to update x1 at the mode: why rejection fails here.
	RejectionLog10Tries float64
	Estimates           []Density
}

func (s TGMSettings) validate() error {
	b := s.Config.Box
	switch {
	case !(s.X0 < s.X1 && s.Y0 < s.Y1) || s.X0 < b.Lo1 || s.X1 > b.Hi1 || s.Y0 < b.Lo2 || s.Y1 > b.Hi2:
		return fmt.Errorf("tgm: window [%v, %v] × [%v, %v] must be non-empty and inside the box %v", s.X0, s.X1, s.Y0, s.Y1, b)
	case s.NX < 1 || s.NY < 1 || s.NX*s.NY > 1<<22:
		return fmt.Errorf("tgm: %d×%d cells: need 1 to 2²² cells", s.NX, s.NY)
	case s.Sub < 1 || s.Sub > 16:
		return fmt.Errorf("tgm: %d midpoints a cell axis: need 1 to 16", s.Sub)
	case s.DataBins < 1:
		return fmt.Errorf("tgm: %d data bins: need at least 1", s.DataBins)
	case s.Burn < 0 || s.Budget < 0:
		return fmt.Errorf("tgm: negative burn-in %d or budget %v", s.Burn, s.Budget)
	}
	return checkSamplers(s.Samplers, s.Iters)
}

// TGM runs the Fig. 3 experiment.
//
// The true density p(x1, x2) ∝ π0(x1, x2) exp(Σ_i ℓ_i(x1, x2)) needs a sum
// over 10⁶ data at every grid point. The data are grouped into DataBins
// equal bins and each bin's terms replaced by n_b·ℓ(ȳ_b) at its mean ȳ_b;
// the first-order error cancels, and since |∂²ℓ/∂y²| ≤ β(1/σ² + x2²/(4σ⁴))
// (the log of a two-component mixture), the error of the sum is at most
// ½β(1/σ² + w²/(4σ⁴)) Σ_i (y_i − ȳ_b)², w = max |x2| on the box, at every
// point (TruthLogErr; about 10⁻⁴ for the paper's setting). The cell
// probabilities are the density averaged over Sub² midpoints times the
// cell area, normalised by the total over a 0.05-spaced grid of the whole
// box, which also gives the mass outside the window.
func TGM(ctx context.Context, s TGMSettings, cfg harness.Config) (*TGMResult, error) {
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	model, err := tgm.Generate(s.Config, harness.RandStream(s.DataSeed, 0x7e5a))
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	g, err := model.Graph()
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	res := &TGMResult{Settings: s, L: g.L()}
	if err := res.truth(ctx, model, cfg); err != nil {
		return nil, err
	}
	outs, err := runTGMChains(ctx, s, g, cfg)
	if err != nil {
		return nil, err
	}
	runs := cfg.NumRuns()
	for c, sp := range s.Samplers {
		res.Estimates = append(res.Estimates, res.estimate(sp, outs[c*runs:(c+1)*runs]))
	}
	return res, nil
}

// tgmChain is what one chain of TGM measured.
type tgmChain struct {
	h       *histObserver
	seconds float64
	stats   gibbs.Stats
	err     error // the error that stopped the chain early
}

// runTGMChains runs cfg.Runs chains of every sampler of s in parallel;
// chain j draws from stream j of cfg.Seed.
func runTGMChains(ctx context.Context, s TGMSettings, g factorgraph.Model, cfg harness.Config) ([]tgmChain, error) {
	runs := cfg.NumRuns()
	outs := make([]tgmChain, len(s.Samplers)*runs)
	var total int64
	for _, sp := range s.Samplers {
		total += int64(runs) * itersOf(sp, s.Iters)
	}
	prog := cfg.ProgressOrNone()
	prog.Start("tgm", total)
	err := chain.Parallel(ctx, len(outs), cfg.NumWorkers(), func(ctx context.Context, j int) error {
		var err error
		outs[j], err = runTGMChain(ctx, s, g, s.Samplers[j/runs], harness.RandStream(cfg.Seed, uint64(j)), prog)
		return err
	})
	return outs, err
}

// runTGMChain runs one chain of sp: s.Burn updates, then its iterations
// (or until s.Budget), its histogram observing the updates after the
// burn-in. A chain that fails (a rejection sampler out of tries) keeps what
// it drew, and says why it stopped.
func runTGMChain(ctx context.Context, s TGMSettings, g factorgraph.Model, sp Sampler, r *rand.Rand, prog harness.Progress) (tgmChain, error) {
	iters := itersOf(sp, s.Iters)
	opts := sp.Options
	smp, err := samplers.New(sp.Name, g, r, &opts)
	if err != nil {
		return tgmChain{}, fmt.Errorf("experiments: %s: %w", sp.Key, err)
	}
	h, err := newHistObserver(s)
	if err != nil {
		return tgmChain{}, err
	}
	tc := newTimedChain(&chain.Chain{Kernel: smp, Observers: []chain.Observer{h}, Burn: s.Burn})
	rp := &runProgress{prog: prog, total: iters}
	defer rp.finish()
	out := tgmChain{h: h}
	if err := tc.advance(ctx, s.Burn+iters, s.Budget, func() { rp.report(tc.c.Done()-s.Burn, 0) }); err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		out.err = err
	}
	out.seconds, out.stats = tc.elapsed.Seconds(), smp.Stats()
	return out, nil
}

// estimate pools the chains of one sampler into its density estimate.
func (r *TGMResult) estimate(sp Sampler, outs []tgmChain) Density {
	s := r.Settings
	d := Density{Key: sp.Key, Label: sp.Label, P: make([]float64, s.NX*s.NY)}
	for _, o := range outs {
		for k, v := range o.h.h.Counts() {
			d.P[k] += v
		}
		d.Samples += o.h.h.N()
		d.Outside += o.h.h.Outside()
		d.Seconds += o.seconds
		d.Stats.Add(o.stats)
		if o.err != nil && d.Err == "" {
			d.Err = o.err.Error()
		}
	}
	d.TV = math.NaN()
	if d.Samples > 0 {
		for k := range d.P {
			d.P[k] /= float64(d.Samples)
		}
		d.TV = tvWithOutside(d.P, r.Truth.P, float64(d.Outside)/float64(d.Samples), r.TruthOutside)
	}
	return d
}

// tvWithOutside is the total variation between two distributions on the
// cells plus one outside cell.
func tvWithOutside(p, q []float64, pOut, qOut float64) float64 {
	tv := math.Abs(pOut - qOut)
	for k := range p {
		tv += math.Abs(p[k] - q[k])
	}
	return tv / 2
}

// histObserver counts (x1, x2) after every update in a diag.Hist2D.
type histObserver struct{ h *diag.Hist2D }

func newHistObserver(s TGMSettings) (*histObserver, error) {
	h, err := diag.NewHist2D(s.X0, s.X1, s.NX, s.Y0, s.Y1, s.NY)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	return &histObserver{h}, nil
}

func (o *histObserver) Observe(_ int64, _ int, x []float64) { o.h.Add(x[0], x[1]) }

// binnedLogLik is Σ_i ℓ_i(x1, x2) over data grouped in equal bins.
type binnedLogLik struct {
	m      *tgm.Model // one datum per non-empty bin, at the bin's mean
	counts []float64
	errBnd float64 // bound on |binned − exact| at any point of the box
}

func newBinnedLogLik(m *tgm.Model, bins int) (*binnedLogLik, error) {
	y := m.Data()
	lo, hi := slices.Min(y), slices.Max(y)
	width := (hi - lo) / float64(bins)
	sum := make([]float64, bins)
	cnt := make([]float64, bins)
	idx := func(v float64) int {
		if width == 0 {
			return 0
		}
		return min(int((v-lo)/width), bins-1)
	}
	for _, v := range y {
		k := idx(v)
		sum[k] += v
		cnt[k]++
	}
	var means, counts []float64
	for k := range bins {
		if cnt[k] > 0 {
			means = append(means, sum[k]/cnt[k])
			counts = append(counts, cnt[k])
		}
	}
	// Within-bin sum of squares Σ_i (y_i − ȳ_b)².
	ss := 0.0
	for _, v := range y {
		k := idx(v)
		d := v - sum[k]/cnt[k]
		ss += d * d
	}
	cfg := m.Config()
	bm, err := tgm.New(cfg, means)
	if err != nil {
		return nil, fmt.Errorf("experiments: binned data: %w", err)
	}
	s2 := cfg.SigmaY2
	w := max(math.Abs(cfg.Box.Lo2), math.Abs(cfg.Box.Hi2))
	curv := 1/s2 + w*w/(4*s2*s2)
	return &binnedLogLik{m: bm, counts: counts, errBnd: 0.5 * cfg.Beta * curv * ss}, nil
}

// logDensity returns log π0 + Σ_i ℓ_i at (x1, x2), unnormalised.
func (b *binnedLogLik) logDensity(x1, x2 float64) float64 {
	v := b.m.LogPrior(x1, x2)
	for k, n := range b.counts {
		v += n * b.m.LogLik(k, x1, x2)
	}
	return v
}

// truth fills r.Truth, r.TruthOutside, r.Mode, r.TruthLogErr and
// r.RejectionLog10Tries.
func (r *TGMResult) truth(ctx context.Context, model *tgm.Model, cfg harness.Config) error {
	s := r.Settings
	bl, err := newBinnedLogLik(model, s.DataBins)
	if err != nil {
		return err
	}
	r.TruthLogErr = bl.errBnd
	gr := newTGMGrid(s)
	fine, coarse, err := gr.logDensities(ctx, bl, cfg)
	if err != nil {
		return fmt.Errorf("experiments: truth: %w", err)
	}
	var p []float64
	p, r.TruthOutside, r.Mode = gr.normalise(fine, coarse)
	r.Truth = Density{Key: "truth", Label: "true density", P: p, TV: 0}
	r.RejectionLog10Tries = rejectionLog10Tries(model, bl, s.Config.Box, r.Mode)
	return nil
}

// tgmGrid is where the true density is evaluated: Sub² midpoints of every
// cell of the window, and a coarse grid of the whole box for the mass
// outside the window and the normalisation.
type tgmGrid struct {
	s        TGMSettings
	wx, wy   float64 // the window's cell widths
	cx, cy   int     // the coarse grid's cells
	cwx, cwy float64 // and their widths
}

func newTGMGrid(s TGMSettings) tgmGrid {
	const coarseStep = 0.1
	box := s.Config.Box
	gr := tgmGrid{s: s, wx: (s.X1 - s.X0) / float64(s.NX), wy: (s.Y1 - s.Y0) / float64(s.NY),
		cx: int(math.Ceil((box.Hi1 - box.Lo1) / coarseStep)), cy: int(math.Ceil((box.Hi2 - box.Lo2) / coarseStep))}
	gr.cwx, gr.cwy = (box.Hi1-box.Lo1)/float64(gr.cx), (box.Hi2-box.Lo2)/float64(gr.cy)
	return gr
}

// fine returns midpoint (a, b) of window cell (i, j).
func (gr tgmGrid) fine(i, j, a, b int) (x, y float64) {
	s, sub := gr.s, float64(gr.s.Sub)
	return s.X0 + (float64(i)+(float64(a)+0.5)/sub)*gr.wx, s.Y0 + (float64(j)+(float64(b)+0.5)/sub)*gr.wy
}

// coarse returns the centre of coarse cell (i, j).
func (gr tgmGrid) coarse(i, j int) (x, y float64) {
	box := gr.s.Config.Box
	return box.Lo1 + (float64(i)+0.5)*gr.cwx, box.Lo2 + (float64(j)+0.5)*gr.cwy
}

// logDensities returns the log density at the midpoints of the window's
// cells, midpoint (a, b) of cell (i, j) at ((i·NY + j)·Sub + a)·Sub + b,
// and at the coarse grid's points outside the window (−Inf inside), point
// (i, j) at i·cy + j; one row of either grid per task, in parallel.
func (gr tgmGrid) logDensities(ctx context.Context, bl *binnedLogLik, cfg harness.Config) (fine, coarse []float64, err error) {
	s, sub := gr.s, gr.s.Sub
	fine = make([]float64, s.NX*s.NY*sub*sub)
	coarse = make([]float64, gr.cx*gr.cy)
	rows := s.NX + gr.cx
	cfg.ProgressOrNone().Start("tgm truth", int64(rows))
	err = chain.Parallel(ctx, rows, cfg.NumWorkers(), func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if i < s.NX {
			for a := range sub {
				for j := range s.NY {
					for b := range sub {
						fine[((i*s.NY+j)*sub+a)*sub+b] = bl.logDensity(gr.fine(i, j, a, b))
					}
				}
			}
		} else {
			i -= s.NX
			for j := range gr.cy {
				x, y := gr.coarse(i, j)
				coarse[i*gr.cy+j] = math.Inf(-1)
				if outsideWindow(s, x, y) { // only the outside is needed
					coarse[i*gr.cy+j] = bl.logDensity(x, y)
				}
			}
		}
		cfg.ProgressOrNone().Add(1)
		return nil
	})
	return fine, coarse, err
}

// normalise turns the log densities of logDensities into the probabilities
// of the window's cells (the density averaged over the cell's midpoints
// times its area) and of the outside of the window, both divided by their
// total, and returns the midpoint of largest density.
func (gr tgmGrid) normalise(fine, coarse []float64) (p []float64, outside float64, mode [2]float64) {
	s, sub := gr.s, gr.s.Sub
	top := max(maxOf(fine), maxOf(coarse))
	p = make([]float64, s.NX*s.NY)
	win := 0.0
	best := math.Inf(-1)
	for c := range p {
		for k := range sub * sub {
			v := fine[c*sub*sub+k]
			p[c] += math.Exp(v - top)
			if v > best {
				best = v
				mode[0], mode[1] = gr.fine(c/s.NY, c%s.NY, k/sub, k%sub)
			}
		}
		p[c] *= gr.wx * gr.wy / float64(sub*sub)
		win += p[c]
	}
	out := 0.0
	for i := range gr.cx {
		for j := range gr.cy {
			if x, y := gr.coarse(i, j); outsideWindow(s, x, y) {
				out += math.Exp(coarse[i*gr.cy+j]-top) * gr.cwx * gr.cwy
			}
		}
	}
	total := win + out
	for c := range p {
		p[c] /= total
	}
	return p, out / total, mode
}

// rejectionLog10Tries returns log₁₀ of the expected tries of
// Gibbs-rejection updating x1 at the mode: the envelope is exp of the sum
// of the factors' upper ends, so the acceptance is the mean over the
// x1-interval of exp(Σ_i ℓ_i(x1, x2) + prior − Σ_i hi_i − max prior).
func rejectionLog10Tries(model *tgm.Model, bl *binnedLogLik, box tgm.Box, mode [2]float64) float64 {
	_, his := model.Ranges()
	sumHi := 0.0
	for _, h := range his {
		sumHi += h
	}
	_, pHi1 := model.PriorRange(0)
	const pts = 2000
	acc := math.Inf(-1)
	for k := range pts {
		x := box.Lo1 + (float64(k)+0.5)*(box.Hi1-box.Lo1)/pts
		v := bl.logDensity(x, mode[1]) - model.PriorTerm(1, mode[1]) - sumHi - pHi1
		acc = logAdd(acc, v)
	}
	acc -= math.Log(pts)
	return -acc / math.Ln10
}

func outsideWindow(s TGMSettings, x, y float64) bool {
	return x < s.X0 || x > s.X1 || y < s.Y0 || y > s.Y1
}

// logAdd returns log(exp(a) + exp(b)).
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
