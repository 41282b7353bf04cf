package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/internal/phase"
	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// Run is what a caller that drives the sampled part further than Options
// adds to it — the command line's fixed sampler, run length in steps,
// checkpoints, resume, trace files, progress, anytime output, stopping
// rule and one chain of a run split across processes. The chains are
// built, burnt in, run, judged and pooled as Marginals does it, by the same
// code: the same seed and length give the same answer either way.
type Run struct {
	// Spec, if not nil, is the sampler of every free variable: no exact
	// part, no pilots.
	Spec *Spec
	// Steps, if positive, is each chain's length in its sampler's steps,
	// Burn of them burn-in, instead of Options.Sweeps or the time; with
	// Updates they count variable updates instead (converted by the
	// sampler's steps a sweep over the free variables), whatever the
	// sampler chosen. With a time budget, Steps is ignored and Burn kept;
	// a negative Burn there takes Marginals' rule (Sampled.length), as a
	// run without a Run does (with Steps, a negative Burn is 0).
	Steps, Burn int64
	Updates     bool
	// Indices are the chains run here (chain k draws from stream k,
	// chain.Source, but chain 0 of a sampler the pilots chose continues
	// the chosen pilot's): one of a run split across processes. Nil means
	// 0 to Options.Chains−1.
	Indices []int
	// Counts makes the marginals visit counts even where the sampler
	// reports its conditionals (no Rao–Blackwellisation); NoMarginals
	// keeps none (a continuous model's chains: Answer.Marginals stay nil
	// or uniform).
	Counts, NoMarginals bool
	// Observe, if set, returns the caller's observers of chain k (a
	// histogram), run after the marginals and before the monitor's trace.
	Observe func(k int) []chain.Observer
	// MaxBytes, if positive, refuses with a *factorgraph.MemoryError, before any chain
	// is built, a run estimated to need more (the model and the chains).
	MaxBytes float64
	// Runner is the template of the chains' runner: its Checkpoint, Every,
	// Meta and Inputs are kept; Steps, Duration, Until and CheckEvery are
	// the run's.
	Runner chain.Runner
	// Built, if set, is called with the chains once built, before they run
	// (restore a checkpoint, add observers); false skips the run (chains
	// loaded in their final states).
	Built func(chains []*chain.Chain) (run bool, err error)
	// Started, if set, is called as the sampling starts (steps: each
	// chain's, 0 with a time budget) and its result when it ends.
	Started func(chains []*chain.Chain, steps int64) (stop func())
	// AtCheck, if set, is called at every check point with the marginals
	// so far (pooled, the exact part overlaid), before the stopping rule.
	AtCheck func(marginals [][]float64) error
	// Until stops the run at the first check point where the verdict
	// (Options.Criteria) says converged; the length stays the ceiling.
	Until bool
	// Start, if set, is when the answer started (Budget.Start): a command
	// line starts it before reading the model, so that reading counts too.
	Start time.Time
}

// Sampled is how the sampled part ran: its chains, their samplers and
// marginals, the monitor that judged them.
type Sampled struct {
	Chains    []*chain.Chain
	Samplers  []gibbs.Sampler
	Marginals []*chain.Marginals
	Monitor   *chain.Monitor
	// Steps and Burn are each chain's, in its sampler's steps (Steps 0: a
	// time budget); Seconds the sampling's wall time.
	Steps, Burn int64
	Seconds     float64
	// Converged says the stopping rule ended the run (Run.Until), after
	// Checks checks; Last is the verdict of the last check.
	Converged bool
	Checks    int
	Last      chain.Verdict
	// Err is the runner's error as it returned it (an interruption, a
	// checkpoint not saved); Verdict the monitor's on the chains as they
	// stand (Answer.Verdict, but for an interruption's).
	Err     error
	Verdict chain.Verdict

	free int // free variables
	// Where chain 0 continues its pilot's chain: each sampler's counters,
	// sweep-equivalents and steps before the run (zero for the others).
	before     []gibbs.Stats
	sweeps0    []float64
	pilotSteps []int64
	ruleBurn   bool // Burn is the rule's (length), not the caller's
	// race is what chain 0's race observed past raceBurn of its steps
	// (pilotChain.race), pooled into the answer's marginals where the
	// rule's burn-in ends by then (length); nil otherwise.
	race     *chain.Marginals
	raceBurn int64
	// batchVars are the variables whose marginals keep batch means (for
	// Answer.shrink), nil if none.
	batchVars []int
}

// traceDraws is the number of draws a chain's R̂/ESS trace keeps.
const traceDraws = 2000

// MaxMinESS is the largest ESS a verdict can ask for: a chain's trace
// keeps this many draws, and ESS is at most about their number.
const MaxMinESS = traceDraws

// ChainBytes estimates the bytes of one chain of a gibbs sampler on a
// model of n variables (free of them free, values their domain sizes'
// sum): the sampler's state and scratch a variable (96 bytes: the state,
// sizes and flags, and Poisson-Gibbs's L_i, generators and head counts,
// measured at 88 on the Gaussian-kernel Potts model), the R̂ trace of
// traceDraws draws of each tracked variable, and the marginals' counts
// (24 bytes a value).
func ChainBytes(n, free, values int) float64 {
	tracked := min(free, chain.DefaultTracked)
	return 96*float64(n) + 8*traceDraws*float64(tracked) + 24*float64(values)
}

// CheckMemory returns a *factorgraph.MemoryError if model bytes and
// chains of perChain bytes each need more than limit (no limit: nil).
func CheckMemory(model, perChain float64, chains int, limit float64) error {
	need := model + perChain*float64(chains)
	if limit <= 0 || need <= limit {
		return nil
	}
	return &factorgraph.MemoryError{What: "infer", Need: need, Limit: limit, Setting: "Run.MaxBytes",
		Of: fmt.Sprintf("the run (the model %s and %d chain(s) of %s)", sysmem.String(model), chains, sysmem.String(perChain))}
}

// runBytes returns the bytes of g and of one chain on it (ChainBytes).
func runBytes(g *factorgraph.Graph) (model, perChain float64) {
	values := 0
	for i := range g.NumVars() {
		values += g.Domain(i).Size
	}
	return float64(g.Bytes()), ChainBytes(g.NumVars(), len(g.Free()), values)
}

// indices returns the global indices of the chains run here.
func (r *Run) indices(chains int) []int {
	if r.Indices != nil {
		return r.Indices
	}
	ks := make([]int, chains)
	for k := range ks {
		ks[k] = k
	}
	return ks
}

// sample runs the chains of spec (ns: its pilot's cost of a sweep, 0 if
// none; from: its pilot's chain, which chain 0 continues, or nil) for the
// time left in b, opt.Sweeps or opt.Run's steps, filling the marginals of
// a and a.Run. If the chains cannot be built before the deadline, a is
// marked incomplete; if ctx is cancelled, the marginals so far are kept
// and its error returned.
func (a *Answer) sample(ctx context.Context, g *factorgraph.Graph, opt Options, spec Spec, ns float64, from *pilotChain, b Budget) error {
	run := opt.Run
	if run == nil {
		run = &Run{}
	}
	ks := run.indices(opt.Chains)
	model, perChain := runBytes(g)
	if err := CheckMemory(model, perChain, len(ks), run.MaxBytes); err != nil {
		return err
	}
	if run.MaxBytes > 0 {
		// An exchange's tempered copies of the model: what the limit
		// leaves beyond the run's own estimate, shared by the chains.
		spec.MaxBytes = max(1, (run.MaxBytes-model)/float64(len(ks))-perChain)
	}
	s, err := a.build(ctx, g, opt, spec, ks, from, b)
	if s == nil {
		return err
	}
	a.Run = s
	s.length(g, opt, ns, b)
	r := s.runner(opt, *run, a, b)
	if run.Built != nil {
		ok, err := run.Built(s.Chains)
		if err != nil {
			return err
		}
		if !ok {
			a.judge(g, opt.Criteria)
			return nil
		}
	}
	stop := func() {}
	if run.Started != nil {
		stop = run.Started(s.Chains, r.Steps) // 0 with a Duration
	}
	phase.Enter("sample")
	start := time.Now()
	s.Err = r.Run(ctx, s.Chains)
	s.Seconds = time.Since(start).Seconds()
	stop()
	for _, c := range s.Chains {
		s.Burn = min(s.Burn, c.Burn) // a burn-in the clock ended (chain.Runner.BurnFor)
	}
	s.Converged = r.Converged()
	a.judge(g, opt.Criteria)
	if s.Err != nil && !interrupted(ctx) { // a checkpoint not saved: the answer stands
		return s.Err
	}
	if s.Err != nil {
		a.stop(fmt.Sprintf("interrupted (%v) after %.3g sweep-equivalents: the marginals so far", context.Cause(ctx), a.Sweeps))
		return fmt.Errorf("infer: sampling: %w", s.Err)
	}
	if c := s.Chains[0]; r.Duration > 0 && c.Done() <= s.Burn {
		a.stop(fmt.Sprintf("the budget ran out within the burn-in (%d of %d steps)", c.Done(), s.Burn))
	}
	return nil
}

// judge sets a's verdict (Sampled.Verdict: the monitor's, by c), its
// marginals of the free variables to the chains' pooled ones (where they
// have observed anything: uniform stays) and a.Sweeps to their mean
// length.
func (a *Answer) judge(g *factorgraph.Graph, c chain.Criteria) {
	s := a.Run
	s.Verdict = s.Monitor.Verdict(c)
	v := s.Verdict
	a.Verdict = &v
	p := chain.PoolMarginals(s.pooled()...)
	for _, i := range g.Free() {
		if p != nil && floats.Sum(p[i]) > 0 {
			a.Marginals[i] = p[i]
		}
	}
	a.Sweeps = 0
	for k := range s.Samplers {
		a.Sweeps += s.ChainSweeps(k) / float64(len(s.Samplers))
	}
}

// build builds chain k of ks from stream k (chain.Source) with its
// marginals and a trace of the monitor, by the deadline of b, chain 0
// from the pilots' start (startState); chain 0 continues from's chain
// instead where from is not nil (the chosen pilot's: its sampler, built
// from the same stream and start, as the pilot left it).
// A nil Sampled and nil error: the budget ran out (a says so).
func (a *Answer) build(ctx context.Context, g *factorgraph.Graph, opt Options, spec Spec, ks []int, from *pilotChain, b Budget) (*Sampled, error) {
	sizes := factorgraph.Sizes(g)
	mon, err := chain.NewMonitor(chain.Tracked(g.Free(), chain.DefaultTracked), sizes, traceDraws)
	if err != nil {
		return nil, err
	}
	if opt.names != nil {
		mon.UseNames(opt.names)
	}
	if _, timed := b.Deadline(); timed && !opt.counted() {
		mon.Budget(time.Duration(VerdictShare*float64(b.Time)), len(ks))
	}
	s := &Sampled{Monitor: mon, free: len(g.Free())}
	if a.beliefs != nil {
		s.batchVars = chain.Tracked(a.shrinkVars, shrinkTracked)
	}
	phase.Enter("build")
	bctx, cancel := b.within(ctx)
	defer cancel()
	for _, k := range ks {
		if k == 0 && from != nil {
			obs, err := s.observers(opt.Run, from.smp, k, sizes)
			if err != nil {
				return nil, err
			}
			s.add(from.smp, from.src, obs, from.steps)
			s.race, s.raceBurn = from.race, from.raceBurn
			continue
		}
		src := chain.Source(opt.Seed, k)
		o := opt.Sampler
		o.Init, o.Context = nil, bctx
		if k == 0 {
			// The pilots' start: this chain is the one the pilot of
			// spec began (Choose).
			if x, ok := startState(bctx, g, opt.Seed); ok {
				o.Init = x
			}
			phase.Enter("build") // after a search's "feasible"
		}
		smp, err := spec.New(g, rand.New(src), &o)
		switch {
		case err != nil && interrupted(ctx):
			a.stop(fmt.Sprintf("interrupted (%v) while building the chains", context.Cause(ctx)))
			return nil, fmt.Errorf("infer: building the chains: %w", ctx.Err())
		case err != nil && bctx.Err() != nil:
			a.stop(fmt.Sprintf("the budget ran out while building the chains of %s", spec))
			return nil, nil
		case err != nil:
			return nil, err
		}
		obs, err := s.observers(opt.Run, smp, k, sizes)
		if err != nil {
			return nil, err
		}
		s.add(smp, src, obs, 0)
	}
	mon.UseMarginals(s.Marginals...)              // variables that never moved fail the verdict…
	mon.UseDegenerate(degenerate(g, a.ExactPart)) // …unless the model fixes them
	return s, nil
}

// observers returns the observers of chain k of smp: its marginals
// (Rao–Blackwellised where smp reports its conditionals, unless
// run.Counts; none with run.NoMarginals), run's own, and a trace of the
// monitor.
func (s *Sampled) observers(run *Run, smp gibbs.Sampler, k int, sizes []int) ([]chain.Observer, error) {
	var obs []chain.Observer
	if run == nil || !run.NoMarginals {
		mg := chain.NewMarginals(sizes)
		if c, ok := smp.(chain.Conditioner); ok && (run == nil || !run.Counts) {
			mg.RaoBlackwellise(c)
		}
		if s.batchVars != nil {
			mg.TrackBatches(s.batchVars, int64(math.Ceil(gibbs.StepsPerSweep(smp))))
		}
		s.Marginals, obs = append(s.Marginals, mg), append(obs, mg)
	}
	if run != nil && run.Observe != nil {
		obs = append(obs, run.Observe(k)...)
	}
	tr, err := s.Monitor.Trace(smp)
	return append(obs, tr), err
}

// length sets s's steps and burn-in, the one rule of a run's length: a
// length in steps (Run.Steps, Run.Burn; in variable updates with
// Run.Updates) as given; a length of opt.Sweeps sweep-equivalents after a
// burn-in of half of it, at most 1000; a time budget, the time left but
// the verdict's share, after Run.Burn steps if a Run gives them (0 or
// more), else after a tenth of the sweeps the cost model expects in it
// (ns a sweep, its pilot's; the model's price of a step when no pilot
// ran), at most 1000 (every remaining second samples: more draws, a
// smaller error). A single chain that continues its pilot's counts the
// pilot's steps in the rule's burn-in.
func (s *Sampled) length(g *factorgraph.Graph, opt Options, ns float64, b Budget) {
	sps := gibbs.StepsPerSweep(s.Samplers[0])
	run := opt.Run
	scale := 1.0
	if run != nil && run.Updates {
		scale = sps / float64(s.free)
	}
	rule := false // the burn-in is the rule's, not the caller's
	switch {
	case run != nil && run.Steps > 0:
		s.Steps, s.Burn = max(1, int64(math.Round(float64(run.Steps)*scale))), int64(math.Round(float64(max(0, run.Burn))*scale))
	case opt.Sweeps > 0:
		s.Burn = int64(min(1000, opt.Sweeps/2) * sps)
		s.Steps = s.Burn + max(1, int64(math.Round(opt.Sweeps*sps)))
		rule = true
	case run != nil && run.Burn >= 0:
		s.Burn = int64(math.Round(float64(run.Burn) * scale))
	default:
		if ns <= 0 { // no pilot: the cost model's price of a sweep
			ns = stepCost(g, s.Samplers[0]) * sps
		}
		s.Burn = int64(ruleBurn(opt, b, ns) * sps)
		rule = true
	}
	s.ruleBurn = rule
	if !rule || len(s.Chains) != 1 || s.raceBurn < s.Burn {
		s.race = nil // its race was all burn-in, or another burn-in is asked for
	}
	if rule && len(s.Chains) == 1 {
		// A chain that continues its pilot's has made that many steps of
		// its burn-in already (with more chains, the others have not:
		// they keep one burn-in); its race's draws past the rule's
		// burn-in join the answer (Sampled.race).
		cut := min(s.Burn, s.pilotSteps[0])
		s.Burn -= cut
		if s.Steps > 0 {
			s.Steps -= cut
		}
	}
	for _, c := range s.Chains {
		c.Burn = s.Burn
	}
}

// ruleBurn returns the rule's burn-in in sweep-equivalents of a sampler of
// ns nanoseconds a sweep by the cost model (0: unknown): a tenth of the
// sweeps it expects in the sampling time, at most 1000 (Sampled.length).
func ruleBurn(opt Options, b Budget, ns float64) float64 {
	burn := 1000.0
	if ns > 0 {
		burn = min(burn, 0.1*float64(opt.sampling(b).Nanoseconds())/ns)
	}
	return burn
}

// counted reports whether the run's length is counted (in sweeps or
// steps), not timed.
func (opt Options) counted() bool { return opt.Sweeps > 0 || opt.Run != nil && opt.Run.Steps > 0 }

// sampling returns the time the chains sample for in a timed run: the
// time left in b but the verdict's share (0: a counted run).
func (opt Options) sampling(b Budget) time.Duration {
	if _, timed := b.Deadline(); !timed || opt.counted() {
		return 0
	}
	return max(b.Left()-time.Duration(VerdictShare*float64(b.Time)), 0)
}

// runner returns the runner of s: run's template with s's length, or the
// time left in b but the verdict's share; the check points of run.AtCheck
// and of the stopping rule.
func (s *Sampled) runner(opt Options, run Run, a *Answer, b Budget) *chain.Runner {
	r := run.Runner
	r.Steps, r.Duration, r.Until, r.CheckEvery = s.Steps, 0, nil, 0
	if _, timed := b.Deadline(); timed && !opt.counted() {
		r.Steps, r.Duration = 0, max(opt.sampling(b), time.Millisecond)
		if s.ruleBurn {
			// The rule's burn-in is a tenth of the sweeps the cost model
			// expects: a tenth of the time by the clock at most.
			r.BurnFor = max(r.Duration/10, time.Millisecond)
		}
	}
	if run.AtCheck == nil && !run.Until {
		return &r
	}
	r.CheckEvery = max(1, int64(500*gibbs.StepsPerSweep(s.Samplers[0])))
	rule := s.Monitor.Until(opt.Criteria, &s.Last)
	r.Until = func(cs []*chain.Chain) (bool, error) {
		if run.AtCheck != nil {
			p := chain.PoolMarginals(s.pooled()...)
			if a.ExactPart != nil {
				a.ExactPart.Overlay(p, nil)
			}
			if err := run.AtCheck(p); err != nil {
				return false, err
			}
		}
		if !run.Until {
			return false, nil
		}
		s.Checks++
		return rule(cs)
	}
	return &r
}

// pooled returns the marginals the answer pools: the chains', and chain
// 0's race's where its draws are part of the run (Sampled.race).
func (s *Sampled) pooled() []*chain.Marginals {
	if s.race == nil || s.race.N() == 0 || len(s.Marginals) == 0 || s.race.RaoBlackwellised() != s.Marginals[0].RaoBlackwellised() {
		return s.Marginals // no race, or one of another estimator (-estimator counts)
	}
	return append(slices.Clip(s.Marginals), s.race)
}

// add adds the chain of smp drawing from src with observers obs; steps
// are the steps smp made before the run (a pilot's, which the run
// continues), whose counters the run's leave out.
func (s *Sampled) add(smp gibbs.Sampler, src *rand.PCG, obs []chain.Observer, steps int64) {
	var before gibbs.Stats
	sweeps := 0.0
	if steps > 0 {
		before = smp.Stats()
		sweeps, _ = chain.Sweeps(smp)
	}
	s.Samplers = append(s.Samplers, smp)
	s.Chains = append(s.Chains, &chain.Chain{Kernel: smp, Sources: []*rand.PCG{src}, Observers: obs})
	s.before = append(s.before, before)
	s.sweeps0 = append(s.sweeps0, sweeps)
	s.pilotSteps = append(s.pilotSteps, steps)
}

// Stats returns what chain k's sampler did in the run: its counters less
// those of the pilot whose chain it continues, if any.
func (s *Sampled) Stats(k int) gibbs.Stats {
	st := s.Samplers[k].Stats()
	st.Sub(s.before[k])
	return st
}

// ChainSweeps returns chain k's length in the run in sweep-equivalents
// (chain.Sweeps: updates of the free variables over their number), its
// pilot's left out.
func (s *Sampled) ChainSweeps(k int) float64 {
	sw, _ := chain.Sweeps(s.Samplers[k])
	return sw - s.sweeps0[k]
}
