package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/internal/baseline"
	lat "github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/potts"
)

// PaperL is L of the Poisson-Gibbs paper's Potts model (20×20, D = 10,
// β = 4.6, γ = 1.5). The power-law lattices of the crossover study and of
// BenchmarkPowerLaw set β so that their L equals it, as lattice's
// benchmarks do: λ = L² and the expected minibatch λ + L are then the
// paper's at every size.
const PaperL = 5.087798

// Keys of the crossover study's families and samplers.
const (
	CrossoverGauss = "gauss" // Gaussian-kernel Potts graphs of package potts
	CrossoverPower = "power" // implicit power-law lattices of package lattice

	CrossoverCSR     = "handwritten"         // the hand-written heat-bath over CSR neighbour arrays (Gaussian family)
	CrossoverStencil = "handwritten-stencil" // the hand-written heat-bath over a shared offset table
	CrossoverGibbs   = "gibbs"               // the library's plain Gibbs
	CrossoverPGibbs  = "pgibbs"              // the library's Poisson-Gibbs
)

// CrossoverSettings configures the crossover study: the time per
// single-site update of the library's plain Gibbs, its Poisson-Gibbs, and
// the hand-written model-specific heat-bath loops that are the honest
// baseline of DESIGN §9 (baseline.go), as the degree Δ grows, on two
// families of models whose L stays fixed while Δ grows.
type CrossoverSettings struct {
	// Gauss is the Gaussian-kernel Potts model of the first family
	// (potts.New: fully connected, open boundaries, stored factor graph);
	// its Width takes each value of GaussWidths. It has two hand-written
	// baselines: the heat-bath over CSR neighbour arrays, and the stencil
	// heat-bath over one shared table of offsets (the faster once the
	// neighbour lists outgrow the caches).
	Gauss       potts.Params
	GaussWidths []int
	// PowerSides are the sides N of the second family: implicit 2-D
	// periodic lattices (lattice.New) with the power-law kernel
	// r^−(2+PowerSigma) between every pair of sites (Δ = N² − 1) and
	// PowerStates-state Potts spins, β set at each side so that L =
	// PowerL. Its baseline is the stencil heat-bath over all N² − 1
	// offsets.
	PowerSides  []int
	PowerSigma  float64
	PowerStates int
	PowerL      float64
	// LambdaScale sets Poisson-Gibbs's λ = LambdaScale·L² (0 means 1).
	LambdaScale float64
	// Warm is the warm-up of each sampler at each point, Target the
	// duration of each timed repetition.
	Warm, Target time.Duration
	// Reps is the number of timed repetitions of each sampler at each
	// point, whose median is reported; 0 means harness.Config.Runs.
	Reps int
}

// CrossoverPaper returns the study's settings: the paper's Potts model
// (D = 10, β = 4.6, γ = 1.5) at widths 20, 40, 80 (Δ = 399, 1438, 1564),
// and power-law lattices with σ = 1, q = 10, L = 5.0878 (the paper's) at
// sides 20, 50, 100, 200, 500, 1000 (Δ = 399 to 999 999); λ = L². Full
// runs warm up 0.1 s and time 0.3 s a repetition, quick runs 20 ms and
// 60 ms (under a minute in all, much of it building the 80×80 graph).
func CrossoverPaper(quick bool) CrossoverSettings {
	s := CrossoverSettings{
		Gauss:       potts.Paper(),
		GaussWidths: []int{20, 40, 80},
		PowerSides:  []int{20, 50, 100, 200, 500, 1000},
		PowerSigma:  1,
		PowerStates: 10,
		PowerL:      PaperL,
		LambdaScale: 1,
		Warm:        100 * time.Millisecond,
		Target:      300 * time.Millisecond,
	}
	if quick {
		s.Warm, s.Target = 20*time.Millisecond, 60*time.Millisecond
	}
	return s
}

func (s CrossoverSettings) validate() error {
	if len(s.GaussWidths)+len(s.PowerSides) == 0 {
		return errors.New("experiments: crossover: no model")
	}
	if len(s.GaussWidths) > 0 {
		if err := s.Gauss.Validate(); err != nil {
			return fmt.Errorf("experiments: crossover: %w", err)
		}
	}
	for _, w := range s.GaussWidths {
		if w < 2 {
			return fmt.Errorf("experiments: crossover: Gaussian width %d < 2", w)
		}
	}
	for _, n := range s.PowerSides {
		if n < 3 {
			return fmt.Errorf("experiments: crossover: power-law side %d < 3", n)
		}
	}
	switch {
	case len(s.GaussWidths) > 0 && s.Gauss.States > baseline.MaxStates:
		return fmt.Errorf("experiments: crossover: %d Potts states: the hand-written loop takes at most %d", s.Gauss.States, baseline.MaxStates)
	case len(s.PowerSides) > 0 && (s.PowerStates < 2 || s.PowerStates > baseline.MaxStates):
		return fmt.Errorf("experiments: crossover: %d power-law Potts states: need 2 to %d", s.PowerStates, baseline.MaxStates)
	case len(s.PowerSides) > 0 && !(s.PowerSigma > 0):
		return fmt.Errorf("experiments: crossover: σ = %v: need σ > 0", s.PowerSigma)
	case len(s.PowerSides) > 0 && !(s.PowerL > 0):
		return fmt.Errorf("experiments: crossover: L = %v: need L > 0", s.PowerL)
	case s.LambdaScale < 0:
		return fmt.Errorf("experiments: crossover: λ scale %v < 0", s.LambdaScale)
	case s.Warm < 0 || s.Target <= 0:
		return fmt.Errorf("experiments: crossover: warm-up %v, target %v: need a warm-up ≥ 0 and a target > 0", s.Warm, s.Target)
	case s.Reps < 0:
		return fmt.Errorf("experiments: crossover: %d repetitions", s.Reps)
	}
	return nil
}

// Timing is the time per update of one sampler at one point.
type Timing struct {
	// Median, Min and Max are over the repetitions, in ns per update.
	Median, Min, Max float64
	// Updates is the number of timed updates, over all repetitions.
	Updates int64
}

// CrossoverPoint is one model of the study.
type CrossoverPoint struct {
	// Size is the lattice's width (Gaussian family) or side (power law).
	Size  int
	Sites int
	// Delta is Δ = max_i |A[i]|; MeanDegree the mean of |A[i]| over the
	// sites, the expected number of neighbours an update visits (below Δ
	// on the open-boundary Gaussian graphs).
	Delta      int
	MeanDegree float64
	Beta, L    float64
	Lambda     float64
	// Stencil, CSR, Gibbs and PGibbs are the times per update of the
	// hand-written stencil loop, the hand-written CSR loop (Gaussian family
	// only; CSR.Updates is 0 where it was not run), the library's Gibbs and
	// its Poisson-Gibbs.
	Stencil, CSR, Gibbs, PGibbs Timing
	// PGDraws and PGFactors are Poisson-Gibbs's minibatch draws and
	// distinct factors per update, over the timed updates.
	PGDraws, PGFactors float64
}

// BestHand returns the median time per update of the faster hand-written
// loop at p and its key (CrossoverStencil or CrossoverCSR).
func (p CrossoverPoint) BestHand() (ns float64, key string) {
	if p.CSR.Updates > 0 && p.CSR.Median < p.Stencil.Median {
		return p.CSR.Median, CrossoverCSR
	}
	return p.Stencil.Median, CrossoverStencil
}

// Crossing locates where Poisson-Gibbs becomes faster than another sampler
// on a family.
type Crossing struct {
	// Delta is the smallest Δ from which Poisson-Gibbs is faster at every
	// point measured, interpolated on log Δ between the bracketing points
	// (where the log of the time ratio changes sign). When Poisson-Gibbs
	// is faster already at the smallest Δ measured, Delta is that Δ and
	// Below is true (the crossover is at most Delta); when it is not faster
	// at the largest Δ measured, Delta is NaN.
	Delta float64
	Below bool
}

// String returns e.g. "2,310", "≤ 399" or "not reached".
func (c Crossing) String() string {
	switch {
	case math.IsNaN(c.Delta):
		return "not reached"
	case c.Below:
		return "≤ " + strconv.FormatFloat(c.Delta, 'f', 0, 64)
	}
	return strconv.FormatFloat(c.Delta, 'f', 0, 64)
}

// CrossoverFamily is the study on one family of models.
type CrossoverFamily struct {
	Key, Label string
	// Points are in increasing order of Δ.
	Points []CrossoverPoint
	// VsHand and VsGibbs locate the Δ from which Poisson-Gibbs is faster
	// than the faster hand-written loop (BestHand) and than the library's
	// Gibbs.
	VsHand, VsGibbs Crossing
}

// CrossoverResult is what Crossover measured.
type CrossoverResult struct {
	Settings CrossoverSettings
	Reps     int
	Families []CrossoverFamily
}

// Crossover runs the study: for each model of s, in turn and on one
// goroutine (so that the samplers do not compete for cores), each sampler
// is warmed up for s.Warm and then timed over repetitions of about
// s.Target, the samplers taking turns (see timeSamplers), and the median
// time per update of each is kept. The library's samplers run through
// chain.Chain.Advance, as the CLI runs them, so their times include its
// per-step check of the context; the hand-written loops run bare. Samplers
// draw from streams of cfg.Seed; the chains are reproducible, the times
// are not. cfg.Workers is not used; cfg.Runs is the number of repetitions
// unless s.Reps is set.
func Crossover(ctx context.Context, s CrossoverSettings, cfg harness.Config) (*CrossoverResult, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	cr := &crossoverRun{s: s, seed: cfg.Seed, reps: s.Reps, prog: cfg.ProgressOrNone()}
	if cr.reps == 0 {
		cr.reps = cfg.NumRuns()
	}
	res := &CrossoverResult{Settings: s, Reps: cr.reps}
	cr.prog.Start("crossover", int64(4*len(s.GaussWidths)+3*len(s.PowerSides)))
	if len(s.GaussWidths) > 0 {
		fam, err := cr.gaussFamily(ctx)
		if err != nil {
			return nil, err
		}
		res.Families = append(res.Families, fam.finish())
	}
	if len(s.PowerSides) > 0 {
		fam, err := cr.powerFamily(ctx)
		if err != nil {
			return nil, err
		}
		res.Families = append(res.Families, fam.finish())
	}
	return res, nil
}

// crossoverRun is the state of one Crossover call: the next points draw
// from streams stream, stream+1, … of seed, four a point.
type crossoverRun struct {
	s      CrossoverSettings
	seed   uint64
	reps   int
	prog   harness.Progress
	stream uint64
}

// gaussFamily measures the Gaussian-kernel Potts graphs of every width.
func (cr *crossoverRun) gaussFamily(ctx context.Context) (CrossoverFamily, error) {
	s := cr.s
	fam := CrossoverFamily{Key: CrossoverGauss,
		Label: fmt.Sprintf("Gaussian-kernel Potts graph (D = %d, β = %g, γ = %g)", s.Gauss.States, s.Gauss.Beta, s.Gauss.Gamma)}
	for _, w := range s.GaussWidths {
		p := s.Gauss
		p.Width = w
		g, err := potts.New(p)
		if err != nil {
			return fam, fmt.Errorf("experiments: crossover: %w", err)
		}
		csr, err := baseline.NewPottsHeatBath(p, harness.RandStream(cr.seed, cr.stream+2))
		if err != nil {
			return fam, err
		}
		st, err := baseline.NewPottsStencil(p, harness.RandStream(cr.seed, cr.stream+3))
		if err != nil {
			return fam, err
		}
		pt := CrossoverPoint{Size: w, Sites: g.NumVars(), Delta: g.MaxDegree(), MeanDegree: csr.MeanDegree(), Beta: p.Beta, L: g.L()}
		if err := cr.measure(ctx, &pt, g, handTimer(st.Step), handTimer(csr.Step)); err != nil {
			return fam, fmt.Errorf("experiments: crossover: Gaussian width %d: %w", w, err)
		}
		fam.Points = append(fam.Points, pt)
	}
	return fam, nil
}

// powerFamily measures the power-law lattices of every side.
func (cr *crossoverRun) powerFamily(ctx context.Context) (CrossoverFamily, error) {
	s := cr.s
	fam := CrossoverFamily{Key: CrossoverPower,
		Label: fmt.Sprintf("power-law lattice (r^−%g, q = %d, L = %.5g)", 2+s.PowerSigma, s.PowerStates, s.PowerL)}
	for _, n := range s.PowerSides {
		p, l, err := PowerLawLattice(n, s.PowerStates, s.PowerSigma, s.PowerL)
		if err != nil {
			return fam, fmt.Errorf("experiments: crossover: %w", err)
		}
		st, err := baseline.NewLatticeHeatBath(p, harness.RandStream(cr.seed, cr.stream+2))
		if err != nil {
			return fam, err
		}
		pt := CrossoverPoint{Size: n, Sites: l.Sites(), Delta: l.MaxDegree(), MeanDegree: float64(l.MaxDegree()), Beta: p.Beta, L: l.L()}
		if err := cr.measure(ctx, &pt, l, handTimer(st.Step), nil); err != nil {
			return fam, fmt.Errorf("experiments: crossover: power-law side %d: %w", n, err)
		}
		fam.Points = append(fam.Points, pt)
	}
	return fam, nil
}

// measure times the hand-written loops (stencil, and csr if not nil) and
// the library's Gibbs and Poisson-Gibbs on m, and fills pt's timings and
// Poisson-Gibbs's work per update.
func (cr *crossoverRun) measure(ctx context.Context, pt *CrossoverPoint, m factorgraph.Model, stencil, csr crossTimer) error {
	g, err := site.NewGibbs(m, harness.RandStream(cr.seed, cr.stream), nil)
	if err != nil {
		return err
	}
	pg, err := site.NewPoissonGibbs(m, harness.RandStream(cr.seed, cr.stream+1), &gibbs.Options{LambdaScale: cr.s.LambdaScale})
	if err != nil {
		return err
	}
	cr.stream += 4
	pt.Lambda = pg.Lambda()
	pgt := newChainTimer(pg)
	timers := []crossTimer{stencil, newChainTimer(g), pgt}
	if csr != nil {
		timers = append(timers, csr)
	}
	runtime.GC() // the garbage of building the models, not during the clock
	tms, err := timeSamplers(ctx, timers, cr.s, cr.reps, cr.prog)
	if err != nil {
		return err
	}
	pt.Stencil, pt.Gibbs, pt.PGibbs = tms[0], tms[1], tms[2]
	if csr != nil {
		pt.CSR = tms[3]
	}
	st := pg.Stats()
	steps := float64(st.Steps - pgt.warm.Steps)
	pt.PGDraws = float64(st.Picks-pgt.warm.Picks) / steps
	pt.PGFactors = float64(st.Factors-pgt.warm.Factors) / steps
	return nil
}

// crossTimer is one sampler under the clock: advance performs n updates.
type crossTimer interface {
	advance(ctx context.Context, n int64) error
}

// warmer is a crossTimer that takes note of the end of its warm-up
// (chainTimer: its counters from then on).
type warmer interface {
	warmedUp()
}

// handTimer is a hand-written loop's update: it runs in a bare loop.
type handTimer func()

func (h handTimer) advance(_ context.Context, n int64) error {
	for range n {
		h()
	}
	return nil
}

// chainTimer is a library sampler, run through chain.Chain.Advance; warm
// holds its counters at the end of the warm-up.
type chainTimer struct {
	c    *chain.Chain
	s    gibbs.Sampler
	warm gibbs.Stats
}

func newChainTimer(s gibbs.Sampler) *chainTimer {
	return &chainTimer{c: &chain.Chain{Kernel: s}, s: s}
}

func (t *chainTimer) advance(ctx context.Context, n int64) error {
	return t.c.Advance(ctx, t.c.Done()+n)
}

func (t *chainTimer) warmedUp() { t.warm = t.s.Stats() }

// PowerLawLattice returns the parameters and the lattice of the 2-D
// full-torus power-law Potts lattice of side n with q states, kernel
// r^−(2+sigma) and β > 0 such that L = targetL.
func PowerLawLattice(n, q int, sigma, targetL float64) (lat.Params, *lat.Lattice, error) {
	p := lat.Params{Dim: 2, Size: n, Coupling: lat.PowerLaw{Sigma: sigma}, Spin: lat.Potts(q), Beta: 1}
	l, err := lat.New(p)
	if err != nil {
		return p, nil, err
	}
	p.Beta = targetL / l.L() // L = |β|·Σ|J| for Potts spins
	l, err = lat.New(p)
	return p, l, err
}

// timeSamplers warms each timer up for s.Warm (which also estimates its
// time per update and sets its repetitions to about s.Target), then runs
// reps rounds in each of which every timer in turn re-warms its caches
// for a tenth of a repetition (untimed) and runs one timed repetition, so
// that a change of the machine's load during the measurement falls on
// every sampler alike. It returns the median, min and max ns per update
// of each, and reports a unit of progress per timer.
func timeSamplers(ctx context.Context, ts []crossTimer, s CrossoverSettings, reps int, prog harness.Progress) ([]Timing, error) {
	n := make([]int64, len(ts))
	chunk := make([]int64, len(ts))
	for k, t := range ts {
		var err error
		if n[k], chunk[k], err = warmUp(ctx, t, s); err != nil {
			return nil, err
		}
	}
	ns := make([][]float64, len(ts))
	out := make([]Timing, len(ts))
	for range reps {
		for k, t := range ts {
			if _, err := timeUpdates(ctx, t, n[k]/10, chunk[k]); err != nil {
				return nil, err
			}
			d, err := timeUpdates(ctx, t, n[k], chunk[k])
			if err != nil {
				return nil, err
			}
			ns[k] = append(ns[k], float64(d.Nanoseconds())/float64(n[k]))
			out[k].Updates += n[k]
		}
	}
	for k := range ts {
		out[k].Min, out[k].Median, out[k].Max = spread(ns[k])
		prog.Add(1)
	}
	return out, nil
}

// warmUp runs t in doubling chunks for at least s.Warm and returns the
// updates of a repetition of about s.Target and the updates of a chunk of
// about 50 ms.
func warmUp(ctx context.Context, t crossTimer, s CrossoverSettings) (n, chunk int64, err error) {
	var warmN int64
	var warm time.Duration
	for c := int64(1); warmN == 0 || warm < s.Warm; c *= 2 {
		d, err := timeUpdates(ctx, t, c, c)
		if err != nil {
			return 0, 0, err
		}
		warm += d
		warmN += c
	}
	per := max(float64(warm)/float64(warmN), 1)
	if w, ok := t.(warmer); ok {
		w.warmedUp()
	}
	return max(int64(float64(s.Target)/per), 1), max(int64(50e6/per), 1), nil
}

// timeUpdates performs n updates of t in chunks of at most chunk, and
// returns the time they took. Chunks of about 50 ms keep cancellation
// responsive; the clock reads cost nothing at that scale.
func timeUpdates(ctx context.Context, t crossTimer, n, chunk int64) (time.Duration, error) {
	var elapsed time.Duration
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		c := min(chunk, n-done)
		start := time.Now()
		err := t.advance(ctx, c)
		elapsed += time.Since(start)
		if err != nil {
			return 0, err
		}
		done += c
	}
	return elapsed, nil
}

// spread returns the minimum, median and maximum of v (sorting v).
func spread(v []float64) (lo, median, hi float64) {
	slices.Sort(v)
	median = v[len(v)/2]
	if len(v)%2 == 0 {
		median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[0], median, v[len(v)-1]
}

// finish sorts the points by Δ and locates the crossovers.
func (f CrossoverFamily) finish() CrossoverFamily {
	slices.SortStableFunc(f.Points, func(a, b CrossoverPoint) int { return a.Delta - b.Delta })
	deltas := make([]float64, len(f.Points))
	hand, gb, pg := make([]float64, len(f.Points)), make([]float64, len(f.Points)), make([]float64, len(f.Points))
	for k, p := range f.Points {
		hand[k], _ = p.BestHand()
		deltas[k], gb[k], pg[k] = float64(p.Delta), p.Gibbs.Median, p.PGibbs.Median
	}
	f.VsHand = crossing(deltas, hand, pg)
	f.VsGibbs = crossing(deltas, gb, pg)
	return f
}

// crossing returns the smallest Δ from which fast[k] < slow[k] at every
// later point, interpolating log(slow/fast) linearly in log Δ between the
// bracketing points (see Crossing). deltas are increasing.
func crossing(deltas, slow, fast []float64) Crossing {
	first := len(deltas) // the first index of the final run where fast wins
	for k := len(deltas) - 1; k >= 0 && fast[k] < slow[k]; k-- {
		first = k
	}
	switch {
	case first == len(deltas):
		return Crossing{Delta: math.NaN()}
	case first == 0:
		return Crossing{Delta: deltas[0], Below: true}
	}
	a, b := first-1, first
	ga, gb := math.Log(slow[a]/fast[a]), math.Log(slow[b]/fast[b]) // ga ≤ 0 < gb
	la, lb := math.Log(deltas[a]), math.Log(deltas[b])
	frac := 1.0
	if gb > ga {
		frac = (0 - ga) / (gb - ga)
	}
	return Crossing{Delta: math.Exp(la + frac*(lb-la))}
}
