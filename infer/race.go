package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/internal/phase"
)

// The race: a choice the pilots made on little evidence is revised by a
// longer one before the run commits its budget. Pilots share a tenth of
// the budget among eight or more candidates; where none resolved its
// mixing the choice is a rule's, and where two resolved ones are close
// their ranking is noise. The run then continues both the chosen
// candidate's chain and the runner-up's (both pilots' chains, kept) for
// raceShare of the sampling time each, by the cost model, and measures
// what the answer is made of: the error of each one's Rao–Blackwellised
// marginals, by batch means over raceBatches batches, a variable that a
// chain never moved while the other did counting as wholly wrong. The
// runner-up takes the rest of the budget only if it is clearly the more
// precise (raceWin), the two chains' marginals agree within their
// errors (raceAgree), and it gives log Z where the choice does (an
// exchange's estimate is part of the answer: blocks would lose it): two chains that disagree are not both mixing, and
// a chain held in one valley looks precise to its own batch means, so
// evidence of a precision that may be a valley's never overturns the
// choice. The winner's race counts towards its burn-in, and its draws
// past the rule's burn-in join the answer's marginals (pilotChain.race);
// the loser's is the price of the evidence (raceShare of the sampling
// time).
const (
	raceShare   = 0.1
	raceBatches = 10
	// raceMargin: a runner-up of resolved pilots is raced only if its
	// ranked effective samples a second are within this factor of the
	// chosen one's.
	raceMargin = 3.0
	// raceRivalESS: a runner-up is raced only if its pilot's effective
	// samples are at least this share of the chosen one's: a pilot that
	// barely moved where the choice's did (single sites on a glass: ESS
	// 1.1 against exchange's 8.2) ranks high a second only by its cheap
	// steps, and racing it would spend the loser's share for nothing
	// (on a 18×18 glass, 17% of the exchange's sweeps and 0.6 of its
	// score).
	raceRivalESS = 0.5
	// raceWin: the runner-up wins if its estimated error is at most this
	// share of the chosen one's.
	raceWin = 0.8
	// raceAgree: the two chains agree if the mean distance between their
	// marginals is at most this many times the mean of its expected
	// size, √(se_a² + se_b²), by their batch means.
	raceAgree = 2.0
	// raceMinBatchSweeps is the fewest sweep-equivalents a batch may
	// have: fewer give batch means of no use, and no race is run.
	raceMinBatchSweeps = 2
	// raceFrozenMoves: a variable a chain never moved counts as frozen
	// (wholly wrong) where its own marginal is degenerate — it would
	// leave its most likely value less than once in the chain's
	// sweep-equivalents: the chain's conditionals never offered another
	// value — and the other chain's says it should have left it at least
	// this many times (a near-degenerate one may rightly stay, and a
	// Rao–Blackwellised marginal that offers other values counts them
	// without a move).
	raceFrozenMoves = 10
)

// Race is what the race of the chosen candidate against the runner-up
// measured. Index 0 is the pilots' choice, 1 the runner-up.
type Race struct {
	Specs [2]Spec
	// Sweeps are each chain's sweep-equivalents in the race.
	Sweeps [2]float64
	// Error is each chain's estimated error of its marginals after the
	// race: the mean over the variables of √(Σ_v se_v²), se_v by batch
	// means, 1 for a frozen variable.
	Error [2]float64
	// Frozen counts the variables each chain never moved while the
	// other did, its own marginal degenerate where the other's says they
	// should have moved (raceFrozenMoves).
	Frozen [2]int
	// Distance is the mean over the variables both moved of the distance
	// between the two chains' marginals, √(Σ_v (p_v − q_v)²); Expected
	// its expected size if both mix, the mean of √(Σ_v se_v² + se'_v²).
	Distance, Expected float64
	// Winner is the index of the chain the run continued; Verdict says
	// why in words.
	Winner  int
	Verdict string

	// loser is the sampler of the chain that lost, kept where it is a
	// replica exchange: its log-Z estimate (Answer.LogZ).
	loser gibbs.Sampler
}

// racer is one chain of the race and its record.
type racer struct {
	pc     *pilotChain
	spec   Spec
	ns     float64 // cost model, a sweep
	mg     *chain.Marginals
	pool   *chain.Marginals // past the rule's burn-in (pilotChain.race)
	mv     *moves
	last   [][]float64 // the tracked variables' marginals at the end
	se     [][]float64 // and their standard errors by batch means
	sweeps float64
}

// moves records which variables a chain's state changed, comparing it
// with the last look once every `every` steps.
type moves struct {
	free        []int
	last        []float64
	moved       []bool
	every, next int64
}

func newMoves(free []int, x []float64, every int64) *moves {
	m := &moves{free: free, last: make([]float64, len(free)), moved: make([]bool, len(free)), every: max(1, every)}
	for k, i := range free {
		m.last[k] = x[i]
	}
	return m
}

// Observe implements chain.Observer.
func (m *moves) Observe(t int64, _ int, x []float64) {
	if t < m.next {
		return
	}
	m.next = t + m.every
	for k, i := range m.free {
		if x[i] != m.last[k] {
			m.moved[k], m.last[k] = true, x[i]
		}
	}
}

// rivalIndex returns the index in ch.Pilots of the candidate the run
// races against the choice, or −1: a replica exchange that resolved its
// mixing where the choice is not one (its log Z is part of the answer);
// else the pilot of the most ranked
// effective samples a second among those that ran, other than the
// chosen one — among those that resolved their mixing if any did — and
// whose pilots mixed at least raceRivalESS as well as the chosen one's,
// where the choice was a rule's or barely resolved (within raceMargin of
// the runner-up); only pilots whose chains are kept.
func (ch *Choice) rivalIndex() int {
	chosen := -1
	for k, p := range ch.Pilots {
		if p.Spec == ch.Spec {
			chosen = k
		}
	}
	if chosen < 0 || ch.Pilots[chosen].err != nil || ch.Pilots[chosen].chain == nil {
		return -1
	}
	if ch.Pilots[chosen].Spec.Name != "exchange" {
		// A replica exchange that resolved its mixing is the rival of a
		// choice that gives no log Z, however it ranked: the race keeps
		// its estimate if it loses (Race.loser). A 16×16 glass whose
		// blocks of width 12 out-ranked it, once the pilots cut short were
		// extended, answered without log Z.
		for k, p := range ch.Pilots {
			if p.Spec.Name == "exchange" && p.err == nil && p.chain != nil && p.ESS >= ResolvedESS {
				return k
			}
		}
	}
	best := -1
	for k, p := range ch.Pilots {
		if k == chosen || p.err != nil || p.chain == nil || p.ESS < raceRivalESS*ch.Pilots[chosen].ESS {
			continue
		}
		if b := ch.Pilots[max(best, 0)]; best < 0 || p.ESS >= ResolvedESS && b.ESS < ResolvedESS ||
			(p.ESS >= ResolvedESS) == (b.ESS >= ResolvedESS) && ranked(p) > ranked(b) {
			best = k // the resolved first
		}
	}
	if best >= 0 && ch.resolved && raceMargin*ranked(ch.Pilots[best]) < ranked(ch.Pilots[chosen]) {
		return -1
	}
	return best
}

// takeRival returns the runner-up's pilot chain and its pilot, once (nil:
// none).
func (ch *Choice) takeRival() (*pilotChain, *Pilot) {
	c := ch.rival
	ch.rival = nil
	if c == nil {
		return nil, nil
	}
	return c, &ch.Pilots[ch.rivalPilot]
}

// raceable reports whether a run of opt within b may race: a timed run
// of the one chain 0 (a run counted in steps keeps the pilots' choice, as
// does a run split across processes or of several chains).
func raceable(opt Options, b Budget) bool {
	if _, timed := b.Deadline(); !timed || opt.counted() {
		return false
	}
	run := opt.Run
	if run == nil {
		run = &Run{}
	}
	ks := run.indices(opt.Chains)
	return len(ks) == 1 && ks[0] == 0 && run.Spec == nil
}

// race runs the race of ch's choice (its chain inc) against the
// runner-up (riv, its pilot rp) on g, the variables exact[i] left out,
// and returns the chain the run continues, its spec and cost a sweep; it
// records the race in ch (Race, and Spec and Reason where it revised the
// choice). A race the time does not allow (a batch of fewer than
// raceMinBatchSweeps sweep-equivalents) is not run. If ctx is
// interrupted the error says so, and the choice's chain comes back with
// what its race observed so far (pilotChain.soFar); if the race overruns
// the sampling deadline, the choice stands.
func race(ctx context.Context, g *factorgraph.Graph, opt Options, b Budget, ch *Choice, inc, riv *pilotChain, rp *Pilot, exact []bool) (*pilotChain, Spec, float64, error) {
	keep := func() (*pilotChain, Spec, float64, error) { return inc, ch.Spec, ch.nsPerSweep(), nil }
	rs := [2]*racer{
		{pc: inc, spec: ch.Spec, ns: ch.nsPerSweep()},
		{pc: riv, spec: rp.Spec, ns: rp.NsPerSweep},
	}
	share := raceShare * float64(opt.sampling(b).Nanoseconds())
	for _, r := range rs {
		if !(r.ns > 0) || share/r.ns < raceBatches*raceMinBatchSweeps {
			return keep()
		}
	}
	var free []int
	for _, i := range g.Free() {
		if !exact[i] {
			free = append(free, i)
		}
	}
	// The variables the monitor tracks (chain.Tracked): a large model's
	// race keeps ten batches of a thousand marginals, not of all.
	free = chain.Tracked(free, chain.DefaultTracked)
	if len(free) == 0 {
		return keep()
	}
	phase.Enter("race")
	rctx, cancel := b.within(ctx)
	defer cancel()
	sizes := factorgraph.Sizes(g)
	for _, r := range rs {
		if err := r.run(rctx, sizes, free, share, int64(ruleBurn(opt, b, r.ns)*gibbs.StepsPerSweep(r.pc.smp))); err != nil {
			if interrupted(ctx) {
				// The choice's race so far answers (a chain the run
				// would have continued).
				inc.soFar = rs[0].mg
				return inc, ch.Spec, ch.nsPerSweep(), fmt.Errorf("infer: racing %s against %s: %w", rs[0].spec, rs[1].spec, ctx.Err())
			}
			return keep() // out of time: the choice stands
		}
	}
	rc := judgeRace(rs, free, givesLogZ(inc.smp) && !givesLogZ(riv.smp))
	ch.Race = rc
	if l := rs[1-rc.Winner].pc.smp; isExchange(l) {
		rc.loser = l
	}
	w := rs[rc.Winner]
	if rc.Winner == 1 {
		ch.Spec = rs[1].spec
		ch.Reason = fmt.Sprintf("%s, by a race against the pilots' choice (%s): %s", ch.Spec, ch.Reason, rc.Verdict)
	} else {
		ch.Reason += "; " + rc.Verdict
	}
	return w.pc, w.spec, w.ns, nil
}

// run continues r's chain for share nanoseconds of the cost model in
// raceBatches batches, recording the Rao–Blackwellised marginals of the
// variables tracked (free) after each, and which of them it moves; and
// the marginals of its steps past burn steps of the chain in all, for the
// run (pilotChain.race).
func (r *racer) run(ctx context.Context, sizes, free []int, share float64, burn int64) error {
	smp := r.pc.smp
	sps := gibbs.StepsPerSweep(smp)
	batch := max(1, int64(math.Round(share/r.ns/raceBatches*sps)))
	r.mg, r.pool = chain.NewMarginals(sizes), chain.NewMarginals(sizes)
	if cd, ok := smp.(chain.Conditioner); ok {
		r.mg.RaoBlackwellise(cd)
		r.pool.RaoBlackwellise(cd)
		defer cd.RecordConditionals(false) // the run's marginals say again
	}
	r.mg.TrackBatches(free, batch)
	r.mv = newMoves(free, smp.State(), int64(math.Ceil(sps)))
	skip := max(0, burn-r.pc.steps)
	c := &chain.Chain{Kernel: smp, Sources: []*rand.PCG{r.pc.src}, Observers: []chain.Observer{r.mg, r.mv, &after{skip, r.pool}}}
	start := r.pc.steps
	defer func() {
		// Steps the chain made, for the run's burn-in, and what those
		// past the rule's burn-in observed, for its marginals.
		r.pc.steps += c.Done()
		r.pc.race, r.pc.raceBurn = r.pool, start+skip
	}()
	for k := 1; k <= raceBatches; k++ {
		if err := c.Advance(ctx, int64(k)*batch); err != nil {
			return err
		}
	}
	p := r.mg.Probs()
	r.last = make([][]float64, len(free)) // the tracked variables' only
	for k, i := range free {
		r.last[k] = p[i]
	}
	r.se, _ = r.mg.BatchErrors()
	r.sweeps = float64(raceBatches*batch) / sps
	return nil
}

// judgeRace measures the race of rs over the variables tracked (free:
// the racers' records hold free[k]'s marginals at k) and names its
// winner (see Race); logZ says the choice estimates log Z and the
// runner-up does not, which keeps the choice.
func judgeRace(rs [2]*racer, free []int, logZ bool) *Race {
	rc := &Race{}
	se := [2][][]float64{}
	for j, r := range rs {
		rc.Specs[j], rc.Sweeps[j] = r.spec, r.sweeps
		se[j] = r.se
	}
	last := [2][][]float64{rs[0].last, rs[1].last}
	n, both := 0, 0
	for k := range free {
		m0, m1 := rs[0].mv.moved[k], rs[1].mv.moved[k]
		if !m0 && !m1 {
			continue // neither moved it: no evidence either way
		}
		n++
		for j, m := range [2]bool{m0, m1} {
			if !m && rs[j].sweeps*(1-floats.Max(last[j][k])) < 1 && rs[j].sweeps*(1-floats.Max(last[1-j][k])) >= raceFrozenMoves {
				rc.Frozen[j]++
				rc.Error[j]++
				continue
			}
			rc.Error[j] += floats.Norm(se[j][k], 2)
		}
		if m0 && m1 {
			both++
			d, e := 0.0, 0.0
			for v := range last[0][k] {
				d += (last[0][k][v] - last[1][k][v]) * (last[0][k][v] - last[1][k][v])
				e += se[0][k][v]*se[0][k][v] + se[1][k][v]*se[1][k][v]
			}
			rc.Distance += math.Sqrt(d)
			rc.Expected += math.Sqrt(e)
		}
	}
	if n > 0 {
		rc.Error[0] /= float64(n)
		rc.Error[1] /= float64(n)
	}
	if both > 0 {
		rc.Distance /= float64(both)
		rc.Expected /= float64(both)
	}
	agree := both > 0 && rc.Distance <= raceAgree*rc.Expected
	better := rc.Error[1] <= raceWin*rc.Error[0]
	what := fmt.Sprintf("raced against %s, %.0f%% of the sampling time each (%.3g and %.3g sweep-equivalents): estimated errors %.3g and %.3g (%d and %d variables frozen), marginals %.3g apart where %.3g is expected",
		rs[1].spec, 100*raceShare, rc.Sweeps[0], rc.Sweeps[1], rc.Error[0], rc.Error[1], rc.Frozen[0], rc.Frozen[1], rc.Distance, rc.Expected)
	switch {
	case better && agree && logZ:
		rc.Verdict = what + ": the runner-up is the more precise and the two agree, but it gives no log Z, which the choice estimates, so the choice stands"
	case better && agree:
		rc.Winner = 1
		rc.Verdict = what + ": the runner-up is the more precise and the two agree, so it takes the run"
	case better:
		rc.Verdict = what + ": the runner-up looks more precise, but the two disagree (one is not mixing), so the choice stands"
	default:
		rc.Verdict = what + ": the choice stands"
	}
	return rc
}

// isExchange reports whether smp is a replica exchange.
func isExchange(smp gibbs.Sampler) bool {
	_, ok := smp.(*exchange.Exchange)
	return ok
}

// givesLogZ reports whether smp estimates log Z (a replica exchange
// whose ladder reaches β = 0 on a model without hard factors).
func givesLogZ(smp gibbs.Sampler) bool {
	x, ok := smp.(*exchange.Exchange)
	if !ok {
		return false
	}
	_, _, ok = x.LogZ()
	return ok
}

// after passes on the observations after the first n.
type after struct {
	n  int64
	mg *chain.Marginals
}

func (a *after) Observe(t int64, i int, x []float64) {
	if t > a.n {
		a.mg.Observe(t-a.n, i, x)
	}
}
