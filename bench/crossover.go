package bench

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	lat "github.com/pgibbs/pgibbs/lattice"
	"github.com/pgibbs/pgibbs/potts"
)

// paperL is L of the Poisson-Gibbs paper's Potts model (20×20, D = 10,
// β = 4.6, γ = 1.5). The power-law lattices of the crossover study and of
// BenchmarkPowerLaw set β so that their L equals it, as lattice's
// benchmarks do: λ = L² and the expected minibatch λ + L are then the
// paper's at every size.
const paperL = 5.087798

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
	// point, whose median is reported; 0 means Config.Runs.
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
		PowerL:      paperL,
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
		return errors.New("bench: crossover: no model")
	}
	if len(s.GaussWidths) > 0 {
		if err := s.Gauss.Validate(); err != nil {
			return fmt.Errorf("bench: crossover: %w", err)
		}
	}
	for _, w := range s.GaussWidths {
		if w < 2 {
			return fmt.Errorf("bench: crossover: Gaussian width %d < 2", w)
		}
	}
	for _, n := range s.PowerSides {
		if n < 3 {
			return fmt.Errorf("bench: crossover: power-law side %d < 3", n)
		}
	}
	switch {
	case len(s.GaussWidths) > 0 && s.Gauss.States > maxBaselineStates:
		return fmt.Errorf("bench: crossover: %d Potts states: the hand-written loop takes at most %d", s.Gauss.States, maxBaselineStates)
	case len(s.PowerSides) > 0 && (s.PowerStates < 2 || s.PowerStates > maxBaselineStates):
		return fmt.Errorf("bench: crossover: %d power-law Potts states: need 2 to %d", s.PowerStates, maxBaselineStates)
	case len(s.PowerSides) > 0 && !(s.PowerSigma > 0):
		return fmt.Errorf("bench: crossover: σ = %v: need σ > 0", s.PowerSigma)
	case len(s.PowerSides) > 0 && !(s.PowerL > 0):
		return fmt.Errorf("bench: crossover: L = %v: need L > 0", s.PowerL)
	case s.LambdaScale < 0:
		return fmt.Errorf("bench: crossover: λ scale %v < 0", s.LambdaScale)
	case s.Warm < 0 || s.Target <= 0:
		return fmt.Errorf("bench: crossover: warm-up %v, target %v: need a warm-up ≥ 0 and a target > 0", s.Warm, s.Target)
	case s.Reps < 0:
		return fmt.Errorf("bench: crossover: %d repetitions", s.Reps)
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

// crossTimer is one sampler under the clock.
type crossTimer interface{ step() }

type libStepper struct{ s gibbs.Sampler }

func (l libStepper) step() { l.s.Step() }

// pgStepper is Poisson-Gibbs under the clock; warm holds its counters at
// the end of the warm-up.
type pgStepper struct {
	s    gibbs.Sampler
	warm gibbs.Stats
}

func (p *pgStepper) step() { p.s.Step() }

func (p *pgStepper) warmedUp() { p.warm = p.s.Stats() }

// Crossover runs the study: for each model of s, in turn and on one
// goroutine (so that the samplers do not compete for cores), each sampler
// is warmed up for s.Warm and then timed over repetitions of about
// s.Target, the samplers taking turns (see timeSamplers), and the median
// time per update of each is kept. Samplers draw from
// streams of cfg.Seed; the chains are reproducible, the times are not.
// cfg.Workers is not used; cfg.Runs is the number of repetitions unless
// s.Reps is set.
func Crossover(ctx context.Context, s CrossoverSettings, cfg Config) (*CrossoverResult, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	reps := s.Reps
	if reps == 0 {
		reps = cfg.runs()
	}
	res := &CrossoverResult{Settings: s, Reps: reps}
	prog := cfg.progress()
	prog.Start("crossover", int64(4*len(s.GaussWidths)+3*len(s.PowerSides)))
	stream := uint64(0)
	// measure times the hand-written loops (stencil, and csr if not nil)
	// and the library's samplers on m.
	measure := func(pt *CrossoverPoint, m factorgraph.Model, stencil, csr crossTimer) error {
		g, err := gibbs.NewGibbs(m, randStream(cfg.Seed, stream), nil)
		if err != nil {
			return err
		}
		pg, err := gibbs.NewPoissonGibbs(m, randStream(cfg.Seed, stream+1), &gibbs.Options{LambdaScale: s.LambdaScale})
		if err != nil {
			return err
		}
		stream += 4
		pt.Lambda = pg.Lambda()
		timers := []crossTimer{stencil, libStepper{g}, &pgStepper{s: pg}}
		if csr != nil {
			timers = append(timers, csr)
		}
		runtime.GC() // the garbage of building the models, not during the clock
		tms, err := timeSamplers(ctx, timers, s, reps, prog)
		if err != nil {
			return err
		}
		pt.Stencil, pt.Gibbs, pt.PGibbs = tms[0], tms[1], tms[2]
		if csr != nil {
			pt.CSR = tms[3]
		}
		if err := errors.Join(g.Err(), pg.Err()); err != nil {
			return err
		}
		st := pg.Stats()
		before := timers[2].(*pgStepper).warm
		steps := float64(st.Steps - before.Steps)
		pt.PGDraws = float64(st.Picks-before.Picks) / steps
		pt.PGFactors = float64(st.Factors-before.Factors) / steps
		return nil
	}

	if len(s.GaussWidths) > 0 {
		fam := CrossoverFamily{Key: CrossoverGauss,
			Label: fmt.Sprintf("Gaussian-kernel Potts graph (D = %d, β = %g, γ = %g)", s.Gauss.States, s.Gauss.Beta, s.Gauss.Gamma)}
		for _, w := range s.GaussWidths {
			p := s.Gauss
			p.Width = w
			g, err := potts.New(p)
			if err != nil {
				return nil, fmt.Errorf("bench: crossover: %w", err)
			}
			csr, err := newPottsHeatBath(p, randStream(cfg.Seed, stream+2))
			if err != nil {
				return nil, err
			}
			st, err := newPottsStencil(p, randStream(cfg.Seed, stream+3))
			if err != nil {
				return nil, err
			}
			pt := CrossoverPoint{Size: w, Sites: g.NumVars(), Delta: g.MaxDegree(), MeanDegree: csr.meanDegree(), Beta: p.Beta, L: g.L()}
			if err := measure(&pt, g, st, csr); err != nil {
				return nil, fmt.Errorf("bench: crossover: Gaussian width %d: %w", w, err)
			}
			fam.Points = append(fam.Points, pt)
		}
		res.Families = append(res.Families, fam.finish())
	}
	if len(s.PowerSides) > 0 {
		fam := CrossoverFamily{Key: CrossoverPower,
			Label: fmt.Sprintf("power-law lattice (r^−%g, q = %d, L = %.5g)", 2+s.PowerSigma, s.PowerStates, s.PowerL)}
		for _, n := range s.PowerSides {
			p, l, err := powerLawLattice(n, s.PowerStates, s.PowerSigma, s.PowerL)
			if err != nil {
				return nil, fmt.Errorf("bench: crossover: %w", err)
			}
			st, err := newLatticeHeatBath(p, randStream(cfg.Seed, stream+2))
			if err != nil {
				return nil, err
			}
			pt := CrossoverPoint{Size: n, Sites: l.Sites(), Delta: l.MaxDegree(), MeanDegree: float64(l.MaxDegree()), Beta: p.Beta, L: l.L()}
			if err := measure(&pt, l, st, nil); err != nil {
				return nil, fmt.Errorf("bench: crossover: power-law side %d: %w", n, err)
			}
			fam.Points = append(fam.Points, pt)
		}
		res.Families = append(res.Families, fam.finish())
	}
	return res, nil
}

// powerLawLattice returns the parameters and the lattice of the 2-D
// full-torus power-law Potts lattice of side n with q states, kernel
// r^−(2+sigma) and β > 0 such that L = targetL.
func powerLawLattice(n, q int, sigma, targetL float64) (lat.Params, *lat.Lattice, error) {
	p := lat.Params{Dim: 2, Size: n, Kernel: lat.PowerLaw{Sigma: sigma}, Spin: lat.Potts(q), Beta: 1}
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
func timeSamplers(ctx context.Context, ts []crossTimer, s CrossoverSettings, reps int, prog Progress) ([]Timing, error) {
	run := func(t crossTimer, n int64, chunk int64) (time.Duration, error) {
		// Chunks of about 50 ms keep cancellation responsive; the clock
		// reads cost nothing at that scale.
		var elapsed time.Duration
		for done := int64(0); done < n; {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			c := min(chunk, n-done)
			start := time.Now()
			for range c {
				t.step()
			}
			elapsed += time.Since(start)
			done += c
		}
		return elapsed, nil
	}
	n := make([]int64, len(ts))
	chunk := make([]int64, len(ts))
	for k, t := range ts {
		// Warm-up in doubling chunks.
		var warmN int64
		var warm time.Duration
		for c := int64(1); warmN == 0 || warm < s.Warm; c *= 2 {
			d, err := run(t, c, c)
			if err != nil {
				return nil, err
			}
			warm += d
			warmN += c
		}
		per := max(float64(warm)/float64(warmN), 1)
		n[k] = max(int64(float64(s.Target)/per), 1)
		chunk[k] = max(int64(50e6/per), 1)
		if w, ok := t.(interface{ warmedUp() }); ok {
			w.warmedUp()
		}
	}
	ns := make([][]float64, len(ts))
	out := make([]Timing, len(ts))
	for range reps {
		for k, t := range ts {
			if _, err := run(t, n[k]/10, chunk[k]); err != nil {
				return nil, err
			}
			d, err := run(t, n[k], chunk[k])
			if err != nil {
				return nil, err
			}
			ns[k] = append(ns[k], float64(d.Nanoseconds())/float64(n[k]))
			out[k].Updates += n[k]
		}
	}
	for k := range ts {
		v := ns[k]
		slices.Sort(v)
		out[k].Min, out[k].Max = v[0], v[len(v)-1]
		if len(v)%2 == 1 {
			out[k].Median = v[len(v)/2]
		} else {
			out[k].Median = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		prog.Add(1)
	}
	return out, nil
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

// Table returns one row per point: the times per update (medians), the
// speed-ups of Poisson-Gibbs against the faster hand-written loop and
// against Gibbs, and Poisson-Gibbs's work per update.
func (r *CrossoverResult) Table() Table {
	t := Table{Header: []string{"family", "size", "Δ", "mean |A[i]|", "β",
		"stencil ns/update", "CSR ns/update", "best hand-written ns/neighbour", "Gibbs ns/update", "Poisson-Gibbs ns/update",
		"PG draws/update", "PG factors/update", "best hand ÷ PG", "Gibbs ÷ PG", "Gibbs ÷ best hand"}}
	for _, f := range r.Families {
		for _, p := range f.Points {
			hand, _ := p.BestHand()
			csr := "–"
			if p.CSR.Updates > 0 {
				csr = fmtG(p.CSR.Median, 4)
			}
			t.Rows = append(t.Rows, []string{f.Key, strconv.Itoa(p.Size), strconv.Itoa(p.Delta), fmtG(p.MeanDegree, 5), fmtG(p.Beta, 4),
				fmtG(p.Stencil.Median, 4), csr, fmtG(hand/p.MeanDegree, 3), fmtG(p.Gibbs.Median, 4), fmtG(p.PGibbs.Median, 4),
				fmtG(p.PGDraws, 4), fmtG(p.PGFactors, 4),
				fmtG(hand/p.PGibbs.Median, 3), fmtG(p.Gibbs.Median/p.PGibbs.Median, 3), fmtG(p.Gibbs.Median/hand, 3)})
		}
	}
	return t
}

// SummaryTable returns the crossovers of each family.
func (r *CrossoverResult) SummaryTable() Table {
	t := Table{Header: []string{"family", "L", "λ", "Δ measured", "PG faster than the best hand-written loop from Δ =", "PG faster than Gibbs from Δ ="}}
	for _, f := range r.Families {
		span, l, lambda := "–", "–", "–"
		if n := len(f.Points); n > 0 {
			span = fmt.Sprintf("%d–%d", f.Points[0].Delta, f.Points[n-1].Delta)
			l, lambda = fmtG(f.Points[0].L, 5), fmtG(f.Points[0].Lambda, 4)
		}
		t.Rows = append(t.Rows, []string{f.Label, l, lambda, span, f.VsHand.String(), f.VsGibbs.String()})
	}
	return t
}

// crossoverSamplers are the curves of a point, in plotting order.
var crossoverSamplers = []string{CrossoverStencil, CrossoverCSR, CrossoverGibbs, CrossoverPGibbs}

// timing returns the timing of the sampler key at p (Updates 0 if it was
// not run).
func (p CrossoverPoint) timing(key string) Timing {
	switch key {
	case CrossoverStencil:
		return p.Stencil
	case CrossoverCSR:
		return p.CSR
	case CrossoverGibbs:
		return p.Gibbs
	}
	return p.PGibbs
}

// Write writes dir/name.csv (one row per point and sampler: family, size,
// sites, delta, mean_degree, beta, L, lambda, sampler, ns_median, ns_min,
// ns_max, updates, draws, factors; draws and factors are Poisson-Gibbs's,
// empty for the others), dir/name-summary.csv (family, against which
// sampler, the crossover Δ — empty when not reached — and whether it is
// only an upper bound) and the log–log plot of ns/update against Δ as
// dir/name.png and dir/name.svg. It returns the paths written.
func (r *CrossoverResult) Write(dir, name string) ([]string, error) {
	var rows [][]string
	for _, f := range r.Families {
		for _, p := range f.Points {
			for _, key := range crossoverSamplers {
				tm := p.timing(key)
				if tm.Updates == 0 {
					continue
				}
				draws, factors := "", ""
				if key == CrossoverPGibbs {
					draws, factors = ftoa(p.PGDraws), ftoa(p.PGFactors)
				}
				rows = append(rows, []string{f.Key, strconv.Itoa(p.Size), strconv.Itoa(p.Sites), strconv.Itoa(p.Delta),
					ftoa(p.MeanDegree), ftoa(p.Beta), ftoa(p.L), ftoa(p.Lambda), key,
					ftoa(tm.Median), ftoa(tm.Min), ftoa(tm.Max), strconv.FormatInt(tm.Updates, 10), draws, factors})
			}
		}
	}
	csvPath := filepath.Join(dir, name+".csv")
	if err := WriteCSV(csvPath, []string{"family", "size", "sites", "delta", "mean_degree", "beta", "L", "lambda", "sampler",
		"ns_median", "ns_min", "ns_max", "updates", "draws", "factors"}, rows); err != nil {
		return nil, err
	}
	out := []string{csvPath}
	var srows [][]string
	for _, f := range r.Families {
		for _, c := range []struct {
			vs string
			c  Crossing
		}{{"best-handwritten", f.VsHand}, {CrossoverGibbs, f.VsGibbs}} {
			srows = append(srows, []string{f.Key, c.vs, csvNum(c.c.Delta), strconv.FormatBool(c.c.Below)})
		}
	}
	sumPath := filepath.Join(dir, name+"-summary.csv")
	if err := WriteCSV(sumPath, []string{"family", "pgibbs_faster_than", "delta", "at_most"}, srows); err != nil {
		return out, err
	}
	out = append(out, sumPath)
	p, err := r.plot()
	if err != nil {
		return out, err
	}
	paths, err := savePlot(p, dir, name)
	return append(out, paths...), err
}

// csvNum formats v for CSV, NaN as an empty field.
func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return ftoa(v)
}

// Plot styles: one colour per sampler, one dash pattern and marker per
// family.
var (
	crossoverColours = map[string]color.RGBA{
		CrossoverStencil: {0, 0, 0, 255},
		CrossoverCSR:     {150, 150, 150, 255},
		CrossoverGibbs:   {213, 94, 0, 255},
		CrossoverPGibbs:  {0, 114, 178, 255},
	}
	crossoverFamilyStyle = map[string]struct {
		dash  []vg.Length
		glyph draw.GlyphDrawer
	}{
		CrossoverPower: {nil, draw.CircleGlyph{}},
		CrossoverGauss: {[]vg.Length{vg.Points(5), vg.Points(2)}, draw.TriangleGlyph{}},
	}
	crossoverNames = map[string]string{
		CrossoverStencil: "hand-written stencil", CrossoverCSR: "hand-written CSR",
		CrossoverGibbs: "Gibbs", CrossoverPGibbs: "Poisson-Gibbs",
		CrossoverPower: "power law", CrossoverGauss: "Gaussian Potts",
	}
)

// plot draws ns/update against Δ on log–log axes: a curve per sampler and
// family.
func (r *CrossoverResult) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Time per update against the degree Δ"
	p.X.Label.Text = "Δ (factors per variable)"
	p.Y.Label.Text = "ns per update"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Left, p.Legend.Top = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	for _, f := range r.Families {
		for _, key := range crossoverSamplers {
			var xy plotter.XYs
			for _, pt := range f.Points {
				if tm := pt.timing(key); tm.Updates > 0 && pt.Delta > 0 && tm.Median > 0 && !math.IsInf(tm.Median, 0) {
					xy = append(xy, plotter.XY{X: float64(pt.Delta), Y: tm.Median})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, sc, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("bench: crossover plot: %w", err)
			}
			st := crossoverFamilyStyle[f.Key]
			l.Color, l.Dashes, l.Width = crossoverColours[key], st.dash, vg.Points(1.3)
			sc.Color, sc.Shape, sc.Radius = crossoverColours[key], st.glyph, vg.Points(2.5)
			p.Add(l, sc)
			p.Legend.Add(crossoverNames[key]+", "+crossoverNames[f.Key], l, sc)
		}
	}
	return p, nil
}
