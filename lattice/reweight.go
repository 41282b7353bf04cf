package lattice

import (
	"errors"
	"fmt"
	"github.com/pgibbs/pgibbs/diag"
	"math"
	"slices"
)

// ErrOutsideWindow is returned for an inverse temperature outside a
// Reweighter's window.
var ErrOutsideWindow = errors.New("lattice: β outside the reweighting window")

// ErrNoCrossing is returned by BinderCrossing when the two curves do not
// cross inside the overlap of the windows.
var ErrNoCrossing = errors.New("lattice: the Binder cumulants do not cross inside the reweighting windows")

// DefaultMinFraction is the smallest effective fraction of the measurements a
// reweighted estimate may rest on (see Reweighter).
const DefaultMinFraction = 0.1

// Reweighter turns the measurements of one run at β₀ (one or more
// independent chains) into the Observables at nearby β by single-histogram
// reweighting (Ferrenberg & Swendsen, Phys. Rev. Lett. 61, 2635, 1988):
// with H_t = n·E_t the total energy of measurement t,
//
//	⟨O⟩_β = Σ_t O_t w_t / Σ_t w_t,   w_t = e^{−(β−β₀)H_t},
//
// computed as exp(−(β−β₀)H_t − max_t(·)) (log-sum-exp: no overflow). Every
// moment of Observables is reweighted so, and the observables are the same
// functions of the reweighted moments at β (χ = βn(…), C = β²n(…)); their
// errors are the blocked jackknife of Observables with every replicate
// reweighted (the blocks chosen at β₀).
//
// # Window
//
// Reweighting is reliable only where the run sampled the energies that
// matter at β. The Reweighter accepts β where the Kish effective fraction
// of the weights,
//
//	ESS(β) = (Σ_t w_t)²/(N·Σ_t w_t²),
//
// is at least MinFraction (DefaultMinFraction = 0.1). It falls monotonically as |β −
// β₀| grows (log ESS = 2φ(Δβ) − φ(2Δβ) − log N with φ(t) = log Σ e^{−tH}
// convex), so the window is one interval [lo, hi] around β₀, found by
// bisection. For a Gaussian energy histogram of width σ_H, ESS =
// exp(−(Δβσ_H)²), and 0.1 is |Δβ| ≤ 1.52/σ_H: the reweighted histogram's
// mean moves 1.52σ_H, to the sampled histogram's 6th or 94th percentile,
// so that its bulk still lies where the run put thousands of
// measurements. The measure looks at the weights themselves, so it also
// holds for skewed or double-peaked histograms, and it says what matters
// for the error bars: a tenth of the measurements still carries the
// estimate (the jackknife is unreliable when a handful does). A criterion
// on the mean energy alone (say, inside the sampled 1st–99th percentiles)
// would allow ESS ≈ 0.4% for a Gaussian histogram, where a few tail
// measurements decide the answer. Outside the window At refuses with
// ErrOutsideWindow. No criterion computed from the run can see energies
// the run never visited: where the histogram widens fast with β (a run
// deep in an ordered or a disordered phase, reweighted towards a
// transition, has a narrow histogram and so a wide window) the window
// reaches further than the reweighting is accurate. Run near the β of
// interest — for finite-size scaling, near the pseudo-critical point.
//
// A Reweighter is immutable after construction but for SetMinFraction, and safe
// for concurrent reads.
type Reweighter struct {
	s           *sample
	minFraction float64
	lo, hi      float64
}

// NewReweighter returns a Reweighter for the chains' Series, measured at
// inverse temperature beta0 on sites sites of side side, with the window
// of DefaultMinFraction. The chains are checked as by ComputeObservables.
func NewReweighter(beta0 float64, sites, side int, chains ...Series) (*Reweighter, error) {
	s, err := newSample(beta0, sites, side, chains)
	if err != nil {
		return nil, err
	}
	r := &Reweighter{s: s}
	if err := r.SetMinFraction(DefaultMinFraction); err != nil {
		return nil, err
	}
	return r, nil
}

// Reweighter returns a Reweighter for chains of l (NewReweighter at l's β,
// sites and side).
func (l *Lattice) Reweighter(chains ...Series) (*Reweighter, error) {
	return NewReweighter(l.p.Beta, l.n, l.size, chains...)
}

// Beta0 returns the inverse temperature the chains ran at.
func (r *Reweighter) Beta0() float64 { return r.s.beta0 }

// Sites returns the number of sites; Side the side.
func (r *Reweighter) Sites() int { return r.s.sites }

// Side returns the lattice's side N.
func (r *Reweighter) Side() int { return r.s.side }

// Measurements returns the number of measurements in all chains.
func (r *Reweighter) Measurements() int { return r.s.n }

// Window returns the interval of β where the effective fraction is at
// least MinFraction. It contains β₀; it is [β₀, β₀] when every measured energy
// is the same (the histogram has no width to reweight).
func (r *Reweighter) Window() (lo, hi float64) { return r.lo, r.hi }

// MinFraction returns the smallest effective fraction of the window.
func (r *Reweighter) MinFraction() float64 { return r.minFraction }

// SetMinFraction sets the smallest effective fraction, 0 < f < 1, and
// recomputes the window.
func (r *Reweighter) SetMinFraction(f float64) error {
	if !(f > 0 && f < 1) {
		return fmt.Errorf("lattice: reweighting: effective fraction %v: need 0 < f < 1", f)
	}
	r.minFraction = f
	r.lo, r.hi = r.s.beta0, r.s.beta0
	if !(r.s.sigmaH > 0) {
		return nil
	}
	r.lo = r.edge(-1)
	r.hi = r.edge(1)
	return nil
}

// edge returns the window's end on side dir (±1) of β₀.
func (r *Reweighter) edge(dir float64) float64 {
	b0 := r.s.beta0
	ok := func(d float64) bool { return r.s.essFraction(b0+dir*d) >= r.minFraction }
	good, step := 0.0, 1/r.s.sigmaH
	bad := math.Inf(1)
	for range 200 {
		if ok(step) {
			good, step = step, 2*step
			continue
		}
		bad = step
		break
	}
	if math.IsInf(bad, 1) {
		return b0 + dir*good
	}
	for range 100 {
		mid := (good + bad) / 2
		if mid == good || mid == bad {
			break
		}
		if ok(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
	return b0 + dir*good
}

// ESS returns the effective fraction of the weights at beta,
// (Σw)²/(N·Σw²) (1 at β₀).
func (r *Reweighter) ESS(beta float64) float64 { return r.s.essFraction(beta) }

// essFraction returns (Σw)²/(N·Σw²) at beta.
func (s *sample) essFraction(beta float64) float64 {
	mx := s.maxLogWeight(beta)
	var sw, sw2 float64
	for c, ch := range s.chains {
		for t := range ch.E {
			w := math.Exp(s.logWeight(beta, c, t) - mx)
			sw += w
			sw2 += w * w
		}
	}
	return sw * sw / (float64(s.n) * sw2)
}

// Inside reports whether beta lies in the window.
func (r *Reweighter) Inside(beta float64) bool { return beta >= r.lo && beta <= r.hi }

// Reweighted are the Observables at a β reweighted from β₀, with the
// effective fraction of the weights there.
type Reweighted struct {
	Observables
	ESS float64
}

// At returns the Observables at beta, reweighted from β₀, with their
// jackknife errors and τ (of the reweighted linearised series), or an
// error wrapping ErrOutsideWindow if beta is outside the window. At β₀ it
// is ComputeObservables.
func (r *Reweighter) At(beta float64) (Reweighted, error) {
	if math.IsNaN(beta) || !r.Inside(beta) {
		return Reweighted{}, fmt.Errorf("%w: β = %v, window [%v, %v] (effective fraction ≥ %v) around β₀ = %v; a smaller fraction widens it (SetMinFraction), at the price of noisier estimates, or run nearer β",
			ErrOutsideWindow, beta, r.lo, r.hi, r.minFraction, r.s.beta0)
	}
	return Reweighted{Observables: r.s.observe(beta, true), ESS: r.s.essFraction(beta)}, nil
}

// curve holds one observable on a grid of β: the full-data values and,
// for each jackknife block, the replicate's values.
type curve struct {
	beta []float64
	full []float64
	rep  [][]float64 // rep[j][i]: without block j, at beta[i]
}

// scan evaluates observable o at every β of betas, for the full data and
// every replicate, appending to c (c.rep has one slice per block).
func (s *sample) scan(o observable, betas []float64, c *curve) {
	if c.rep == nil {
		c.rep = make([][]float64, len(s.spans))
	}
	var gs []group
	for _, b := range betas {
		var total group
		gs, total = s.groups(b, s.spans, gs)
		mu := means(total, group{})
		c.beta = append(c.beta, b)
		c.full = append(c.full, s.value(o, b, &mu))
		for j, g := range gs {
			mu := means(total, g)
			c.rep[j] = append(c.rep[j], s.value(o, b, &mu))
		}
	}
}

// sorted returns c with its points in increasing β.
func (c *curve) sorted() *curve {
	idx := make([]int, len(c.beta))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case c.beta[a] < c.beta[b]:
			return -1
		case c.beta[a] > c.beta[b]:
			return 1
		}
		return 0
	})
	out := &curve{rep: make([][]float64, len(c.rep))}
	for _, i := range idx {
		out.beta = append(out.beta, c.beta[i])
		out.full = append(out.full, c.full[i])
		for j := range c.rep {
			out.rep[j] = append(out.rep[j], c.rep[j][i])
		}
	}
	return out
}

// grid returns k points evenly spaced on [lo, hi] (k ≥ 2).
func grid(lo, hi float64, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(k-1)
	}
	out[k-1] = hi
	return out
}

// Scan resolution: a coarse grid over the window, then a fine one over
// ±scanRefine coarse steps around the full data's extremum or crossing.
const (
	scanCoarse = 64
	scanFine   = 49
	scanRefine = 3
)

// Peak is the maximum of a reweighted observable: its position and its
// height, each with its jackknife error (Tau is NaN: not estimated).
type Peak struct {
	Beta, Height diag.Estimate
	// Edge is true when the largest value on the window lies at one of
	// its ends: the peak may be outside the window (Beta and Height are
	// then the end's, Beta's error NaN — a bound, not an estimate — and a
	// run nearer the peak is needed).
	Edge bool
}

// ChiPeak returns the maximum of the connected susceptibility χ(β) over the
// window: χ is evaluated on a grid of 64 points across the window, then on
// 49 points over the three grid steps either side of the largest value;
// the peak is the vertex of the parabola through the largest value on the
// combined grid and its two neighbours. Every jackknife replicate is
// located the same way on the same grid (its own largest value and
// parabola), and the errors of the position and the height are the
// jackknife's over them.
func (r *Reweighter) ChiPeak() (Peak, error) {
	return r.s.peak(obsChi, r.lo, r.hi)
}

// peak locates the maximum of o on [lo, hi].
func (s *sample) peak(o observable, lo, hi float64) (Peak, error) {
	if !(hi > lo) {
		return Peak{}, fmt.Errorf("lattice: χ peak: empty window [%v, %v]", lo, hi)
	}
	c := &curve{}
	coarse := grid(lo, hi, scanCoarse)
	s.scan(o, coarse, c)
	k := argmax(c.full)
	if k < 0 {
		return Peak{}, errors.New("lattice: χ peak: χ is NaN across the window")
	}
	step := coarse[1] - coarse[0]
	flo, fhi := max(lo, coarse[k]-scanRefine*step), min(hi, coarse[k]+scanRefine*step)
	s.scan(o, grid(flo, fhi, scanFine), c)
	c = c.sorted()
	p := Peak{}
	bFull, hFull, edge := vertex(c.beta, c.full)
	p.Edge = edge
	repB, repH := make([]float64, len(c.rep)), make([]float64, len(c.rep))
	for j, y := range c.rep {
		repB[j], repH[j], _ = vertex(c.beta, y)
	}
	counts := s.counts()
	p.Beta = diag.Estimate{Mean: bFull, Err: math.Sqrt(diag.JackknifeVar(bFull, repB, counts, s.n)), Tau: math.NaN(), Plateau: s.plateau}
	if edge {
		// Every replica's maximum is the same end: β is a bound on the
		// peak's position, not an estimate of it, and has no error bar
		// (the jackknife's would be 0 up to rounding).
		p.Beta.Err = math.NaN()
	}
	p.Height = diag.Estimate{Mean: hFull, Err: math.Sqrt(diag.JackknifeVar(hFull, repH, counts, s.n)), Tau: math.NaN(), Plateau: s.plateau}
	return p, nil
}

// counts returns the lengths of the blocks.
func (s *sample) counts() []int {
	out := make([]int, len(s.spans))
	for j, sp := range s.spans {
		out[j] = sp.hi - sp.lo
	}
	return out
}

// argmax returns the index of the largest non-NaN value, or −1.
func argmax(y []float64) int {
	k := -1
	for i, v := range y {
		if !math.IsNaN(v) && (k < 0 || v > y[k]) {
			k = i
		}
	}
	return k
}

// vertex returns the maximum of the parabola through the largest value of
// y (on increasing x) and its neighbours, and whether that value is at an
// end of x (then the end's point is returned).
func vertex(x, y []float64) (xm, ym float64, edge bool) {
	k := argmax(y)
	if k < 0 {
		return math.NaN(), math.NaN(), false
	}
	if k == 0 || k == len(x)-1 {
		return x[k], y[k], true
	}
	x0, x1, x2 := x[k-1], x[k], x[k+1]
	y0, y1, y2 := y[k-1], y[k], y[k+1]
	if math.IsNaN(y0) || math.IsNaN(y2) {
		return x1, y1, false
	}
	// y = a(x − x1)² + b(x − x1) + y1 through the three points.
	d0, d2 := x0-x1, x2-x1
	a := ((y0-y1)/d0 - (y2-y1)/d2) / (d0 - d2)
	b := (y0-y1)/d0 - a*d0
	if !(a < 0) {
		return x1, y1, false
	}
	dx := min(max(-b/(2*a), d0), d2)
	return x1 + dx, a*dx*dx + b*dx + y1, false
}

// Crossing is where two sizes' Binder cumulants cross: the inverse
// temperature and the cumulant there, with jackknife errors (Tau is NaN).
type Crossing struct {
	Beta, U diag.Estimate
	// Lo and Hi bound the interval searched: the overlap of the windows.
	Lo, Hi float64
}

// BinderCrossing returns the crossing of the Binder cumulants U(β) of two
// runs (two sizes of one model) inside the overlap of their windows: the
// difference D = U_a − U_b is evaluated on a grid of 64 points across the
// overlap; of the sign changes the steepest (largest jump of D) is taken,
// refined on 49 points over the three grid steps either side, and located
// by linear interpolation of D between the two points that bracket it.
// For the errors each jackknife replicate of a (with b whole) and of b
// (with a whole) is located the same way, at its sign change nearest the
// full data's; the runs are independent, so the two jackknife variances
// add. An error is NaN when some replicate's curves do not cross on the
// grid (nearly parallel curves: the crossing is not resolved). It returns
// an error wrapping ErrNoCrossing if D keeps its sign.
func BinderCrossing(a, b *Reweighter) (Crossing, error) {
	lo, hi := max(a.lo, b.lo), min(a.hi, b.hi)
	if !(hi > lo) {
		return Crossing{Lo: lo, Hi: hi}, fmt.Errorf("%w: the windows [%v, %v] and [%v, %v] do not overlap", ErrNoCrossing, a.lo, a.hi, b.lo, b.hi)
	}
	ca, cb := &curve{}, &curve{}
	coarse := grid(lo, hi, scanCoarse)
	a.s.scan(obsBinder, coarse, ca)
	b.s.scan(obsBinder, coarse, cb)
	d := diff(ca.full, cb.full)
	k := steepestCrossing(d)
	if k < 0 {
		return Crossing{Lo: lo, Hi: hi}, fmt.Errorf("%w: U_a − U_b runs from %.4g to %.4g on [%v, %v] (sizes %d and %d)",
			ErrNoCrossing, d[0], d[len(d)-1], lo, hi, a.s.side, b.s.side)
	}
	step := coarse[1] - coarse[0]
	fine := grid(max(lo, coarse[k]-scanRefine*step), min(hi, coarse[k+1]+scanRefine*step), scanFine)
	a.s.scan(obsBinder, fine, ca)
	b.s.scan(obsBinder, fine, cb)
	ca, cb = ca.sorted(), cb.sorted()
	x := ca.beta
	f := 0.0
	if d[k] != d[k+1] {
		f = d[k] / (d[k] - d[k+1])
	}
	bFull, uFull, ok := crossingNear(x, ca.full, cb.full, coarse[k]+f*step)
	if !ok {
		return Crossing{Lo: lo, Hi: hi}, fmt.Errorf("%w: lost on the fine grid", ErrNoCrossing)
	}
	var varB, varU float64
	for _, side := range []struct {
		s    *sample
		reps [][]float64
		a    bool
	}{{a.s, ca.rep, true}, {b.s, cb.rep, false}} {
		rb, ru := make([]float64, len(side.reps)), make([]float64, len(side.reps))
		for j, y := range side.reps {
			ya, yb := y, cb.full
			if !side.a {
				ya, yb = ca.full, y
			}
			var found bool
			rb[j], ru[j], found = crossingNear(x, ya, yb, bFull)
			if !found {
				rb[j], ru[j] = math.NaN(), math.NaN()
			}
		}
		counts := side.s.counts()
		varB += diag.JackknifeVar(bFull, rb, counts, side.s.n)
		varU += diag.JackknifeVar(uFull, ru, counts, side.s.n)
	}
	plateau := a.s.plateau && b.s.plateau
	return Crossing{
		Beta: diag.Estimate{Mean: bFull, Err: math.Sqrt(varB), Tau: math.NaN(), Plateau: plateau},
		U:    diag.Estimate{Mean: uFull, Err: math.Sqrt(varU), Tau: math.NaN(), Plateau: plateau},
		Lo:   lo, Hi: hi,
	}, nil
}

// diff returns a − b elementwise.
func diff(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}

// steepestCrossing returns the i with d[i] and d[i+1] of opposite signs
// (or d[i] = 0) and the largest |d[i+1] − d[i]|, or −1.
func steepestCrossing(d []float64) int {
	k, best := -1, -1.0
	for i := 0; i+1 < len(d); i++ {
		if math.IsNaN(d[i]) || math.IsNaN(d[i+1]) {
			continue
		}
		if (d[i] <= 0) != (d[i+1] <= 0) || d[i] == 0 {
			if j := math.Abs(d[i+1] - d[i]); j > best {
				k, best = i, j
			}
		}
	}
	return k
}

// crossingNear returns the crossing of ya and yb on x (increasing) nearest
// near, by linear interpolation, with the value of ya there, and false if
// they do not cross.
func crossingNear(x, ya, yb []float64, near float64) (beta, u float64, ok bool) {
	d := diff(ya, yb)
	best := math.Inf(1)
	for i := 0; i+1 < len(d); i++ {
		if math.IsNaN(d[i]) || math.IsNaN(d[i+1]) || !((d[i] <= 0) != (d[i+1] <= 0) || d[i] == 0) {
			continue
		}
		f := 0.0
		if d[i] != d[i+1] {
			f = d[i] / (d[i] - d[i+1])
		}
		xb := x[i] + f*(x[i+1]-x[i])
		ub := ya[i] + f*(ya[i+1]-ya[i])
		if dist := math.Abs(xb - near); dist < best {
			best, beta, u, ok = dist, xb, ub, true
		}
	}
	return beta, u, ok
}
