package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
	"github.com/pgibbs/pgibbs/tgm"
)

func init() {
	register(&command{
		name:    "mh",
		summary: "exact (and approximate) minibatch Metropolis–Hastings on the MH papers' targets",
		example: "pgibbs mh -model tgm -sampler tunamh -step 0.1 -chi 1e-4 -iters 100000 -json",
		run:     runMH,
	})
}

// paperSteps are the TunaMH paper's random-walk step sizes (its Tables 2
// and 3) by model and sampler; the CLI uses them when -step is not set.
var paperSteps = map[string]map[string]float64{
	"tgm":      {"mh": 0.3, "tfmh": 2.2e-2, "flymc": 1e-2, "tunamh": 0.1, "poissonmh": 0.1, "smh1": 0.1, "mhss1": 0.1},
	"rlr":      {"mh": 4e-3, "tfmh": 1e-4, "flymc": 2.7e-3, "tunamh": 8e-4, "smh1": 4e-3, "smh2": 4e-3, "mhss1": 4e-3, "mhss2": 4e-3},
	"logistic": {"mh": 5e-3, "tfmh": 1e-4, "flymc": 2e-3, "tunamh": 1e-3},
}

// mhOutput is the JSON object of `pgibbs mh -json`.
type mhOutput struct {
	Model          string    `json:"model"`
	Sampler        string    `json:"sampler"`
	N              int       `json:"n"`
	Dim            int       `json:"dim"`
	Step           float64   `json:"step"`
	Chi            float64   `json:"chi,omitempty"`
	Lambda         float64   `json:"lambda,omitempty"`
	Seed           uint64    `json:"seed"`
	Chains         int       `json:"chains"`
	Iterations     int64     `json:"iterations"`
	Burn           int64     `json:"burn"`
	Seconds        float64   `json:"seconds"`
	AcceptanceRate float64   `json:"acceptance_rate"`
	AvgBatchSize   float64   `json:"avg_batch_size"`
	EvalsPerStep   float64   `json:"evals_per_step"`
	FullSteps      int64     `json:"full_steps"`
	Mean           []float64 `json:"mean"`
	ESSPerSecond   float64   `json:"ess_per_second"`
	TV             *float64  `json:"tv,omitempty"`
	StateSHA256    string    `json:"state_sha256"`
	convergence
}

func runMH(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "mh", "Runs a minibatch Metropolis–Hastings sampler on a target of the TunaMH paper:\n"+
		"  tgm       the truncated Gaussian mixture on [−3, 3]², β = 10⁻⁴, flat prior (N = 10⁶)\n"+
		"  rlr       robust linear regression, Student-t ν = 4 (N = 10⁵, d = 10)\n"+
		"  logistic  logistic regression on synthetic data (N = 10⁴, d = 10)\n"+
		"  bias      the random walk on {0, …, K−1} whose exact target is uniform (N = 6000)\n"+
		"Step sizes, χ and λ default to the paper's settings where it gives them.")
	model := fs.String("model", "tgm", "target: tgm, rlr, logistic or bias")
	sampler := fs.String("sampler", "tunamh", "sampler: mh, poissonmh, tunamh, tfmh, smh1, smh2, flymc, mhss1, mhss2, barker, austere")
	step := fs.Float64("step", 0, "random-walk step size (default: the paper's for the model and sampler, else 0.1)")
	chi := fs.Float64("chi", 0, "TunaMH's χ (default 1e-4 for tgm, 1e-5 otherwise)")
	lambda := fs.Float64("lambda", 0, "Poisson-MH's λ (default 500)")
	n := fs.Int("n", 0, "number of data points (default per model)")
	dim := fs.Int("d", 10, "dimension of the regression models")
	k := fs.Int("K", 200, "number of states of the bias example")
	mapStart := fs.Bool("map", false, "start at the posterior mode and expand control variates and bounds there")
	iters := fs.Int64("iters", 100000, "steps per chain")
	burn := fs.Int64("burn", 0, "steps per chain before statistics are collected")
	chains := fs.Int("chains", 1, "independent chains, run in parallel")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object")
	ctl := addControlFlags(fs, "mh")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := ctl.setup(fs); err != nil {
		return err
	}
	known := false
	for _, s := range mh.Names() {
		known = known || s == *sampler
	}
	switch {
	case !known:
		return usagef("-sampler %q: want one of %v", *sampler, mh.Names())
	case *step < 0 || *step != *step || math.IsInf(*step, 0):
		return usagef("-step %v: need a step > 0", *step)
	case *chi < 0 || *chi != *chi || math.IsInf(*chi, 0):
		return usagef("-chi %v: need χ > 0", *chi)
	case *lambda < 0 || *lambda != *lambda || math.IsInf(*lambda, 0):
		return usagef("-lambda %v: need λ > 0", *lambda)
	case *n < 0 || *n > 10_000_000:
		return usagef("-n %d: need 1 to 10⁷", *n)
	case *dim < 1 || *dim > 10000:
		return usagef("-d %d: need 1 to 10⁴", *dim)
	case *k < 2 || *k > 1_000_000:
		return usagef("-K %d: need 2 to 10⁶", *k)
	case *iters < 1 || *burn < 0 || *burn >= *iters:
		return usagef("-iters %d, -burn %d: need 0 ≤ burn < iters", *iters, *burn)
	case *chains < 1 || *chains > 4096:
		return usagef("-chains %d: need 1 to 4096", *chains)
	}
	// The target, from its own data seed so that chains share it.
	dataRand := rand.New(rand.NewPCG(*seed, 0xda7a))
	var target mh.Target
	var mode []float64
	opts := mh.Options{Step: *step, Chi: *chi, Lambda: *lambda}
	switch *model {
	case "tgm":
		cfg := tgm.MHConfig()
		if *n > 0 {
			cfg.N = *n
		}
		m, err := tgm.Generate(cfg, dataRand)
		if err != nil {
			return err
		}
		target = m.Target()
		mode = []float64{0, 1} // the mode the paper starts from
		opts.Init = mode
		if opts.Chi == 0 {
			opts.Chi = 1e-4
		}
	case "rlr", "logistic":
		nn := *n
		var withMode interface{ Mode([]float64) error }
		if *model == "rlr" {
			if nn == 0 {
				nn = 100_000
			}
			m, err := targets.GenerateRobustLinear(nn, *dim, 4, dataRand)
			if err != nil {
				return err
			}
			target, withMode = m, m
		} else {
			if nn == 0 {
				nn = 10_000
			}
			m, _, err := targets.GenerateLogistic(nn, *dim, dataRand)
			if err != nil {
				return err
			}
			target, withMode = m, m
		}
		if *mapStart || *sampler == "smh1" || *sampler == "smh2" || *sampler == "mhss1" || *sampler == "mhss2" {
			mode = make([]float64, *dim)
			if err := withMode.Mode(mode); err != nil {
				return err
			}
			opts.Init, opts.Ref = mode, mode
		}
		if opts.Chi == 0 {
			opts.Chi = 1e-5
		}
	case "bias":
		b, err := targets.NewBias(*k)
		if err != nil {
			return err
		}
		target = b
		opts.Proposal = targets.LazyWalk{K: *k}
		opts.Init = []float64{float64(*k / 2)}
		if opts.Chi == 0 {
			opts.Chi = 1e-4
		}
	default:
		return usagef("-model %q: want tgm, rlr, logistic or bias", *model)
	}
	if opts.Step == 0 {
		opts.Step = 0.1
		if s, ok := paperSteps[*model][*sampler]; ok {
			opts.Step = s
		}
	}
	if opts.Lambda == 0 {
		opts.Lambda = 500
	}
	res, err := runMHChains(ctx, ctl, target, *sampler, opts, *iters, *burn, *chains, *seed)
	if err != nil {
		return err
	}
	out := mhOutput{Model: *model, Sampler: *sampler, N: target.N(), Dim: target.Dim(), Step: opts.Step,
		Seed: *seed, Chains: *chains, Iterations: res.steps, Burn: *burn, Seconds: res.seconds,
		AcceptanceRate: res.stats.AcceptanceRate(),
		AvgBatchSize:   res.stats.Batch / float64(res.stats.Steps),
		EvalsPerStep:   float64(res.stats.Evals) / float64(res.stats.Steps),
		FullSteps:      res.stats.FullSteps, Mean: res.mean, StateSHA256: res.stateHash}
	if *sampler == "tunamh" {
		out.Chi = opts.Chi
	}
	if *sampler == "poissonmh" {
		out.Lambda = opts.Lambda
	}
	if out.convergence, err = summarize(res.traces); err != nil {
		return err
	}
	if res.seconds > 0 {
		out.ESSPerSecond = out.ESSBulkMin / res.seconds
	}
	if *model == "bias" {
		tv := res.biasTV(*k)
		out.TV = &tv
	}
	if *asJSON {
		return writeJSON(e, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "target\t%s, N = %d, dimension %d\n", out.Model, out.N, out.Dim)
	fmt.Fprintf(tw, "sampler\t%s (step %g", out.Sampler, out.Step)
	if out.Chi > 0 {
		fmt.Fprintf(tw, ", χ = %g", out.Chi)
	}
	if out.Lambda > 0 {
		fmt.Fprintf(tw, ", λ = %g", out.Lambda)
	}
	fmt.Fprintf(tw, ")\n")
	fmt.Fprintf(tw, "iterations\t%d in %d chain(s), %.2f s\n", out.Iterations, out.Chains, out.Seconds)
	fmt.Fprintf(tw, "acceptance\t%.4f\n", out.AcceptanceRate)
	fmt.Fprintf(tw, "average batch size\t%.2f (%.2f ℓ_i evaluations a step)\n", out.AvgBatchSize, out.EvalsPerStep)
	fmt.Fprintf(tw, "mean\t%.4g\n", out.Mean)
	fmt.Fprintf(tw, "ESS a second\t%.2f\n", out.ESSPerSecond)
	printConvergence(tw, out.convergence)
	if out.TV != nil {
		fmt.Fprintf(tw, "TV to the exact (uniform) target\t%.4f\n", *out.TV)
	}
	return tw.Flush()
}

// mhResult is what a set of MH chains measured.
type mhResult struct {
	stats     mh.Stats      // summed over chains
	steps     int64         // total steps
	seconds   float64       // wall time
	traces    [][][]float64 // [coordinate][chain][draw], thinned
	mean      []float64
	stateHash string
}

// maxDraws bounds the stored draws of a chain (the trace is thinned).
const maxDraws = 20000

// mhUnit is one MH chain as the checkpointing loop drives it, with its
// running sums and thinned trace (which a checkpoint saves too).
type mhUnit struct {
	s          mh.Sampler
	src        *rand.PCG
	done       int64
	burn, thin int64
	acc        mhAccum
	file       *traceFile
	count      atomic.Int64 // u.done, published for the progress bar
}

func (u *mhUnit) progressCounter() *atomic.Int64 { return &u.count }

// mhAccum is what an MH chain accumulates past the burn-in.
type mhAccum struct {
	Sums  []float64   `json:"sums"`
	Draws [][]float64 `json:"draws"` // per coordinate
}

func (u *mhUnit) advance(ctx context.Context, to int64) (int64, error) {
	doneCh := ctx.Done()
	defer func() { u.count.Store(u.done) }()
	for ; u.done < to; u.done++ {
		select {
		case <-doneCh:
			return u.done, ctx.Err()
		default:
		}
		if u.done&1023 == 0 {
			u.count.Store(u.done)
		}
		u.s.Step()
		if err := u.s.Err(); err != nil {
			return u.done + 1, err
		}
		if u.done < u.burn {
			continue
		}
		x := u.s.State()
		for j, v := range x {
			u.acc.Sums[j] += v
		}
		if (u.done-u.burn)%u.thin == 0 {
			for j, v := range x {
				u.acc.Draws[j] = append(u.acc.Draws[j], v)
			}
		}
		if u.file != nil {
			u.file.Observe(u.done+1-u.burn, 0, x)
		}
	}
	return u.done, nil
}

func (u *mhUnit) save() (chainCheck, error) {
	var cc chainCheck
	var err error
	if cc.RNG, err = u.src.MarshalBinary(); err != nil {
		return cc, err
	}
	if cc.Sampler, err = u.s.(mh.Snapshotter).Snapshot(); err != nil {
		return cc, err
	}
	acc, err := json.Marshal(u.acc)
	if err != nil {
		return cc, err
	}
	cc.Observers = []json.RawMessage{acc}
	if u.file != nil {
		b, err := u.file.Snapshot()
		if err != nil {
			return cc, err
		}
		cc.Observers = append(cc.Observers, b)
		cc.TraceBytes = u.file.written
	}
	return cc, nil
}

func (u *mhUnit) load(cc chainCheck) error {
	if err := u.src.UnmarshalBinary(cc.RNG); err != nil {
		return fmt.Errorf("random number generator: %w", err)
	}
	if err := u.s.(mh.Snapshotter).Restore(cc.Sampler); err != nil {
		return err
	}
	want := 1
	if u.file != nil {
		want = 2
	}
	if len(cc.Observers) != want {
		return fmt.Errorf("the checkpoint has %d accumulators, the run %d", len(cc.Observers), want)
	}
	var acc mhAccum
	if err := json.Unmarshal(cc.Observers[0], &acc); err != nil || len(acc.Sums) != len(u.acc.Sums) || len(acc.Draws) != len(u.acc.Draws) {
		return fmt.Errorf("the checkpoint's accumulators do not fit the target (%v)", err)
	}
	u.acc = acc
	if u.file != nil {
		if err := u.file.Restore(cc.Observers[1]); err != nil {
			return err
		}
	}
	u.done = cc.Steps
	return nil
}

// runMHChains runs independent chains in parallel, checkpointed by ctl.
func runMHChains(ctx context.Context, ctl *control, t mh.Target, name string, opts mh.Options, iters, burn int64, chains int, seed uint64) (*mhResult, error) {
	d := t.Dim()
	thin := max(int64(1), (iters-burn+maxDraws-1)/maxDraws)
	units := make([]unit, chains)
	mus := make([]*mhUnit, chains)
	vars := make([]int, d)
	for j := range vars {
		vars[j] = j
	}
	for c := range chains {
		src := gibbs.StreamSource(seed, c)
		s, err := mh.New(name, t, rand.New(src), &opts)
		if err != nil {
			return nil, err
		}
		u := &mhUnit{s: s, src: src, burn: burn, thin: thin,
			acc: mhAccum{Sums: make([]float64, d), Draws: make([][]float64, d)}}
		if ctl.trace != "" {
			var size int64
			if ctl.resumed != nil && c < len(ctl.resumed.Chains) {
				size = ctl.resumed.Chains[c].TraceBytes
			}
			f, err := openTrace(tracePath(ctl.trace, c, chains), vars, 1, ctl.resumed != nil, size)
			if err != nil {
				return nil, err
			}
			defer f.close()
			u.file = f
		}
		units[c], mus[c] = u, u
	}
	start := time.Now()
	if _, err := ctl.runUnits(ctx, units, iters); err != nil {
		return nil, err
	}
	res := &mhResult{traces: make([][][]float64, d), mean: make([]float64, d), seconds: time.Since(start).Seconds()}
	h := sha256.New()
	var b [8]byte
	for _, u := range mus {
		st := u.s.Stats()
		res.stats.Add(st)
		res.steps += st.Steps
		for j := range res.mean {
			res.mean[j] += u.acc.Sums[j] / float64(int64(chains)*(iters-burn))
			res.traces[j] = append(res.traces[j], u.acc.Draws[j])
		}
		for _, v := range u.s.State() {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	res.stateHash = hex.EncodeToString(h.Sum(nil))
	return res, nil
}

// biasTV returns the total variation between the chains' histogram of θ
// and the uniform target of the bias example.
func (r *mhResult) biasTV(k int) float64 {
	h := make([]float64, k)
	for _, ch := range r.traces[0] {
		for _, v := range ch {
			if i := int(v); i >= 0 && i < k {
				h[i]++
			}
		}
	}
	u := make([]float64, k)
	for i := range u {
		u[i] = 1
	}
	tv, _ := diag.TotalVariation(h, u)
	return tv
}
