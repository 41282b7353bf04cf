package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/internal/phase"
	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// Options configure Marginals. The zero value gives the defaults.
type Options struct {
	// Time is the budget of the whole answer: exact elimination, pilots
	// and sampling. Zero means 10 s.
	Time time.Duration
	// MaxBytes bounds the memory of one component's exact elimination.
	// Zero means half the memory this process may use (sysmem.Total; 2
	// GiB if it cannot be read), as the command line does.
	MaxBytes float64
	// Seed seeds the pilots and the chains (chain k: stream k; chain 0
	// and every pilot start from one state of the seed and draw from
	// stream 0, and chain 0 continues the chosen pilot's chain where the
	// pilots chose the sampler).
	Seed uint64
	// Sweeps, if positive, is the sampled part's length in
	// sweep-equivalents (after its burn-in of half of it, at most 1000)
	// instead of the time left: a run whose answer depends on the seed
	// alone. Without Time such a run has no clock at all: the exact part
	// and the pilots have the fixed limits of a Budget without Time.
	Sweeps float64
	// Chains is the number of chains of the sampled part, run in
	// parallel. Zero means 1.
	Chains int
	// Criteria judge the sampled part's convergence (chain.Criteria).
	Criteria chain.Criteria
	// Sampler holds the samplers' options (λ, MaxDraws); Init is ignored.
	Sampler gibbs.Options
	// Run, if not nil, is what a caller that drives the chains further
	// adds: a fixed sampler, a length in steps, hooks (Run).
	Run *Run
	// Locality stores the graph in factorgraph.LocalityOrder before
	// answering where that pays (locality.go: at least LocalityVars free
	// variables, a numbering that hides the locality the order finds,
	// memory and time for a second graph): a scan in storage order —
	// gibbs.Options.Systematic, sweeps — then reads a variable's row, its
	// neighbours' values and its marginals from nearby memory. The answer
	// is in g's numbering all the same (Answer.Order).
	Locality bool

	// NoShrink keeps the sampled marginals as the chains give them:
	// without it they are shrunk toward loopy BP's beliefs by the weight
	// the run measures (Shrinkage). A fixed sampler's run (Run.Spec) is
	// never shrunk.
	NoShrink bool

	// names is the caller's index of each variable of a renumbered graph,
	// for the monitor's names (Locality).
	names []int
}

// Answer is what Marginals found.
type Answer struct {
	// Marginals[i][v] = P(x_i = v) for every discrete variable (observed
	// ones: a point mass at their value); nil for continuous ones.
	Marginals [][]float64
	// Exact[i] says variable i's marginal is exact (its component was
	// eliminated, or it is observed).
	Exact []bool
	// ExactPart is the eliminations' plan and results.
	ExactPart *ExactPart
	// Choice is the sampler the pilots chose (nil when every component was
	// exact, or when no sampler could be chosen in time), Verdict its
	// chains' convergence, Sweeps their mean length in sweep-equivalents.
	Choice  *Choice
	Verdict *chain.Verdict
	Sweeps  float64
	// Run is how the chains ran (nil if nothing was sampled).
	Run *Sampled
	// PilotSeconds is the pilots' wall time; NoChoice why no sampler was
	// chosen although components are left (Prepared.Why).
	PilotSeconds float64
	NoChoice     string
	// Incomplete, if not empty, says why the answer is less than the
	// budget was to give: the run was interrupted, or the budget ran out
	// before the chains had sampled (the marginals of the variables not
	// exact are then those sampled so far, or uniform where nothing was).
	// Verdict then says not converged, with the same reason.
	Incomplete string
	// Method is how the answer was found, in one word: "exact" (every
	// component eliminated: nothing sampled), "mixed" (some components
	// eliminated, the others sampled) or "sampled" (none eliminated,
	// Options.Run.Spec's answers included). An answer whose budget ran out
	// before the chains sampled keeps its label: Incomplete says so.
	Method string
	// Frozen is Verdict.Frozen: the traced variables that the chains never
	// moved although nothing shows their marginals degenerate (the
	// exact components' variables, and those arc consistency on the hard
	// factors leaves one value, are not counted). A frozen variable fails
	// the verdict: its marginal is the value it started in. 0 when nothing
	// was sampled.
	Frozen int
	// LogZ is log Z of the model given its evidence, log Σ_x exp(Σ_φ φ(x))
	// over the free variables: exact (LogZError 0) when every component
	// was eliminated; else, where the chains are replica exchange whose
	// ladder reaches β = 0 on a model without hard factors
	// (exchange.Exchange.LogZ), their bridge-sampling estimate pooled by
	// inverse variance, with its standard error LogZError (at least the
	// spread of the chains' estimates over √chains) — or, where an
	// exchange lost the race (Choice.Race) to a sampler that gives none,
	// the loser's, from its pilot and race; NaN (both) otherwise.
	LogZ, LogZError float64
	// Order is the order Options.Locality stored the graph in (nil if it
	// did not): Marginals, Exact and the verdict's names are in g's
	// numbering, but ExactPart, Choice and Run are of
	// factorgraph.Renumber(g, Order), whose variable k is g's Order[k]
	// (factorgraph.OriginalOrder maps per-variable values back).
	// OrderNote says what Locality did, or why it kept g's numbering.
	Order     []int
	OrderNote string
	// Shrink is how the sampled marginals were shrunk toward loopy BP's
	// beliefs (nil where nothing was sampled by the pilots' choice, or
	// with Options.NoShrink; Shrink.Why says why where it was not).
	Shrink *Shrinkage
	// beliefs are belief propagation's on shrinkVars, the sampled
	// variables, until the run's marginals are shrunk toward them.
	beliefs    [][]float64
	shrinkVars []int
	// Seconds is the wall time of the whole answer, from its budget's start
	// (the call, or Options.Run.Start) to its return: planning, elimination,
	// pilots, chains and verdict.
	Seconds float64
}

// Method labels of Answer.Method.
const (
	MethodExact   = "exact"
	MethodMixed   = "mixed"
	MethodSampled = "sampled"
)

// Marginals returns the marginals of g's variables as well as the library
// can within opt.Time: exact for every component of the free variables
// whose elimination fits opt.MaxBytes and three quarters of the budget (by
// its time estimate), and from the sampler Choose measures best on the others
// (chains run for the rest of the budget: every second sampled makes the
// error smaller). Where the pilots' choice rests on little evidence (a
// rule's, or a runner-up close behind) and one chain runs against the
// clock, the chosen candidate and the runner-up race first for a tenth of
// the sampling time each, and the run continues the one measured the more
// precise where their marginals agree (Choice.Race). The answer says which variables are exact, which sampler
// ran and why, and the sampled part's verdict — read it before trusting
// the sampled marginals.
//
// Every phase — planning, elimination, the pilots (sampler construction
// included), the chains — ends by its share of opt.Time (Budget), so that
// Marginals returns within opt.Time of its call whatever the model, a
// phase that overruns its share handing over to the next — but for an
// answer that is exact once its last elimination ends, which may end up
// to a tenth of opt.Time late while its rate of work says it will
// (lateGrace): an exact answer rather than none. If ctx is
// cancelled (a signal, the caller's deadline), Marginals returns within
// about a second the answer so far — the exact components solved, the
// marginals sampled so far — with Incomplete saying so, together with an
// error wrapping ctx.Err().
func Marginals(ctx context.Context, g *factorgraph.Graph, opt Options) (a *Answer, err error) {
	start := time.Now()
	if g == nil {
		return nil, errors.New("infer: nil graph")
	}
	if opt.Locality {
		return renumbered(ctx, g, opt, start)
	}
	return marginals(ctx, g, opt, start)
}

// marginals is Marginals with its start.
func marginals(ctx context.Context, g *factorgraph.Graph, opt Options, start time.Time) (a *Answer, err error) {
	counted := opt.Sweeps > 0 || opt.Run != nil && opt.Run.Steps > 0
	if opt.Time == 0 && !counted {
		opt.Time = 10 * time.Second
	}
	if opt.Time < 0 || opt.Chains < 0 {
		return nil, fmt.Errorf("infer: budget %v and %d chains: want a positive budget and chains ≥ 0", opt.Time, opt.Chains)
	}
	if opt.Chains == 0 {
		opt.Chains = 1
	}
	// A run counted in sweeps or steps has no clock: its phases have the
	// fixed limits of a Budget without Time, so that its answer depends on
	// the seed alone.
	b := Budget{Start: start, Time: opt.Time}
	if opt.Run != nil && !opt.Run.Start.IsZero() {
		b.Start = opt.Run.Start
	}
	defer func() {
		if a != nil {
			a.setLogZ(g)
			a.finish(b.Start)
		}
	}()
	if opt.Run != nil && opt.Run.Spec != nil {
		return fixed(ctx, g, opt, b)
	}
	pr, err := Prepare(ctx, g, b, opt)
	if pr == nil {
		return nil, err
	}
	a = &Answer{ExactPart: pr.Exact, Choice: pr.Choice, Exact: make([]bool, g.NumVars()), Marginals: pointMasses(g, nil),
		PilotSeconds: pr.PilotSeconds, NoChoice: pr.Why}
	for i := range g.NumVars() {
		_, a.Exact[i] = g.Observed(i)
	}
	switch {
	case err != nil: // interrupted
		a.stop(fmt.Sprintf("interrupted (%v) before sampling", context.Cause(ctx)))
	case pr.Exact.All():
	case pr.Choice == nil:
		a.stop(pr.Why)
	default:
		ch := pr.Choice
		a.propagate(ctx, g, opt, b)
		riv, rp := ch.takeRival()
		from, spec, ns := ch.take(), ch.Spec, ch.nsPerSweep()
		if riv != nil && from != nil && raceable(opt, b) {
			exact := make([]bool, g.NumVars())
			pr.Exact.Overlay(make([][]float64, g.NumVars()), exact)
			from, spec, ns, err = race(ctx, g, opt, b, ch, from, riv, rp, exact)
		}
		if err != nil {
			a.interruptedRace(g, from, ctx)
			break
		}
		err = a.sample(ctx, g, opt, spec, ns, from, b)
		if err == nil {
			a.shrink()
		}
	}
	if sh := a.Shrink; sh != nil && a.beliefs != nil {
		// The run ended before its marginals could be shrunk.
		if sh.Why == "" {
			sh.Why = "the sampling did not complete"
		}
		a.beliefs = nil
	}
	if pr.Choice != nil {
		pr.Choice.take() // a pilot's chain no run continued is not kept in the answer
	}
	pr.Exact.Overlay(a.Marginals, a.Exact)
	return a, err
}

// interruptedRace marks a as interrupted during the race and gives it
// the marginals the chosen chain's race observed so far (from.soFar), if
// any: the results so far, not converged.
func (a *Answer) interruptedRace(g *factorgraph.Graph, from *pilotChain, ctx context.Context) {
	if from == nil || from.soFar == nil || from.soFar.N() == 0 {
		a.stop(fmt.Sprintf("interrupted (%v) before sampling", context.Cause(ctx)))
		return
	}
	p := from.soFar.Probs()
	for _, i := range g.Free() {
		if floats.Sum(p[i]) > 0 {
			a.Marginals[i] = p[i]
		}
	}
	a.Sweeps = float64(from.soFar.N()) / gibbs.StepsPerSweep(from.smp)
	a.stop(fmt.Sprintf("interrupted (%v) during the race of the pilots' choice: the marginals are its chain's race so far, %.3g sweep-equivalents", context.Cause(ctx), a.Sweeps))
}

// fixed answers with opt.Run.Spec on every free variable: no exact part,
// no pilots.
func fixed(ctx context.Context, g *factorgraph.Graph, opt Options, b Budget) (*Answer, error) {
	a := &Answer{Exact: make([]bool, g.NumVars()), Marginals: pointMasses(g, nil)}
	for i := range g.NumVars() {
		_, a.Exact[i] = g.Observed(i)
	}
	err := a.sample(ctx, g, opt, *opt.Run.Spec, 0, nil, b)
	return a, err
}

// finish sets a's method, frozen count and wall time since start.
func (a *Answer) finish(start time.Time) {
	a.Seconds = time.Since(start).Seconds()
	switch ex := a.ExactPart; {
	case ex != nil && ex.All():
		a.Method = MethodExact
	case ex != nil && ex.Any():
		a.Method = MethodMixed
	default:
		a.Method = MethodSampled
	}
	a.Frozen = 0
	if a.Verdict != nil {
		a.Frozen = a.Verdict.Frozen
	}
}

// setLogZ sets a.LogZ and a.LogZError (see Answer).
func (a *Answer) setLogZ(g *factorgraph.Graph) {
	a.LogZ, a.LogZError = math.NaN(), math.NaN()
	if ex := a.ExactPart; ex != nil && ex.All() {
		if z, ok := ex.LogZ(g); ok {
			a.LogZ, a.LogZError = z, 0
		}
		return
	}
	if a.Run == nil || a.Incomplete != "" {
		return
	}
	samplers := a.Run.Samplers
	if _, ok := samplers[0].(*exchange.Exchange); len(samplers) == 1 && !ok && a.Choice != nil && a.Choice.Race != nil && a.Choice.Race.loser != nil {
		// The race's loser was an exchange: its estimate, from its pilot
		// and race, where the winner gives none.
		samplers = []gibbs.Sampler{a.Choice.Race.loser}
	}
	num, den := 0.0, 0.0
	var zs []float64
	for _, smp := range samplers {
		x, ok := smp.(*exchange.Exchange)
		if !ok {
			return
		}
		z, se, ok := x.LogZ()
		if !ok || !(se > 0) || math.IsInf(se, 1) {
			return
		}
		num += z / (se * se)
		den += 1 / (se * se)
		zs = append(zs, z)
	}
	if den > 0 {
		// Independent chains also show an error their own batches may
		// not (a valley one chain has not found): the larger of the
		// pooled error and the spread of their estimates.
		a.LogZ, a.LogZError = num/den, math.Sqrt(1/den)
		if m := float64(len(zs)); m > 1 {
			a.LogZError = max(a.LogZError, stat.StdDev(zs, nil)/math.Sqrt(m))
		}
	}
}

// nsPerSweep returns the cost of a sweep of the chosen sampler by its
// pilot (0 if it has none).
func (ch *Choice) nsPerSweep() float64 {
	for _, p := range ch.Pilots {
		if p.Spec == ch.Spec {
			return p.NsPerSweep
		}
	}
	return 0
}

// stop marks a as incomplete for reason, its verdict not converged.
func (a *Answer) stop(reason string) {
	a.Incomplete = reason
	if a.Verdict == nil {
		a.Verdict = &chain.Verdict{}
	}
	a.Verdict.Converged = false
	a.Verdict.Reason = reason
}

// Prepared is the part of an answer before its chains run: the exact part
// and, where components are left to sampling, the sampler chosen for them.
type Prepared struct {
	Exact *ExactPart
	// Choice is the sampler the pilots chose (nil when every component is
	// exact, or when none could be chosen: Why says why), PilotSeconds the
	// wall time of the pilots.
	Choice       *Choice
	Why          string
	PilotSeconds float64
}

// Prepare plans and solves the exact part of g (opt.MaxBytes a component)
// and, if components are left to sample, chooses their sampler (ChooseOptions
// from opt's Seed and Sampler), each phase by its share of b: planning
// ends at planShare of the time left, the eliminations may take
// exactShare of it by their estimates and are stopped at exactLimit, the
// pilots take pilotShare of what is left then (by the cost model; by the
// clock, at most pilotLimit). Without b.Time, the eliminations may take
// NoTimeExact by their estimates and the pilots NoTimePilots. If the
// budget leaves no time for pilots, or none of the candidates could be
// built in time, Choice is nil and Why says so. If ctx is cancelled,
// Prepare returns what it has so far with ctx's error (wrapped).
func Prepare(ctx context.Context, g *factorgraph.Graph, b Budget, opt Options) (*Prepared, error) {
	if g == nil {
		return nil, errors.New("infer: nil graph")
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes()
	}
	_, timed := b.Deadline()
	estimate, solveBy := NoTimeExact, time.Time{}
	if timed {
		left := b.Left()
		estimate = time.Duration(exactShare * float64(left))
		solveBy = time.Now().Add(time.Duration(exactLimit * float64(left)))
	}
	phase.Enter("plan")
	pctx, cancel := b.share(ctx, planShare)
	ex, err := PlanExact(pctx, g, opt.MaxBytes, estimate)
	cancel()
	if err != nil {
		return nil, err
	}
	pr := &Prepared{Exact: ex}
	if interrupted(ctx) {
		return pr, fmt.Errorf("infer: planning the exact elimination: %w", ctx.Err())
	}
	phase.Enter("solve")
	if err := ex.SolveBy(ctx, solveBy, b.lateDeadline()); err != nil {
		if interrupted(ctx) {
			return pr, err
		}
		return nil, err
	}
	if ex.All() {
		return pr, nil
	}
	budget := NoTimePilots
	if timed {
		left := b.Left()
		budget = pilotShare * float64(left.Nanoseconds())
		if left <= 0 {
			pr.Why = "the budget ran out before the pilots could choose a sampler"
			return pr, nil
		}
	}
	phase.Enter("pilots")
	cctx, cancel := b.share(ctx, pilotLimit)
	defer cancel()
	pilots := time.Now()
	ch, err := Choose(cctx, g, ChooseOptions{Budget: budget, Seed: opt.Seed, Sampler: opt.Sampler})
	pr.PilotSeconds = time.Since(pilots).Seconds()
	switch {
	case interrupted(ctx):
		return pr, fmt.Errorf("infer: choosing a sampler: %w", ctx.Err())
	case err != nil && (cctx.Err() != nil || errors.Is(err, ErrNoTime)):
		pr.Why = fmt.Sprintf("no sampler could be chosen within the pilots' share of the budget (%.3g s): %v", pr.PilotSeconds, firstLine(err))
		return pr, nil
	case err != nil:
		return nil, err
	}
	pr.Choice = &ch
	return pr, nil
}

// DefaultMaxBytes returns the default memory budget of one component's
// exact elimination: half the memory this process may use (2 GiB if that
// cannot be read).
func DefaultMaxBytes() float64 {
	if m := sysmem.Total(); m > 0 {
		return m / 2
	}
	return 2 << 30
}

// pointMasses returns marginals for every variable of g: point masses for
// observed discrete variables, uniform for free discrete ones (to be
// replaced), nil for continuous ones. dst is reused if long enough.
func pointMasses(g *factorgraph.Graph, dst [][]float64) [][]float64 {
	out := dst[:0]
	for i := range g.NumVars() {
		d := g.Domain(i)
		if !d.IsDiscrete() {
			out = append(out, nil)
			continue
		}
		p := make([]float64, d.Size)
		if v, ok := g.Observed(i); ok {
			p[int(v)] = 1
		} else {
			for k := range p {
				p[k] = 1 / float64(d.Size)
			}
		}
		out = append(out, p)
	}
	return out
}
