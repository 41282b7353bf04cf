package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/glass"
	"github.com/pgibbs/pgibbs/infer"
)

// Keys of the glass study's samplers.
const (
	GlassGibbs    = "gibbs"             // plain single-site Gibbs (random scan), the registry's "gibbs"
	GlassExchange = "exchange"          // replica exchange over Gibbs replicas, the ladder tuned
	GlassHoudayer = "exchange-houdayer" // the same in twins with Houdayer's cluster moves
	GlassDefault  = "default"           // package infer's default answer, exact elimination forbidden
)

// glassKeys are the samplers the study knows, in plotting order.
var glassKeys = []string{GlassGibbs, GlassExchange, GlassHoudayer, GlassDefault}

// GlassSettings configure the replica-exchange study (issue 35): on 2-D
// ±J Edwards–Anderson glasses in random fields (package glass, free
// boundaries), small enough for exact elimination, plain Gibbs, replica
// exchange with and without Houdayer moves, and package infer's default
// answer each run for the same wall time on one core, scored against the
// exact marginals (the UAI 2022 score, diag.MARScore), with the log Z
// estimates of the exchanges against the exact log Z.
type GlassSettings struct {
	// Sizes are the sides L of the L×L instances, Betas their inverse
	// temperatures, FieldSD the σ of their random fields, Seeds the
	// instances drawn at each (L, β) (glass.Spec.Seed).
	Sizes   []int
	Betas   []float64
	FieldSD float64
	Seeds   []uint64
	// Samplers are the keys of the samplers compared (GlassGibbs,
	// GlassExchange, GlassHoudayer, GlassDefault), each run for Seconds of
	// wall time (construction, the exchanges' ladder tuning and the
	// default's pilots included). The samplers run directly (not through
	// infer) discard the first Burn of their time (or their construction,
	// if it takes longer), then keep Rao–Blackwellised marginals and the
	// energy after every sweep until Seconds, and for at least a sweep
	// (a run over its time when its construction took it all).
	Samplers []string
	Seconds  float64
	Burn     float64
	// WindowC is Sokal's c of the energy's τ (see integratedTime).
	WindowC float64
	// MaxBytes bounds the default answer's exact elimination
	// (infer.Options.MaxBytes): small enough to forbid it, as `pgibbs uai
	// -exact-memory 1K` does, so that it samples.
	MaxBytes float64
}

// GlassPaper returns the study's settings: L = 8, 12, 16, 20 at β = 2
// and 3, FieldSD 0.1, one instance each (seed 1), 10 s a run (quick: 1 s),
// the four samplers: 4·2·4·10 s, about six minutes on one core.
func GlassPaper(quick bool) GlassSettings {
	s := GlassSettings{
		Sizes: []int{8, 12, 16, 20}, Betas: []float64{2, 3}, FieldSD: 0.1, Seeds: []uint64{1},
		Samplers: slices.Clone(glassKeys), Seconds: 10, Burn: 0.1, WindowC: 6, MaxBytes: 1024,
	}
	if quick {
		s.Seconds = 1
	}
	return s
}

// glassMaxL is the largest side the study takes: exact elimination of an
// L×L grid has width L (a table of 2^L entries).
const glassMaxL = 24

func (s GlassSettings) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("experiments: glass: "+format, args...)
	}
	switch {
	case len(s.Sizes) == 0 || len(s.Betas) == 0 || len(s.Seeds) == 0 || len(s.Samplers) == 0:
		return bad("sizes %v, β %v, seeds %v, samplers %v: need at least one of each", s.Sizes, s.Betas, s.Seeds, s.Samplers)
	case !(s.Seconds > 0) || s.Seconds > 3600:
		return bad("%v s a run: need 0 < s ≤ 3600", s.Seconds)
	case !(s.Burn >= 0 && s.Burn < 0.9):
		return bad("burn-in fraction %v: need 0 ≤ f < 0.9", s.Burn)
	case !(s.WindowC >= 4 && s.WindowC <= 100):
		return bad("window constant c = %v: need 4 ≤ c ≤ 100", s.WindowC)
	case s.MaxBytes < 0:
		return bad("MaxBytes = %v", s.MaxBytes)
	}
	for _, l := range s.Sizes {
		if l < 2 || l > glassMaxL {
			return bad("L = %d: need 2 to %d (the exact marginals are eliminated)", l, glassMaxL)
		}
	}
	for _, b := range s.Betas {
		if err := (glass.Spec{L: 2, Beta: b, FieldSD: s.FieldSD}).Validate(); err != nil {
			return bad("%v", err)
		}
	}
	for k, key := range s.Samplers {
		if !slices.Contains(glassKeys, key) || slices.Contains(s.Samplers[:k], key) {
			return bad("sampler %q: need distinct samplers among %v", key, glassKeys)
		}
	}
	return nil
}

// GlassRow is one sampler on one instance.
type GlassRow struct {
	L       int
	Beta    float64
	Seed    uint64
	Sampler string // its key
	// Choice is the default answer's sampler (infer.Spec.String), or its
	// method where it chose none; "" for the others.
	Choice string
	// Seconds is the run's wall time, Sweeps its length in sweeps of the
	// β = 1 chain (burn-in included; the default's: infer.Answer.Sweeps).
	Seconds, Sweeps float64
	// Replicas, RoundTrips and SwapAcceptance (the mean over neighbouring
	// pairs of rungs) describe an exchange (0 for a single chain).
	Replicas       int
	RoundTrips     int64
	SwapAcceptance float64
	// Tau is τ of the energy of the β = 1 chain, in sweeps, after the
	// burn-in (zero for the default answer, whose chains infer runs).
	Tau TauEstimate
	// MeanHellinger and Score are the marginals' mean Hellinger error and
	// UAI 2022 score against the exact marginals (diag.MARScore).
	MeanHellinger, Score float64
	// LogZ and LogZErr are the estimate of log Z and its standard error
	// (exchange.Exchange.LogZ; NaN where there is none, or too few rounds
	// of swaps for an error); ExactLogZ is the exact value, by
	// elimination.
	LogZ, LogZErr, ExactLogZ float64
}

// LogZErrorPerVar returns (LogZ − ExactLogZ)/L², the error of the log Z
// estimate per variable (NaN without one).
func (r GlassRow) LogZErrorPerVar() float64 { return (r.LogZ - r.ExactLogZ) / float64(r.L*r.L) }

// LogZWithin2SE reports whether |LogZ − ExactLogZ| ≤ 2·LogZErr.
func (r GlassRow) LogZWithin2SE() bool { return math.Abs(r.LogZ-r.ExactLogZ) <= 2*r.LogZErr }

// GlassResult is what Glass measured.
type GlassResult struct {
	Settings GlassSettings
	// Rows are instance by instance (L, then β, then seed), sampler by
	// sampler in the order of Settings.Samplers.
	Rows    []GlassRow
	Seconds float64
}

// glassInstance is one instance with its exact answer.
type glassInstance struct {
	spec      glass.Spec
	in        *glass.Instance
	g         *factorgraph.Graph
	sizes     []int
	exact     [][]float64
	exactLogZ float64
}

// Glass runs the study on one core (GOMAXPROCS = 1 for its duration):
// for each instance, its exact marginals and log Z by exact elimination
// (infer.PlanExact), then each sampler for s.Seconds. Run k of the
// study (instance by instance, sampler by sampler) draws from stream k of
// cfg.Seed; the default answer is seeded with cfg.Seed + k. The results
// depend on the wall time, not only on the seed.
func Glass(ctx context.Context, s GlassSettings, cfg harness.Config) (*GlassResult, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	start := time.Now()
	prog := cfg.ProgressOrNone()
	prog.Start("glass", int64(len(s.Sizes)*len(s.Betas)*len(s.Seeds)*len(s.Samplers)))
	res := &GlassResult{Settings: s}
	k := uint64(0)
	for _, l := range s.Sizes {
		for _, b := range s.Betas {
			for _, seed := range s.Seeds {
				in, err := newGlassInstance(ctx, glass.Spec{L: l, Beta: b, FieldSD: s.FieldSD, Seed: seed})
				if err != nil {
					return res, err
				}
				for _, key := range s.Samplers {
					row, err := in.run(ctx, s, key, cfg.Seed, k)
					if err != nil {
						return res, fmt.Errorf("experiments: glass: %s on L = %d, β = %g: %w", key, l, b, err)
					}
					res.Rows = append(res.Rows, row)
					prog.Add(1)
					k++
				}
			}
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// newGlassInstance builds the instance of spec and solves it exactly.
func newGlassInstance(ctx context.Context, spec glass.Spec) (*glassInstance, error) {
	in, err := glass.Draw(spec)
	if err != nil {
		return nil, err
	}
	g, err := in.Graph()
	if err != nil {
		return nil, err
	}
	ex, err := infer.PlanExact(ctx, g, glassExactBytes, glassExactTime)
	if err == nil {
		err = ctx.Err() // a cancelled planning leaves components unplanned
	}
	if err != nil {
		return nil, err
	}
	if !ex.All() {
		return nil, fmt.Errorf("experiments: glass: L = %d, β = %g cannot be eliminated within %g bytes and %v: %v", spec.L, spec.Beta, glassExactBytes, glassExactTime, ex.Why)
	}
	if err := ex.Solve(ctx, time.Time{}); err != nil {
		return nil, err
	}
	sizes := make([]int, g.NumVars())
	exact := make([][]float64, g.NumVars())
	for i := range sizes {
		sizes[i] = g.Domain(i).Size
	}
	ex.Overlay(exact, nil)
	logZ, _ := ex.LogZ(g)
	return &glassInstance{spec: spec, in: in, g: g, sizes: sizes, exact: exact, exactLogZ: logZ}, nil
}

// The exact elimination's bounds: at L = 24, width 24 or a little more, a
// few tables of 2^24 entries.
const (
	glassExactBytes = float64(4 << 30)
	glassExactTime  = 10 * time.Minute
)

// run runs sampler key on the instance: run k of the study.
func (in *glassInstance) run(ctx context.Context, s GlassSettings, key string, seed, k uint64) (GlassRow, error) {
	row := GlassRow{L: in.spec.L, Beta: in.spec.Beta, Seed: in.spec.Seed, Sampler: key, ExactLogZ: in.exactLogZ,
		LogZ: math.NaN(), LogZErr: math.NaN()}
	var (
		marg [][]float64
		err  error
	)
	if key == GlassDefault {
		marg, err = in.answer(ctx, s, seed+k, &row)
	} else {
		marg, err = in.sample(ctx, s, key, harness.RandStream(seed, k), &row)
	}
	if err != nil {
		return row, err
	}
	row.Score, row.MeanHellinger, err = diag.MARScore(marg, in.exact, in.g.Free())
	return row, err
}

// answer runs package infer's default answer with exact elimination
// forbidden and returns its marginals.
func (in *glassInstance) answer(ctx context.Context, s GlassSettings, seed uint64, row *GlassRow) ([][]float64, error) {
	budget := time.Duration(s.Seconds * float64(time.Second))
	a, err := infer.Marginals(ctx, in.g, infer.Options{Time: budget, MaxBytes: s.MaxBytes, Seed: seed})
	if err != nil {
		return nil, err
	}
	row.Seconds, row.Sweeps, row.LogZ, row.LogZErr = a.Seconds, a.Sweeps, a.LogZ, a.LogZError
	row.Choice = a.Method
	if a.Choice != nil {
		row.Choice = a.Choice.Spec.String()
	}
	if a.Run != nil && len(a.Run.Samplers) > 0 {
		exchangeStats(row, a.Run.Samplers[0])
	}
	return a.Marginals, nil
}

// sample runs sampler key (GlassGibbs, GlassExchange, GlassHoudayer)
// through the registry for s.Seconds, its first s.Burn of them discarded,
// and returns its Rao–Blackwellised marginals.
func (in *glassInstance) sample(ctx context.Context, s GlassSettings, key string, r *rand.Rand, row *GlassRow) ([][]float64, error) {
	start := time.Now()
	name, cfg := GlassGibbs, samplers.Config{}
	if key != GlassGibbs {
		name, cfg.Replica, cfg.Exchange.Houdayer = "exchange", "gibbs", key == GlassHoudayer
	}
	cfg.Context = ctx
	e, err := samplers.Lookup(name)
	if err != nil {
		return nil, err
	}
	smp, err := e.New(in.g, r, &cfg)
	if err != nil {
		return nil, err
	}
	mg, err := chain.NewRBMarginals(smp, in.sizes)
	if err != nil {
		return nil, err
	}
	c := &chain.Chain{Kernel: smp}
	secs := func(f float64) time.Time { return start.Add(time.Duration(f * s.Seconds * float64(time.Second))) }
	if err := advanceUntil(ctx, c, secs(s.Burn)); err != nil {
		return nil, err
	}
	tr := &energyTrace{in: in.in, k: smp}
	tr.next, _ = chain.Sweeps(smp)
	c.Observers = []chain.Observer{mg, tr}
	if err := advanceUntil(ctx, c, secs(1)); err != nil {
		return nil, err
	}
	if mg.N() == 0 { // the construction took the budget: one sweep more
		if err := c.Advance(ctx, c.Done()+int64(math.Ceil(gibbs.StepsPerSweep(smp)))); err != nil {
			return nil, err
		}
	}
	row.Seconds = time.Since(start).Seconds()
	row.Sweeps, _ = chain.Sweeps(smp)
	exchangeStats(row, smp)
	if row.Tau, err = integratedTime([][]float64{tr.series}, s.WindowC); err != nil {
		row.Tau = TauEstimate{Tau: math.NaN(), Err: math.NaN(), N: len(tr.series)}
	}
	return mg.Probs(), nil
}

// advanceUntil advances c until the time t (or ctx's end: its error).
func advanceUntil(ctx context.Context, c *chain.Chain, t time.Time) error {
	dctx, cancel := context.WithDeadline(ctx, t)
	defer cancel()
	err := c.Advance(dctx, math.MaxInt64)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil
	}
	return err
}

// exchangeStats records an exchange's replicas, round trips, mean swap
// acceptance and log Z estimate in row; a single chain leaves it.
func exchangeStats(row *GlassRow, smp gibbs.Sampler) {
	x, ok := smp.(*exchange.Exchange)
	if !ok {
		return
	}
	row.Replicas, row.RoundTrips = x.Replicas(), x.RoundTrips()
	var sum float64
	var pairs int
	for _, rung := range x.Ladder() {
		if rung.Tries > 0 {
			sum += rung.Acceptance
			pairs++
		}
	}
	if pairs > 0 {
		row.SwapAcceptance = sum / float64(pairs)
	}
	// As infer.Answer.LogZ: none before enough rounds for an error.
	if z, se, ok := x.LogZ(); ok && se > 0 && !math.IsInf(se, 1) {
		row.LogZ, row.LogZErr = z, se
	}
}

// energyTrace records the instance's energy E(s) (glass.Instance.Energy)
// of the chain's state once a sweep of its kernel.
type energyTrace struct {
	in     *glass.Instance
	k      chain.Kernel
	next   float64 // the sweeps at which the next energy is recorded
	series []float64
}

func (o *energyTrace) Observe(_ int64, _ int, x []float64) {
	if sw, _ := chain.Sweeps(o.k); sw >= o.next {
		o.series = append(o.series, o.in.Energy(x))
		o.next = math.Floor(sw) + 1
	}
}
