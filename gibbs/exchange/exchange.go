package exchange

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
)

// Options configure an Exchange. The zero value tunes the ladder.
type Options struct {
	// Betas, if not nil, is the ladder as given: the replicas' inverse
	// temperatures, 1 = Betas[0] > Betas[1] > … ≥ 0. Nil tunes it (see
	// New).
	Betas []float64
	// Acceptance is the swap acceptance between neighbouring replicas the
	// tuned ladder aims at, in (0, 1). Zero means DefaultAcceptance.
	Acceptance float64
	// MaxReplicas bounds the tuned ladder. Zero means DefaultMaxReplicas.
	MaxReplicas int
	// TuneSweeps is the length of each of the tuning's two rounds, in
	// sweeps of every replica. Zero means DefaultTuneSweeps.
	TuneSweeps int
	// SwapEvery is the steps of the replicas between two rounds of swaps.
	// Zero means a quarter of a sweep's worth of the β = 1 replica's steps
	// where the replicas track their energies through their updates
	// (plain Gibbs: a round costs O(K) then), a sweep's worth where a
	// round sums the model for each replica (see roundsPerSweep).
	SwapEvery int
	// Houdayer runs two replicas at every temperature and, before each
	// round of swaps, Houdayer's cluster move between the two of each
	// rung where the tuning found their clusters small (see houdayer.go):
	// twice the work a step, for the moves that carry 2-D glasses across
	// their barriers. The β = 1 replica of the first ladder is the chain.
	// With a ladder given (Betas), the moves run at every rung.
	Houdayer bool
	// MaxBytes bounds the memory of the replicas' tempered models and
	// states (a model's copy a rung): a ladder that would need more is
	// refused with a *factorgraph.MemoryError. Zero means
	// factorgraph.DefaultMaxBytes (the machine's memory).
	MaxBytes float64
	// RandomScan makes single-site replicas update a variable drawn at
	// random each step, as their own Step does, instead of the free
	// variables in turn (a systematic scan: the same stationary
	// distribution, no draw for the variable, the state read in order).
	RandomScan bool
	// Cold, if not nil, builds the chain's own replica (β = 1 of the first
	// ladder) instead of the factory New is given, which builds the
	// others: blocked Gibbs among single-site replicas, say, whose block
	// conditionals Rao–Blackwellise the answer over a block's joint
	// states (a droplet of a glass flipped exactly given its boundary)
	// while the cheap replicas carry states through the ladder. Each kind
	// makes its own share of a sweep between two rounds of swaps: a
	// quarter where the others track their energies (plain Gibbs), a
	// whole sweep otherwise, rounded up to whole steps (a sweep of two
	// large blocks is then one block a round). On 20×20 glasses a blocked
	// chain wins where droplets limit the answer and loses where round
	// trips do (docs/RESULTS.md); infer does not use it.
	Cold gibbs.Factory
	// HotTau, if positive, stops a tuned ladder short of β = 0, at the
	// coldest rung of the run, from the hottest up, whose replicas forget
	// their energy on their own, without swaps, within HotTau sweeps (the
	// integrated autocorrelation time of ℓ, probed over ProbeSweeps
	// sweeps a rung; see hotEnd), with a log-Z tail below it so that
	// LogZ still reaches β = 0. Zero: the ladder reaches β = 0. Fewer
	// rungs give more round trips, but a walker at the hot end gets a
	// state only partly fresh; on 20×20 glasses a cut at HotTau = 2.5
	// helped the worst runs and not the mean at 20 s, and on the UAI
	// grids it did not help (docs/RESULTS.md): not the default.
	HotTau float64
}

// Defaults of Options.
const (
	// DefaultAcceptance: with swaps in deterministic even–odd rounds, the
	// replicas' round trips per unit of work are best at acceptances near
	// one half (Syed, Bouchard-Côté, Deligiannidis & Doucet 2022: about
	// twice as many replicas as the ladder's communication barrier).
	DefaultAcceptance  = 0.5
	DefaultMaxReplicas = 64
	DefaultTuneSweeps  = 50
)

// Exchange is replica exchange (parallel tempering; Swendsen & Wang 1986,
// Geyer 1991, Hukushima & Nemoto 1996) over any Gibbs-family sampler that
// can share its state (gibbs.Sharer): replica k samples the model at
// inverse temperature β_k (factorgraph.Graph.Tempered: π_k ∝ π^β_k on the
// states π allows, hard factors kept at every temperature), 1 = β_0 > β_1
// > … ≥ 0, with the sampler a factory builds on the tempered graph.
// Between updates, neighbouring replicas k, k+1 exchange their states with
// the Metropolis probability
//
//	min(1, exp((β_k − β_{k+1}) (ℓ(x_{k+1}) − ℓ(x_k))))
//
// where ℓ is the model's log-potential, the sum of its factors: the move
// leaves Π_k π_k invariant, so the β = 1 replica's state is a chain on π.
// Swaps are proposed in deterministic rounds, the pairs (0,1), (2,3), …
// then (1,2), (3,4), … (the non-reversible even–odd scheme of Okabe et
// al. 2001, analysed by Syed et al. 2022), which carries states through
// the ladder in O(K) rounds instead of O(K²).
//
// A Step either updates the β = 1 replica once — the free
// variables in turn (a systematic scan) for single-site samplers, one
// Step (a block, a cluster move) for others — and returns what the
// update changed, or, once every SwapEvery such steps, is a round of
// swaps and returns chain.Any. Each step also makes its share of the
// SwapEvery updates every other replica owes before the next round, one
// replica after the other in runs (the replicas are independent between
// rounds, so this is the same chain as updating all of them at every
// step, with each replica's model and state in cache for its run of
// updates: twice the sweeps a second on a 20×20 glass with 60 replicas;
// and a step's cost stays that of one update a replica).
// State is the β = 1 replica's state. An Exchange is a
// chain.BlockConditioner: it reports the distributions the β = 1
// replica's updates draw from when its sampler is a chain.Conditioner (or
// BlockConditioner), and nothing for a round of swaps (which Marginals
// then counts as visits), so its marginals are Rao–Blackwellised exactly
// as the replica's own would be.
type Exchange struct {
	g        *factorgraph.Graph
	r        *rand.Rand
	betas    []float64
	maxBytes float64 // Options.MaxBytes

	// ladders[0] is the ladder whose β = 1 replica is the chain; with
	// Houdayer moves, ladders[1] is its twin, a second replica at every
	// temperature.
	ladders []*ladder

	swapEvery int            // the updates each replica but the chain makes between two rounds of swaps
	coldEvery int            // the chain's steps between two rounds (swapEvery but with Options.Cold)
	hotShare  int            // the others' updates a step of the chain makes (len(hot) but with Options.Cold)
	scan      []int          // single-site replicas in systematic scan: the free variables (nil: the replicas' Step)
	coldScan  bool           // the chain's replica updates scan's variables too (else its own Step)
	pos       int            // the next variable of scan
	hot       []gibbs.Sharer // the replicas but β = 1's (advanceHot)
	hotCore   []*core.Core   // hot[k]'s Core if it is of the family (UpdateScan), else nil
	hotR      int            // the replica of hot under way this round
	hotDone   int            // its updates done this round
	hotPos    int            // the variable of scan this round's updates of hot start at
	until     int            // replica steps left before the next round of swaps
	parity    int            // the next round swaps pairs (parity, parity+1), …
	swapped   bool           // the last step was a round of swaps
	rounds    int64

	cold gibbs.Factory // Options.Cold
	hou  *houdayer     // the moves between twins (nil: none)
	lz   logZ
	// tail, if not nil, is the log-Z tail: replica exchange on the model
	// tempered to the ladder's hottest rung, from there down to β = 0, run
	// a round every tailEvery rounds of the ladder and never swapping with
	// it. Its bridge carries LogZ from the hottest rung to β = 0, where
	// the ladder stops short of it (hotEnd); the chain never sees it.
	tail *Exchange

	cond  chain.Conditioner      // the β = 1 replica, if it is one
	block chain.BlockConditioner // the β = 1 replica, if it is one

	broken int // tests: a deliberately wrong swap rule (brokenSign, brokenAlways, brokenCluster)
}

// ladder is one replica at every rung: their samplers and states, and the
// walkers (a replica's history through the ladder) with their swaps.
type ladder struct {
	reps   []gibbs.Sharer
	states [][]float64 // states[k]: the state reps[k] works on (shared)
	ell    []float64   // ℓ(states[k]) at the last round of swaps
	// trk[k] tracks ℓ through reps[k]'s updates (nil: it cannot, or
	// β_k = 0, where its updates see no factor); stale[k]: ell[k] is not
	// ℓ(states[k]) plus trk[k]'s change (sweeps, restores), so the next
	// round sums the model.
	trk     []logTracker
	stale   []bool
	walker  []int   // walker[k]: the walker at rung k
	heading []int8  // per walker: +1 heading to the hot end, −1 to β = 1, 0 not yet at an end
	trips   []int64 // round trips β = 1 → hottest → β = 1 completed, per walker
	tries   []int64 // swaps proposed between rungs k and k+1
	accepts []int64 // and accepted
}

// roundsPerSweep is the rounds of swaps (and Houdayer moves) a sweep's
// worth of updates by default, where the replicas track their energies
// (plain Gibbs), so that a round costs O(K): on the 20×20 glasses at β =
// 2–3, four rounds a sweep instead of one carry twice the round trips in
// the same time (the Houdayer moves included: once a sweep, they carried
// a fifth fewer), and eight no more. Where a round sums the model for every
// replica (blocks, clusters), one a sweep.
const roundsPerSweep = 4

// logTracker is a replica that tracks the log-potential of its tempered
// model through its updates (site.Gibbs): the change divided by β is ℓ's.
type logTracker interface {
	TrackLogPotential(on bool)
	LogPotentialChange() float64
	SetLogPotentialChange(d float64)
}

// refreshEvery is the rounds of swaps between two sums of ℓ over the model
// for every replica, which bound the tracked energies' rounding drift: 256
// sweeps at four rounds a sweep, over which the drift of the tracked
// changes (about 10⁵ additions on a 20×20 glass, each rounded to 2⁻⁵³ of ℓ)
// stays near 10⁻¹¹ of ℓ, and the sums cost under 1% of the run. At 64
// rounds they took 8% of it (BenchmarkExchangeGlass: 105–107 → 89–97 ns a
// replica update).
const refreshEvery = 1024

// Deliberately broken swap rules, for the tests that must reject them.
const (
	brokenSign    = 1 // the energy difference with the wrong sign
	brokenAlways  = 2 // every swap accepted
	brokenCluster = 3 // Houdayer's cluster grown through agreeing variables too
	brokenTrack   = 4 // ℓ not tracked through the Houdayer moves' changes
)

var (
	_ gibbs.Sampler          = (*Exchange)(nil)
	_ chain.BlockConditioner = (*Exchange)(nil)
	_ chain.Snapshotter      = (*Exchange)(nil)
	_ gibbs.StepsPerSweeper  = (*Exchange)(nil)
)

// New returns replica exchange on g drawing from r, each replica built by
// factory on g tempered (opt, with its Init at tuning's end, for each;
// opt.Init, if given, starts every replica). Without xo.Betas the ladder
// is tuned before New returns, and fixed from then on: a first round on
// eight rungs evenly spaced on [0, 1], a second on the ladder the first's
// energy fluctuations call for, and the final ladder from the second's.
// The rungs are placed so that every neighbouring pair has the same
// predicted swap acceptance xo.Acceptance: for energies ℓ with standard
// deviation σ(β) the acceptance between β and β − δ is about erfc(δσ/2),
// so the rungs are spaced evenly in the thermodynamic length ∫σ(β)dβ,
// as many as it takes (at most xo.MaxReplicas). The tuning's sweeps are
// also the replicas' burn-in towards their temperatures, and the log Z
// estimate starts after them.
//
// factory must build samplers that are gibbs.Sharers (every discrete sampler of
// the family but MIN-Gibbs and DoubleMIN-Gibbs, whose cached energy
// estimate a swap would make wrong). opt.Context bounds the construction,
// tuning included.
func New(g *factorgraph.Graph, factory gibbs.Factory, r *rand.Rand, opt *gibbs.Options, xo *Options) (*Exchange, error) {
	if g == nil || factory == nil || r == nil {
		return nil, fmt.Errorf("exchange: nil model, factory or *rand.Rand")
	}
	var o Options
	if xo != nil {
		o = *xo
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	var sopt gibbs.Options
	if opt != nil {
		sopt = *opt
	}
	ctx := sopt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	e := &Exchange{g: g, r: r, maxBytes: o.MaxBytes}
	twins := 1
	if o.Houdayer {
		twins = 2
	}
	betas := o.Betas
	if betas == nil {
		betas = evenLadder(8)
	}
	e.cold = o.Cold
	if err := e.build(factory, &sopt, betas, nil, o.SwapEvery, twins, o.RandomScan); err != nil {
		return nil, err
	}
	if o.Houdayer {
		e.hou = newHoudayer(g, len(betas))
	}
	if o.Betas == nil {
		for round := range 2 {
			m, err := e.tune(ctx, o.tuneSweeps())
			if err != nil {
				return nil, err
			}
			measured := e.betas
			hot := measured[len(measured)-1]
			if round == 1 && o.HotTau > 0 {
				if hot, err = e.hotEnd(ctx, o.HotTau); err != nil {
					return nil, err
				}
			}
			next := placeRungs(measured, m, o.acceptance(), o.maxReplicas(), hot, 1)
			from := make([][][]float64, twins)
			for l, ld := range e.ladders {
				from[l] = ld.states
			}
			if err := e.build(factory, &sopt, next, from, o.SwapEvery, twins, o.RandomScan); err != nil {
				return nil, err
			}
			if e.hou != nil {
				e.hou.settle(measured, e.betas)
			}
			if round == 1 {
				e.lz.setRefs(measured, m, e.betas)
				if hot > 0 && e.logZ0() {
					if err := e.buildTail(factory, &sopt, placeRungs(measured, m, o.acceptance(), o.maxReplicas(), 0, hot), o); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return e, nil
}

// buildTail builds the log-Z tail on the ladder betas, from the hottest
// rung of the swapping ladder (betas[0]) down to 0: replica exchange of
// the factory's replicas on the model tempered to betas[0], started from
// that rung's state, which runs a round every tailEvery rounds of the
// ladder and swaps with it never. A MemoryError leaves no tail (LogZ then
// reports none); other errors are returned.
func (e *Exchange) buildTail(factory gibbs.Factory, opt *gibbs.Options, betas []float64, o Options) error {
	top := betas[0]
	tg, err := e.g.Tempered(top)
	if err != nil {
		return fmt.Errorf("exchange: the log-Z tail: %w", err)
	}
	rel := make([]float64, len(betas))
	for k, b := range betas {
		rel[k] = b / top
	}
	rel[0], rel[len(rel)-1] = 1, 0
	topt := *opt
	topt.Init = slices.Clone(e.ladders[0].states[len(e.betas)-1])
	to := Options{Betas: rel, SwapEvery: o.SwapEvery, RandomScan: o.RandomScan, MaxBytes: o.MaxBytes}
	if o.MaxBytes > 0 {
		to.MaxBytes = max(math.SmallestNonzeroFloat64, o.MaxBytes-e.Bytes())
	}
	t, err := New(tg, factory, e.r, &topt, &to)
	var me *factorgraph.MemoryError
	switch {
	case errors.As(err, &me):
		return nil
	case err != nil:
		return fmt.Errorf("exchange: the log-Z tail: %w", err)
	}
	e.tail = t
	return nil
}

// tailEvery is the rounds of swaps of the ladder between two rounds of
// the log-Z tail: its replicas, hot, forget their states within a few
// sweeps, and a round of theirs every eight of the ladder's costs it about
// a twentieth of its work on a 20×20 glass.
const tailEvery = 8

// hotEnd returns the hottest rung of a ladder cut by Options.HotTau: of
// the present ladder (the tuning's, on [0, 1]), the coldest β of the run
// of rungs, from the hottest up, at which the replicas' own kernels,
// without swaps, forget their energy within tau sweeps (the integrated
// autocorrelation time of ℓ over ProbeSweeps sweeps of the rung's
// replicas); 0 (the whole ladder) if the hottest rung's replicas do not.
// Rungs hotter than one that mixes on its own lengthen the walkers' round
// trips (on a 20×20 ±J glass, half the rungs of the ladder to β = 0 were
// hotter than the glass at β ≈ 0.5, where the replicas forget in two or
// three sweeps). The scan stops at the first rung that does not mix: a
// colder one may seem to, its replica fluctuating fast within the one
// valley it is stuck in (a bisection over the rungs stopped at β ≈ 1.6 of
// the glass's couplings that way and scored 24). The probed replicas keep
// the states their own kernels took them to.
func (e *Exchange) hotEnd(ctx context.Context, tau float64) (float64, error) {
	K := len(e.betas)
	hot := K // the coldest rung that mixes so far (K: none)
	for k := K - 1; k >= 1; k-- {
		t, err := e.probe(ctx, k)
		if err != nil {
			return 0, err
		}
		if t > tau {
			break
		}
		hot = k
	}
	if hot == K {
		return 0, nil
	}
	return e.betas[hot], nil
}

// ProbeSweeps is the sweeps a probe of the tuning's hot end
// (Options.HotTau) runs at a rung, over all its replicas (shared between
// the twins).
const ProbeSweeps = 400

// probe runs the replicas of rung k alone, without swaps, ProbeSweeps
// sweeps in all, and returns the integrated autocorrelation time of ℓ in
// sweeps (+Inf where ℓ never changed or the time could not be estimated).
func (e *Exchange) probe(ctx context.Context, k int) (float64, error) {
	n := ProbeSweeps / len(e.ladders)
	chains := make([][]float64, len(e.ladders))
	for l, ld := range e.ladders {
		x := make([]float64, n)
		for j := range x {
			if j%16 == 0 {
				if err := ctx.Err(); err != nil {
					return 0, fmt.Errorf("exchange: tuning the ladder's hot end: %w", err)
				}
			}
			ld.reps[k].Sweep()
			if err := ld.reps[k].Err(); err != nil {
				return 0, err
			}
			x[j] = e.g.LogPotential(ld.states[k])
		}
		ld.stale[k] = true
		chains[l] = x
	}
	ess, err := diag.ESS(chains)
	if err != nil || !(ess > 0) {
		return math.Inf(1), nil
	}
	return float64(n*len(chains)) / ess, nil
}

// logZ0 reports whether log Z is known at β = 0: no hard factor reads a
// free variable, so that every state has weight 1 there.
func (e *Exchange) logZ0() bool {
	for _, i := range e.g.Free() {
		if _, hard := e.g.Degree(i); hard > 0 {
			return false
		}
	}
	return true
}

func (o *Options) check() error {
	if o.Betas != nil {
		if err := checkLadder(o.Betas); err != nil {
			return err
		}
	}
	if o.Acceptance != 0 && !(o.Acceptance > 0 && o.Acceptance < 1) {
		return fmt.Errorf("exchange: Options.Acceptance = %v: want a probability in (0, 1), or 0 for %v", o.Acceptance, DefaultAcceptance)
	}
	if o.MaxReplicas < 0 || o.MaxReplicas == 1 {
		return fmt.Errorf("exchange: Options.MaxReplicas = %d: want at least 2, or 0 for %d", o.MaxReplicas, DefaultMaxReplicas)
	}
	if !(o.HotTau >= 0) || math.IsInf(o.HotTau, 1) {
		return fmt.Errorf("exchange: Options.HotTau = %v: want a finite time in sweeps > 0, or 0 for a ladder to β = 0", o.HotTau)
	}
	if o.TuneSweeps < 0 || o.SwapEvery < 0 {
		return fmt.Errorf("exchange: Options.TuneSweeps = %d, SwapEvery = %d: want ≥ 0 (0: the default)", o.TuneSweeps, o.SwapEvery)
	}
	return nil
}

func (o *Options) acceptance() float64 {
	if o.Acceptance == 0 {
		return DefaultAcceptance
	}
	return o.Acceptance
}

func (o *Options) maxReplicas() int {
	if o.MaxReplicas == 0 {
		return DefaultMaxReplicas
	}
	return o.MaxReplicas
}

func (o *Options) tuneSweeps() int {
	if o.TuneSweeps == 0 {
		return DefaultTuneSweeps
	}
	return o.TuneSweeps
}

// checkLadder checks a ladder given: 1 first, strictly decreasing, ≥ 0.
func checkLadder(b []float64) error {
	if len(b) == 0 || b[0] != 1 {
		return fmt.Errorf("exchange: ladder %v: the first inverse temperature must be 1 (the model itself)", b)
	}
	for k := 1; k < len(b); k++ {
		if !(b[k] < b[k-1]) || !(b[k] >= 0) {
			return fmt.Errorf("exchange: ladder %v: β_%d = %v: want strictly decreasing inverse temperatures ≥ 0", b, k, b[k])
		}
	}
	return nil
}

// build (re)builds the replicas on the ladder betas; from, if not nil, are
// the states of the previous ladders (evenly spaced on [0, 1] or tuned),
// each new rung starting from the state of the previous rung nearest in β.
func (e *Exchange) build(factory gibbs.Factory, opt *gibbs.Options, betas []float64, from [][][]float64, swapEvery, twins int, randomScan bool) error {
	if err := e.checkBytes(len(betas), twins); err != nil {
		return err
	}
	old := e.betas
	e.betas = append([]float64(nil), betas...)
	graphs := make([]*factorgraph.Graph, len(betas))
	for k, b := range betas {
		if err := done(opt); err != nil {
			return fmt.Errorf("exchange: building the replicas: %w", err)
		}
		graphs[k] = e.g
		if b != 1 {
			var err error
			if graphs[k], err = e.g.Tempered(b); err != nil {
				return fmt.Errorf("exchange: replica %d: %w", k, err)
			}
		}
	}
	e.ladders = make([]*ladder, twins)
	for l := range e.ladders {
		var prev [][]float64
		if from != nil {
			prev = from[l]
		}
		first := factory
		if l == 0 && e.cold != nil {
			first = e.cold
		}
		ld, err := e.newLadder(factory, first, opt, graphs, old, prev)
		if err != nil {
			return err
		}
		e.ladders[l] = ld
	}
	cold := e.ladders[0].reps[0]
	e.cond, _ = cold.(chain.Conditioner)
	e.block, _ = cold.(chain.BlockConditioner)
	e.scan, e.pos, e.hotPos, e.hotR, e.hotDone = nil, 0, 0, 0, 0
	e.hot, e.hotCore = e.hot[:0], e.hotCore[:0]
	for l, ld := range e.ladders {
		for k, s := range ld.reps {
			if l > 0 || k > 0 {
				e.hot = append(e.hot, s)
				c := core.Of(s)
				if c != nil && (c.UpdateFn == nil || !c.TorusSweep) {
					c = nil // not plain Gibbs: its own Update
				}
				e.hotCore = append(e.hotCore, c)
			}
		}
	}
	// The others are of one kind: the factory's (the chain's too, without
	// Options.Cold).
	other := gibbs.Sharer(cold)
	if len(e.hot) > 0 {
		other = e.hot[0]
	}
	// Rounds come roundsPerSweep times a sweep of the others where they
	// track their energies (a round then costs O(K)), once a sweep where
	// a round sums the model for each; the chain makes as many rounds.
	per := 1.0
	if _, ok := other.(logTracker); ok {
		per = roundsPerSweep
	}
	every := func(s gibbs.Sampler) int {
		if swapEvery > 0 {
			return swapEvery
		}
		return int(math.Ceil(stepsPerSweep(s, len(e.g.Free())) / per))
	}
	e.swapEvery, e.coldEvery = every(other), every(cold)
	e.hotShare = max(1, int(math.Ceil(float64(len(e.hot)*e.swapEvery)/float64(e.coldEvery))))
	if _, blockwise := other.(gibbs.StepsPerSweeper); !blockwise && !randomScan {
		e.scan = e.g.Free()
	}
	_, blockwise := cold.(gibbs.StepsPerSweeper)
	e.coldScan = e.scan != nil && !blockwise
	e.until = e.coldEvery
	e.parity, e.rounds = 0, 0
	e.lz.reset(len(betas))
	return nil
}

// replicaBytes is an estimate of a single-site replica's own memory a
// variable beyond its state: its conditional's scratch and counters are
// per sampler, so about the state's 8 bytes again.
const replicaBytes = 8

// checkBytes refuses, with a *factorgraph.MemoryError, a ladder of rungs
// rungs (twins replicas a rung) whose tempered models (one a rung but
// β = 1's, shared by the twins) and replicas' states would take more than
// the limit (Options.MaxBytes).
func (e *Exchange) checkBytes(rungs, twins int) error {
	need := e.need(rungs, twins)
	err := factorgraph.CheckBytes(need, e.maxBytes, fmt.Sprintf("exchange: %d replicas on %d rungs of a model of %d variables", rungs*twins, rungs, e.g.NumVars()), "exchange.Options.MaxBytes")
	var me *factorgraph.MemoryError
	if errors.As(err, &me) {
		me.Of = "the ladder (its tempered models and states)"
	}
	return err
}

// need returns the bytes of a ladder of rungs rungs with twins replicas
// a rung: its tempered models (one a rung but β = 1's) and states.
func (e *Exchange) need(rungs, twins int) float64 {
	return float64(rungs-1)*float64(e.g.Bytes()) + float64(rungs*twins)*float64(e.g.NumVars())*(8+replicaBytes)
}

// newLadder builds one replica at every rung, on graphs (the model
// tempered), starting from prev's states (on the ladder old) if not nil.
func (e *Exchange) newLadder(factory, first gibbs.Factory, opt *gibbs.Options, graphs []*factorgraph.Graph, old []float64, prev [][]float64) (*ladder, error) {
	K := len(graphs)
	ld := &ladder{reps: make([]gibbs.Sharer, K), states: make([][]float64, K), ell: make([]float64, K),
		trk: make([]logTracker, K), stale: make([]bool, K),
		walker: make([]int, K), heading: make([]int8, K), trips: make([]int64, K), tries: make([]int64, K), accepts: make([]int64, K)}
	for k, tg := range graphs {
		if err := done(opt); err != nil {
			return nil, fmt.Errorf("exchange: building the replicas: %w", err)
		}
		o := *opt
		if prev != nil {
			o.Init = prev[nearest(old, e.betas[k])]
		}
		f := factory
		if k == 0 {
			f = first
		}
		s, err := f(tg, e.r, &o)
		if err != nil {
			return nil, fmt.Errorf("exchange: replica %d (β = %.4g): %w", k, e.betas[k], err)
		}
		sh, ok := s.(gibbs.Sharer)
		if !ok {
			return nil, fmt.Errorf("exchange: %T cannot share its state (gibbs.Sharer): replicas could not swap", s)
		}
		switch s.(type) {
		case *mingibbs.MINGibbs, *mingibbs.DoubleMINGibbs:
			return nil, fmt.Errorf("exchange: %T caches an estimate of its state's energy, which a swap would make wrong; use another sampler", s)
		}
		ld.reps[k] = sh
		ld.states[k] = append([]float64(nil), s.State()...)
		sh.Share(ld.states[k])
		ld.walker[k] = k
		ld.stale[k] = true
		if t, ok := s.(logTracker); ok && e.betas[k] > 0 {
			t.TrackLogPotential(true)
			ld.trk[k] = t
		}
	}
	return ld, nil
}

// done returns the error of opt's context, if it has one and it is done:
// a tempered copy of a large model or a replica takes a while to build, and
// a ladder has dozens of them.
func done(opt *gibbs.Options) error {
	if opt == nil || opt.Context == nil {
		return nil
	}
	return opt.Context.Err()
}

// stepsPerSweep returns the steps of s that make a sweep's worth of
// updates.
func stepsPerSweep(s gibbs.Sampler, free int) float64 {
	if sp, ok := s.(gibbs.StepsPerSweeper); ok {
		return max(1, sp.StepsPerSweep())
	}
	return float64(max(1, free))
}

// nearest returns the index of the β of ladder closest to b.
func nearest(ladder []float64, b float64) int {
	best := 0
	for k, c := range ladder {
		if math.Abs(c-b) < math.Abs(ladder[best]-b) {
			best = k
		}
	}
	return best
}

// Step implements chain.Kernel: an update of every replica, or a round
// of swaps (see Exchange).
func (e *Exchange) Step() int {
	if e.until == 0 {
		e.until = e.coldEvery
		e.advanceHot(len(e.hot) * e.swapEvery) // what is left: nothing but after a restore or with Options.Cold
		e.hotR, e.hotDone = 0, 0
		if e.scan != nil {
			e.hotPos = (e.hotPos + e.swapEvery) % len(e.scan)
		}
		e.swapRound()
		e.swapped = true
		return chain.Any
	}
	e.until--
	e.swapped = false
	e.advanceHot(e.hotShare)
	if e.coldScan {
		i := e.scan[e.pos]
		if e.pos++; e.pos == len(e.scan) {
			e.pos = 0
		}
		e.ladders[0].reps[0].Update(i)
		return i
	}
	return e.ladders[0].reps[0].Step()
}

// advanceHot makes up to q of the updates the replicas other than the
// β = 1 one (which the steps update one at a time, for the observers) owe
// before the next round of swaps — swapEvery each — one replica after the
// other: a step makes as many as there are such replicas, the round's
// share, so that a step's cost stays bounded, and each replica makes its
// updates in runs with its model and state in cache instead of one at a
// time among 2K others. The replicas are independent between rounds, so
// any such order is the same chain as updating all of them with every
// step.
func (e *Exchange) advanceHot(q int) {
	for q > 0 && e.hotR < len(e.hot) {
		s := e.hot[e.hotR]
		m := min(q, e.swapEvery-e.hotDone)
		if e.scan == nil {
			for range m {
				s.Step()
			}
		} else {
			p := (e.hotPos + e.hotDone) % len(e.scan)
			if c := e.hotCore[e.hotR]; c != nil {
				c.UpdateScan(e.scan, p, m)
			} else {
				for range m {
					s.Update(e.scan[p])
					if p++; p == len(e.scan) {
						p = 0
					}
				}
			}
		}
		e.hotDone += m
		q -= m
		if e.hotDone == e.swapEvery {
			e.hotR, e.hotDone = e.hotR+1, 0
		}
	}
}

// Sweep sweeps every replica once, then runs a round of swaps.
func (e *Exchange) Sweep() {
	for _, ld := range e.ladders {
		for k, s := range ld.reps {
			s.Sweep()
			ld.stale[k] = true // a sweep may take another path than the updates
		}
	}
	if e.tail != nil {
		e.tail.Sweep()
	}
	e.swapRound()
	e.swapped = true
}

// Update updates variable i in every replica.
func (e *Exchange) Update(i int) {
	for _, ld := range e.ladders {
		for _, s := range ld.reps {
			s.Update(i)
		}
	}
	if e.tail != nil {
		e.tail.Update(i)
	}
	e.swapped = false
}

// swapRound runs the Houdayer moves between twins, if any, then proposes
// the swaps of one even or odd round in each ladder (Okabe et al. 2001):
// the pairs (parity, parity+1), (parity+2, parity+3), …
func (e *Exchange) swapRound() {
	if e.Err() != nil {
		return
	}
	if e.hou != nil {
		e.hou.round(e)
	}
	for _, ld := range e.ladders {
		e.energies(ld)
		for k := e.parity; k+1 < len(ld.reps); k += 2 {
			e.trySwap(ld, k)
		}
		ld.countTrips()
		e.lz.add(e.betas, ld.ell)
	}
	if e.tail != nil && e.rounds%tailEvery == 0 {
		e.tail.round()
	}
	e.parity ^= 1
	e.rounds++
}

// round advances e to the end of its next round of swaps.
func (e *Exchange) round() {
	for {
		e.Step()
		if e.swapped {
			return
		}
	}
}

// energies brings ld.ell up to date with the replicas' states: the
// tracked change of ℓ since the last round where a replica tracks it, a
// sum over the model where it does not, where the value is stale, and at
// every refreshEvery-th round for all.
func (e *Exchange) energies(ld *ladder) {
	refresh := e.rounds%refreshEvery == 0
	for k, t := range ld.trk {
		if t != nil {
			d := t.LogPotentialChange()
			t.SetLogPotentialChange(0)
			if !refresh && !ld.stale[k] && !math.IsNaN(d) {
				ld.ell[k] += d / e.betas[k]
				continue
			}
		}
		ld.ell[k] = e.g.LogPotential(ld.states[k])
		ld.stale[k] = false
	}
}

// trySwap proposes to exchange the states of rungs k and k+1 of ld.
func (e *Exchange) trySwap(ld *ladder, k int) {
	// log of the Metropolis ratio of the swap: π_k(x_{k+1}) π_{k+1}(x_k)
	// over π_k(x_k) π_{k+1}(x_{k+1}).
	logA := (e.betas[k] - e.betas[k+1]) * (ld.ell[k+1] - ld.ell[k])
	switch e.broken {
	case brokenSign:
		logA = -logA
	case brokenAlways:
		logA = 0
	}
	ld.tries[k]++
	if logA < 0 && e.r.Float64() >= math.Exp(logA) {
		return
	}
	ld.accepts[k]++
	// The values move, not the slices: each replica keeps the slice it
	// shares, so a caller's view of State stays the β = 1 state.
	swapValues(ld.states[k], ld.states[k+1])
	ld.ell[k], ld.ell[k+1] = ld.ell[k+1], ld.ell[k]
	ld.walker[k], ld.walker[k+1] = ld.walker[k+1], ld.walker[k]
}

func swapValues(a, b []float64) {
	for j, v := range a {
		a[j], b[j] = b[j], v
	}
}

// countTrips updates the walkers' headings at the two ends of the ladder
// and counts a round trip when a walker that reached the hot end comes
// back to β = 1.
func (ld *ladder) countTrips() {
	K := len(ld.reps)
	if K < 2 {
		return
	}
	w := ld.walker[0]
	if ld.heading[w] < 0 {
		ld.trips[w]++
	}
	ld.heading[w] = 1
	ld.heading[ld.walker[K-1]] = -1
}

// State returns the β = 1 replica's state, a view the caller must not
// modify.
func (e *Exchange) State() []float64 { return e.ladders[0].states[0] }

// Err returns the first error of any replica, or nil.
func (e *Exchange) Err() error {
	for _, ld := range e.ladders {
		for k, s := range ld.reps {
			if err := s.Err(); err != nil {
				return fmt.Errorf("exchange: replica %d (β = %.4g): %w", k, e.betas[k], err)
			}
		}
	}
	if e.tail != nil {
		return e.tail.Err()
	}
	return nil
}

// Stats returns the counters of all the replicas together: the work of
// the whole exchange (Updates counts the β = 1 replica's updates only).
// Proposals and Accepted include the swaps (not the Houdayer moves, which
// are always accepted).
func (e *Exchange) Stats() gibbs.Stats {
	var st gibbs.Stats
	for _, ld := range e.ladders {
		for _, s := range ld.reps {
			st.Add(s.Stats())
		}
		for k := range ld.tries {
			st.Proposals += ld.tries[k]
			st.Accepted += ld.accepts[k]
		}
	}
	if e.tail != nil {
		st.Add(e.tail.Stats())
	}
	return st
}

// Updates implements chain.Counter with the β = 1 replica's updates: the
// chain's length in sweeps is that replica's.
func (e *Exchange) Updates() (done int64, per int) { return e.ladders[0].reps[0].Updates() }

// StepsPerSweep implements gibbs.StepsPerSweeper: the steps that update
// the β = 1 replica a sweep's worth, with their rounds of swaps.
func (e *Exchange) StepsPerSweep() float64 {
	s := stepsPerSweep(e.ladders[0].reps[0], len(e.g.Free()))
	return s * (1 + 1/float64(e.coldEvery))
}

// RecordConditionals implements chain.Conditioner.
func (e *Exchange) RecordConditionals(on bool) {
	if e.cond != nil {
		e.cond.RecordConditionals(on)
	}
}

// Conditional implements chain.Conditioner: what the β = 1 replica's last
// update drew from, or i < 0 after a round of swaps or when its sampler
// reports nothing.
func (e *Exchange) Conditional() (i int, w []float64, total float64) {
	if e.swapped || e.cond == nil {
		return -1, nil, 0
	}
	return e.cond.Conditional()
}

// Conditionals implements chain.BlockConditioner (see Conditional).
func (e *Exchange) Conditionals() (vars []int, p [][]float64) {
	if e.swapped || e.block == nil {
		return nil, nil
	}
	return e.block.Conditionals()
}

// Replicas returns the number of replicas: the rungs, times two with
// Houdayer moves, and the log-Z tail's (LogZRungs).
func (e *Exchange) Replicas() int {
	n := len(e.betas) * len(e.ladders)
	if e.tail != nil {
		n += e.tail.Replicas()
	}
	return n
}

// LogZRungs returns the rungs of the log-Z tail: where the tuned ladder
// stops short of β = 0, replicas from its hottest rung down to 0 that
// never swap with it and run a round every eight of its rounds, for LogZ's
// bridge (0: none).
func (e *Exchange) LogZRungs() int {
	if e.tail == nil {
		return 0
	}
	return len(e.tail.betas)
}

// Load returns the replica updates a step of the chain makes on average:
// every replica's of the ladder, the tail's an eighth as often (the cost
// of a step, in single updates, for a cost model).
func (e *Exchange) Load() float64 {
	l := float64(len(e.betas) * len(e.ladders))
	if e.tail != nil {
		l += e.tail.Load() / tailEvery
	}
	return l
}

// Bytes estimates the memory e holds beyond the model: its tempered
// models (one a rung but β = 1's, shared by twins) and its replicas'
// states, the tail's included (as Options.MaxBytes counts them).
func (e *Exchange) Bytes() float64 {
	b := e.need(len(e.betas), len(e.ladders))
	if e.tail != nil {
		b += float64(e.g.Bytes()) + e.tail.Bytes()
	}
	return b
}

// Replica returns the sampler of rung k (0: β = 1) of the first ladder,
// for its counters and configuration; stepping it directly would break
// the exchange.
func (e *Exchange) Replica(k int) gibbs.Sampler { return e.ladders[0].reps[k] }

// Rung is one temperature of the ladder and how its swaps with the next
// hotter rung went (over both ladders with Houdayer moves).
type Rung struct {
	Beta            float64
	Tries, Accepted int64 // swaps with the next hotter rung proposed, accepted
	Acceptance      float64
	// Houdayer says whether Houdayer moves run at this rung, and
	// ClusterShare is the mean share of the free variables their clusters
	// held over the tuning (0 without Houdayer moves).
	Houdayer     bool
	ClusterShare float64
}

// Ladder returns the rungs, from β = 1 down.
func (e *Exchange) Ladder() []Rung {
	out := make([]Rung, len(e.betas))
	for k, b := range e.betas {
		out[k].Beta = b
		for _, ld := range e.ladders {
			out[k].Tries += ld.tries[k]
			out[k].Accepted += ld.accepts[k]
		}
		if out[k].Tries > 0 {
			out[k].Acceptance = float64(out[k].Accepted) / float64(out[k].Tries)
		}
		if e.hou != nil {
			out[k].Houdayer, out[k].ClusterShare = e.hou.on[k], e.hou.share[k]
		}
	}
	return out
}

// RoundTrips returns the round trips of all walkers: a replica's state
// travelling from β = 1 to the hottest rung and back.
func (e *Exchange) RoundTrips() int64 {
	var n int64
	for _, ld := range e.ladders {
		for _, t := range ld.trips {
			n += t
		}
	}
	return n
}

// WalkerTrips returns the round trips of each walker (a state that started
// at one rung, followed through its swaps), the first ladder's then the
// twin's: a walker that never made one has not carried its state through
// the ladder.
func (e *Exchange) WalkerTrips() []int64 {
	var out []int64
	for _, ld := range e.ladders {
		out = append(out, ld.trips...)
	}
	return out
}

// Rounds returns the rounds of swaps run since the ladder was fixed.
func (e *Exchange) Rounds() int64 { return e.rounds }

// Summary sums up an exchange for a report: its replicas, rungs and
// hottest inverse temperature, the range of its pairs' swap acceptance,
// its round trips (in all and per walker), the rungs where Houdayer moves
// run, and the log-Z tail's rungs.
type Summary struct {
	Replicas      int     `json:"replicas"` // the log-Z tail's included
	Rungs         int     `json:"rungs"`
	BetaMin       float64 `json:"beta_min"`
	AcceptanceMin float64 `json:"swap_acceptance_min"`
	AcceptanceMax float64 `json:"swap_acceptance_max"`
	RoundTrips    int64   `json:"round_trips"`
	// TripsMin and TripsMax are the fewest and most round trips of one
	// walker (WalkerTrips); Stuck counts the walkers with none.
	TripsMin      int64 `json:"round_trips_min"`
	TripsMax      int64 `json:"round_trips_max"`
	Stuck         int   `json:"walkers_without_round_trip"`
	HoudayerRungs int   `json:"houdayer_rungs"`
	LogZRungs     int   `json:"logz_rungs"`
}

// Summarise returns e's Summary.
func (e *Exchange) Summarise() Summary {
	s := Summary{Replicas: e.Replicas(), Rungs: len(e.betas), BetaMin: e.betas[len(e.betas)-1], RoundTrips: e.RoundTrips(), AcceptanceMin: 1, LogZRungs: e.LogZRungs()}
	for k, r := range e.Ladder() {
		if k+1 < len(e.betas) {
			s.AcceptanceMin, s.AcceptanceMax = min(s.AcceptanceMin, r.Acceptance), max(s.AcceptanceMax, r.Acceptance)
		}
		if r.Houdayer {
			s.HoudayerRungs++
		}
	}
	if len(e.betas) == 1 {
		s.AcceptanceMin = 0
	}
	for k, t := range e.WalkerTrips() {
		if k == 0 || t < s.TripsMin {
			s.TripsMin = t
		}
		s.TripsMax = max(s.TripsMax, t)
		if t == 0 {
			s.Stuck++
		}
	}
	return s
}
