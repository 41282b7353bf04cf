package gibbs

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// Observer sees a chain after each variable update: t is the number of
// updates so far (1, 2, …), i the variable just updated and x the state, a
// view valid only during the call.
type Observer interface {
	Observe(t int64, i int, x []float64)
}

// Scan is the order in which a Runner updates variables.
type Scan int

const (
	// RandomScan updates a uniformly chosen free variable each step.
	RandomScan Scan = iota
	// SystematicScan updates the free variables in increasing order,
	// cyclically.
	SystematicScan
)

// Runner advances a sampler a number of updates, feeding observers.
type Runner struct {
	// Steps is the number of variable updates to run.
	Steps int64
	// Burn is the number of updates run before observers start seeing the
	// chain (they are part of Steps).
	Burn int64
	// Scan is the update order.
	Scan Scan
	// Observers see the chain after every update past Burn.
	Observers []Observer
	// Progress, if non-nil, is set to the number of updates done every
	// 1024 updates and when RunFrom returns, so that another goroutine can
	// display the progress of a long run.
	Progress *atomic.Int64
}

// Run advances s by r.Steps updates. It stops early, returning the error,
// when ctx is done or the sampler reports an error.
func (r Runner) Run(ctx context.Context, s Sampler) error {
	_, err := r.RunFrom(ctx, s, 0)
	return err
}

// RunFrom continues a run of which start updates are done (a resumed
// checkpoint): it performs updates start+1, …, r.Steps, numbering them as
// an uninterrupted run would (observers see the same update numbers, and a
// systematic scan resumes at the same variable), and returns the number of
// updates done when it stops: r.Steps, or fewer when ctx is done or the
// sampler reports an error, which it then returns.
func (r Runner) RunFrom(ctx context.Context, s Sampler, start int64) (n int64, err error) {
	if r.Steps < 0 || r.Burn < 0 || start < 0 {
		return start, fmt.Errorf("gibbs: runner: negative steps %d, burn-in %d or start %d", r.Steps, r.Burn, start)
	}
	var free []int
	if r.Scan == SystematicScan {
		free = freeOf(s)
		if len(free) == 0 {
			return start, errors.New("gibbs: runner: systematic scan needs a sampler that exposes its model")
		}
	}
	x := s.State()
	done := ctx.Done()
	if r.Progress != nil {
		defer func() { r.Progress.Store(n) }()
	}
	for t := start; t < r.Steps; t++ {
		// A non-blocking receive costs a few nanoseconds, so cancellation
		// is seen after at most one update however expensive updates are.
		select {
		case <-done:
			return t, ctx.Err()
		default:
		}
		if r.Progress != nil && t&1023 == 0 {
			r.Progress.Store(t)
		}
		var i int
		if r.Scan == SystematicScan {
			i = free[t%int64(len(free))]
			s.Update(i)
		} else {
			i = s.Step()
		}
		if err := s.Err(); err != nil {
			return t + 1, err
		}
		if t >= r.Burn {
			for _, o := range r.Observers {
				o.Observe(t+1-r.Burn, i, x)
			}
		}
	}
	return r.Steps, nil
}

// freeOf returns the free variables of a sampler of this package.
func freeOf(s Sampler) []int {
	if m, ok := s.(interface{ Model() factorgraph.Model }); ok {
		return m.Model().Free()
	}
	return nil
}

// Model returns the model the chain samples.
func (c *chain) Model() factorgraph.Model { return c.m }

// Streams returns k independent random number generators derived from seed:
// PCG generators whose two seed words are SplitMix64 hashes of (seed, c),
// so that chain c's stream depends only on seed and c.
func Streams(seed uint64, k int) []*rand.Rand {
	out := make([]*rand.Rand, k)
	for c := range out {
		out[c] = rand.New(StreamSource(seed, c))
	}
	return out
}

// StreamSource returns the PCG source of chain c for seed (see Streams).
func StreamSource(seed uint64, c int) *rand.PCG {
	s := seed ^ (uint64(c)+1)*0x9e3779b97f4a7c15
	p := new(paddedPCG)
	p.Seed(splitmix(&s), splitmix(&s))
	return &p.PCG
}

// paddedPCG fills a 64-byte size class, which the allocator aligns to 64
// bytes: each stream's state alone on its cache line, so that parallel
// workers (Chromatic) drawing from neighbouring streams do not invalidate
// each other's line at every draw.
type paddedPCG struct {
	rand.PCG
	_ [64 - 16]byte
}

func splitmix(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// RunChains runs chains in parallel, one goroutine each, chain c with
// observers obs[c] (obs may be nil). Each sampler must own its RNG (see
// Streams). It returns the first error any chain met; a failing chain
// cancels the others.
func (r Runner) RunChains(ctx context.Context, chains []Sampler, obs [][]Observer) error {
	_, err := r.RunChainsFrom(ctx, chains, obs, nil)
	return err
}

// RunChainsFrom is RunChains for chains of which start[c] updates are done
// (nil: none). It returns every chain's count of updates done when it
// stopped, so that a run stopped by ctx can be checkpointed and resumed.
func (r Runner) RunChainsFrom(ctx context.Context, chains []Sampler, obs [][]Observer, start []int64) ([]int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make([]int64, len(chains))
	if start != nil {
		copy(done, start)
	}
	errs := make([]error, len(chains))
	var wg sync.WaitGroup
	for c, s := range chains {
		rc := r
		if obs != nil {
			rc.Observers = obs[c]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := rc.RunFrom(ctx, s, done[c])
			done[c] = n
			if err != nil {
				errs[c] = fmt.Errorf("chain %d: %w", c, err)
				if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
					cancel() // a failing chain stops the others
				}
			}
		}()
	}
	wg.Wait()
	// Report a chain's own failure before the cancellations it caused.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return done, err
		}
	}
	return done, errors.Join(errs...)
}

// Marginals is an Observer that accumulates the run-average marginal
// distribution of every discrete variable: after n observed updates,
// Probs()[i][v] is the fraction of the n states in which x_i = v. It costs
// O(1) an update (a variable's count is brought up to date only when it
// changes or when read), so it does not dominate a sampler's cheap steps.
type Marginals struct {
	counts [][]float64
	cur    []int
	last   []int64
	n      int64
}

// NewMarginals returns marginal counters for the discrete variables of m
// (continuous variables get no counts).
func NewMarginals(m factorgraph.Model) *Marginals {
	n := m.NumVars()
	mg := &Marginals{counts: make([][]float64, n), cur: make([]int, n), last: make([]int64, n)}
	for i := range n {
		mg.counts[i] = make([]float64, m.Domain(i).Size)
		mg.cur[i] = -1
	}
	return mg
}

// Observe implements Observer.
func (mg *Marginals) Observe(_ int64, i int, x []float64) {
	if mg.n == 0 {
		for j := range mg.cur {
			if len(mg.counts[j]) > 0 {
				mg.cur[j] = int(x[j])
			}
		}
	}
	if c := mg.counts[i]; len(c) > 0 {
		if v := int(x[i]); v != mg.cur[i] {
			c[mg.cur[i]] += float64(mg.n - mg.last[i])
			mg.cur[i], mg.last[i] = v, mg.n
		}
	}
	mg.n++
}

// N returns the number of states observed.
func (mg *Marginals) N() int64 { return mg.n }

// Probs returns the marginal frequencies, one slice per variable (empty for
// continuous variables). The result is freshly allocated.
func (mg *Marginals) Probs() [][]float64 {
	out := make([][]float64, len(mg.counts))
	for j, c := range mg.counts {
		out[j] = make([]float64, len(c))
		if len(c) == 0 || mg.n == 0 {
			continue
		}
		copy(out[j], c)
		out[j][mg.cur[j]] += float64(mg.n - mg.last[j])
		for v := range out[j] {
			out[j][v] /= float64(mg.n)
		}
	}
	return out
}

// Pool returns the marginal frequencies of several runs of the same model
// pooled: each run weighted by its number of observed states.
func Pool(ms ...*Marginals) [][]float64 {
	var out [][]float64
	var total int64
	for _, mg := range ms {
		p := mg.Probs()
		if out == nil {
			out = make([][]float64, len(p))
			for j := range p {
				out[j] = make([]float64, len(p[j]))
			}
		}
		for j := range p {
			for v := range p[j] {
				out[j][v] += p[j][v] * float64(mg.n)
			}
		}
		total += mg.n
	}
	if total > 0 {
		for j := range out {
			for v := range out[j] {
				out[j][v] /= float64(total)
			}
		}
	}
	return out
}
