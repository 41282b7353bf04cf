package infer

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
)

// racePilot returns a pilot chain of s on g, drawing from stream, that
// has made 7 steps.
func racePilot(t *testing.T, g *factorgraph.Graph, s Spec, stream int) *pilotChain {
	t.Helper()
	src := chain.Source(1, stream)
	smp, err := s.New(g, rand.New(src), &gibbs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &pilotChain{smp: smp, src: src, steps: 7}
}

// TestRaceRevises: on frozenCycle, single-site Gibbs never moves x0, x1
// and x2 (each conditional degenerate given the others) while blocks of
// width 4 hold them together and draw them from their pair of joint
// states. Raced as the choice against blocks, single sites lose — three
// frozen variables, counted wholly wrong — and the blocks' chain takes
// the run, its race steps counted as done; raced as the runner-up, they
// leave the choice standing. x3, fixed by hard factors, moves in
// neither and is not counted.
func TestRaceRevises(t *testing.T) {
	g := frozenCycle(t, true)
	site := Spec{Name: "gibbs"}
	w4 := Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: 4}}}
	build := func(s Spec, stream int) *pilotChain { return racePilot(t, g, s, stream) }
	for _, tc := range []struct {
		name         string
		chosen, riv  Spec
		winner       int
		frozen       [2]int
		wantSpec     Spec
		reasonPrefix string
	}{
		{"sites chosen, blocks win", site, w4, 1, [2]int{3, 0}, w4, "block width 4, by a race against the pilots' choice (gibbs"},
		{"blocks chosen, they stay", w4, site, 0, [2]int{0, 3}, w4, "block width 4 by rule; raced against gibbs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &Choice{Spec: tc.chosen, Reason: tc.chosen.String() + " by rule",
				Pilots: []Pilot{{Spec: tc.chosen, NsPerSweep: 1e4}, {Spec: tc.riv, NsPerSweep: 1e4}}}
			inc, riv := build(tc.chosen, 10), build(tc.riv, 11)
			b := Budget{Start: time.Now(), Time: time.Second}
			opt := Options{Time: time.Second}
			exact := make([]bool, g.NumVars())
			pc, spec, ns, err := race(t.Context(), g, opt, b, ch, inc, riv, &ch.Pilots[1], exact)
			if err != nil {
				t.Fatal(err)
			}
			r := ch.Race
			if r == nil {
				t.Fatal("no race recorded")
			}
			if r.Winner != tc.winner || r.Frozen != tc.frozen || spec != tc.wantSpec || ch.Spec != tc.wantSpec || ns != 1e4 {
				t.Errorf("winner %d (%v, choice %v, %g ns), frozen %v; want %d (%v), frozen %v\n%s", r.Winner, spec, ch.Spec, ns, r.Frozen, tc.winner, tc.wantSpec, tc.frozen, ch.Reason)
			}
			if !strings.HasPrefix(ch.Reason, tc.reasonPrefix) {
				t.Errorf("reason %q, want it to start %q", ch.Reason, tc.reasonPrefix)
			}
			want := map[int]*pilotChain{0: inc, 1: riv}[tc.winner]
			sps := gibbs.StepsPerSweep(want.smp)
			if pc != want || pc.steps <= 7 || float64(pc.steps-7) < 0.99*r.Sweeps[tc.winner]*sps {
				t.Errorf("continued chain %p with %d steps, want the winner's %p with 7 + its race's %.0f", pc, pc.steps, want, r.Sweeps[tc.winner]*sps)
			}
			// The rule's burn-in at 1 s and 10⁴ ns a sweep: 1000 sweeps;
			// the race's pooled marginals start after them.
			if burn := int64(1000 * sps); pc.race == nil || pc.raceBurn != burn || pc.race.N() != pc.steps-burn {
				t.Errorf("the winner's race pooled %d steps from step %d of %d, want from %d", pc.race.N(), pc.raceBurn, pc.steps, burn)
			}
			rep := (&Answer{ExactPart: &ExactPart{}, Choice: ch}).Report(g).Choice
			if rr := rep.Race; rr == nil || rr.Winner != tc.wantSpec.String() || rr.Frozen != tc.frozen || rr.Samplers[0] != tc.chosen.String() {
				t.Errorf("report of the race %+v, want %v the winner", rr, tc.wantSpec)
			} else if js, err := json.Marshal(rep); err != nil || !strings.Contains(string(js), `"race":{"samplers":`) {
				t.Errorf("JSON %s (%v), want the race", js, err)
			}
			// 10% of 0.95 s at 10⁴ ns a sweep-equivalent, each.
			if r.Sweeps[0] < 9000 || r.Sweeps[1] < 9000 || r.Error[1-tc.winner] < 0.5 {
				t.Errorf("race of %v sweeps, errors %v: want about 9500 each, the loser's at least ½ (three of four frozen)", r.Sweeps, r.Error)
			}
		})
	}
}

// racerOf returns a racer over one variable per entry of means (its
// batch means of value 1 of a binary variable, 100 draws a batch), every
// variable moved unless frozen says otherwise.
func racerOf(spec Spec, sweeps float64, means [][]float64, frozen ...int) *racer {
	r := &racer{spec: spec, sweeps: sweeps, mv: &moves{moved: make([]bool, len(means))}}
	for k := range r.mv.moved {
		r.mv.moved[k] = true
	}
	for _, k := range frozen {
		r.mv.moved[k] = false
	}
	for _, m := range means {
		q, e := stat.Mean(m, nil), chain.BatchError(m)
		r.last, r.se = append(r.last, []float64{1 - q, q}), append(r.se, []float64{e, e})
	}
	return r
}

// TestJudgeRace: the runner-up wins only if its batch-means error is at
// most raceWin of the choice's, the two chains' marginals agree within
// raceAgree times their expected distance, and it does not lose the
// choice's log Z; a variable a chain never moved
// counts as frozen — error 1 — where its own marginal is degenerate and
// the other's says it would have moved (raceFrozenMoves); one neither
// moved is left out.
func TestJudgeRace(t *testing.T) {
	a, b := Spec{Name: "site"}, Spec{Name: "exchange"}
	noisy := []float64{0.2, 0.4, 0.3, 0.5, 0.1, 0.4, 0.2, 0.5, 0.3, 0.3}          // mean 0.32, se ≈ 0.045
	calm := []float64{0.31, 0.33, 0.32, 0.30, 0.34, 0.32, 0.31, 0.33, 0.32, 0.32} // mean 0.32, se ≈ 0.004
	off := []float64{0.71, 0.73, 0.72, 0.70, 0.74, 0.72, 0.71, 0.73, 0.72, 0.72}  // mean 0.72: another valley
	rare := []float64{1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5} // rightly unmoved in 1000 sweeps
	zero := make([]float64, raceBatches)                                          // degenerate
	for _, c := range []struct {
		name   string
		rs     [2]*racer
		winner int
		frozen [2]int
		word   string
		logZ   bool
	}{
		{"precise and agreeing: the runner-up", [2]*racer{racerOf(a, 1000, [][]float64{noisy}), racerOf(b, 1000, [][]float64{calm})}, 1, [2]int{}, "takes the run", false},
		{"precise and agreeing, but no log Z: the choice", [2]*racer{racerOf(a, 1000, [][]float64{noisy}), racerOf(b, 1000, [][]float64{calm})}, 0, [2]int{}, "no log Z", true},
		{"less precise: the choice", [2]*racer{racerOf(a, 1000, [][]float64{calm}), racerOf(b, 1000, [][]float64{noisy})}, 0, [2]int{}, "the choice stands", false},
		{"precise but disagreeing: the choice", [2]*racer{racerOf(a, 1000, [][]float64{noisy}), racerOf(b, 1000, [][]float64{off})}, 0, [2]int{}, "disagree", false},
		{"the choice frozen", [2]*racer{racerOf(a, 1000, [][]float64{calm, zero}, 1), racerOf(b, 1000, [][]float64{noisy, noisy})}, 1, [2]int{1, 0}, "takes the run", false},
		{"unmoved, its marginal not degenerate: not frozen", [2]*racer{racerOf(a, 1000, [][]float64{noisy, noisy}), racerOf(b, 1000, [][]float64{calm, calm}, 1)}, 1, [2]int{}, "takes the run", false},
		{"unmoved, degenerate, the other rarely moves it: not frozen", [2]*racer{racerOf(a, 1000, [][]float64{noisy, zero}, 1), racerOf(b, 1000, [][]float64{calm, rare})}, 1, [2]int{}, "takes the run", false},
		{"rightly unmoved is not frozen", [2]*racer{racerOf(a, 1000, [][]float64{noisy, rare}), racerOf(b, 1000, [][]float64{calm, rare}, 1)}, 1, [2]int{}, "takes the run", false},
		{"moved by neither: left out", [2]*racer{racerOf(a, 1000, [][]float64{noisy, off}, 1), racerOf(b, 1000, [][]float64{calm, calm}, 1)}, 1, [2]int{}, "takes the run", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			free := make([]int, len(c.rs[0].mv.moved))
			for k := range free {
				free[k] = k
			}
			r := judgeRace(c.rs, free, c.logZ)
			if r.Winner != c.winner || r.Frozen != c.frozen || !strings.Contains(r.Verdict, c.word) {
				t.Errorf("winner %d, frozen %v, errors %v, distance %.3g (expected %.3g): %s; want %d, %v, %q",
					r.Winner, r.Frozen, r.Error, r.Distance, r.Expected, r.Verdict, c.winner, c.frozen, c.word)
			}
		})
	}
}

// TestRaceable: only a timed run of the one chain 0 with the pilots'
// choice races.
func TestRaceable(t *testing.T) {
	timed := Budget{Start: time.Now(), Time: time.Second}
	for _, c := range []struct {
		name string
		opt  Options
		b    Budget
		want bool
	}{
		{"timed, one chain", Options{Time: time.Second, Chains: 1}, timed, true},
		{"timed, the CLI's run", Options{Time: time.Second, Chains: 1, Run: &Run{Indices: []int{0}}}, timed, true},
		{"no clock", Options{Sweeps: 100, Chains: 1}, Budget{Start: time.Now()}, false},
		{"counted", Options{Time: time.Second, Sweeps: 100, Chains: 1}, timed, false},
		{"two chains", Options{Time: time.Second, Chains: 2}, timed, false},
		{"chain 1 of a split run", Options{Time: time.Second, Chains: 1, Run: &Run{Indices: []int{1}}}, timed, false},
		{"a given sampler", Options{Time: time.Second, Chains: 1, Run: &Run{Spec: &Spec{Name: "site"}}}, timed, false},
	} {
		if got := raceable(c.opt, c.b); got != c.want {
			t.Errorf("%s: raceable %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRivalIndex: the runner-up raced against the choice is the pilot of
// the most ranked effective samples a second among the others whose
// chains are kept — those that resolved their mixing first — and whose
// pilots mixed at least raceRivalESS as well as the chosen one's; a
// choice ranked on resolved pilots is raced only against a runner-up
// within raceMargin of it, and a choice whose pilot did not run is not
// raced.
func TestRivalIndex(t *testing.T) {
	site, w4, w8, xch := Spec{Name: "site"}, Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: 4}}},
		Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: 8}}}, Spec{Name: "exchange", Houdayer: true}
	ran := func(s Spec, ess, perSecond float64) Pilot {
		return Pilot{Spec: s, ESS: ess, ESSPerSecond: perSecond, chain: &pilotChain{}}
	}
	dropped := ran(w8, 60, 5000)
	dropped.chain = nil
	slow := Pilot{Spec: w8, chain: &pilotChain{}}
	slow.refuse(ErrTooSlow, "too slow")
	for _, c := range []struct {
		name     string
		chosen   Spec
		resolved bool
		pilots   []Pilot
		want     int
	}{
		{"resolved, close runner-up", w4, true, []Pilot{ran(site, 60, 900), ran(w4, 80, 1000)}, 0},
		{"resolved, runner-up far behind", w4, true, []Pilot{ran(site, 60, 300), ran(w4, 80, 1000)}, -1},
		{"by rule: the most a second", xch, false, []Pilot{ran(site, 6, 900), ran(w4, 5, 100), ran(xch, 8, 50)}, 0},
		{"by rule: a pilot that barely moved is passed over", xch, false, []Pilot{ran(site, 1.1, 900), ran(w8, 49, 400), ran(xch, 8, 50)}, 1},
		{"by rule: none mixed half as well", xch, false, []Pilot{ran(site, 1.1, 900), ran(w4, 2, 100), ran(xch, 8, 50)}, -1},
		{"the resolved first", xch, false, []Pilot{ran(site, 20, 9000), ran(w4, 60, 1000), ran(xch, 40, 500)}, 1},
		{"only kept chains", w4, false, []Pilot{dropped, ran(w4, 20, 100), slow}, -1},
		{"the choice's pilot did not run", w8, false, []Pilot{ran(site, 20, 900), slow}, -1},
		{"a resolved exchange, for its log Z, however far behind", w4, true, []Pilot{ran(site, 60, 300), ran(w4, 238, 1000), ran(xch, 59, 150)}, 2},
		{"an exchange that did not resolve is not", w4, true, []Pilot{ran(site, 60, 300), ran(w4, 238, 1000), ran(xch, 40, 150)}, -1},
	} {
		ch := &Choice{Spec: c.chosen, Pilots: c.pilots, resolved: c.resolved}
		if got := ch.rivalIndex(); got != c.want {
			t.Errorf("%s: rival %d, want %d", c.name, got, c.want)
		}
	}
}

// TestRaceDrawsPooled: the winner's race joins the answer's marginals
// where its pilot alone made the rule's burn-in, and is burn-in itself
// otherwise (or where the run's estimator differs, or the burn-in is the
// caller's).
func TestRaceDrawsPooled(t *testing.T) {
	g := frozenCycle(t, true)
	w4 := Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: 4}}}
	smp, err := w4.New(g, rand.New(chain.Source(1, 3)), &gibbs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sps := gibbs.StepsPerSweep(smp)
	const ns = 1e4 // a sweep: a 1-s budget's rule burns in 1000 sweep-equivalents
	burn := int64(1000 * sps)
	mk := func(pilot, raceBurn int64, rb bool) *Sampled {
		mg := chain.NewMarginals(factorgraph.Sizes(g))
		if rb {
			mg.RaoBlackwellise(smp.(chain.Conditioner))
		}
		mg.Observe(1, chain.Any, smp.State())
		run := chain.NewMarginals(factorgraph.Sizes(g))
		run.RaoBlackwellise(smp.(chain.Conditioner))
		return &Sampled{Samplers: []gibbs.Sampler{smp}, Chains: []*chain.Chain{{Kernel: smp}}, Marginals: []*chain.Marginals{run},
			pilotSteps: []int64{pilot}, race: mg, raceBurn: raceBurn, free: len(g.Free())}
	}
	for _, tc := range []struct {
		name            string
		pilot, raceBurn int64
		rb              bool
		opt             Options
		pooled          bool
	}{
		{"the pooled draws start past the burn-in", burn + 500, burn, true, Options{}, true},
		{"the pooled draws start within it", burn + 500, burn - 5, true, Options{}, false},
		{"another estimator", burn + 500, burn, false, Options{}, false},
		{"the caller's burn-in", burn + 500, burn, true, Options{Run: &Run{Burn: 0}}, false},
	} {
		s := mk(tc.pilot, tc.raceBurn, tc.rb)
		s.length(g, tc.opt, ns, Budget{Start: time.Now(), Time: time.Second})
		if got := len(s.pooled()) == 2; got != tc.pooled {
			t.Errorf("%s: race pooled %v, want %v (burn-in %d; pilot and race %d steps, pooled from %d)", tc.name, got, tc.pooled, s.Burn, tc.pilot, tc.raceBurn)
		}
	}
}

// TestRaceInterrupted: a signal during the race gives back the choice's
// chain with what its race observed so far, and the answer those
// marginals, not converged, saying so.
func TestRaceInterrupted(t *testing.T) {
	g := frozenCycle(t, true)
	w4 := Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: 4}}}
	site := Spec{Name: "gibbs"}
	ch := &Choice{Spec: w4, Reason: "by rule", Pilots: []Pilot{{Spec: w4, NsPerSweep: 1e4}, {Spec: site, NsPerSweep: 1e4}}}
	inc, riv := racePilot(t, g, w4, 10), racePilot(t, g, site, 11)
	// A race of a second each (a tenth of 10 s at 10⁴ ns a sweep is 10⁵
	// sweeps, about a second here), interrupted after 50 ms.
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	b := Budget{Start: time.Now(), Time: 10 * time.Second}
	pc, spec, _, err := race(ctx, g, Options{Time: b.Time}, b, ch, inc, riv, &ch.Pilots[1], make([]bool, g.NumVars()))
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("race interrupted: error %v, want context.Canceled", err)
	}
	if pc != inc || spec != w4 || pc.soFar == nil || pc.soFar.N() == 0 {
		t.Fatalf("race interrupted: chain %p (%v), so far %v; want the choice's %p with its race so far", pc, spec, pc.soFar, inc)
	}
	a := &Answer{Marginals: pointMasses(g, nil)}
	a.interruptedRace(g, pc, ctx)
	want := pc.soFar.Probs()
	for _, i := range g.Free() {
		if !slices.Equal(a.Marginals[i], want[i]) {
			t.Fatalf("variable %d: marginals %v, want the race's %v", i, a.Marginals[i], want[i])
		}
	}
	if a.Verdict == nil || a.Verdict.Converged || !strings.Contains(a.Incomplete, "during the race") || a.Sweeps <= 0 {
		t.Errorf("verdict %v, incomplete %q, %g sweeps: want not converged, the race named, its sweeps", a.Verdict, a.Incomplete, a.Sweeps)
	}
}
