package infer

import (
	"cmp"
	"context"
	"errors"

	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/flip"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/internal/phase"
)

// Spec names a sampler the chooser can build: "site" (single-site
// updates, plain Gibbs or Poisson-Gibbs variable by variable, the cheaper:
// samplers.NewAuto), or a registry name of package gibbs ("block", "sw",
// "wolff") and, for "block", its configuration.
type Spec struct {
	Name  string
	Block blocked.Config
	// Clusters is a Wolff sampler's single-cluster updates a step
	// (samplers.Config.Clusters: 0 one, TuneClusters tuned, as the
	// candidate is).
	Clusters int
	// Houdayer runs an exchange's replicas in twins with Houdayer's
	// cluster moves between them (exchange.Options.Houdayer).
	Houdayer bool
	// MaxBytes bounds an exchange's tempered copies of the model
	// (exchange.Options.MaxBytes; 0: the machine's memory). A run sets it
	// from Run.MaxBytes.
	MaxBytes float64
	// Flips adds phase flips (gibbs/flip) to blocks where the model has
	// founders' phases to flip (a pedigree: flip.Find); elsewhere it
	// changes nothing.
	Flips bool
}

// String names the spec as the CLI does: "site", "block width 8",
// "block table 2^20" (blocks bounded by their tables alone: a width of
// WideWidth or more), "block forests", "sw", "wolff".
func (s Spec) String() string {
	switch {
	case s.Name == "exchange" && s.Houdayer:
		return "exchange houdayer"
	case s.Name != "block":
		return s.Name
	}
	name := fmt.Sprintf("block width %d", s.Block.MaxWidth)
	switch {
	case s.Block.Forests:
		name = "block forests"
	case s.Block.MaxWidth >= WideWidth:
		name = fmt.Sprintf("block table 2^%d", int(math.Round(math.Log2(float64(s.Block.MaxTable)))))
	}
	if s.Flips {
		name += " + phase flips"
	}
	if s.Block.Regions > 0 {
		name += " + regions"
	}
	return name
}

// WideWidth is the width of the candidate blocks bounded by their tables
// alone: as large as a table of WideTable entries allows, whatever the
// number of variables in it (on pedigrees, variables of one or two values
// make wide cliques of small tables: blocks bounded by width stay small
// where their tables would allow whole components).
const (
	WideWidth = 64
	WideTable = 1 << 14
)

// New builds the sampler of s on g drawing from r through the registry
// (site: auto with samplers.Config.SingleSite; block with s.Block, and
// with s.Flips the phase flips of flip.Find's groups, if it finds any, as
// a *flip.Sampler around the blocks; wolff with s.Clusters). The
// construction stops when opt.Context is done (gibbs.Options.Context).
func (s Spec) New(g *factorgraph.Graph, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
	name, cfg := s.Name, samplers.Config{Block: s.Block, Clusters: s.Clusters}
	cfg.Exchange.Houdayer, cfg.Exchange.MaxBytes = s.Houdayer, s.MaxBytes
	if opt != nil {
		cfg.Options = *opt
	}
	switch name {
	case "site":
		name, cfg.SingleSite = "auto", true
	case "exchange":
		// Replicas of plain Gibbs: exact single-site updates, the
		// cheapest where couplings are strong (Poisson-Gibbs's
		// minibatches are large there).
		cfg.Replica = "gibbs"
	}
	e, err := samplers.Lookup(name)
	if err != nil {
		return nil, err
	}
	smp, err := e.New(g, r, &cfg)
	if err != nil || !s.Flips || s.Name != "block" {
		return smp, err
	}
	gs := flip.Find(g)
	sh, ok := smp.(gibbs.Sharer)
	if len(gs) == 0 || !ok {
		return smp, nil
	}
	return flip.New(g, sh, r, gs)
}

// unwrap returns the sampler phase flips were added to, or smp.
func unwrap(smp gibbs.Sampler) gibbs.Sampler {
	if f, ok := smp.(*flip.Sampler); ok {
		return f.Base()
	}
	return smp
}

// Pilot is what a candidate's pilot run measured.
type Pilot struct {
	Spec Spec
	// Sweeps is the pilot's length in sweep-equivalents (half burn-in,
	// half measured, and more measured where it was extended:
	// extendPilots), ESS the common effective sample size of the tracked
	// quantities (every value of every free variable: see Choose) over the
	// measured part, one draw a sweep-equivalent.
	Sweeps, ESS float64
	// NsPerSweep is the cost of a sweep-equivalent under the cost model
	// (not a timing: a count of the pilot's work priced by fixed
	// constants, so that a seed gives the same choice on every machine),
	// and ESSPerSecond = ESS / (measured sweeps · NsPerSweep · 10⁻⁹).
	NsPerSweep, ESSPerSecond float64
	// Refused is why the candidate could not run ("" if it ran): Err's
	// message (the first line of a sampler's, without "gibbs: ").
	Refused string
	// Seconds is the wall time of the measured half (reported, never
	// used in the choice).
	Seconds float64

	ess      []float64 // each quantity's bulk ESS (NaN: constant in the pilot)
	err      error     // the refusal, nil if the pilot ran
	measured float64   // the sweep-equivalents measured
	cont     *pilotRun // what continues the pilot, until the choice (extendPilots)
	held     float64   // blocks: their mean share of the free variables (heldTogether)
	// build is, for a candidate refused with ErrBuildOutOfTime, the
	// estimated construction time (ns, buildCost) if it was refused before
	// it started (estimated says so), else its share of the pilots' time,
	// which its construction overran.
	build     float64
	estimated bool
	// unbuilt says a refusal came before the sampler was built (Wolff's
	// sweep cost, checked before its tuning): the model may refuse it,
	// so no rule may choose it.
	unbuilt bool
	// chain is the pilot's chain where it ran to its end (or was built
	// and refused as too slow, before any step): what the run may
	// continue (Choice.keep).
	chain *pilotChain
}

// Err returns why the candidate could not run, nil if it ran: a refusal
// of Choose's own, which errors.Is tells by its kind (ErrTooSlow,
// ErrBuildOutOfTime, ErrPilotOutOfTime), or the error of the sampler's
// constructor or of its pilot run. Refused is its message.
func (p Pilot) Err() error { return p.err }

// refuse records a refusal of Choose's own, of the kind given.
func (p *Pilot) refuse(kind error, format string, args ...any) {
	r := &refusal{kind: kind, msg: fmt.Sprintf(format, args...)}
	p.err, p.Refused = r, r.msg
}

// fail records err, a constructor's or a run's, as the refusal, with the
// message msg.
func (p *Pilot) fail(err error, msg string) { p.err, p.Refused = err, msg }

// refusal is a refusal of Choose's own: its message says why in words,
// kind says which it is.
type refusal struct {
	kind error
	msg  string
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

// The kinds of Choose's own refusals of a candidate (Pilot.Err).
var (
	// ErrTooSlow: a sweep-equivalent of the candidate costs more than
	// the pilot budget allows for a pilot of minPilotSweeps; the model
	// accepts it. When no pilot runs, Choose takes the first such
	// candidate by rule.
	ErrTooSlow = errors.New("infer: too slow for a pilot")
	// ErrBuildOutOfTime: the candidate could not be built within its
	// share of the pilots' time (by the estimate before it starts, or by
	// the clock); it is not known whether it accepts the model.
	ErrBuildOutOfTime = errors.New("infer: out of time to build the sampler")
	// ErrPilotOutOfTime: the candidate was built, but its pilot did not
	// finish within its share of the pilots' time. When no pilot runs,
	// Choose takes the first such candidate by rule.
	ErrPilotOutOfTime = errors.New("infer: out of time for the pilot")

	// errWider: blocks wider than a width found too slow, not built.
	errWider = errors.New("infer: wider than blocks too slow")
	// errSameBlocks: blocks identical to a narrower width's.
	errSameBlocks = errors.New("infer: the same blocks as a narrower width's")
)

// Choice is the sampler the pilots chose and the evidence.
type Choice struct {
	Spec   Spec
	Pilots []Pilot
	// Reason says why, in words.
	Reason string

	// Race is the run's race of the chosen candidate against the
	// runner-up (nil: none ran; see race.go). Where the race revised the
	// choice, Spec is the winner and Reason says so.
	Race *Race

	frustrated bool // Frustrated(the model): the rule's case for exchange
	resolved   bool // chosen by ranking pilots that resolved their mixing
	// adopt is the chosen candidate's pilot chain, which the run
	// continues (nil: none to continue; taken by the run), rival the
	// runner-up's, which it races (nil: no race).
	adopt, rival *pilotChain
	rivalPilot   int // the runner-up's index in Pilots
}

// pilotChain is a candidate's pilot chain, kept until the choice so that
// the run can continue the chosen one's instead of building its sampler
// again: its construction (blocks' eliminations, a ladder's tuning, a
// feasible start) and its steps, part of the run's burn-in, are done. Its
// length is the pilot's (by the cost model, not the clock), so the run
// stays a function of the seed.
type pilotChain struct {
	smp   gibbs.Sampler
	src   *rand.PCG // the stream smp draws from
	steps int64     // the pilot's steps (0: built, too slow to run), its race's included
	// race, after a race, is what the chain's race observed past the
	// rule's burn-in as the race began (its marginals, after raceBurn of
	// its steps in all): the run pools them with its own where its own
	// burn-in ends by then.
	race     *chain.Marginals
	raceBurn int64
	// soFar, when a signal stopped the race, is what the chain's race
	// observed, all of it: the interrupted answer's marginals.
	soFar *chain.Marginals
}

// keepBytes bounds the memory of the pilot chains Choose keeps until its
// choice (pilotBytes): beyond it, a pilot's sampler is let go and the run
// builds the chosen one again, as it would without them. A fixed bound, so
// that which chain the run continues depends on the model and the seed
// alone (a pedigree's eight candidates: tens of MB).
const keepBytes = 256 << 20

// pilotBytes estimates what smp, a pilot's sampler on g, holds beyond the
// model, from its structure alone (never the heap, which would make the
// run depend on the garbage collector): a chain's state and scratch (96
// bytes a variable, as ChainBytes), its blocks' tables, an exchange's
// replicas and tempered models.
func pilotBytes(g *factorgraph.Graph, smp gibbs.Sampler) float64 {
	b := 96 * float64(g.NumVars())
	switch s := unwrap(smp).(type) {
	case *blocked.Blocked:
		for _, bi := range s.Blocks() {
			b += 8 * bi.Entries
		}
	case *exchange.Exchange:
		b = float64(s.Replicas())*b + s.Bytes()
	}
	return b
}

// keep keeps the chosen candidate's pilot chain for the run (adopt) and
// lets the others go.
func (ch *Choice) keep() {
	r := ch.rivalIndex()
	for k := range ch.Pilots {
		if p := &ch.Pilots[k]; p.chain != nil {
			switch {
			case p.Spec == ch.Spec:
				ch.adopt = p.chain
			case k == r:
				ch.rival, ch.rivalPilot = p.chain, k
			}
			p.chain = nil
		}
	}
}

// take returns the chosen pilot's chain for the run to continue, once:
// nil if there is none or it was taken.
func (ch *Choice) take() *pilotChain {
	c := ch.adopt
	ch.adopt, ch.rival = nil, nil
	return c
}

// ChooseOptions configure Choose.
type ChooseOptions struct {
	// Budget is the share of the run the pilots may take, in nanoseconds
	// of the cost model (not wall time: the pilot lengths follow from it,
	// so that the choice depends on the seed only). Zero: 2·10⁹ (2 s).
	Budget float64
	// Seed seeds the pilots' streams.
	Seed uint64
	// Sampler holds the samplers' options (λ, MaxDraws), as
	// Options.Sampler does; Init is ignored.
	Sampler gibbs.Options
}

// Pilot lengths, in sweep-equivalents: at most maxPilotSweeps (enough for
// a bulk ESS of a few hundred), at least minPilotSweeps (fewer draws give
// no ESS worth ranking on: the candidate is passed over).
const (
	maxPilotSweeps = 400
	minPilotSweeps = 40
)

// Choose runs a short pilot of every candidate sampler that accepts g and
// returns the one with the most effective samples per second of the
// tracked marginals: the rank-normalised bulk ESS of every value of every
// free variable, combined as the common sample size that gives their mean
// error, (mean_q ESS_q^{−1/2})^{−2}, over the pilot's cost under the cost
// model. The candidates: single-site updates (site: Gibbs or
// Poisson-Gibbs variable by variable), blocked Gibbs of widths 4, 8, 12
// and 16 with Rao–Blackwellised marginals (each variable eliminated
// exactly given its block's boundary: the w-cutset idea of Bidyuk and
// Dechter 2007, JAIR 28) and two spanning forests — on models without hard
// factors adding, from sweep 1000 on, blocks over the regions their chain
// moves together (blocked.Config.Regions) —, Swendsen–Wang and
// Wolff where every pair is a ferromagnetic Potts pair, and on frustrated
// models (Frustrated) replica exchange of plain Gibbs replicas with
// Houdayer moves (gibbs/exchange), last, its ladder's tuning taking the
// time the others leave. Structure prunes
// (a sampler that refuses the model, blocks identical to a narrower
// width's, a sweep that would take more than the pilot budget); it does
// not decide: the measurement does. Every pilot starts from the same
// state (startState) and draws from stream 0 of opt.Seed, each from its
// own copy: the pilot of a sampler is the start of the chain that naming
// that sampler (Options.Run.Spec) runs with the same seed, and the
// candidates are compared on common random numbers. The chosen
// pilot's chain is kept in the Choice (within keepBytes for all the
// pilots' chains), and Marginals' run continues it: its construction (a
// block's eliminations, a ladder's tuning) and its steps are not thrown
// away.
//
// If ctx has a deadline, the pilots end by it: each candidate's
// construction and pilot get an equal share of the time left when its turn
// comes, and a candidate that overruns its share is refused, saying so
// (the only case where the choice depends on the machine's speed). If ctx
// is cancelled, Choose returns its error at once.
func Choose(ctx context.Context, g *factorgraph.Graph, opt ChooseOptions) (Choice, error) {
	if opt.Budget == 0 {
		opt.Budget = NoTimePilots
	}
	frustrated := Frustrated(g)
	cands := candidates(g, frustrated)
	var ch Choice
	// The last candidate, replica exchange (on frustrated models), takes
	// what the others leave: it does not shorten their pilots.
	lead := len(cands)
	if frustrated {
		lead--
	}
	per := opt.Budget / float64(lead)
	start := time.Now()
	deadline, timed := ctx.Deadline()
	init, err := pilotOptions(ctx, g, opt, start, deadline, timed)
	if err != nil {
		return ch, err
	}
	var seen [][][]int // the block sets of the block candidates so far
	kept := 0.0        // pilotBytes of the pilot chains kept so far
	slowWidth := 0     // the narrowest block width too slow for a pilot (0: none yet)
	slowTable := 0.0   // the largest table of its blocks
	for k, spec := range cands {
		p := Pilot{Spec: spec}
		if w := spec.Block.MaxWidth; spec.Name == "block" && slowWidth > 0 && w > slowWidth && w < WideWidth {
			// Wider blocks cost more a sweep: not worth building.
			p.refuse(errWider, "%s width %d's", tooSlowWider, slowWidth)
			ch.Pilots = append(ch.Pilots, p)
			continue
		}
		if w, t := spec.Block.MaxWidth, float64(spec.Block.MaxTable); spec.Name == "block" && slowTable > 0 && w >= WideWidth && t >= slowTable {
			// Blocks bounded by tables alone, as large as the too slow
			// width's largest or larger, grow as large blocks at least:
			// not worth building either (on a 20×20 glass, 2¹⁴ and 2¹⁸
			// beside width 12's 2¹³: 0.5 s of a 20-s answer's pilots).
			p.refuse(errWider, "%s width %d's (its tables allow that width's largest, %.4g entries)", tooSlowWider, slowWidth, slowTable)
			ch.Pilots = append(ch.Pilots, p)
			continue
		}
		if spec.Name == "wolff" {
			// Its construction tunes its clusters over 2·TuneSweeps sweeps
			// or more, and a tuned step costs a sweep-equivalent at least
			// (StepsPerSweep ≥ 1): too slow for a pilot before it is built
			// if its first sweep is (a model of 10⁶ variables: seconds of
			// tuning, then refused).
			if ns := wolffSweepCost(g); math.Floor(min(maxPilotSweeps, per/ns)) < minPilotSweeps {
				p.NsPerSweep, p.unbuilt = ns, true
				p.refuse(ErrTooSlow, "%s %.3g s: too slow for a pilot of %d (before its tuning)", tooSlow, ns*1e-9, minPilotSweeps)
				ch.Pilots = append(ch.Pilots, p)
				continue
			}
		}
		cctx, cancel := ctx, context.CancelFunc(func() {})
		var share time.Duration // of the pilots' time, when timed
		if timed {
			share = time.Until(deadline) / time.Duration(max(1, lead-k))
			if est := buildCost(g, spec); est > float64(share) {
				// Estimated before anything is built: not worth starting.
				p.refuse(ErrBuildOutOfTime, "%s its construction would take about %.3g s, more than its share (%v) of the pilots' time", overran, est*1e-9, share.Round(time.Millisecond))
				p.build, p.estimated = est, true
				ch.Pilots = append(ch.Pilots, p)
				continue
			}
			cctx, cancel = context.WithTimeout(ctx, share)
		}
		phase.Enter("pilot " + spec.String())
		o := *init
		o.Context = cctx
		src := chain.Source(opt.Seed, 0) // chain 0's stream: see Choose
		smp, err := spec.New(g, rand.New(src), &o)
		switch {
		case err != nil && cancelled(ctx):
			cancel()
			return ch, fmt.Errorf("infer: choosing a sampler: %w", ctx.Err())
		case err != nil && cctx.Err() != nil:
			p.refuse(ErrBuildOutOfTime, "%s its construction did not finish within its share (%v) of the pilots' time", overran, share.Round(time.Millisecond))
			p.build = float64(share) // more than that: its run may afford it
		case err != nil:
			p.fail(err, firstLine(err))
		case duplicateBlocks(smp, &seen):
			p.refuse(errSameBlocks, "the same blocks as a narrower width's")
		default:
			p.held = heldTogether(smp, len(g.Free()))
			steps := run(cctx, g, smp, &p, per)
			switch {
			case cancelled(ctx):
				cancel()
				return ch, fmt.Errorf("infer: choosing a sampler: %w", ctx.Err())
			case cctx.Err() != nil && (p.err == nil || errors.Is(p.err, context.DeadlineExceeded)):
				p = Pilot{Spec: spec}
				p.refuse(ErrPilotOutOfTime, "%s its pilot did not finish within its share (%v) of the pilots' time", overran, share.Round(time.Millisecond))
			}
			if nb := pilotBytes(g, smp); (p.err == nil || errors.Is(p.err, ErrTooSlow)) && kept+nb <= keepBytes {
				// Its state is the pilot's end, the same on every
				// machine: the run may continue it.
				p.chain = &pilotChain{smp: smp, src: src, steps: steps}
				kept += nb
			}
			if p.chain == nil || p.Sweeps >= maxPilotSweeps {
				// Only a kept chain cut short may be extended: the
				// others' samplers are let go now, as before.
				p.cont = nil
			}
			if w := spec.Block.MaxWidth; spec.Name == "block" && w > 0 && w < WideWidth && errors.Is(p.err, ErrTooSlow) && slowWidth == 0 {
				slowWidth, slowTable = w, largestTable(smp)
			}
		}
		cancel()
		ch.Pilots = append(ch.Pilots, p)
	}
	ch.frustrated = frustrated
	if err := extendPilots(ctx, g, ch.Pilots, opt.Budget); err != nil {
		return ch, err
	}
	ch, err = pick(ch, opt.Budget*(1-pilotShare)/pilotShare)
	ch.keep()
	return ch, err
}

// Frustrated reports whether g's pairwise couplings between binary free
// variables frustrate it: writing each such factor as an Ising coupling
// J = φ(0,0) + φ(1,1) − φ(0,1) − φ(1,0) (the other variables at their
// evidence), some cycle of non-zero couplings has an odd number of
// negative ones, so that no relabelling of the variables makes every
// coupling ferromagnetic (spin glasses, the UAI grids). Factors of other
// shapes are not looked at: a model with none of these pairs is not
// frustrated by this test.
func Frustrated(g *factorgraph.Graph) bool {
	n := g.NumVars()
	type edge struct {
		to  int32
		neg bool
	}
	adj := make([][]edge, n)
	x := make([]float64, n)
	for i := range n {
		x[i], _ = g.Observed(i)
	}
	var vars, pair []int
	for f := range g.NumFactors() {
		pair = pair[:0]
		for _, v := range g.FactorVars(vars[:0], f) {
			if _, obs := g.Observed(v); !obs {
				pair = append(pair, v)
			}
		}
		if len(pair) != 2 || g.Domain(pair[0]).Size != 2 || g.Domain(pair[1]).Size != 2 {
			continue
		}
		a, b := pair[0], pair[1]
		at := func(va, vb float64) float64 { x[a], x[b] = va, vb; return g.EvalFactor(f, x) }
		j := at(0, 0) + at(1, 1) - at(0, 1) - at(1, 0)
		if j != 0 && !math.IsNaN(j) {
			adj[a] = append(adj[a], edge{int32(b), j < 0})
			adj[b] = append(adj[b], edge{int32(a), j < 0})
		}
	}
	// Two-colour by the couplings' signs: a conflict is a frustrated cycle.
	side := make([]int8, n) // 0 unseen, ±1
	var queue []int32
	for s := range n {
		if side[s] != 0 || len(adj[s]) == 0 {
			continue
		}
		side[s], queue = 1, append(queue[:0], int32(s))
		for q := 0; q < len(queue); q++ {
			i := queue[q]
			for _, e := range adj[i] {
				want := side[i]
				if e.neg {
					want = -want
				}
				switch side[e.to] {
				case 0:
					side[e.to] = want
					queue = append(queue, e.to)
				case -want:
					return true
				}
			}
		}
	}
	return false
}

// ResolvedESS is the effective sample size under which a pilot has not
// resolved its mixing: its ESS, and the ranking by it, are noise (pilots
// of 0.7–11 on a 10×10 grid ranked single-site updates first where blocks
// are 15 times more accurate).
const ResolvedESS = 50

// minRuleSweeps is the sweep-equivalents the run must afford of a
// candidate chosen by rule when no pilot resolved its mixing: blocks that
// hold more together but leave the chain a few hundred sweeps answer
// worse (on the UAI 2014 pedigrees, tables of 2¹⁴ entries beat 2¹⁸).
const minRuleSweeps = 500

// minTemperedSweeps is what minRuleSweeps is for replica exchange, taken
// by rule on a frustrated model: local moves stay in one valley however
// many sweeps they make, so a few hundred of exchange beat any number of
// theirs (a 20×20 glass at 1 s, three hundred sweeps: 55 where spanning
// forests scored 0).
const minTemperedSweeps = 100

// leftOutSlack is how much more of the variables than the fewest that
// blocks may leave out, relatively, and still count, by largestBlocks'
// rule, as holding as much together: a block's update conditions on the
// variables outside it, and where hard factors link them those are what
// it cannot move. On the UAI 2014 pedigrees the covers of widths 4–12 and
// of 2¹⁴-entry tables leave out 25–52% of the variables on average; those
// within 15% of the fewest left out differ by up to 50 times in sweeps.
const leftOutSlack = 0.15

// largestBlocks returns, among the blocks (spanning forests left out) the
// model accepts and the run, of runNs nanoseconds of the cost model,
// affords minRuleSweeps sweep-equivalents of, the pilot of the cheapest a
// sweep of those that leave out nearly the fewest variables (a mean share
// outside a block at most 1 + leftOutSlack times the smallest); -1 if
// none. What blocks leave out decides between those that hold much less
// and much more together; within the slack, the sweeps do: the error on a
// pedigree is in the modes the chain visits, and the visits follow the
// sweeps. On the UAI 2014 pedigrees at 20 s the largest blocks (width 12:
// 600–1000 sweeps) scored 69–90 where width 8 (2600–6500 sweeps), leaving
// out 1% more, scored 87–98; on Promedus_11 (exact elimination forbidden),
// whose covers leave out 3–9%, width 4 froze half the variables its
// pilot tracked (docs/uai.md).
func largestBlocks(ps []Pilot, runNs float64) int {
	ok := func(p Pilot) bool {
		built := p.err == nil || errors.Is(p.err, ErrTooSlow)
		return p.Spec.Name == "block" && !p.Spec.Block.Forests && built && p.held > 0 && p.NsPerSweep*minRuleSweeps <= runNs
	}
	fewest := math.Inf(1)
	for _, p := range ps {
		if ok(p) {
			fewest = min(fewest, 1-p.held)
		}
	}
	best := -1
	for k, p := range ps {
		if ok(p) && 1-p.held <= (1+leftOutSlack)*fewest && (best < 0 || p.NsPerSweep < ps[best].NsPerSweep) {
			best = k
		}
	}
	return best
}

// narrowestBlocks returns the pilot that ran of the blocks that hold the
// least together (spanning forests left out), -1 if none.
func narrowestBlocks(ps []Pilot) int {
	best := -1
	for k, p := range ps {
		if p.Spec.Name != "block" || p.Spec.Block.Forests || p.err != nil || p.held == 0 {
			continue
		}
		if best < 0 || p.held < ps[best].held {
			best = k
		}
	}
	return best
}

// tempered returns the pilot of replica exchange if it ran, or only the
// pilots' budget or time kept it from running, and the run of runNs nanoseconds of
// the cost model affords minTemperedSweeps sweep-equivalents of it (as far as
// its pilot measured) and its construction; -1 if none.
func tempered(ps []Pilot, runNs float64) int {
	best := -1
	for k, p := range ps {
		// Tried last, on what the others leave, its pilot may not have
		// fit: by rule it is still the answer to barriers, if the run
		// affords it (unknown without a pilot: the run decides).
		outOfTime := errors.Is(p.err, ErrTooSlow) || errors.Is(p.err, ErrBuildOutOfTime) || errors.Is(p.err, ErrPilotOutOfTime)
		if p.Spec.Name != "exchange" || p.err != nil && !outOfTime || p.NsPerSweep*minTemperedSweeps > runNs {
			continue
		}
		// A construction that did not fit the pilots' share must fit the
		// run's as another rule's would (fitsRun, cutShare): a 200×200
		// glass at 20 s chose it with 12.8 s of estimated construction,
		// and the run ended with nothing sampled.
		if errors.Is(p.err, ErrBuildOutOfTime) && (p.estimated && p.build > buildShare*runNs || !p.estimated && p.build > cutShare*runNs) {
			continue
		}
		if best < 0 || p.Spec.Houdayer {
			best = k
		}
	}
	return best
}

// frozenSites reports whether the single-site candidate was refused
// because hard factors freeze variables (blocks.ErrFrozen).
func frozenSites(ps []Pilot) bool {
	for _, p := range ps {
		if p.Spec.Name == "site" && errors.Is(p.err, blocks.ErrFrozen) {
			return true
		}
	}
	return false
}

// largestTable returns the largest table of smp's blocks, a Blocked
// sampler (0 for another).
func largestTable(smp gibbs.Sampler) float64 {
	b, ok := unwrap(smp).(*blocked.Blocked)
	if !ok {
		return 0
	}
	t := 0.0
	for _, bi := range b.Blocks() {
		t = max(t, bi.MaxTable)
	}
	return t
}

// heldTogether returns the mean share of the n free variables in a block
// of smp, a Blocked sampler (0 for another).
func heldTogether(smp gibbs.Sampler, n int) float64 {
	b, ok := unwrap(smp).(*blocked.Blocked)
	if !ok || n == 0 {
		return 0
	}
	sum := 0
	for _, bi := range b.Blocks() {
		sum += len(bi.Vars)
	}
	return float64(sum) / float64(len(b.Blocks())*n)
}

// pick chooses among the pilots of ch the one with the most effective
// samples a second among those that resolved their mixing (ResolvedESS).
// When none did: where hard factors freeze single-site updates
// (pedigrees, diagnosis networks), of the blocks the run of runNs
// nanoseconds of the cost model affords minRuleSweeps of, the cheapest a
// sweep of those that leave out nearly the fewest variables
// (largestBlocks);
// elsewhere replica exchange where it ran (barriers
// between valleys are what keeps pilots from mixing: frustrated models,
// glasses), else the narrowest blocks (the largest lose on soft grids:
// 0.22 against 0.015 on Grids_13; single sites, ranked first by noise,
// 0.55); without blocks the most effective samples a second.
// If none ran, where hard factors freeze single sites the same rule over
// the blocks built, else the first that only the budget kept from
// running, by rule.
func pick(ch Choice, runNs float64) (Choice, error) {
	score(ch.Pilots)
	return pickScored(ch, runNs)
}

// pickScored is pick on pilots already scored.
func pickScored(ch Choice, runNs float64) (Choice, error) {
	best := -1
	most, fastest := -1, -1 // the pilots of the most effective samples, and a second
	for k, p := range ch.Pilots {
		if p.err != nil {
			continue
		}
		if most < 0 || p.ESS > ch.Pilots[most].ESS {
			most = k
		}
		if fastest < 0 || p.ESSPerSecond > ch.Pilots[fastest].ESSPerSecond {
			fastest = k
		}
		if p.ESS >= ResolvedESS && (best < 0 || ranked(p) > ranked(ch.Pilots[best])) {
			best = k // only what the pilots resolved is ranked
		}
	}
	if most >= 0 && best < 0 {
		// The pilots barely mixed: their ranking would be noise. Where
		// hard factors freeze single sites, large blocks hold the
		// deterministic links together (Jensen, Kong and Kjærulff 1995,
		// blocking Gibbs on pedigrees): the cheapest of those leaving
		// out nearly the fewest the run affords;
		// elsewhere the narrowest blocks keep strong neighbours together
		// at the most sweeps.
		k, what := -1, ""
		if ch.frustrated {
			k, what = tempered(ch.Pilots, runNs), fmt.Sprintf("as couplings of both signs frustrate the model, replica exchange, whose hot replicas cross the barriers that keep local moves in one valley (the run affords %d sweep-equivalents of it)", minTemperedSweeps)
		}
		if k < 0 {
			k, what = narrowestBlocks(ch.Pilots), "the narrowest blocks (the most sweeps)"
		}
		if frozenSites(ch.Pilots) {
			k, what = largestBlocks(ch.Pilots, runNs), fmt.Sprintf("as hard factors freeze single-site updates, of the blocks the run affords %d sweep-equivalents of, the cheapest a sweep of those leaving out at most %.0f%% more variables than the fewest", minRuleSweeps, 100*leftOutSlack)
		}
		if k >= 0 {
			ch.Spec = ch.Pilots[k].Spec
			ch.Reason = fmt.Sprintf("%s, by rule: no pilot resolved its mixing (the most, %s, %.2g effective samples, fewer than %d), so %s",
				ch.Spec, ch.Pilots[most].Spec, ch.Pilots[most].ESS, ResolvedESS, what)
			return ch, nil
		}
	}
	if best < 0 {
		best = fastest
	}
	if best >= 0 {
		ch.Spec = ch.Pilots[best].Spec
		ch.Reason = reason(ch.Pilots, best)
		ch.resolved = ch.Pilots[best].ESS >= ResolvedESS
		return ch, nil
	}
	// No pilot ran. Where hard factors freeze single sites, the rule for
	// them over the blocks built (too slow for a pilot, not for the run):
	// on linkage_13 at 8 s the first of those in the candidates' order was
	// whichever construction fitted its share — spanning forests, scoring
	// 24–28, width 12, or width 8, 80.
	if frozenSites(ch.Pilots) {
		if k := largestBlocks(ch.Pilots, runNs); k >= 0 {
			ch.Spec = ch.Pilots[k].Spec
			ch.Reason = fmt.Sprintf("%s, by rule: the budget left no time for pilots (%s), so as hard factors freeze single-site updates, of the blocks built that the run affords %d sweep-equivalents of, the cheapest a sweep of those leaving out at most %.0f%% more variables than the fewest",
				ch.Spec, ch.Pilots[k].Refused, minRuleSweeps, 100*leftOutSlack)
			return ch, nil
		}
	}
	// Otherwise the first candidate the model accepts (it was built:
	// only its pilot did not fit), by rule, if only the budget kept the
	// pilots from running. (Not one refused before it was built: the
	// model may refuse it, and the run would end with no answer.)
	var why []string
	unbuilt := false // a candidate the time left unbuilt: the model may accept it
	for k, p := range ch.Pilots {
		if (errors.Is(p.err, ErrTooSlow) && !p.unbuilt) || errors.Is(p.err, ErrPilotOutOfTime) {
			if j := fitsRun(ch.Pilots[:k], runNs); errors.Is(p.err, ErrTooSlow) && p.NsPerSweep*minRuleSweeps > runNs && p.held < nearlyAll && j >= 0 && ch.Pilots[j].Spec.Name == p.Spec.Name {
				// Built, but the run affords a few sweeps of it, where a
				// cheaper candidate, unbuilt only because the first
				// candidates' shares of the pilots are the smallest,
				// fits the run (linkage_26 at 2 s: 2¹⁸-entry tables
				// holding 54% of the variables a block, 8 sweeps, score
				// 80, before width 4). Blocks that hold nearly all of
				// them stand: each sweep is nearly an exact draw
				// (Promedus_18 at 1 s: 2¹⁸-entry tables holding 96%, 20
				// sweeps, 47.5; width 4 instead, 40). Of the same kind
				// (blocks), which the model then accepts as it did p.
				ch.Spec = ch.Pilots[j].Spec
				ch.Reason = fmt.Sprintf("%s, by rule: the budget left no time to build and try the pilots, its construction (about %.3g s) fits the run, and %s, built, %s: the run affords fewer than %d sweep-equivalents of it",
					ch.Spec, ch.Pilots[j].build*1e-9, p.Spec, p.Refused, minRuleSweeps)
				return ch, nil
			}
			ch.Spec = p.Spec
			ch.Reason = fmt.Sprintf("%s, by rule: the budget left no time for pilots (%s)", ch.Spec, p.Refused)
			return ch, nil
		}
		unbuilt = unbuilt || errors.Is(p.err, ErrBuildOutOfTime)
		why = append(why, p.Spec.String()+": "+p.Refused)
	}
	// Nothing was even built (a model so large that reading and planning
	// took the pilots' time): the first candidate whose construction, by
	// its estimate, takes at most buildShare of the run, by rule — an
	// answer from the sampler cheapest to try rather than none.
	if k := fitsRun(ch.Pilots, runNs); k >= 0 {
		ch.Spec = ch.Pilots[k].Spec
		ch.Reason = fmt.Sprintf("%s, by rule: the budget left no time to build and try the pilots, and its construction (about %.3g s) fits the run", ch.Spec, ch.Pilots[k].build*1e-9)
		return ch, nil
	}
	// Else the first whose construction overran a share of the pilots'
	// time that is small beside the run (linkage_13 at 8 s: every block
	// construction cut at 0.39 s, and no answer): the run may afford it,
	// and its own deadline bounds it — an answer likely rather than none.
	for _, p := range ch.Pilots {
		if errors.Is(p.err, ErrBuildOutOfTime) && !p.estimated && p.build > 0 && p.build <= cutShare*runNs {
			ch.Spec = p.Spec
			ch.Reason = fmt.Sprintf("%s, by rule: the budget left no time to build and try the pilots, and its construction, longer than its share of them (%.3g s), may fit the run", ch.Spec, p.build*1e-9)
			return ch, nil
		}
	}
	if unbuilt {
		return ch, fmt.Errorf("%w: %s", ErrNoTime, strings.Join(why, "; "))
	}
	return ch, fmt.Errorf("infer: no sampler accepts the model: %s", strings.Join(why, "; "))
}

// buildShare is the most of the run's time a sampler chosen by rule,
// without a pilot, may take to build by its estimate: the rest samples,
// and a few hundred sweeps answer far better than none (linkage_26 at 1
// s: a construction of about 0.2 s in a run of 0.74 s was refused at a
// quarter, and the answer's sampled part was uniform, score 14.7; at
// three quarters, 94.2; at 0.5 s, 14.7 → 88.2). A construction its
// estimate misjudged is stopped by the run's deadline: no answer, as
// when it was refused, but within the budget.
const buildShare = 0.75

// nearlyAll is the mean share of the variables in a block (heldTogether)
// from which a sweep is nearly an exact draw of them all: such blocks
// answer well in a few sweeps.
const nearlyAll = 0.9

// cutShare is the most of the run's time that a construction cut by its
// share of the pilots' time, taking longer by an unknown amount, may have
// taken, for it to be chosen by rule.
const cutShare = 0.25

// fitsRun returns the first of ps refused before it was built, its
// construction estimated at most buildShare of the run (runNs, the cost
// model's nanoseconds), -1 if none.
func fitsRun(ps []Pilot, runNs float64) int {
	for k, p := range ps {
		if errors.Is(p.err, ErrBuildOutOfTime) && p.estimated && p.build <= buildShare*runNs {
			return k
		}
	}
	return -1
}

// exchangeHandicap divides replica exchange's effective samples a second
// where resolved pilots are ranked: the ESS of the value indicators does
// not credit what blocks' Rao–Blackwellisation gains over single sites
// (on CSP_12 exchange's pilot measured 3.0·10³ a second against blocks'
// 2.9·10³, and its 20-s answer was 4–5 times further from the truth:
// 0.0012–0.0014 against 0.0003), and the cost model leaves out its swaps'
// energies and its ladder's tuning.
const exchangeHandicap = 2

// ranked returns what resolved pilots are ranked by: effective samples a
// second, replica exchange's divided by exchangeHandicap.
func ranked(p Pilot) float64 {
	if p.Spec.Name == "exchange" {
		return p.ESSPerSecond / exchangeHandicap
	}
	return p.ESSPerSecond
}

// ErrNoTime is Choose's error (wrapped) when no candidate could be built
// within its share of the pilots' time and none that was built accepts the
// model: a longer budget may find one.
var ErrNoTime = errors.New("infer: no sampler could be built and tried within the pilots' time")

// tooSlow starts the message of an ErrTooSlow refusal, tooSlowWider that
// of blocks wider than blocks too slow, overran that of ErrBuildOutOfTime
// and ErrPilotOutOfTime.
const (
	tooSlow      = "a sweep-equivalent costs about"
	tooSlowWider = "wider than the too slow"
	overran      = "out of time:"
)

// buildCost returns the cost model's estimate of building spec's sampler
// on g, in nanoseconds, before anything is built: blocked.BuildCost for
// blocks and forests; the others build in time linear in the model and
// small beside a pilot (0).
func buildCost(g *factorgraph.Graph, spec Spec) float64 {
	switch spec.Name {
	case "block":
		return blocked.BuildCost(g, spec.Block)
	case "exchange":
		// The ladder's tuning: DefaultTuneSweeps sweeps of its first 8
		// single-site replicas, then of the rungs it places, whose number
		// grows as the root of the model's size (measured: 25 on a 16×16
		// glass, 35 on a 20×20 one, the 64 of DefaultMaxReplicas from
		// 100×100) — with 16 in all, the estimate was half the 25.7 s that
		// Houdayer twins on a 200×200 glass took. A tuning sweep is priced
		// as a generic single-site sweep, not stepCost's cheaper binary
		// rows: its energies and cluster moves cost that much again (the
		// 200×200 glass's 25.7 s against this 28.7).
		twins := 1.0
		if spec.Houdayer {
			twins = 2
		}
		n := float64(len(g.Free()))
		rungs := min(exchange.DefaultMaxReplicas, max(8, 1.6*math.Sqrt(n)))
		return twins * exchange.DefaultTuneSweeps * (8 + rungs) * n * (costSite + costValue*meanValues(g))
	}
	return 0
}

// cancelled reports whether ctx was cancelled, rather than past its
// deadline: a deadline ends the pilots, a cancellation the whole choice.
func cancelled(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }

// startStream is the stream of the start state (startState); chains use
// streams 0, 1, ….
const startStream = 1<<20 - 1

// candidates returns the samplers Choose tries on g, cheapest first.
// Building blocks costs about n·MaxVars work (each variable joins a block
// after a simulated elimination of it), seconds for 40 000 variables at
// the default of 1024 a block: on large models the blocks are capped at
// about 2·10⁶/n variables (at least 64), which builds them in under a
// second and costs the pilots little (a block of 64 variables already
// holds a sticky region of a lattice together).
func candidates(g *factorgraph.Graph, frustrated bool) []Spec {
	vars := blocks.DefaultVars
	if n := len(g.Free()); n > 2048 {
		vars = max(64, 1<<int(math.Log2(2e6/float64(n))))
	}
	regions := 0
	if !hardFactors(g) {
		// Soft models: blocks over the regions the chain moves together
		// (blocked.Config.Regions). With hard factors the blocks follow
		// the deterministic links already.
		regions = regionSweeps
	}
	block := func(cfg blocked.Config) Spec {
		cfg.MaxVars, cfg.Regions = vars, regions
		return Spec{Name: "block", Block: cfg}
	}
	// Blocks bounded by their tables alone, of any number of variables up
	// to the cap: whole components where their elimination fits.
	wide := func(table int) Spec {
		return Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: WideWidth, MaxTable: table, MaxVars: max(vars, min(len(g.Free()), 1<<16))}}}
	}
	cs := []Spec{
		{Name: "site"},
		block(blocked.Config{Config: blocks.Config{MaxWidth: 4}}),
		block(blocked.Config{Config: blocks.Config{MaxWidth: 8}}),
		block(blocked.Config{Config: blocks.Config{MaxWidth: 12}}),
		block(blocked.Config{Config: blocks.Config{MaxWidth: 16, MaxTable: 1 << 18}}),
		wide(WideTable),
		wide(WideTable << 4),
		block(blocked.Config{Config: blocks.Config{Forests: true}}),
		{Name: "sw"},
		{Name: "wolff", Clusters: samplers.TuneClusters},
	}
	if len(flip.Find(g)) > 0 {
		// A pedigree: its founders' phases are modes no block crosses.
		for k := range cs {
			cs[k].Flips = cs[k].Name == "block"
		}
	}
	if frustrated {
		// Last: its tuning takes the time the candidates that refuse the
		// model at once leave.
		cs = append(cs, Spec{Name: "exchange", Houdayer: true})
	}
	return cs
}

// regionSweeps is the end of the first window of the default's blocks'
// regions (blocked.Config.Regions): 1000 sweeps, the rule's longest
// burn-in.
const regionSweeps = 1000

// hardFactors reports whether a factor of g's free variables has zeros.
func hardFactors(g *factorgraph.Graph) bool {
	for _, i := range g.Free() {
		if _, hard := g.Degree(i); hard > 0 {
			return true
		}
	}
	return false
}

// pilotOptions returns opt's sampler options with the pilots' common
// starting state (startState), whose search for a feasible state has a
// quarter of the pilots' time when they have a deadline; if ctx is
// cancelled, pilotOptions returns its error.
func pilotOptions(ctx context.Context, g *factorgraph.Graph, opt ChooseOptions, start, deadline time.Time, timed bool) (*gibbs.Options, error) {
	o := opt.Sampler
	sctx, cancel := ctx, context.CancelFunc(func() {})
	if timed {
		sctx, cancel = context.WithDeadline(ctx, start.Add(deadline.Sub(start)/4))
	}
	defer cancel()
	o.Init, _ = startState(sctx, g, opt.Seed)
	if cancelled(ctx) {
		return nil, fmt.Errorf("infer: searching a state of positive probability for the pilots: %w", ctx.Err())
	}
	return &o, nil
}

// startState returns the state every sampled answer of seed starts from:
// the pilots, and chain 0 of a run without them (sample.go), so that the
// chain of a named sampler is the one its pilot began. It is a random
// state from stream startStream of seed, or, where zeros rule that out, a
// feasible one found by a few randomised searches within ctx
// (factorgraph.Graph.FeasibleState; the first proof that none exists
// ends them). ok is false if none was found: the state returned is then
// the random one, which the samplers refuse.
func startState(ctx context.Context, g *factorgraph.Graph, seed uint64) (x []float64, ok bool) {
	r := rand.New(chain.Source(seed, startStream))
	x = factorgraph.RandomState(g, r)
	if feasible(g, x) {
		return x, true
	}
	phase.Enter("feasible")
	for try := 0; try < 4 && ctx.Err() == nil; try++ {
		y, err := g.FeasibleState(ctx, r, 0)
		if err == nil {
			return y, true
		}
		if errors.Is(err, factorgraph.ErrNoFeasibleState) {
			break // proved: no try will find one
		}
	}
	return x, false
}

// feasible reports whether no hard factor is −Inf at x. A factor of
// finite range (FactorBound) is finite everywhere; only the others are
// evaluated (a model of 5·10⁶ soft pairs: 2.2 s of making each factor's
// value, for nothing).
func feasible(g *factorgraph.Graph, x []float64) bool {
	for f := range g.NumFactors() {
		if !math.IsInf(g.FactorBound(f), 1) {
			continue
		}
		if math.IsInf(g.Factor(f).Value(x), -1) {
			return false
		}
	}
	return true
}

// duplicateBlocks reports whether smp is a Blocked sampler whose blocks a
// previous candidate had, recording its blocks in seen if not.
func duplicateBlocks(smp gibbs.Sampler, seen *[][][]int) bool {
	b, ok := unwrap(smp).(*blocked.Blocked)
	if !ok {
		return false
	}
	var sets [][]int
	for _, bi := range b.Blocks() {
		sets = append(sets, bi.Vars)
	}
	for _, s := range *seen {
		if slices.EqualFunc(s, sets, slices.Equal) {
			return true
		}
	}
	*seen = append(*seen, sets)
	return false
}

// run runs the pilot of smp, a sampler of g, within budget nanoseconds of
// the cost model, fills p and returns the steps it made. It stops when ctx
// is done, leaving p unfilled.
func run(ctx context.Context, g *factorgraph.Graph, smp gibbs.Sampler, p *Pilot, budget float64) int64 {
	perStep := stepCost(g, smp)
	stepsPerSweep := gibbs.StepsPerSweep(smp)
	nsPerSweep := perStep * stepsPerSweep
	sweeps := math.Floor(min(maxPilotSweeps, budget/nsPerSweep))
	if sweeps < minPilotSweeps {
		p.NsPerSweep = nsPerSweep
		p.refuse(ErrTooSlow, "%s %.3g s: too slow for a pilot of %d", tooSlow, nsPerSweep*1e-9, minPilotSweeps)
		return 0
	}
	mon, err := chain.NewMonitor(chain.Tracked(g.Free(), chain.DefaultTracked), factorgraph.Sizes(g), 2*maxPilotSweeps)
	if err != nil {
		p.fail(err, err.Error())
		return 0
	}
	burn := int64(math.Round(sweeps / 2 * stepsPerSweep))
	steps := int64(math.Round(sweeps * stepsPerSweep))
	c := &chain.Chain{Kernel: smp}
	if err := c.Advance(ctx, burn); err != nil {
		p.fail(err, firstLine(err))
		return 0
	}
	tr, err := mon.Trace(smp)
	if err != nil {
		p.fail(err, err.Error())
		return 0
	}
	c.Observers, c.Burn = []chain.Observer{tr}, burn
	pr := &pilotRun{c: c, mon: mon, before: smp.Stats()}
	start := time.Now()
	if err := c.Advance(ctx, steps); err != nil {
		p.fail(err, firstLine(err))
		return 0
	}
	p.Seconds = time.Since(start).Seconds()
	p.Sweeps, p.measured = sweeps, sweeps-sweeps/2
	pr.measure(g, p)
	p.cont = pr
	return steps
}

// noExtension, for the tests' broken variant, leaves the pilots as they
// ran.
var noExtension bool

// extensionShare is the time a pilot's extension may take, of left for
// the n still to go: an equal share. A test shrinks it to cut every one.
var extensionShare = func(left time.Duration, n int) time.Duration { return left / time.Duration(n) }

// pilotRun is what continues a pilot that ran (extendPilots): its chain,
// the monitor of its measured part, and its sampler's counters where that
// part began.
type pilotRun struct {
	c      *chain.Chain
	mon    *chain.Monitor
	before gibbs.Stats
}

// measure sets p's cost of a sweep and its quantities' bulk ESS from the
// measured part of its pilot so far.
func (pr *pilotRun) measure(g *factorgraph.Graph, p *Pilot) {
	smp := pr.c.Kernel.(gibbs.Sampler)
	p.NsPerSweep = costOf(g, smp, pr.before, smp.Stats()) / p.measured
	qs, _ := pr.mon.Quantities()
	p.ess = make([]float64, len(qs))
	for q, chains := range qs {
		p.ess[q] = math.NaN() // constant: no draw differs
		if !constant(chains[0]) {
			if e, err := diag.BulkESS(chains); err == nil && !math.IsNaN(e) {
				p.ess[q] = e
			} else {
				p.ess[q] = 0
			}
		}
	}
}

// extendPilots continues, where no pilot resolved its mixing, the pilots
// that ran but that their share of the budget cut short of
// maxPilotSweeps: a sweep that is costly (a dense model: every variable
// reads hundreds of factors) leaves every pilot too few draws to resolve
// anything, however well its chain mixes, and the rule then chooses blind.
// On a K₂₅₀,₂₅₀ of weak couplings of both signs, single sites' pilot ran
// 147 sweeps and measured an ESS of 26 (an autocorrelation time of three
// sweeps); the rule took replica exchange, whose pilot the budget had
// refused, 35 times the cost a sweep, and the answer was 18 times further
// from the truth than single sites'. Where hard factors freeze single
// sites the rule (largestBlocks) stands, and nothing is extended. Only
// pilots whose chains Choose keeps (within keepBytes) are extended, so
// that no sampler outlives its pilot that would not have. The pilots most
// effective a second go first, each to maxPilotSweeps in all,
// within budget nanoseconds of the cost model (so the extension, like the
// pilots, depends on the seed alone) and, if ctx has a deadline, each
// within an equal share of the time left: one the clock cuts keeps its
// first measurement, and its chain, no longer the pilot's, is let go.
// It returns ctx's error if ctx is cancelled.
func extendPilots(ctx context.Context, g *factorgraph.Graph, ps []Pilot, budget float64) error {
	defer func() {
		for k := range ps {
			ps[k].cont = nil
		}
	}()
	if noExtension {
		return nil
	}
	score(ps)
	var order []int
	for k, p := range ps {
		if p.err != nil {
			continue
		}
		if p.ESS >= ResolvedESS {
			return nil
		}
		if p.cont != nil {
			order = append(order, k)
		}
	}
	if frozenSites(ps) {
		return nil
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(ps[j].ESSPerSecond, ps[i].ESSPerSecond) })
	deadline, timed := ctx.Deadline()
	for j, k := range order {
		p := &ps[k]
		more := math.Floor(min(maxPilotSweeps-p.Sweeps, budget/p.NsPerSweep))
		if more < 1 {
			continue
		}
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if timed {
			cctx, cancel = context.WithTimeout(ctx, extensionShare(time.Until(deadline), len(order)-j))
		}
		phase.Enter("pilot " + p.Spec.String() + ", extended")
		smp := p.cont.c.Kernel.(gibbs.Sampler)
		to := p.cont.c.Done() + int64(math.Round(more*gibbs.StepsPerSweep(smp)))
		start := time.Now()
		err := p.cont.c.Advance(cctx, to)
		cancel()
		switch {
		case cancelled(ctx):
			return fmt.Errorf("infer: choosing a sampler: %w", ctx.Err())
		case err != nil:
			p.chain = nil // cut by the clock or failed: no longer the pilot's chain
			continue
		}
		budget -= more * p.NsPerSweep
		p.Seconds += time.Since(start).Seconds()
		p.Sweeps += more
		p.measured += more
		p.cont.measure(g, p)
		p.chain.steps = to
	}
	return nil
}

// score sets the ESS and ESSPerSecond of the pilots that ran. A marginal
// estimated from ESS_q effective samples is off by about σ_q/√ESS_q, so
// the mean error over the quantities — the UAI score's Hellinger error
// averages over variables — is about that of a common effective sample
// size ESS = (mean_q ESS_q^{−1/2})^{−2}: the worst-mixing quantities
// weigh most, without one noisy estimate deciding alone. A quantity that
// a pilot never moved while another did counts ESS_q = 1/2 (stuck there);
// one that no pilot moved (a value the model fixes, or one nothing moves
// in a pilot) is left out; no ESS_q counts below 1/2.
func score(ps []Pilot) {
	var ran []*Pilot
	for k := range ps {
		if ps[k].err == nil {
			ran = append(ran, &ps[k])
		}
	}
	if len(ran) == 0 {
		return
	}
	for _, p := range ran {
		sum, n := 0.0, 0
		for q, e := range p.ess {
			moved := false
			for _, o := range ran {
				moved = moved || !math.IsNaN(o.ess[q])
			}
			if !moved {
				continue
			}
			if math.IsNaN(e) {
				e = 0
			}
			sum += 1 / math.Sqrt(max(e, 0.5))
			n++
		}
		p.ESS = 0
		if n > 0 {
			p.ESS = math.Pow(float64(n)/sum, 2)
		}
		p.ESSPerSecond = p.ESS / (p.measured * p.NsPerSweep * 1e-9)
	}
}

// constant reports whether every draw of x is the same.
func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// reason says why the chosen pilot won, against the runner-up.
func reason(ps []Pilot, best int) string {
	b := ps[best]
	order := make([]int, 0, len(ps))
	for k, p := range ps {
		if p.err == nil && k != best {
			order = append(order, k)
		}
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(ps[j].ESSPerSecond, ps[i].ESSPerSecond) })
	s := fmt.Sprintf("%s: %.3g effective samples a second of the marginals (ESS %.0f in %.0f measured sweep-equivalents)",
		b.Spec, b.ESSPerSecond, b.ESS, b.measured)
	if len(order) > 0 {
		r := ps[order[0]]
		s += fmt.Sprintf("; next best %s: %.3g", r.Spec, r.ESSPerSecond)
	}
	return s
}

// firstLine returns the first line of err's message, without the
// package prefix.
func firstLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimPrefix(msg, "gibbs: ")
}
