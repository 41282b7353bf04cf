package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"

	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/internal/xmath"
)

// LambdaOf returns λ: Lambda, or LambdaScale·L².
func LambdaOf(o *gibbs.Options, l float64) (float64, error) {
	return ResolveLambda("λ", o.Lambda, o.LambdaScale, "L", l)
}

// Lambda2Of returns λ2 of DoubleMIN-Gibbs: Lambda2, or Lambda2Scale·L².
func Lambda2Of(o *gibbs.Options, l float64) (float64, error) {
	return ResolveLambda("λ2", o.Lambda2, o.Lambda2Scale, "L", l)
}

// ResolveLambda returns abs, or scale·q² for the model quantity q called
// qname (L, or Ψ for MIN-Gibbs), +Inf if that overflows.
func ResolveLambda(name string, abs, scale float64, qname string, q float64) (float64, error) {
	switch {
	case abs < 0 || math.IsNaN(abs) || math.IsInf(abs, 0):
		return 0, fmt.Errorf("%s = %v: need a finite %s > 0", name, abs, name)
	case scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0):
		return 0, fmt.Errorf("%s scale = %v: need a finite scale > 0", name, scale)
	case abs > 0 && scale > 0:
		return 0, fmt.Errorf("both %s and %s scale set: choose one", name, name)
	case abs > 0:
		return abs, nil
	}
	if scale == 0 {
		scale = 1
	}
	if q == 0 {
		// No soft factor: nothing to minibatch, and the samplers reduce to
		// exact updates over the hard factors; λ plays no part.
		return 0, nil
	}
	// An overflow gives +Inf: the constructors' limit on the work of a
	// step (Options.MaxDraws) refuses it, saying so, and Mixed updates
	// every variable exactly.
	return scale * q * q, nil
}

// Core is the state every sampler shares.
type Core struct {
	M        factorgraph.Model
	R        *rand.Rand
	X        []float64
	Free     []int
	AllFree  bool // Free is 0, 1, …, n−1: Pick needs no lookup (identityFree)
	Clamped  []bool
	Stat     gibbs.Stats
	Failure  error
	U, Buf   []float64   // per-value energies and factor values, len ≥ max domain size
	Buf2     []float64   // a second per-value buffer
	UpdateFn func(i int) // the sampler's Update, for Step, Sweep and UpdateEach
	// Prefetch, if set, makes the random scan look ahead (Pick, ahead.go):
	// the variables of the next two steps are drawn before they are
	// updated, and Prefetch(next, after) is called as each step starts, to
	// bring their data towards the cache.
	Prefetch func(next, after int)
	ahead    [3]int // the look-ahead's indices drawn but not yet picked: ahead[:nahead]
	nahead   int
	// Systematic makes Pick return the free variables in turn
	// (gibbs.Options.Systematic), scanPos the next one's place in Free;
	// Prefetch is then called with the scan's next two variables.
	// BrokenScan (tests) makes the scan skip a variable at 0: a scan that
	// depends on the state, which the exactness check must reject.
	Systematic bool
	scanPos    int
	BrokenScan bool
	// BrokenAhead (tests) makes the look-ahead draw again an index whose
	// variable is at 0: a scan that depends on the state, which the
	// exactness check must reject.
	BrokenAhead bool
	// TorusSweep says that every update is an exact one (ExactUpdate):
	// Gibbs, and Mixed when it updates every variable by Gibbs. UpdateEach
	// may then update a Chromatic worker's share in the torus loop
	// (TorusVars), and RunSweep sweep a large graph of Potts pairs with a
	// one-byte copy of the state (byteState).
	TorusSweep bool
	x8         []uint8 // the one-byte copy of X of a byte sweep (step.go)
	ByteSweeps int64   // the copies made (a sweep's, the steps'), for tests
	// x8ok says x8 is in step with X for the steps (scanBytes); shared
	// that a caller owns X (Share): no copy is ever in step; x8wait the
	// steps before a copy that could not be made is tried again.
	x8ok, shared bool
	x8wait       int
	// ForceBytes makes byteState copy the state whatever its size, for
	// the exactness tests' small graphs; BrokenBytes, for their broken
	// variant, keeps the copy out of step with the updates.
	ForceBytes, BrokenBytes bool
	// NoRows makes TorusVars walk a CheckerRun through its list (tests:
	// the row walk's draws against the list's).
	NoRows bool
	// NoBinary makes exactCompiled take its general path for binary
	// variables too (tests: binaryCompiled's draws against it);
	// BrokenBinary, for their broken variant, swaps binaryCompiled's two
	// energies.
	NoBinary, BrokenBinary bool
	// AllBinary says every variable of the model has two values, so that
	// every value of a state (checked against its domain wherever one is
	// given: Init, Restore; written by the updates and the swaps of their
	// states otherwise) is 0 or 1: the binary path then sums its energies
	// branch-free (pottsRow2Binary).
	AllBinary bool

	// PG is the Poisson minibatch of the samplers that draw one per
	// update (PoissonGibbs, Mixed), or nil.
	PG *PGState

	KG   *compiled.Graph // the model's compiled neighbourhoods, or nil (compiled.go)
	Tor  *compiled.Torus // the model's compiled torus form, or nil (torus.go)
	Size []int32         // domain size of each variable (0: continuous)

	// Interruption (step.go): Done closes when the step under way
	// must stop (nil: never); an update that sees it closed sets Aborted
	// and returns without changing X. Budget counts down the work until
	// the next look at Done on paths that count as they go; Saved is X at
	// the start of an interruptible sweep, or a Chromatic worker's journal
	// of its sweep, which Saved01 holds instead, one byte a value, where
	// the values are 0 and 1 (nnHeat2).
	Done    <-chan struct{}
	Aborted bool
	Budget  int
	Saved   []float64
	Saved01 []uint8

	// Rao–Blackwellisation (conditional.go): while Recording is set, the
	// last update's draw: variable CondI, weights CondW and their total
	// CondTot, at Stat.Steps = CondAt.
	Recording bool
	CondI     int
	CondW     []float64
	CondTot   float64
	CondAt    int64

	// Log-potential tracking: while LogTracking is set, every update adds
	// the change it makes to the model's log-potential Σ_φ log φ(x) to
	// LogDelta — U[new] − U[old] of its conditional, the factors of A[i]
	// being all that changes — or sets it to NaN where it cannot tell. Only
	// a sampler whose updates are all exact (Gibbs: ExactUpdate, whose U is
	// the whole conditional, not a minibatch's estimate) may set it. logU
	// keeps the energies, which the draw overwrites.
	LogTracking bool
	LogDelta    float64
	logU        []float64
}

// NewCore checks the model and options common to all samplers and sets up
// the state. discrete says the sampler handles only discrete variables.
// Evidence of probability zero is refused: at a factor whose variables are
// all observed, with an error naming it that wraps elim.ErrNoMass
// (elim.CheckEvidence, for a *factorgraph.Graph); through free variables,
// by the search for an initial state (factorgraph.ErrNoFeasibleState) or
// the check of the initial state given.
func NewCore(name string, m factorgraph.Model, r *rand.Rand, opt *gibbs.Options, discrete bool) (Core, error) {
	if m == nil {
		return Core{}, fmt.Errorf("gibbs: %s: nil model", name)
	}
	if r == nil {
		return Core{}, fmt.Errorf("gibbs: %s: nil *rand.Rand", name)
	}
	if g, ok := m.(*factorgraph.Graph); ok {
		if err := elim.CheckEvidence(g); err != nil {
			return Core{}, fmt.Errorf("gibbs: %s: %w", name, err)
		}
	}
	n := m.NumVars()
	c := Core{M: m, R: r, Free: m.Free(), Clamped: make([]bool, n), Budget: spendEvery}
	c.AllFree = identityFree(c.Free, n)
	if len(c.Free) == 0 {
		return Core{}, fmt.Errorf("gibbs: %s: every variable is observed; nothing to sample", name)
	}
	maxD := 1
	c.Size = make([]int32, n)
	// The compiled forms of a factorgraph.Graph and of a lattice (package
	// compiled's Form): looked up once, here, so that no step pays for it.
	c.KG, c.Tor = compiled.GraphOf(m), compiled.TorusOf(m)
	for i := range n {
		d := m.Domain(i)
		c.Size[i] = int32(d.Size)
		if _, ok := m.Observed(i); ok {
			c.Clamped[i] = true
		} else if discrete && !d.IsDiscrete() {
			return Core{}, fmt.Errorf("gibbs: %s: variable %d is continuous on %v; %s samples discrete variables only", name, i, d, name)
		}
		maxD = max(maxD, d.Size)
	}
	c.AllBinary = !slices.ContainsFunc(c.Size, func(d int32) bool { return d != 2 })
	c.U = make([]float64, maxD)
	c.logU = make([]float64, maxD)
	c.Buf = make([]float64, maxD)
	c.Buf2 = make([]float64, maxD)
	if opt == nil {
		opt = &gibbs.Options{}
	}
	c.Systematic = opt.Systematic
	if opt.Init != nil {
		if len(opt.Init) != n {
			return Core{}, fmt.Errorf("gibbs: %s: initial state has %d values for %d variables", name, len(opt.Init), n)
		}
		c.X = append([]float64(nil), opt.Init...)
		for i, v := range c.X {
			if ov, ok := m.Observed(i); ok {
				c.X[i] = ov
				continue
			}
			if d := m.Domain(i); !d.Contains(v) {
				return Core{}, fmt.Errorf("gibbs: %s: initial value %v of variable %d outside its domain %v", name, v, i, d)
			}
		}
	} else {
		c.X = factorgraph.RandomState(m, r)
		if c.checkHard() != nil {
			// Zeros make the random state impossible: search for a
			// feasible one where the model supports it.
			if f, ok := m.(feasibler); ok {
				x, err := f.FeasibleState(Context(opt), r, 0)
				if err != nil {
					return Core{}, fmt.Errorf("gibbs: %s: initial state: %w", name, err)
				}
				c.X = x
			}
		}
	}
	if err := c.checkHard(); err != nil {
		return Core{}, fmt.Errorf("gibbs: %s: %w", name, err)
	}
	return c, nil
}

// NewSiteCore is NewCore for a sampler that updates one variable at a
// time: it first refuses a model with a hard factor whose variables such
// updates can never change (CheckSiteMoves), on which the chain would be
// reducible.
func NewSiteCore(name string, m factorgraph.Model, r *rand.Rand, opt *gibbs.Options, discrete bool) (Core, error) {
	if err := CheckSiteMoves(Context(opt), name, m); err != nil {
		return Core{}, err
	}
	return NewCore(name, m, r, opt, discrete)
}

// feasibler is a model that can find a state of positive probability
// (factorgraph.Graph.FeasibleState).
type feasibler interface {
	FeasibleState(ctx context.Context, r *rand.Rand, maxNodes int) ([]float64, error)
}

// checkHard verifies that no hard factor rules out the current state.
func (c *Core) checkHard() error {
	for i := range c.M.NumVars() {
		soft, hard := c.M.Degree(i)
		for k := soft; k < soft+hard; k++ {
			v := c.M.Eval(i, k, c.X)
			if math.IsInf(v, -1) {
				name, _, _ := c.M.Describe(i, k)
				return fmt.Errorf("initial state has zero probability: %s is −Inf", name)
			}
			if !factorgraph.InRange(v, math.Inf(1)) {
				return factorgraph.CheckError(c.M, i, k, v)
			}
		}
	}
	return nil
}

// State returns the current state; the caller must not modify it.
func (c *Core) State() []float64 { return c.X }

// Updates implements chain.Counter.
func (c *Core) Updates() (int64, int) { return c.Stat.Steps, len(c.Free) }

// Stats returns the counters.
func (c *Core) Stats() gibbs.Stats { return c.Stat }

// Err returns the first error a step detected, or nil.
func (c *Core) Err() error { return c.Failure }

// Share makes the chain work on x, a state of the same model shared with
// other chains (the workers of a Chromatic), instead of its own copy.
func (c *Core) Share(x []float64) { c.X, c.shared, c.x8ok = x, true, false }

// Resume sets the counters and clears the error: the chain goes on from a
// restored state.
func (c *Core) Resume(st gibbs.Stats) {
	c.Stat = st
	c.Failure = nil
}

// Pick returns a free variable chosen uniformly (with Prefetch, drawn two
// steps ahead: pickAhead), or with Systematic the next in turn (pickScan).
func (c *Core) Pick() int {
	if c.Systematic {
		return c.pickScan()
	}
	if c.Prefetch != nil {
		return c.pickAhead()
	}
	return c.draw()
}

// draw draws a free variable uniformly.
func (c *Core) draw() int {
	if c.AllFree {
		return c.R.IntN(len(c.Free))
	}
	return c.Free[c.R.IntN(len(c.Free))]
}

// Fail records the first error.
func (c *Core) Fail(err error) {
	if c.Failure == nil {
		c.Failure = err
	}
}

// addExact adds the exact shifted values of the k-th factor of A[i] at
// every value of discrete variable i to u, checking each against the
// factor's range. It reports false after recording an error.
func (c *Core) addExact(i, k int, u []float64) bool {
	buf := c.Buf[:len(u)]
	c.M.EvalAll(i, k, c.X, buf)
	return c.AddChecked(i, k, buf, u)
}

// AddChecked adds vals, the values of factor k of A[i], to u, checking
// each against the factor's range. It reports false after recording an
// error.
func (c *Core) AddChecked(i, k int, vals, u []float64) bool {
	lo, hi := factorgraph.Limits(c.M.Bound(i, k))
	for v, s := range vals {
		if !(s >= lo && s <= hi) {
			c.Fail(factorgraph.CheckError(c.M, i, k, s))
			return false
		}
		u[v] += s
	}
	return true
}

// Accept is the Metropolis–Hastings test of a proposal with log acceptance
// ratio logr: true with probability min(1, e^logr), a uniform drawn only
// when logr < 0; an accepted proposal is counted.
func (c *Core) Accept(logr float64) bool {
	if logr >= 0 || math.Log(c.R.Float64()) < logr {
		c.Stat.Accepted++
		return true
	}
	return false
}

// SampleLog draws v with probability ∝ exp(u[v]) by max-subtracted
// exponentials, overwriting u. It returns −1 if every u[v] is −Inf.
func SampleLog(r *rand.Rand, u []float64) int {
	v, _ := sampleLogTotal(r, u)
	return v
}

// sampleLogTotal is sampleLog that also returns the total of the weights
// it leaves in u.
func sampleLogTotal(r *rand.Rand, u []float64) (int, float64) {
	if len(u) == 2 && !math.IsNaN(u[0]-u[1]) {
		// Two values (most UAI variables, every spin): one exp, of the
		// smaller minus the larger, −|u0 − u1| exactly; the larger's
		// weight is exp(0) = 1. The same weights, bit for bit, as the
		// loop below.
		small := 1
		if u[0] < u[1] {
			small = 0
		}
		w := xmath.ExpNeg(-math.Abs(u[0] - u[1]))
		u[small], u[1-small] = w, 1
		return DrawWeights(r.Float64()*(1+w), u), 1 + w
	}
	mx := math.Inf(-1)
	for _, e := range u {
		mx = max(mx, e)
	}
	if math.IsInf(mx, -1) {
		return -1, 0
	}
	total := 0.0
	for v, e := range u {
		u[v] = xmath.ExpNeg(e - mx)
		total += u[v]
	}
	return DrawWeights(r.Float64()*total, u), total
}

// DrawWeights returns the first v with t < w[0] + … + w[v], for t drawn
// uniformly below the total of the weights (the last positive weight if
// rounding left t at or above the total).
func DrawWeights(t float64, w []float64) int {
	last := 0
	for v, wv := range w {
		if wv > 0 {
			last = v
			if t < wv {
				return v
			}
			t -= wv
		}
	}
	return last
}

// set finishes a discrete update of i from the energies u.
func (c *Core) set(i int, u []float64) {
	if len(u) == 2 && !c.Recording {
		if d := u[1] - u[0]; !math.IsNaN(d) {
			c.set2(i, u[0], u[1], d)
			return
		}
	}
	var lu []float64
	if c.LogTracking {
		lu = c.logU[:len(u)]
		copy(lu, u)
	}
	v, total := sampleLogTotal(c.R, u)
	if v < 0 {
		c.Fail(fmt.Errorf("variable %d: every value has zero probability given the others", i))
		return
	}
	if lu != nil {
		if o := int(c.X[i]); o != v {
			if uint(o) < uint(len(lu)) && float64(o) == c.X[i] {
				c.LogDelta += lu[v] - lu[o]
			} else {
				c.LogDelta = math.NaN()
			}
		}
	}
	c.X[i] = float64(v)
	if c.x8ok && !c.BrokenBytes {
		c.x8[i] = uint8(v) // the steps' byte copy (scanBytes)
	}
	if c.Recording {
		c.drew(i, u, total)
	}
}

// set2 is set for two values with energies u0, u1 (d = u1 − u0 not NaN):
// the draw of sampleLogTotal and DrawWeights, bit for bit, without the
// weights' slice. The larger energy's weight is 1, the smaller's
// w = e^{−|d|}; t is uniform below 1 + w, and value 0 comes first.
func (c *Core) set2(i int, u0, u1, d float64) {
	w := xmath.ExpNeg(-math.Abs(d))
	t := c.R.Float64() * (1 + w)
	// Weights (w, 1) if u0 < u1: value 1 iff t ≥ w; else (1, w): value 1
	// iff t ≥ 1, which needs w > 0. Branch-free: the draw is a coin.
	thr := 1.0
	if u0 < u1 {
		thr = w
	}
	v := 0.0
	if t >= thr {
		v = 1
	}
	if c.LogTracking {
		switch o := c.X[i]; {
		case (o == 0 || o == 1) && !math.IsInf(d, 0):
			c.LogDelta += d * (v - o) // U[v] − U[o], or 0 when v = o: no branch on the coin
		case o != v && (o == 0 || o == 1): // d = ±Inf: only a change adds (Inf·0 is NaN)
			c.LogDelta += d * (v - o)
		case o != v:
			c.LogDelta = math.NaN()
		}
	}
	c.X[i] = v
	if c.x8ok && !c.BrokenBytes {
		c.x8[i] = uint8(v)
	}
}

// Where implements chain.Locator: after a panic in a step (a user's factor
// that panics), it names the first factor that panics when evaluated at the
// chain's state, at every value of the variable it is read for. It costs
// nothing until then: it looks only when asked.
func (c *Core) Where() string {
	buf := make([]float64, len(c.U))
	for i := range c.M.NumVars() {
		soft, hard := c.M.Degree(i)
		d := max(int(c.Size[i]), 1)
		for k := range soft + hard {
			if panics(func() {
				c.M.Eval(i, k, c.X)
				if c.Size[i] > 0 {
					c.M.EvalAll(i, k, c.X, buf[:d])
				}
			}) {
				name, _, _ := c.M.Describe(i, k)
				return fmt.Sprintf("%s, read for variable %d, panics at the chain's state", name, i)
			}
		}
	}
	return ""
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// Model returns the model the chain samples.
func (c *Core) Model() factorgraph.Model { return c.M }

// Context returns opt's Context, or context.Background() if opt or its
// Context is nil: what a constructor's searches look at.
func Context(opt *gibbs.Options) context.Context {
	if opt == nil || opt.Context == nil {
		return context.Background()
	}
	return opt.Context
}
