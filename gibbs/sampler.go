package gibbs

import (
	"context"
	"encoding/json"
	"math/rand/v2"

	"github.com/pgibbs/pgibbs/factorgraph"

	"github.com/pgibbs/pgibbs/chain"
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
// The optional interfaces of package chain: every sampler of the family
// implements chain.Interrupter (after SetInterrupt(done), a Step or Sweep
// under way when done closes stops within milliseconds and leaves the
// sampler exactly as it was before it; Step then returns chain.Aborted,
// see Sweeper for sweeps; the caller puts its random generator back, as
// chain.Chain does); the exact-update samplers implement
// chain.Conditioner (Blocked a chain.BlockConditioner); and the samplers
// that can be checkpointed implement chain.Snapshotter. This package adds
// three: SweepRunner (an interruptible sweep, which a Sweeper runs),
// StepsPerSweeper (the samplers whose step is not one variable's update)
// and Worker (what a chromatic.Chromatic runs as its workers; a user's
// sampler can be one). The compile-time assertions in each samplers'
// package (assert.go) list which sampler implements which; a caller
// checks them by name, never by an anonymous interface.
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

// Sub subtracts the counts of o from s, field by field (what a sampler
// did since its counters were o).
func (s *Stats) Sub(o Stats) {
	s.Stats.Sub(o.Stats)
	s.Factors -= o.Factors
	s.Picks -= o.Picks
	s.Tries -= o.Tries
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

// Options configures the samplers of the family. The zero value gives
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

	// Systematic makes a single-site sampler's Step update the free
	// variables in turn, in the order of Model.Free (a systematic scan),
	// instead of one drawn uniformly (the papers' random scan). Each
	// update leaves π invariant, so their cycle does too; the scan does
	// not look at the state, so Rao–Blackwellised marginals stay unbiased.
	// On a graph far larger than the cache its rows are read in the order
	// they are stored and the neighbours' values of the variable two
	// steps ahead are prefetched: on a random graph of 10⁶ variables of
	// degree 20, a plain Gibbs update costs about 335 ns instead of
	// 940–970 (BenchmarkSparse's -scan variants). It applies to the
	// samplers that update one variable a step (gibbs, pgibbs, auto, the
	// MIN-Gibbs family, the continuous samplers); blocked, cluster and
	// exchange samplers have their own order and ignore it. A snapshot
	// records the scan's position, and restores only into a chain of the
	// same scan.
	Systematic bool

	// Context, if not nil, bounds the sampler's construction: the searches
	// a constructor may run before the first step (a state of positive
	// probability, frozen links, blocks and their eliminations, cluster
	// bonds) look at it, and the constructor returns its error, wrapped,
	// once it is done — a deadline or a signal stops a construction that
	// would outlast the run's budget. The sampler keeps no reference to it:
	// its steps are stopped through chain.Interrupter, as chain.Runner does,
	// and a Wolff sampler's tuning takes its own (cluster.Wolff.TuneClusters).
	Context context.Context
}

// DefaultMaxTries bounds the proposals of one rejection-sampling draw; past
// it the sampler stops with an error rather than loop for ever.
const DefaultMaxTries = 10_000_000

// DefaultMaxDraws is the default of Options.MaxDraws: 10⁷ draws or factor
// evaluations, a step of a few tenths of a second at most on compiled
// factors and of a few seconds on slow user factors.
const DefaultMaxDraws = 1e7

// Factory builds a sampler on m drawing from r, as the constructors of the
// family do (opt may be nil). samplers.FactoryOf returns the factory of a
// sampler by name; chromatic.New builds its workers with one.
type Factory func(m factorgraph.Model, r *rand.Rand, opt *Options) (Sampler, error)
