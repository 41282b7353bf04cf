package gibbs

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/compiled"
)

// Sampler is a Markov chain on a factor graph: a chain.Kernel, the
// contract package chain states once for both sampler families
// (mh.Sampler is the other), with the Gibbs family's scans and counters.
//
// Step resamples one free variable chosen uniformly at random and returns
// it (random scan; a blocked or cluster step returns chain.Any); Sweep
// resamples every free variable once in increasing order (systematic
// scan); Update resamples variable i (a no-op for evidence). State returns
// the current state, a view the caller must not modify. Once a step
// detects an error (a factor value outside its declared range, NaN, a
// conditional with no positive mass), the chain stops moving and Err
// returns the first error; check it after a run. A Chromatic is a Sampler
// too.
//
// The optional interfaces of package chain: every sampler of this package
// implements chain.Interrupter (after SetInterrupt(done), a Step or Sweep
// under way when done closes stops within milliseconds and leaves the
// sampler exactly as it was before it; Step then returns chain.Aborted,
// see Sweeper for sweeps; the caller puts its random generator back, as
// chain.Chain does); the exact-update samplers implement
// chain.Conditioner (Blocked a chain.BlockConditioner); and the samplers
// that can be checkpointed implement chain.Snapshotter. The compile-time
// assertions in assert.go list which sampler implements which.
type Sampler interface {
	chain.Kernel
	Sweep()
	Update(i int)
	Stats() Stats
	// Updates returns the variable updates made so far (Stats().Steps)
	// and the free variables, the updates of a sweep (chain.Counter):
	// their ratio is the chain's length in sweep-equivalents, whatever a
	// step updates.
	Updates() (done int64, per int)
}

// Stats counts what a sampler did: the chain.Stats core (Steps is the
// number of variable updates; Proposals and Accepted count the
// Metropolis–Hastings corrections of MGPMH, DoubleMIN-Gibbs and the
// cluster moves, AcceptanceRate their ratio) and the counts of the Gibbs
// family's algorithms.
type Stats struct {
	chain.Stats
	// Factors is the number of factors evaluated to form conditionals: |A[i]|
	// a step for plain Gibbs, the distinct factors of the minibatch S (plus
	// the hard factors) for Poisson-Gibbs — the paper's "factors evaluated".
	Factors int64
	// Picks is the number of minibatch draws (alias picks with their thinning
	// evaluation) of the Poisson-minibatch samplers.
	Picks int64
	// Tries counts the proposals of rejection sampling.
	Tries int64
}

// MarshalJSON writes the counters in the order Stats had before its core
// moved to chain.Stats (Steps, Factors, Picks, Proposals, Accepted,
// Tries), so that snapshots, checkpoints and run parts stay byte for byte
// what they were; reading takes either order.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ Steps, Factors, Picks, Proposals, Accepted, Tries int64 }{
		s.Steps, s.Factors, s.Picks, s.Proposals, s.Accepted, s.Tries})
}

// Add adds the counts of o to s, field by field (the counts of several
// chains or workers).
func (s *Stats) Add(o Stats) {
	s.Stats.Add(o.Stats)
	s.Factors += o.Factors
	s.Picks += o.Picks
	s.Tries += o.Tries
}

// FactorsPerStep returns Factors/Steps.
func (s Stats) FactorsPerStep() float64 { return ratio(s.Factors, s.Steps) }

// PicksPerStep returns Picks/Steps.
func (s Stats) PicksPerStep() float64 { return ratio(s.Picks, s.Steps) }

// TriesPerStep returns Tries/Steps.
func (s Stats) TriesPerStep() float64 { return ratio(s.Tries, s.Steps) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Options configures the samplers of this package. The zero value gives
// every sampler the defaults of the papers.
type Options struct {
	// Init is the initial state (copied). Nil draws each free variable
	// uniformly from its domain with the sampler's RNG; evidence is always
	// set to its observed value.
	Init []float64

	// Lambda is the Poisson-minibatch parameter λ (> 0). Zero means
	// LambdaScale·L².
	Lambda float64
	// LambdaScale sets λ = LambdaScale·L² when Lambda is zero. Zero means 1,
	// the paper's default λ = L².
	LambdaScale float64
	// PerVariable makes Poisson-Gibbs use L_i and λ_i = (λ/L²)·L_i² when it
	// updates variable i, instead of the global L and λ. Each update still
	// leaves π invariant (the auxiliary variables are redrawn every step), and
	// variables with small L_i get smaller minibatches.
	PerVariable bool

	// Lambda2 is the batch parameter λ2 of DoubleMIN-Gibbs's second (global)
	// minibatch. Zero means Lambda2Scale·L².
	Lambda2 float64
	// Lambda2Scale sets λ2 = Lambda2Scale·L² when Lambda2 is zero; zero
	// means 1. The Poisson-Gibbs paper runs 1 and 10⁴.
	Lambda2Scale float64

	// M is the degree m of the Chebyshev interpolant of the continuous
	// samplers: of the density in Gibbs-ITS and PGITS, of the energy in
	// Gibbs-DA and PGDA (m+1 energy evaluations). Zero means 3.
	M int
	// K is the degree k of the second (density) interpolant of Gibbs-DA and
	// PGDA. Zero means 10.
	K int
	// MaxTries bounds the proposals of one rejection-sampling draw. Zero
	// means DefaultMaxTries.
	MaxTries int64
	// MaxDraws bounds the expected work of one step, counted in minibatch
	// draws and factor evaluations (a factor evaluated at D values counts
	// D). A constructor computes the largest expected work of a step of its
	// sampler on the model, over the free variables i, and refuses a
	// sampler that would exceed it, with an error saying why and what to
	// use instead, rather than return one whose steps never end. With d_i =
	// L_i(λ/L + 1) the expected Poisson-Gibbs minibatch, soft_i and hard_i
	// the factors of A[i] and D_i the domain size, an update costs
	//
	//	gibbs (auto's exact updates)       (soft_i + hard_i)·D_i
	//	pgibbs (auto's minibatch updates)  d_i + (min(d_i, soft_i) + hard_i)·D_i
	//	mingibbs                           (D_i − 1)·λ + hard_i·D_i
	//	mgpmh                              λL_i/L + (min(λL_i/L, soft_i) + soft_i + hard_i)·D_i
	//	doublemin                          λL_i/L + (min(λL_i/L, soft_i) + hard_i)·D_i + λ2
	//	gibbs-its, gibbs-da                (m + 3)·(soft_i + hard_i)
	//	pgits, pgda                        d_i + (m + 3)·(min(d_i, soft_i) + hard_i)
	//	gibbs-rejection, pg-rejection      one try: soft_i + hard_i, d_i + min(d_i, soft_i)
	//
	// (rejection tries are bounded by MaxTries). Zero means
	// DefaultMaxDraws; +Inf means no limit.
	MaxDraws float64

	// singleSite makes the registry's auto build single-site updates (an
	// Mixed), never blocks: NewChromatic's workers update one variable at a
	// time.
	singleSite bool
}

// DefaultMaxDraws is the default of Options.MaxDraws: 10⁷ draws or factor
// evaluations, a step of a few tenths of a second at most on compiled
// factors and of a few seconds on slow user factors.
const DefaultMaxDraws = 1e7

// lambdaOf returns λ: Lambda, or LambdaScale·L².
func lambdaOf(o *Options, l float64) (float64, error) {
	return resolveLambda("λ", o.Lambda, o.LambdaScale, "L", l)
}

// lambda2Of returns λ2 of DoubleMIN-Gibbs: Lambda2, or Lambda2Scale·L².
func lambda2Of(o *Options, l float64) (float64, error) {
	return resolveLambda("λ2", o.Lambda2, o.Lambda2Scale, "L", l)
}

// resolveLambda returns abs, or scale·q² for the model quantity q called
// qname (L, or Ψ for MIN-Gibbs), +Inf if that overflows.
func resolveLambda(name string, abs, scale float64, qname string, q float64) (float64, error) {
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

// core is the state every sampler shares.
type core struct {
	m       factorgraph.Model
	r       *rand.Rand
	x       []float64
	free    []int
	allFree bool // free is 0, 1, …, n−1: pick needs no lookup (identityFree)
	clamped []bool
	stats   Stats
	err     error
	u, buf  []float64   // per-value energies and factor values, len ≥ max domain size
	buf2    []float64   // a second per-value buffer
	update  func(i int) // the sampler's Update, for Step and Sweep

	kg    *compiled.Graph // the model's compiled neighbourhoods, or nil (compiled.go)
	torus *compiled.Torus // the model's compiled torus form, or nil (torus.go)
	size  []int32         // domain size of each variable (0: continuous)

	// Interruption (interrupt.go): done closes when the step under way
	// must stop (nil: never); an update that sees it closed sets aborted
	// and returns without changing x. budget counts down the work until
	// the next look at done on paths that count as they go; saved is x at
	// the start of an interruptible sweep, or a Chromatic worker's journal
	// of its sweep (runChunk), which saved01 holds instead, one byte a
	// value, where the values are 0 and 1 (nnHeat2).
	done    <-chan struct{}
	aborted bool
	budget  int
	saved   []float64
	saved01 []uint8

	// Rao–Blackwellisation (conditional.go): while record is set, the last
	// update's draw: variable condI, weights condW and their total, at
	// stats.Steps = condAt.
	record  bool
	condI   int
	condW   []float64
	condTot float64
	condAt  int64
}

// newChain checks the model and options common to all samplers and sets up
// the state. discrete says the sampler handles only discrete variables.
func newChain(name string, m factorgraph.Model, r *rand.Rand, opt *Options, discrete bool) (core, error) {
	if m == nil {
		return core{}, fmt.Errorf("gibbs: %s: nil model", name)
	}
	if r == nil {
		return core{}, fmt.Errorf("gibbs: %s: nil *rand.Rand", name)
	}
	n := m.NumVars()
	c := core{m: m, r: r, free: m.Free(), clamped: make([]bool, n), budget: spendEvery}
	c.allFree = identityFree(c.free, n)
	if len(c.free) == 0 {
		return core{}, fmt.Errorf("gibbs: %s: every variable is observed; nothing to sample", name)
	}
	maxD := 1
	c.size = make([]int32, n)
	if k, ok := m.(kerneler); ok {
		c.kg = k.Kernel()
	}
	if t, ok := m.(toruser); ok {
		c.torus = t.Torus()
	}
	for i := range n {
		d := m.Domain(i)
		c.size[i] = int32(d.Size)
		if _, ok := m.Observed(i); ok {
			c.clamped[i] = true
		} else if discrete && !d.IsDiscrete() {
			return core{}, fmt.Errorf("gibbs: %s: variable %d is continuous on %v; %s samples discrete variables only", name, i, d, name)
		}
		maxD = max(maxD, d.Size)
	}
	c.u = make([]float64, maxD)
	c.buf = make([]float64, maxD)
	c.buf2 = make([]float64, maxD)
	if opt == nil {
		opt = &Options{}
	}
	if opt.Init != nil {
		if len(opt.Init) != n {
			return core{}, fmt.Errorf("gibbs: %s: initial state has %d values for %d variables", name, len(opt.Init), n)
		}
		c.x = append([]float64(nil), opt.Init...)
		for i, v := range c.x {
			if ov, ok := m.Observed(i); ok {
				c.x[i] = ov
				continue
			}
			if d := m.Domain(i); !d.Contains(v) {
				return core{}, fmt.Errorf("gibbs: %s: initial value %v of variable %d outside its domain %v", name, v, i, d)
			}
		}
	} else {
		c.x = factorgraph.RandomState(m, r)
		if c.checkHard() != nil {
			// Zeros make the random state impossible: search for a
			// feasible one where the model supports it.
			if f, ok := m.(feasibler); ok {
				x, err := f.FeasibleState(r, 0)
				if err != nil {
					return core{}, fmt.Errorf("gibbs: %s: initial state: %w", name, err)
				}
				c.x = x
			}
		}
	}
	if err := c.checkHard(); err != nil {
		return core{}, fmt.Errorf("gibbs: %s: %w", name, err)
	}
	return c, nil
}

// newSiteChain is newChain for a sampler that updates one variable at a
// time: it first refuses a model with a hard factor whose variables such
// updates can never change (checkSiteMoves), on which the chain would be
// reducible.
func newSiteChain(name string, m factorgraph.Model, r *rand.Rand, opt *Options, discrete bool) (core, error) {
	if err := checkSiteMoves(name, m); err != nil {
		return core{}, err
	}
	return newChain(name, m, r, opt, discrete)
}

// feasibler is a model that can find a state of positive probability
// (factorgraph.Graph.FeasibleState).
type feasibler interface {
	FeasibleState(r *rand.Rand, maxNodes int) ([]float64, error)
}

// checkHard verifies that no hard factor rules out the current state.
func (c *core) checkHard() error {
	for i := range c.m.NumVars() {
		soft, hard := c.m.Degree(i)
		for k := soft; k < soft+hard; k++ {
			v := c.m.Eval(i, k, c.x)
			if math.IsInf(v, -1) {
				name, _, _ := c.m.Describe(i, k)
				return fmt.Errorf("initial state has zero probability: %s is −Inf", name)
			}
			if !factorgraph.InRange(v, math.Inf(1)) {
				return factorgraph.CheckError(c.m, i, k, v)
			}
		}
	}
	return nil
}

// State returns the current state; the caller must not modify it.
func (c *core) State() []float64 { return c.x }

// Updates implements chain.Counter.
func (c *core) Updates() (int64, int) { return c.stats.Steps, len(c.free) }

// Stats returns the counters.
func (c *core) Stats() Stats { return c.stats }

// Err returns the first error a step detected, or nil.
func (c *core) Err() error { return c.err }

// share makes the chain work on x, a state of the same model shared with
// other chains (the workers of a Chromatic), instead of its own copy.
func (c *core) share(x []float64) { c.x = x }

// resume sets the counters and clears the error: the chain goes on from a
// restored state.
func (c *core) resume(st Stats) {
	c.stats = st
	c.err = nil
}

// pick returns a free variable chosen uniformly.
func (c *core) pick() int {
	if c.allFree {
		return c.r.IntN(len(c.free))
	}
	return c.free[c.r.IntN(len(c.free))]
}

// fail records the first error.
func (c *core) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// addExact adds the exact shifted values of the k-th factor of A[i] at
// every value of discrete variable i to u, checking each against the
// factor's range. It reports false after recording an error.
func (c *core) addExact(i, k int, u []float64) bool {
	buf := c.buf[:len(u)]
	c.m.EvalAll(i, k, c.x, buf)
	lo, hi := factorgraph.Limits(c.m.Bound(i, k))
	for v, s := range buf {
		if !(s >= lo && s <= hi) {
			c.fail(factorgraph.CheckError(c.m, i, k, s))
			return false
		}
		u[v] += s
	}
	return true
}

// accept is the Metropolis–Hastings test of a proposal with log acceptance
// ratio logr: true with probability min(1, e^logr), a uniform drawn only
// when logr < 0; an accepted proposal is counted.
func (c *core) accept(logr float64) bool {
	if logr >= 0 || math.Log(c.r.Float64()) < logr {
		c.stats.Accepted++
		return true
	}
	return false
}

// sampleLog draws v with probability ∝ exp(u[v]) by max-subtracted
// exponentials, overwriting u. It returns −1 if every u[v] is −Inf.
func sampleLog(r *rand.Rand, u []float64) int {
	v, _ := sampleLogTotal(r, u)
	return v
}

// sampleLogTotal is sampleLog that also returns the total of the weights
// it leaves in u.
func sampleLogTotal(r *rand.Rand, u []float64) (int, float64) {
	mx := math.Inf(-1)
	for _, e := range u {
		mx = max(mx, e)
	}
	if math.IsInf(mx, -1) {
		return -1, 0
	}
	total := 0.0
	for v, e := range u {
		u[v] = math.Exp(e - mx)
		total += u[v]
	}
	return drawWeights(r.Float64()*total, u), total
}

// drawWeights returns the first v with t < w[0] + … + w[v], for t drawn
// uniformly below the total of the weights (the last positive weight if
// rounding left t at or above the total).
func drawWeights(t float64, w []float64) int {
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
func (c *core) set(i int, u []float64) {
	v, total := sampleLogTotal(c.r, u)
	if v < 0 {
		c.fail(fmt.Errorf("variable %d: every value has zero probability given the others", i))
		return
	}
	c.x[i] = float64(v)
	if c.record {
		c.drew(i, u, total)
	}
}

// Where implements chain.Locator: after a panic in a step (a user's factor
// that panics), it names the first factor that panics when evaluated at the
// chain's state, at every value of the variable it is read for. It costs
// nothing until then: it looks only when asked.
func (c *core) Where() string {
	buf := make([]float64, len(c.u))
	for i := range c.m.NumVars() {
		soft, hard := c.m.Degree(i)
		d := max(int(c.size[i]), 1)
		for k := range soft + hard {
			if panics(func() {
				c.m.Eval(i, k, c.x)
				if c.size[i] > 0 {
					c.m.EvalAll(i, k, c.x, buf[:d])
				}
			}) {
				name, _, _ := c.m.Describe(i, k)
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
