package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// siteGibbs is plain Gibbs as a gibbs.Factory.
func siteGibbs(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
	return site.NewGibbs(m, r, opt)
}

// blocks is blocked Gibbs (blocks of width 1: pairs and single variables
// drawn jointly where the model allows) as a gibbs.Factory.
func blocks(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
	return blocked.New(m, r, opt)
}

// frustrated returns a 3×3 ±J Ising glass with strong couplings (|βJ| =
// 1.5) and weak fields: four frustrated plaquettes' worth of valleys, on
// which single-site Gibbs at β = 1 mixes slowly and hot replicas do not.
func frustrated(t testing.TB, seed uint64) gibbstest.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	b := factorgraph.NewBuilder()
	const L = 3
	b.AddVariables(L*L, factorgraph.Discrete(2))
	for i := range L {
		for j := range L {
			v := i*L + j
			if j+1 < L {
				b.AddFactor(factorgraph.NewPotts(v, v+1, 3*float64(2*r.IntN(2)-1)))
			}
			if i+1 < L {
				b.AddFactor(factorgraph.NewPotts(v, v+L, 3*float64(2*r.IntN(2)-1)))
			}
			h := 0.2 * r.NormFloat64()
			b.AddFactor(factorgraph.NewTable([]int{v}, []int{2}, []float64{-h, h}))
		}
	}
	g := gibbstest.Build(t, b)
	init, _ := gibbstest.Connected(g, gibbstest.Enumerate(g))
	return gibbstest.Graph{G: g, Init: init, Seed: seed}
}

// graphs are the exactness tests' models: the family's random graphs (hard
// zeros, evidence) and two frustrated glasses.
func graphs(t *testing.T) []gibbstest.Graph {
	return append(gibbstest.Graphs(t), frustrated(t, 1), frustrated(t, 2))
}

// hotTau is the tests' Options.HotTau: the ladder cut where replicas
// forget their energy within 2.5 sweeps, with a log-Z tail below.
const hotTau = 2.5

// fixed is a hand-made ladder with β = 0 at its hot end.
var fixed = []float64{1, 0.6, 0.3, 0}

func newExchange(tg gibbstest.Graph, r *rand.Rand, f gibbs.Factory, xo *Options) (*Exchange, error) {
	return New(tg.G, f, r, &gibbs.Options{Init: tg.Init}, xo)
}

// TestExact: the β = 1 replica's visits (joint states and marginals) and
// its Rao–Blackwellised marginals match enumeration, over plain Gibbs with
// a fixed ladder and frequent swaps, with a tuned ladder, and over blocked
// Gibbs.
func TestExact(t *testing.T) {
	gs := graphs(t)
	cases := []gibbstest.SamplerCase{
		{Name: "gibbs fixed ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{Betas: fixed, SwapEvery: 1})
		}},
		{Name: "gibbs random scan", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{Betas: fixed, SwapEvery: 1, RandomScan: true})
		}},
		{Name: "gibbs tuned ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{TuneSweeps: 50, SwapEvery: 2})
		}},
		{Name: "gibbs Houdayer fixed ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{Betas: fixed, SwapEvery: 1, Houdayer: true})
		}},
		{Name: "gibbs Houdayer tuned ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{TuneSweeps: 50, SwapEvery: 2, Houdayer: true})
		}},
	}
	gibbstest.CheckExact(t, gs, cases, 3, 2)
	// Blocked Gibbs's steps cost more: a shorter run.
	gibbstest.CheckExact(t, gs, []gibbstest.SamplerCase{
		{Name: "blocked fixed ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), blocks, r, &gibbs.Options{Init: init}, &Options{Betas: fixed})
		}},
	}, 3, 8)
}

// TestExactRaoBlackwell: the β = 1 replica's Rao–Blackwellised marginals,
// credited through the Exchange's conditionals with rounds of swaps in
// between, match enumeration.
func TestExactRaoBlackwell(t *testing.T) {
	for _, tg := range graphs(t) {
		for _, f := range []struct {
			name  string
			f     gibbs.Factory
			steps int
		}{{"gibbs", siteGibbs, 100000}, {"blocked", blocks, 25000}} {
			e, err := newExchange(tg, rand.New(rand.NewPCG(tg.Seed, 5)), f.f, &Options{Betas: fixed, SwapEvery: 3})
			if err != nil {
				t.Fatal(err)
			}
			if z, where := gibbstest.RBZ(tg.G, e, f.steps); z > gibbstest.ZLimit {
				t.Errorf("graph %d, %s: %s: z = %.2f", tg.Seed, f.name, where, z)
			}
		}
	}
}

// TestBroken: the exactness check rejects a swap rule with the energy
// difference's sign wrong, and swaps accepted without the test.
func TestBroken(t *testing.T) {
	gs := graphs(t)
	mk := func(mode int) func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			e, err := newExchange(tg, rand.New(rand.NewPCG(tg.Seed, 3)), siteGibbs, &Options{Betas: fixed, SwapEvery: 1})
			if err == nil {
				e.broken = mode
			}
			return e, err
		}
	}
	gibbstest.CheckBroken(t, gs, []gibbstest.BrokenCase{
		{Name: "wrong sign", New: mk(brokenSign)},
		{Name: "always swap", New: mk(brokenAlways)},
	})
	// Houdayer's cluster grown through agreeing variables too, alone: one
	// rung (no swaps), so that only the moves can be wrong.
	gibbstest.CheckBroken(t, gs, []gibbstest.BrokenCase{
		{Name: "Houdayer cluster", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			e, err := newExchange(tg, rand.New(rand.NewPCG(tg.Seed, 3)), siteGibbs, &Options{Betas: []float64{1}, SwapEvery: 1, Houdayer: true})
			if err == nil {
				e.broken = brokenCluster
			}
			return e, err
		}},
	})
}

// enumerateLogZ returns log Σ_x exp(ℓ(x)) over the free variables' values.
func enumerateLogZ(g *factorgraph.Graph) float64 {
	x := make([]float64, g.NumVars())
	for i := range x {
		if v, ok := g.Observed(i); ok {
			x[i] = v
		}
	}
	free := g.Free()
	var terms []float64
	var rec func(k int)
	rec = func(k int) {
		if k == len(free) {
			l := 0.0
			for f := range g.NumFactors() {
				l += g.Factor(f).Value(x)
			}
			terms = append(terms, l)
			return
		}
		for v := range g.Domain(free[k]).Size {
			x[free[k]] = float64(v)
			rec(k + 1)
		}
	}
	rec(0)
	mx := math.Inf(-1)
	for _, l := range terms {
		mx = max(mx, l)
	}
	s := 0.0
	for _, l := range terms {
		s += math.Exp(l - mx)
	}
	return mx + math.Log(s)
}

// TestLogZ: on models without hard factors the bridge estimate of log Z
// is within four standard errors of enumeration, with a small error, over
// a ladder tuned to β = 0 and over one cut where the
// replicas mix on their own, with its log-Z tail; the same estimate with
// the reference energies' term dropped is not.
func TestLogZ(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		tg := frustrated(t, seed)
		if seed > 2 {
			tg = gibbstest.RandomGraph(t, seed, false, true)
		}
		exact := enumerateLogZ(tg.G)
		for _, full := range []bool{true, false} {
			xo := &Options{TuneSweeps: 100}
			if !full {
				xo.HotTau = hotTau
			}
			e, err := newExchange(tg, rand.New(rand.NewPCG(seed, 9)), siteGibbs, xo)
			if err != nil {
				t.Fatal(err)
			}
			if !full && seed <= 2 && e.LogZRungs() == 0 {
				t.Errorf("seed %d: the glass's ladder was not cut (hottest rung %v)", seed, e.betas[len(e.betas)-1])
			}
			for range 1000000 {
				e.Step()
			}
			est, se, ok := e.LogZ()
			if !ok {
				t.Fatalf("seed %d, full ladder %v: no log Z", seed, full)
			}
			if math.Abs(est-exact) > 4*se || se > 0.05 {
				t.Errorf("seed %d, full ladder %v: log Z %.5f ± %.5f, exact %.5f (%d replicas, %d of them the tail's)", seed, full, est, se, exact, e.Replicas(), e.LogZRungs())
			}
			// Broken: the references' term Σ Δ_k c_k left out, the tail's
			// too.
			wrong := est
			for x := e; x != nil; x = x.tail {
				for k, c := range x.lz.refs {
					wrong -= (x.betas[k] - x.betas[k+1]) * c
				}
			}
			if math.Abs(wrong-exact) <= 4*se {
				t.Errorf("seed %d, full ladder %v: the broken estimate %.5f passes (exact %.5f ± %.5f)", seed, full, wrong, exact, se)
			}
		}
	}
	// With hard factors, log Z is not known at β = 0: no estimate.
	tg := gibbstest.Graphs(t)[9]
	e, err := newExchange(tg, rand.New(rand.NewPCG(1, 1)), siteGibbs, &Options{Betas: fixed})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := e.LogZ(); ok {
		t.Error("log Z estimated on a model with hard factors")
	}
}

// TestResume: a chain restored from a snapshot taken mid-run, on an
// Exchange built again with the same seed (the same tuned ladder), goes on
// bit for bit as the original, its log Z estimate included; a snapshot of
// another ladder is refused.
func TestResume(t *testing.T) {
	tg := frustrated(t, 3)
	mk := func(xo *Options) (*Exchange, *rand.PCG) {
		src := rand.NewPCG(4, 4)
		e, err := newExchange(tg, rand.New(src), siteGibbs, xo)
		if err != nil {
			t.Fatal(err)
		}
		return e, src
	}
	a, b, snap := resumed(t, func() (*Exchange, *rand.PCG) { return mk(&Options{TuneSweeps: 30}) }, 5003, 20000)
	za, sa, _ := a.LogZ()
	zb, sb, _ := b.LogZ()
	if za != zb || sa != sb || a.RoundTrips() != b.RoundTrips() {
		t.Errorf("log Z %v ± %v, %d round trips; resumed %v ± %v, %d", za, sa, a.RoundTrips(), zb, sb, b.RoundTrips())
	}
	// A ladder cut short of β = 0: its log-Z tail resumes bit for bit too,
	// and a snapshot without a tail is refused.
	ca, cb, csnap := resumed(t, func() (*Exchange, *rand.PCG) { return mk(&Options{TuneSweeps: 30, HotTau: hotTau}) }, 5003, 20000)
	if ca.LogZRungs() == 0 {
		t.Error("no log-Z tail: its resumption is not tested")
	}
	za, sa, _ = ca.LogZ()
	zb, sb, _ = cb.LogZ()
	if za != zb || sa != sb || ca.Stats() != cb.Stats() {
		t.Errorf("cut ladder: log Z %v ± %v, %+v; resumed %v ± %v, %+v", za, sa, ca.Stats(), zb, sb, cb.Stats())
	}
	var cut map[string]any
	if err := json.Unmarshal(csnap, &cut); err != nil {
		t.Fatal(err)
	}
	delete(cut, "Tail")
	noTail, _ := json.Marshal(cut)
	if cc, _ := mk(&Options{TuneSweeps: 30, HotTau: hotTau}); cc.Restore(noTail) == nil {
		t.Error("a snapshot without its log-Z tail restored")
	}
	c, _ := mk(&Options{Betas: fixed})
	if err := c.Restore(snap); err == nil || !strings.Contains(err.Error(), "ladder") {
		t.Errorf("a snapshot of another ladder: %v", err)
	}
	// A version-1 snapshot (no energies kept) still restores: the next
	// round sums ℓ over the model, and the energies are right again.
	var old map[string]any
	if err := json.Unmarshal(snap, &old); err != nil {
		t.Fatal(err)
	}
	old["Version"] = 1
	for _, ld := range old["Ladders"].([]any) {
		for _, k := range []string{"Ell", "Stale", "Pending"} {
			delete(ld.(map[string]any), k)
		}
	}
	v1, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := mk(&Options{TuneSweeps: 30})
	if err := d.Restore(v1); err != nil {
		t.Fatalf("a version-1 snapshot: %v", err)
	}
	for range 2000 {
		if d.Step(); d.swapped {
			for _, ld := range d.ladders {
				for k, st := range ld.states {
					if want := tg.G.LogPotential(st); math.Abs(ld.ell[k]-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("after a version-1 restore, rung %d: ℓ %v, summed %v", k, ld.ell[k], want)
					}
				}
			}
		}
	}
}

// TestOptionsRefused: bad ladders and options are errors naming them, as
// are replicas that cannot swap.
func TestOptionsRefused(t *testing.T) {
	tg := frustrated(t, 1)
	cases := []struct {
		xo   Options
		want string
	}{
		{Options{Betas: []float64{0.9, 0.5}}, "must be 1"},
		{Options{Betas: []float64{1, 0.5, 0.6}}, "strictly decreasing"},
		{Options{Betas: []float64{1, -0.5}}, "strictly decreasing"},
		{Options{Betas: []float64{1, math.NaN()}}, "strictly decreasing"},
		{Options{Acceptance: 1}, "Acceptance"},
		{Options{MaxReplicas: 1}, "MaxReplicas"},
		{Options{TuneSweeps: -1}, "TuneSweeps"},
		{Options{HotTau: -1}, "HotTau"},
		{Options{HotTau: math.NaN()}, "HotTau"},
		{Options{HotTau: math.Inf(1)}, "HotTau"},
	}
	for _, c := range cases {
		_, err := newExchange(tg, rand.New(rand.NewPCG(1, 1)), siteGibbs, &c.xo)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.xo, err, c.want)
		}
	}
	var me *factorgraph.MemoryError
	if _, err := newExchange(tg, rand.New(rand.NewPCG(1, 1)), siteGibbs, &Options{MaxBytes: 1000}); !errors.As(err, &me) || !strings.Contains(err.Error(), "exchange.Options.MaxBytes") {
		t.Errorf("a ladder over its memory limit: %v", err)
	}
	minGibbs := func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		return mingibbs.NewMINGibbs(m, r, opt)
	}
	if _, err := newExchange(tg, rand.New(rand.NewPCG(1, 1)), minGibbs, &Options{Betas: fixed}); err == nil || !strings.Contains(err.Error(), "caches an estimate") {
		t.Errorf("MIN-Gibbs replicas: %v", err)
	}
}

// TestHotEnd: a tuned ladder stops where its replicas mix on their own —
// on the glasses, short of β = 0, with a log-Z tail from there down —, and
// reaches β = 0 without a tail where no rung mixes within HotTau or with
// by default; on a model with hard factors it gets no tail (log Z is not
// known at β = 0) and reports no log Z.
func TestHotEnd(t *testing.T) {
	hottest := func(e *Exchange) float64 { return e.betas[len(e.betas)-1] }
	for seed := uint64(1); seed <= 2; seed++ {
		tg := frustrated(t, seed)
		cases := []struct {
			name string
			xo   Options
			cut  bool
		}{
			{"cut", Options{TuneSweeps: 30, HotTau: hotTau}, true},
			{"Houdayer", Options{TuneSweeps: 30, Houdayer: true, HotTau: hotTau}, true},
			{"default", Options{TuneSweeps: 30}, false},
			{"no rung mixes", Options{TuneSweeps: 30, HotTau: 1e-9}, false},
		}
		for _, c := range cases {
			e, err := newExchange(tg, rand.New(rand.NewPCG(seed, 3)), siteGibbs, &c.xo)
			if err != nil {
				t.Fatal(err)
			}
			if cut := hottest(e) > 0; cut != c.cut || cut != (e.LogZRungs() > 0) {
				t.Errorf("seed %d, %s: hottest rung %v, %d rungs in the tail; want a cut ladder %v, with a tail", seed, c.name, hottest(e), e.LogZRungs(), c.cut)
			}
			if e.tail != nil && (e.tail.betas[0] != 1 || hottest(e.tail) != 0 || e.tail.tail != nil) {
				t.Errorf("seed %d, %s: tail ladder %v", seed, c.name, e.tail.betas)
			}
			if c.cut {
				if tau, _ := e.probe(context.Background(), len(e.betas)-1); !(tau <= 4*hotTau) {
					t.Errorf("seed %d, %s: the hottest rung's replicas forget in %.3g sweeps", seed, c.name, tau)
				}
			}
		}
	}
	hard := 0
	for k, tg := range gibbstest.Graphs(t) {
		if (&Exchange{g: tg.G}).logZ0() {
			continue
		}
		hard++
		e, err := newExchange(tg, rand.New(rand.NewPCG(1, 3)), siteGibbs, &Options{TuneSweeps: 30, HotTau: hotTau})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := e.LogZ(); ok || e.tail != nil {
			t.Errorf("graph %d (hard factors): a log-Z tail %v, log Z ok %v", k, e.tail != nil, ok)
		}
	}
	if hard == 0 {
		t.Error("no graph with hard factors was tried")
	}
}

// TestStepAllocs: steps and rounds of swaps allocate nothing.
func TestStepAllocs(t *testing.T) {
	tg := frustrated(t, 1)
	e, err := newExchange(tg, rand.New(rand.NewPCG(1, 1)), siteGibbs, &Options{Betas: fixed, SwapEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		e.Step()
	}
	if a := testing.AllocsPerRun(1000, func() { e.Step() }); a != 0 {
		t.Errorf("%v allocations a step", a)
	}
}

// TestSummarise: the summary agrees with the ladder it sums up.
func TestSummarise(t *testing.T) {
	e, err := newExchange(frustrated(t, 1), rand.New(rand.NewPCG(1, 1)), siteGibbs, &Options{Houdayer: true, TuneSweeps: 30})
	if err != nil {
		t.Fatal(err)
	}
	for range 20000 {
		e.Step()
	}
	s := e.Summarise()
	lad := e.Ladder()
	var sum int64
	for _, t := range e.WalkerTrips() {
		sum += t
	}
	if w := e.WalkerTrips(); len(w) != s.Replicas-s.LogZRungs || sum != s.RoundTrips {
		t.Errorf("%d walkers with %d round trips in all; the summary: %d replicas, %d round trips", len(w), sum, s.Replicas, s.RoundTrips)
	}
	if s.Rungs != len(lad) || s.Replicas != 2*len(lad)+s.LogZRungs || s.BetaMin != lad[len(lad)-1].Beta || s.RoundTrips != e.RoundTrips() ||
		!(0 < s.AcceptanceMin && s.AcceptanceMin <= s.AcceptanceMax && s.AcceptanceMax <= 1) || s.HoudayerRungs > s.Rungs ||
		s.LogZRungs != e.LogZRungs() || (s.BetaMin > 0) != (s.LogZRungs > 0) ||
		!(0 <= s.TripsMin && s.TripsMin <= s.TripsMax && s.TripsMax <= s.RoundTrips) || s.Stuck > 0 != (s.TripsMin == 0) {
		t.Errorf("summary %+v of a ladder of %d rungs", s, len(lad))
	}
}

// TestTrackedEnergies: after every round of swaps, the ℓ the exchange keeps
// for each replica — tracked through its updates, the Houdayer moves'
// changes and the swaps — is ℓ summed over the model at its state, with
// the ladder fixed and tuned, on the family's graphs (hard zeros,
// evidence) and the glasses; with the moves' changes left out, it is not.
func TestTrackedEnergies(t *testing.T) {
	check := func(tg gibbstest.Graph, xo *Options, broken int) (worst float64) {
		e, err := newExchange(tg, rand.New(rand.NewPCG(tg.Seed, 9)), siteGibbs, xo)
		if err != nil {
			t.Fatal(err)
		}
		e.broken = broken
		for range 3000 {
			if e.Step(); !e.swapped {
				continue
			}
			for _, ld := range e.ladders {
				for k, st := range ld.states {
					want := tg.G.LogPotential(st)
					worst = max(worst, math.Abs(ld.ell[k]-want)/(1+math.Abs(want)))
				}
			}
		}
		return worst
	}
	for _, tg := range graphs(t) {
		for _, xo := range []Options{{Betas: fixed, SwapEvery: 3}, {Betas: fixed, SwapEvery: 2, Houdayer: true}, {TuneSweeps: 20, Houdayer: true}} {
			if w := check(tg, &xo, 0); w > 1e-9 {
				t.Errorf("graph %d, %+v: tracked ℓ off by %.3g (relative)", tg.Seed, xo, w)
			}
		}
	}
	caught := 0
	for _, tg := range graphs(t) {
		if check(tg, &Options{Betas: fixed, SwapEvery: 2, Houdayer: true}, brokenTrack) > 1e-6 {
			caught++
		}
	}
	if n := len(graphs(t)); caught < n/2 {
		t.Errorf("ℓ left behind by the Houdayer moves noticed on %d graphs of %d", caught, n)
	}
	t.Logf("broken tracking caught on %d graphs", caught)
}

// TestExactCold: with the chain's replica blocked Gibbs among single-site
// replicas (Options.Cold), in twins with Houdayer moves and tuned, the
// chain's visits and its Rao–Blackwellised marginals (through the blocks'
// conditionals) match enumeration; a cold replica that samples the model
// at β = ½ instead of 1 is rejected.
func TestExactCold(t *testing.T) {
	gs := graphs(t)
	gibbstest.CheckExact(t, gs, []gibbstest.SamplerCase{
		{Name: "cold blocks, Houdayer, fixed ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{Betas: fixed, Houdayer: true, Cold: blocks})
		}},
		{Name: "cold blocks, tuned ladder", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return New(m.(*factorgraph.Graph), siteGibbs, r, &gibbs.Options{Init: init}, &Options{TuneSweeps: 50, Cold: blocks})
		}},
	}, 3, 4)
	for _, tg := range gs {
		e, err := newExchange(tg, rand.New(rand.NewPCG(tg.Seed, 6)), siteGibbs, &Options{Betas: fixed, Houdayer: true, Cold: blocks})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.ladders[0].reps[0].(*blocked.Blocked); !ok || e.coldScan || e.scan == nil {
			t.Fatalf("graph %d: the chain's replica is %T (scan %v), want blocks among scanned sites", tg.Seed, e.ladders[0].reps[0], e.coldScan)
		}
		if z, where := gibbstest.RBZ(tg.G, e, 20000); z > gibbstest.ZLimit {
			t.Errorf("graph %d: Rao–Blackwellised through blocks: %s: z = %.2f", tg.Seed, where, z)
		}
	}
	halfCold := func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		tg, err := m.(*factorgraph.Graph).Tempered(0.5)
		if err != nil {
			return nil, err
		}
		return blocked.New(tg, r, opt)
	}
	gibbstest.CheckBroken(t, gs, []gibbstest.BrokenCase{
		{Name: "cold replica at β = ½", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return newExchange(tg, rand.New(rand.NewPCG(tg.Seed, 3)), siteGibbs, &Options{Betas: fixed, Houdayer: true, Cold: halfCold})
		}},
	})
}

// TestResumeCold: a snapshot of an exchange whose chain is blocked Gibbs
// among plain replicas (Options.Cold, Houdayer moves) restores into a
// fresh one that continues bit for bit, taken mid-round.
func TestResumeCold(t *testing.T) {
	tg := frustrated(t, 3)
	a, b, _ := resumed(t, func() (*Exchange, *rand.PCG) {
		src := rand.NewPCG(5, 5)
		e, err := newExchange(tg, rand.New(src), siteGibbs, &Options{TuneSweeps: 20, Houdayer: true, Cold: blocks})
		if err != nil {
			t.Fatal(err)
		}
		return e, src
	}, 3001, 10000)
	if a.RoundTrips() != b.RoundTrips() || a.Rounds() != b.Rounds() {
		t.Errorf("%d round trips in %d rounds; resumed %d in %d", a.RoundTrips(), a.Rounds(), b.RoundTrips(), b.Rounds())
	}
}

// resumed builds an exchange with mk, runs warm steps, snapshots it and
// its stream, restores both into a second one from mk, and checks that
// the two go on bit for bit for steps steps; it returns both and the
// snapshot.
func resumed(t *testing.T, mk func() (*Exchange, *rand.PCG), warm, steps int) (a, b *Exchange, snap []byte) {
	t.Helper()
	a, srcA := mk()
	for range warm {
		a.Step()
	}
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	rng, err := srcA.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b, srcB := mk()
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if err := srcB.UnmarshalBinary(rng); err != nil {
		t.Fatal(err)
	}
	for step := range steps {
		ia, ib := a.Step(), b.Step()
		if ia != ib || !slices.Equal(a.State(), b.State()) {
			t.Fatalf("step %d after the restore: %d %v, resumed %d %v", step, ia, a.State(), ib, b.State())
		}
	}
	return a, b, snap
}

// countdown is a context whose Err is nil for its first left calls, then
// context.Canceled: a cancellation that lands in the middle of a
// construction, wherever it looks.
type countdown struct {
	context.Context
	left int
}

func (c *countdown) Err() error {
	if c.left > 0 {
		c.left--
		return nil
	}
	return context.Canceled
}

// TestNewCancelledBetweenReplicas: a construction looks at its context
// between replicas (a tempered copy of a large model, and a replica, take
// a while to build; a ladder has dozens): cancelled after its first
// looks, New returns the context's error, having built only some of the
// replicas of a fixed ladder, which tunes nothing.
func TestNewCancelledBetweenReplicas(t *testing.T) {
	tg := frustrated(t, 1)
	built := 0
	count := func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		built++
		return siteGibbs(m, r, opt)
	}
	ctx := &countdown{Context: context.Background(), left: 3}
	_, err := New(tg.G, count, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{Init: tg.Init, Context: ctx}, &Options{Betas: fixed})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "building the replicas") {
		t.Fatalf("New with a context cancelled mid-construction: %v", err)
	}
	if built >= len(fixed) {
		t.Errorf("built %d replicas of %d before stopping", built, len(fixed))
	}
}
