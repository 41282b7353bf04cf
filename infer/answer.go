package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
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
	// Seed seeds the pilots and the chains (chain k: stream k).
	Seed uint64
	// Sweeps, if positive, is the sampled part's length in
	// sweep-equivalents (after its burn-in) instead of the time left: a
	// run whose samples, and so whose answer, depend on the seed alone
	// (the exact part and the pilots are counted already).
	Sweeps float64
	// Chains is the number of chains of the sampled part, run in
	// parallel. Zero means 1.
	Chains int
	// Criteria judge the sampled part's convergence (chain.Criteria).
	Criteria chain.Criteria
	// Sampler holds the samplers' options (λ, MaxDraws); Init is ignored.
	Sampler gibbs.Options
}

// Shares of the budget: the exact eliminations may take up to exactShare
// of it by their time estimates, and are stopped at exactLimit of it (a
// component not done then is sampled); the pilots take up to pilotShare
// of what is left.
const (
	exactShare = 0.75
	exactLimit = 0.9
	pilotShare = 0.1
)

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
	// exact), Verdict its chains' convergence, Sweeps their mean length in
	// sweep-equivalents.
	Choice  *Choice
	Verdict *chain.Verdict
	Sweeps  float64
}

// Marginals returns the marginals of g's variables as well as the library
// can within opt.Time: exact for every component of the free variables
// whose elimination fits opt.MaxBytes and three quarters of the budget (by
// its time estimate), and from the sampler Choose measures best on the others
// (chains run for the rest of the budget: every second sampled makes the
// error smaller). The answer says which variables are exact, which sampler
// ran and why, and the sampled part's verdict — read it before trusting
// the sampled marginals.
func Marginals(ctx context.Context, g *factorgraph.Graph, opt Options) (*Answer, error) {
	if g == nil {
		return nil, errors.New("infer: nil graph")
	}
	if opt.Time == 0 {
		opt.Time = 10 * time.Second
	}
	if opt.Time < 0 || opt.Chains < 0 {
		return nil, fmt.Errorf("infer: budget %v and %d chains: want a positive budget and chains ≥ 0", opt.Time, opt.Chains)
	}
	if opt.Chains == 0 {
		opt.Chains = 1
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes()
	}
	start := time.Now()
	ex, err := PlanExact(g, opt.MaxBytes, time.Duration(exactShare*float64(opt.Time)))
	if err != nil {
		return nil, err
	}
	if err := ex.Solve(ctx, time.Duration(exactLimit*float64(opt.Time))); err != nil {
		return nil, err
	}
	a := &Answer{ExactPart: ex, Exact: make([]bool, g.NumVars()), Marginals: pointMasses(g, nil)}
	for i := range g.NumVars() {
		_, a.Exact[i] = g.Observed(i)
	}
	if !ex.All() {
		if err := a.sample(ctx, g, opt, opt.Time-time.Since(start)); err != nil {
			return nil, err
		}
	}
	ex.Overlay(a.Marginals, a.Exact)
	return a, nil
}

// sample chooses a sampler and runs opt.Chains chains of it for the time
// left, filling the marginals of a.
func (a *Answer) sample(ctx context.Context, g *factorgraph.Graph, opt Options, left time.Duration) error {
	ch, err := Choose(g, ChooseOptions{Budget: pilotShare * float64(left.Nanoseconds()), Seed: opt.Seed, Options: opt.Sampler})
	if err != nil {
		return err
	}
	a.Choice = &ch
	sizes := factorgraph.Sizes(g)
	mon, err := chain.NewMonitor(chain.Tracked(g.Free(), chain.DefaultTracked), sizes, 2000)
	if err != nil {
		return err
	}
	var chains []*chain.Chain
	var margs []*chain.Marginals
	var samplers []gibbs.Sampler
	for k := range opt.Chains {
		src := chain.Source(opt.Seed, k)
		o := opt.Sampler
		o.Init = nil
		s, err := ch.Spec.New(g, rand.New(src), &o)
		if err != nil {
			return err
		}
		mg := chain.NewMarginals(sizes)
		if c, ok := s.(chain.Conditioner); ok {
			mg.RaoBlackwellise(c)
		}
		tr, err := mon.Trace(s)
		if err != nil {
			return err
		}
		samplers, margs = append(samplers, s), append(margs, mg)
		chains = append(chains, &chain.Chain{Kernel: s, Sources: []*rand.PCG{src}, Observers: []chain.Observer{mg, tr}})
	}
	// Every remaining second samples: more draws, a smaller error.
	left -= time.Duration(pilotShare * float64(left))
	for _, c := range chains {
		c.Burn = burnSteps(c.Kernel.(gibbs.Sampler), ch, left)
	}
	r := &chain.Runner{Duration: max(left, time.Millisecond)}
	if opt.Sweeps > 0 {
		steps := gibbs.StepsPerSweep(samplers[0])
		r = &chain.Runner{Steps: chains[0].Burn + max(1, int64(math.Round(opt.Sweeps*steps)))}
	}
	if err := r.Run(ctx, chains); err != nil {
		return err
	}
	v := mon.Verdict(opt.Criteria)
	a.Verdict = &v
	p := chain.PoolMarginals(margs...)
	for _, i := range g.Free() {
		if len(p[i]) > 0 {
			a.Marginals[i] = p[i]
		}
	}
	for _, s := range samplers {
		sw, _ := chain.Sweeps(s)
		a.Sweeps += sw / float64(len(samplers))
	}
	return nil
}

// burnSteps returns the burn-in of a chain of smp: a tenth of the steps
// its pilot's cost model expects in left, at most 1000 sweep-equivalents.
func burnSteps(smp gibbs.Sampler, ch Choice, left time.Duration) int64 {
	ns := 0.0
	for _, p := range ch.Pilots {
		if p.Spec == ch.Spec {
			ns = p.NsPerSweep
		}
	}
	sweeps := 1000.0
	if ns > 0 {
		sweeps = min(sweeps, 0.1*float64(left.Nanoseconds())/ns)
	}
	return int64(sweeps * gibbs.StepsPerSweep(smp))
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
