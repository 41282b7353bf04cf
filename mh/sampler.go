package mh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pgibbs/pgibbs/chain"
)

// Sampler is a Metropolis–Hastings-type Markov chain on a Target: a
// chain.Kernel and a chain.Interrupter, the contract package chain states
// once for both sampler families (gibbs.Sampler is the other). Every
// sampler of this package is also a chain.Snapshotter; none is a
// chain.Conditioner (an MH step is not an exact draw from a conditional).
//
// Step performs one proposal and accept/reject decision (FlyMC: one
// brightness update and one θ move) and returns chain.Any: every MH step
// that runs to its end may have changed the whole state. A step stopped by
// its interrupt channel (SetInterrupt) returns chain.Aborted and changes
// nothing but the random source. State returns the current θ, a view owned
// by the sampler, valid until the next Step or SetState. Err returns the
// first detected violation of a declared bound or another numerical
// failure (NaN), or nil; a violated bound breaks exactness, so the sampler
// stops moving once Err is non-nil, and Step then does nothing.
type Sampler interface {
	chain.Kernel
	// SetInterrupt sets the channel whose closing stops a step within a
	// few thousand likelihood evaluations (chain.Interrupter; nil: never).
	chain.Interrupter
	// SetState moves the chain to θ (copied), which must lie in the
	// support. Auxiliary state (FlyMC's bright set) is redrawn from its
	// conditional law given θ.
	SetState(theta []float64) error
	// Stats returns the running counts.
	Stats() Stats
}

// Stats are the running counts of a sampler: the chain.Stats core (Steps
// is the number of calls of Step made before an error stopped the chain,
// Proposals the proposals θ' drawn, one per step, Accepted those accepted,
// AcceptanceRate their ratio) and the data counts of the MH family. A step
// stopped by its interrupt channel (SetInterrupt) counts nothing.
type Stats struct {
	chain.Stats
	// Batch is the sum over steps of the batch size as the algorithm's own
	// paper defines it (see each sampler's doc comment): B for TunaMH and
	// Poisson-MH, draws evaluated until the first rejection event for
	// TFMH/SMH, the number of bright points for FlyMC, the expected batch
	// size Cφ (capped at N) for MH-SS, the final minibatch size for the
	// Barker test and AustereMH, and N for MH. Proposals outside the
	// support touch no data and add 0.
	Batch float64
	// Evals is the number of calls of Target.LogLik (and of
	// LowerBounder.LogLowerBound) made by Step (and by FlyMC's SetState,
	// which redraws the bright set). MH caches Σℓ_i(θ) and makes N per step.
	Evals int64
	// FullSteps is the number of steps done with the full data set (the
	// fallback of footnote 3 of the TunaMH paper and its relatives).
	FullSteps int64
}

// Add adds the counts of o to s, field by field (the counts of several
// chains).
func (s *Stats) Add(o Stats) {
	s.Stats.Add(o.Stats)
	s.Batch += o.Batch
	s.Evals += o.Evals
	s.FullSteps += o.FullSteps
}

// MeanBatch returns Batch/Steps, the average batch size per step.
func (s Stats) MeanBatch() float64 { return s.Batch / float64(s.Steps) }

// EvalsPerStep returns the mean number of likelihood evaluations a step
// (Evals/Steps).
func (s Stats) EvalsPerStep() float64 { return float64(s.Evals) / float64(s.Steps) }

// Options configures a sampler. Fields a sampler does not use are ignored,
// except that every float64 field must be finite and non-negative whichever
// sampler is built (NaN, negative and infinite values are errors naming the
// field). Zero values mean what each field's comment says: a default, or
// for Step, Lambda and Chi an error where the sampler needs the value.
type Options struct {
	// Proposal is the proposal kernel. If nil, a Gaussian random walk with
	// standard deviation Step in every coordinate is used.
	Proposal Proposal
	// Step is the random-walk scale used when Proposal is nil; it must then
	// be positive (0 is an error, not a default). With a Proposal it is
	// ignored.
	Step float64
	// Init is the initial state (len Dim, copied). Nil is the sampler's
	// default start (chain.Kernel): for this family the zero vector, which
	// must then lie in the support (gibbs draws a random state instead: a
	// Target has no way to draw from its support).
	Init []float64

	// Chi is TunaMH's χ (Algorithm 2). 0 means "no χ": TunaMH then runs
	// Algorithm 4 with the constant λ = Lambda, which must be positive
	// (Chi and Lambda both 0 is an error). A positive Chi takes precedence
	// and Lambda is ignored.
	Chi float64
	// Lambda is Poisson-MH's λ (Algorithm 3; 0 is an error, there is no
	// default), or TunaMH's constant λ when Chi is 0.
	Lambda float64
	// Fallback makes TunaMH, TFMH, SMH and MH-SS take a full-data MH step
	// whenever the expected batch size exceeds N (footnote 3 of the TunaMH
	// paper; the TFMH truncation with R = N). The switch depends on (θ, θ')
	// only through the symmetric bound, so the chain stays exact.
	Fallback bool

	// Ref is the reference point θ̂ of the control variates (SMH, MH-SS)
	// and the expansion point of FlyMC's Taylor lower bound; nil means
	// Init (or zero).
	Ref []float64
	// Gamma is MH-SS's γ ∈ [0, 1] (0, the paper's optimum, by default).
	Gamma float64
	// QDarkToBright is FlyMC's probability q_{d→b} ∈ (0, 1] of proposing
	// a dark point to become bright; 0 means 0.01.
	QDarkToBright float64

	// BatchSize is the initial minibatch size and increment m of the
	// Barker test and AustereMH; 0 means 30.
	BatchSize int
	// Epsilon is AustereMH's per-test error bound ε ∈ (0, 1); 0 means 0.01.
	Epsilon float64
	// Delta is the Barker test's bound δ on the CLT error ε(θ,θ',b) of
	// Corollary 1 of Seita et al.; 0 disables the check (only the variance
	// condition s² < 1 is enforced, as in the paper's reported runs).
	Delta float64
	// Table is the Barker test's correction distribution; nil means
	// DefaultBarkerTable().
	Table *BarkerTable

	// Order is the order of the Taylor control variates of SMH and MH-SS:
	// 1 or 2; 0 means 1. New's names smh1, smh2, mhss1 and mhss2 set it.
	Order int

	// MaxDraws bounds the work of a step, as gibbs.Options.MaxDraws does
	// for the Gibbs family (the CLI's -max-draws sets both), counted here
	// in data: the expected number of data a step evaluates, its batch as Stats.Batch counts it (each datum costs
	// one or two likelihood evaluations); 0 means DefaultMaxDraws (10⁷).
	// Where the expected batch is known at construction, a sampler that
	// exceeds it is refused: MH (N), Poisson-MH (λ + L), TunaMH's
	// Algorithm 4 (at least λ) and FlyMC (q_{d→b}·N dark points proposed),
	// and, with the default random walk, TunaMH, TFMH, SMH and MH-SS for a
	// proposal of the walk's typical size (Step·(1, …, 1)) from Init, and
	// the Barker test and AustereMH if their initial minibatch (BatchSize)
	// exceeds it. Where
	// it depends on the state, a step that would exceed it records an error
	// (Err) before touching the data: TunaMH, TFMH, SMH and MH-SS (after
	// the Fallback, which caps it at N), FlyMC (bright points plus q_{d→b}
	// times the dark ones), and the Barker test and AustereMH, whose
	// minibatch may not grow past it.
	MaxDraws float64
}

// checkOptions reports the float fields of o that are NaN, negative or
// infinite, naming the field.
func checkOptions(name string, o *Options) error {
	for _, f := range []struct {
		field, what string
		v           float64
	}{
		{"Step", "the random-walk step", o.Step},
		{"Chi", "TunaMH's χ", o.Chi},
		{"Lambda", "λ", o.Lambda},
		{"Gamma", "MH-SS's γ", o.Gamma},
		{"QDarkToBright", "FlyMC's q_{d→b}", o.QDarkToBright},
		{"Epsilon", "AustereMH's ε", o.Epsilon},
		{"Delta", "the Barker test's δ", o.Delta},
		{"MaxDraws", "the batch limit", o.MaxDraws},
	} {
		if math.IsNaN(f.v) || f.v < 0 || math.IsInf(f.v, 0) {
			return fmt.Errorf("mh: %s: Options.%s = %v: %s must be finite and non-negative", name, f.field, f.v, f.what)
		}
	}
	if o.BatchSize < 0 {
		return fmt.Errorf("mh: %s: Options.BatchSize = %d: the batch size must be non-negative (0 means 30)", name, o.BatchSize)
	}
	for j, v := range o.Ref {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mh: %s: Options.Ref[%d] = %v: the reference point must be finite", name, j, v)
		}
	}
	return nil
}

// Factory builds a sampler on target t drawing from r, as the constructors
// of this package do (o may be nil: the zero Options). FactoryOf returns
// the factory of a sampler by name; gibbs.Factory is the Gibbs family's.
type Factory func(t Target, r *rand.Rand, o *Options) (Sampler, error)

// Entry is a sampler of the registry: its name, what a caller needs to
// know of it, and its factory.
type Entry struct {
	Name string
	// Exact: its chain has exactly the target as its stationary
	// distribution (the approximate tests, barker and austere, do not).
	Exact bool
	// ControlVariates: its minibatch estimates are control variates
	// expanded around Options.Ref (nil: the initial state); the papers
	// expand them at the target's mode and start the chain there.
	ControlVariates bool
	New             Factory
}

// registry lists the samplers New knows, in the order of Names.
var registry = []Entry{
	{Name: "mh", Exact: true, New: factory(NewMH)},
	{Name: "poissonmh", Exact: true, New: factory(NewPoissonMH)},
	{Name: "tunamh", Exact: true, New: factory(NewTunaMH)},
	{Name: "tfmh", Exact: true, New: factory(NewTFMH)},
	{Name: "smh1", Exact: true, ControlVariates: true, New: withOrder(NewSMH, 1)},
	{Name: "smh2", Exact: true, ControlVariates: true, New: withOrder(NewSMH, 2)},
	{Name: "flymc", Exact: true, New: factory(NewFlyMC)},
	{Name: "mhss1", Exact: true, ControlVariates: true, New: withOrder(NewMHSS, 1)},
	{Name: "mhss2", Exact: true, ControlVariates: true, New: withOrder(NewMHSS, 2)},
	{Name: "barker", New: factory(NewBarker)},
	{Name: "austere", New: factory(NewAustere)},
}

// Lookup returns the registry's entry called name (see Names).
func Lookup(name string) (Entry, error) {
	for _, e := range registry {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("mh: unknown sampler %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// factory turns a constructor into a Factory (a failed construction
// returns a nil Sampler, not a nil pointer in an interface).
func factory[S Sampler](f func(Target, *rand.Rand, *Options) (S, error)) Factory {
	return func(t Target, r *rand.Rand, o *Options) (Sampler, error) {
		s, err := f(t, r, o)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// withOrder is factory(f) with Options.Order set to order; an Order set to
// another value is an error.
func withOrder[S Sampler](f func(Target, *rand.Rand, *Options) (S, error), order int) Factory {
	g := factory(f)
	return func(t Target, r *rand.Rand, o *Options) (Sampler, error) {
		oo := options(o)
		if oo.Order != 0 && oo.Order != order {
			return nil, fmt.Errorf("mh: Options.Order = %d contradicts the order-%d sampler's name", oo.Order, order)
		}
		oo.Order = order
		return g(t, r, &oo)
	}
}

// options returns a copy of *o, or the zero Options for a nil o.
func options(o *Options) Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// Names returns the names New and FactoryOf accept, in a new slice, in
// this order: mh, poissonmh, tunamh, tfmh, smh1, smh2, flymc, mhss1,
// mhss2, barker, austere (exact samplers first, then the approximate
// ones).
func Names() []string {
	names := make([]string, len(registry))
	for k, e := range registry {
		names[k] = e.Name
	}
	return names
}

// FactoryOf returns the factory of the sampler called name (see Names).
// The names smh1, smh2, mhss1 and mhss2 are NewSMH and NewMHSS with
// Options.Order 1 and 2.
func FactoryOf(name string) (Factory, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.New, nil
}

// New returns the sampler called name (see Names) on target t, drawing
// from r: FactoryOf(name) called with t, r and o (o may be nil: the zero
// Options).
func New(name string, t Target, r *rand.Rand, o *Options) (Sampler, error) {
	f, err := FactoryOf(name)
	if err != nil {
		return nil, err
	}
	return f(t, r, o)
}

// base holds what every sampler shares: the target, the proposal, the
// current and proposed states and the counts.
type base struct {
	name   string
	target Target
	prop   Proposal
	rng    *rand.Rand
	d, n   int
	x, xp  []float64 // current and proposed state
	lp     float64   // log prior at x
	lpp    float64   // log prior at xp
	st     Stats
	err    error

	interrupt         // SetInterrupt's channel and the counts an aborted step restores
	maxDraws  float64 // Options.MaxDraws or its default

	// The target's batched fast paths, or nil, and the buffers of the
	// full-data passes (fullBlock data at a time).
	batch  BatchLogLiker
	sum    SumLogLiker
	seq    []int32
	l0, l1 []float64
}

// fullBlock is the number of data a full-data pass evaluates per batched
// call.
const fullBlock = 256

// newBaseOpts is newBase for a constructor's options, the zero Options
// for a nil o, which it returns with the base.
func newBaseOpts(name string, t Target, o *Options, r *rand.Rand) (base, *Options, error) {
	if o == nil {
		o = &Options{}
	}
	b, err := newBase(name, t, o, r)
	return b, o, err
}

// newBase checks what every sampler needs and sets up the state; o must
// not be nil.
func newBase(name string, t Target, o *Options, r *rand.Rand) (base, error) {
	if t == nil {
		return base{}, fmt.Errorf("mh: %s: nil target", name)
	}
	if r == nil {
		return base{}, fmt.Errorf("mh: %s: nil random source", name)
	}
	d, n := t.Dim(), t.N()
	if d < 1 {
		return base{}, fmt.Errorf("mh: %s: target dimension %d must be at least 1", name, d)
	}
	if n < 1 {
		return base{}, fmt.Errorf("mh: %s: target has %d data points, want at least 1", name, n)
	}
	if err := checkOptions(name, o); err != nil {
		return base{}, err
	}
	mb, err := maxDraws(name, o)
	if err != nil {
		return base{}, err
	}
	b := base{name: name, target: t, rng: r, d: d, n: n, x: make([]float64, d), xp: make([]float64, d), maxDraws: mb}
	b.sum, _ = t.(SumLogLiker)
	if b.batch, _ = t.(BatchLogLiker); b.batch != nil {
		k := min(n, fullBlock)
		b.seq, b.l0, b.l1 = make([]int32, k), make([]float64, k), make([]float64, k)
	}
	b.prop = o.Proposal
	if b.prop == nil {
		if !(o.Step > 0) {
			return base{}, fmt.Errorf("mh: %s: Options.Step = %v: the random-walk step must be positive (give it, or a Proposal)", name, o.Step)
		}
		g, err := NewGaussianRW(o.Step, nil, d)
		if err != nil {
			return base{}, err
		}
		b.prop = g
	}
	if o.Init != nil {
		if len(o.Init) != d {
			return base{}, fmt.Errorf("mh: %s: initial state has length %d, target dimension is %d", name, len(o.Init), d)
		}
		copy(b.x, o.Init)
	}
	if err := b.checkState(b.x); err != nil {
		return base{}, err
	}
	b.lp = t.LogPrior(b.x)
	return b, nil
}

// checkState reports whether theta has the right length, is finite and
// lies in the support.
func (b *base) checkState(theta []float64) error {
	if len(theta) != b.d {
		return fmt.Errorf("mh: %s: state has length %d, target dimension is %d", b.name, len(theta), b.d)
	}
	for j, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mh: %s: state coordinate %d is %v", b.name, j, v)
		}
	}
	lp := b.target.LogPrior(theta)
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return fmt.Errorf("mh: %s: state %v is outside the support (log prior %v)", b.name, theta, lp)
	}
	return nil
}

func (b *base) setState(theta []float64) error {
	if err := b.checkState(theta); err != nil {
		return err
	}
	copy(b.x, theta)
	b.lp = b.target.LogPrior(b.x)
	return nil
}

// State implements Sampler.
func (b *base) State() []float64 { return b.x }

// Stats implements Sampler.
func (b *base) Stats() Stats { return b.st }

// Updates implements chain.Counter: a step proposes every coordinate of θ,
// a sweep's worth.
func (b *base) Updates() (int64, int) { return b.st.Steps, 1 }

// Err implements Sampler.
func (b *base) Err() error { return b.err }

// fail records the first error; the sampler stops moving afterwards.
func (b *base) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("mh: %s: step %d: "+format, append([]any{b.name, b.st.Steps}, args...)...)
	}
}

// start begins a step that proposes a move: false if the chain stopped on
// an error (nothing is counted) or the proposal is refused (see propose);
// otherwise the data-free part of the log acceptance ratio, as propose.
func (b *base) start() (logr float64, ok bool) {
	if b.err != nil {
		return 0, false
	}
	b.begin()
	return b.propose()
}

// propose counts a step and its proposal, draws θ' into b.xp and returns the data-free part
// of the log acceptance ratio, log π0(θ') − log π0(θ) + log q(θ|θ') −
// log q(θ'|θ). ok is false when θ' lies outside the support (reject without
// touching data) or on a numerical failure (recorded in b.err).
func (b *base) propose() (logr float64, ok bool) {
	b.st.Steps++
	b.st.Proposals++
	logq := b.prop.Propose(b.xp, b.x, b.rng)
	b.lpp = b.target.LogPrior(b.xp)
	switch {
	case math.IsNaN(logq) || math.IsInf(logq, 0):
		b.fail("proposal log ratio is %v", logq)
		return 0, false
	case math.IsNaN(b.lpp) || math.IsInf(b.lpp, 1):
		b.fail("log prior at the proposal %v is %v", b.xp, b.lpp)
		return 0, false
	case math.IsInf(b.lpp, -1):
		return 0, false
	}
	return b.lpp - b.lp + logq, true
}

// accept draws the decision for log acceptance ratio logr (accept iff
// log u < logr); it draws no uniform when logr ≥ 0.
func (b *base) accept(logr float64) bool {
	if math.IsNaN(logr) {
		b.fail("log acceptance ratio is NaN")
		return false
	}
	return logr >= 0 || math.Log(b.rng.Float64()) < logr
}

// finish ends a step on the log acceptance ratio logr of its last stage
// (ok false: the stage was interrupted): chain.Aborted with the step undone,
// or chain.Any after the accept/reject decision (none once the step
// recorded an error).
func (b *base) finish(logr float64, ok bool) int {
	if !ok {
		return b.abort()
	}
	if b.err != nil {
		return chain.Any
	}
	if b.accept(logr) {
		b.move()
	}
	return chain.Any
}

// move makes the proposal the current state.
func (b *base) move() {
	b.x, b.xp = b.xp, b.x
	b.lp = b.lpp
	b.st.Accepted++
}

// logLik evaluates ℓ_i(θ), counting the evaluation.
func (b *base) logLik(i int, theta []float64) float64 {
	b.st.Evals++
	return b.target.LogLik(i, theta)
}

// logLiks sets dst[j] = ℓ_{idx[j]}(θ) for every j, counting the
// evaluations: one batched call if the target has the fast path.
func (b *base) logLiks(dst []float64, idx []int32, theta []float64) {
	b.st.Evals += int64(len(idx))
	if b.batch != nil {
		b.batch.LogLikBatch(dst, idx, theta)
		return
	}
	for j, i := range idx {
		dst[j] = b.target.LogLik(int(i), theta)
	}
}

// block returns the indices from, from+1, … of the next full-data block.
func (b *base) block(from int) []int32 {
	idx := b.seq[:min(len(b.seq), b.n-from)]
	for j := range idx {
		idx[j] = int32(from + j)
	}
	return idx
}

// sumLogLik returns Σ_i ℓ_i(θ) over all data, summed in increasing i
// (the same float64 whichever path computes it). It does not count
// evaluations. With poll it looks at the interrupt channel between blocks
// of data and returns ok false if it closed; with a channel it therefore
// sums block by block, not by the target's SumLogLik (one call that cannot
// be interrupted).
func (b *base) sumLogLik(theta []float64, poll bool) (ll float64, ok bool) {
	if b.sum != nil && (!poll || b.done == nil) {
		return b.sum.SumLogLik(theta), true
	}
	for from := 0; from < b.n; from += fullBlock {
		to := min(from+fullBlock, b.n)
		if poll && b.interrupted(to-from) {
			return 0, false
		}
		if b.batch == nil {
			for i := from; i < to; i++ {
				ll += b.target.LogLik(i, theta)
			}
			continue
		}
		idx := b.block(from)
		l := b.l0[:len(idx)]
		b.batch.LogLikBatch(l, idx, theta)
		for _, v := range l {
			ll += v
		}
	}
	return ll, true
}

// diff returns ℓ_i(θ') − ℓ_i(θ) and a scale for rounding, |ℓ_i(θ)| + |ℓ_i(θ')|.
func (b *base) diff(i int) (d, scale float64) {
	l0 := b.logLik(i, b.x)
	l1 := b.logLik(i, b.xp)
	d = l1 - l0
	if math.IsNaN(d) {
		b.fail("log-likelihood %d is NaN (ℓ(θ) = %v, ℓ(θ') = %v)", i, l0, l1)
		return 0, 0
	}
	return d, math.Abs(l0) + math.Abs(l1)
}

// fullDiff returns Σ_i ℓ_i(θ') − ℓ_i(θ) over all data; ok is false when
// the interrupt channel closed during the pass.
func (b *base) fullDiff() (s float64, ok bool) {
	for from := 0; from < b.n; from += fullBlock {
		to := min(from+fullBlock, b.n)
		if b.interrupted(2 * (to - from)) {
			return 0, false
		}
		if b.batch == nil {
			for i := from; i < to; i++ {
				d, _ := b.diff(i)
				s += d
			}
			continue
		}
		idx := b.block(from)
		l0, l1 := b.l0[:len(idx)], b.l1[:len(idx)]
		b.logLiks(l0, idx, b.x)
		b.logLiks(l1, idx, b.xp)
		for j, i := range idx {
			d := l1[j] - l0[j]
			if math.IsNaN(d) { // as diff
				b.fail("log-likelihood %d is NaN (ℓ(θ) = %v, ℓ(θ') = %v)", i, l0[j], l1[j])
				d = 0
			}
			s += d
		}
	}
	b.st.FullSteps++
	b.st.Batch += float64(b.n)
	return s, true
}

// relTol is the relative slack allowed when checking a declared bound, to
// absorb rounding in the difference of two log-likelihoods.
const relTol = 1e-9

// ratio returns t = v/bound clamped to [−1, 1], where the target declared
// |v| ≤ bound; scale is the magnitude of the terms v was computed from.
// It records an error when |v| exceeds bound by more than rounding.
func (b *base) ratio(i int, v, bound, scale float64, what string) float64 {
	if !(bound > 0) {
		if math.Abs(v) <= 8*epsilon*scale {
			return 0
		}
		b.fail("datum %d: %s %v exceeds its declared bound %v", i, what, v, bound)
		return 0
	}
	t := v / bound
	if math.Abs(t) > 1 {
		if math.Abs(v)-bound > relTol*bound+8*epsilon*scale {
			b.fail("datum %d: %s %v exceeds its declared bound %v (Assumption 1 violated)", i, what, v, bound)
		}
		t = math.Copysign(1, t)
	}
	return t
}

const epsilon = 0x1p-52

// memo caches up to two values per item for the current step, with a stamp
// per item so that starting a new step is O(1). Stamp and values share one
// entry, so a lookup touches one cache line.
type memo struct {
	e   []memoEntry
	cur uint32
}

type memoEntry struct {
	stamp  uint32
	v0, v1 float64
}

func newMemo(n int) memo { return memo{e: make([]memoEntry, n), cur: 1} }

// next forgets every cached value.
func (m *memo) next() {
	m.cur++
	if m.cur == 0 {
		clear(m.e)
		m.cur = 1
	}
}

// get returns the entry of item k and whether it holds a value cached this
// step; it marks the entry as current.
func (m *memo) get(k int) (e *memoEntry, ok bool) {
	e = &m.e[k]
	if e.stamp == m.cur {
		return e, true
	}
	e.stamp = m.cur
	return e, false
}
