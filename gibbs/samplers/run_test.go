package samplers

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/potts"
)

// Package chain runs the samplers; this package's unexported type chain
// takes its name.

// TestSameSeedSameChain: reproducibility bit for bit, and different seeds
// give different chains.
func TestSameSeedSameChain(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	run := func(seed uint64) []float64 {
		s, err := site.NewPoissonGibbs(g, rand.New(rand.NewPCG(seed, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			s.Step()
		}
		s.Sweep()
		return append([]float64(nil), s.State()...)
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Error("same seed gave different chains")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave the same chain")
	}
	// Chains on streams of package chain: chain k of a run is the same
	// whatever the number of chains beside it.
	onStream := func(seed uint64, k, of int) []float64 {
		s, err := site.NewPoissonGibbs(g, chain.Streams(seed, of)[k], nil)
		if err != nil {
			t.Fatal(err)
		}
		c := &chain.Chain{Kernel: s}
		if err := c.Advance(context.Background(), 3000); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(s.State())
	}
	if !slices.Equal(onStream(7, 1, 2), onStream(7, 1, 4)) {
		t.Error("chain 1 of 2 and chain 1 of 4 differ")
	}
	if slices.Equal(onStream(7, 0, 2), onStream(7, 1, 2)) {
		t.Error("chains 0 and 1 of a run are alike")
	}
}

// TestSweeperSystematic: a Sweeper's step is one systematic sweep, the free
// variables updated once each in increasing order (evidence skipped),
// exactly as calling Update on them in turn, and it reports chain.Any.
func TestSweeperSystematic(t *testing.T) {
	for _, tg := range []gibbstest.Graph{{G: gibbstest.SmallPotts(t)}, gibbstest.Graphs(t)[6]} {
		for _, name := range []string{"gibbs", "pgibbs", "mgpmh"} {
			build := func() gibbs.Sampler {
				s, err := New(name, tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			s := build()
			var seen []int
			var times []int64
			obs := observerFunc(func(n int64, i int, _ []float64) { seen, times = append(seen, i), append(times, n) })
			c := &chain.Chain{Kernel: gibbs.Sweeper{Sampler: s}, Observers: []chain.Observer{obs}, Burn: 1}
			if err := c.Advance(context.Background(), 3); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(seen, []int{chain.Any, chain.Any}) || !slices.Equal(times, []int64{1, 2}) || c.Done() != 3 {
				t.Errorf("%s: observers saw variables %v at %v after %d steps", name, seen, times, c.Done())
			}
			by := build()
			for range 3 {
				for _, i := range tg.G.Free() {
					by.Update(i)
				}
			}
			if !slices.Equal(s.State(), by.State()) || s.Stats() != by.Stats() {
				t.Errorf("%s: 3 sweeps gave %v %+v, 3 rounds of updates in order %v %+v", name, s.State(), s.Stats(), by.State(), by.Stats())
			}
			if want := int64(3 * len(tg.G.Free())); s.Stats().Steps != want {
				t.Errorf("%s: %d updates in 3 sweeps, want %d", name, s.Stats().Steps, want)
			}
		}
	}
}

type observerFunc func(int64, int, []float64)

func (f observerFunc) Observe(t int64, i int, x []float64) { f(t, i, x) }

// liar declares [0, 1] but returns 2 when both variables are 1.
func liar(t *testing.T, value float64) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, 1))
	b.AddFactor(factorgraph.NewFunc([]int{1, 2}, 0, 1, func(x []float64) float64 {
		if x[1] == 1 && x[2] == 1 {
			return value
		}
		return 0.5
	}))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCheckedMode: a factor that lies about its range, or returns NaN, stops
// every sampler with an error naming it, never a panic or a biased chain.
func TestCheckedMode(t *testing.T) {
	for _, value := range []float64{2, -0.5, math.NaN(), math.Inf(1)} {
		g := liar(t, value)
		for _, sc := range familySamplers() {
			s, err := sc.New(g, rand.New(rand.NewPCG(1, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			err = (&chain.Runner{Steps: 10000}).Run(context.Background(), []*chain.Chain{{Kernel: s}})
			var re *factorgraph.RangeError
			if !errors.As(err, &re) {
				t.Fatalf("%s with factor value %v: Run returned %v, want a RangeError", sc.Name, value, err)
			}
			if !strings.Contains(err.Error(), "chain 0: ") || !strings.Contains(err.Error(), "factor 1 (vars 1,2)") {
				t.Errorf("%s: error %q does not name the factor", sc.Name, err)
			}
			if !errors.Is(err, s.Err()) {
				t.Errorf("%s: Err() = %v, Run returned %v", sc.Name, s.Err(), err)
			}
			steps := s.Stats().Steps
			s.Step()
			if s.Stats().Steps != steps {
				t.Errorf("%s: chain kept moving after an error", sc.Name)
			}
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	r := rand.New(rand.NewPCG(1, 1))
	cont := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Interval(0, 1))
		b.AddVariable(factorgraph.Discrete(2))
		gg, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return gg
	}()
	allObserved := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Discrete(2))
		b.Observe(0, 1)
		gg, _ := b.Build()
		return gg
	}()
	noSoft := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariables(2, factorgraph.Discrete(2))
		gg, _ := b.Build()
		return gg
	}()
	// x0 = 0, x1 = 1 ruled out: single sites still move (x0 = x1 would
	// freeze them: TestFrozenLinks).
	hard := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariables(2, factorgraph.Discrete(2))
		b.AddFactor(factorgraph.NewProbTable([]int{0, 1}, []int{2, 2}, []float64{1, 0, 1, 1}))
		gg, _ := b.Build()
		return gg
	}()
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"nil model", func() error { _, err := site.NewGibbs(nil, r, nil); return err }, "nil model"},
		{"nil rng", func() error { _, err := site.NewPoissonGibbs(g, nil, nil); return err }, "nil *rand.Rand"},
		{"negative λ", func() error { _, err := site.NewPoissonGibbs(g, r, &gibbs.Options{Lambda: -1}); return err }, "λ = -1"},
		{"NaN λ", func() error { _, err := site.NewPoissonGibbs(g, r, &gibbs.Options{Lambda: math.NaN()}); return err }, "λ = NaN"},
		{"infinite scale", func() error {
			_, err := site.NewPoissonGibbs(g, r, &gibbs.Options{LambdaScale: math.Inf(1)})
			return err
		}, "scale = +Inf"},
		{"both λ and scale", func() error {
			_, err := site.NewPoissonGibbs(g, r, &gibbs.Options{Lambda: 1, LambdaScale: 1})
			return err
		}, "both λ and λ scale"},
		{"continuous", func() error { _, err := site.NewGibbs(cont, r, nil); return err }, "variable 0 is continuous"},
		{"all observed", func() error { _, err := site.NewGibbs(allObserved, r, nil); return err }, "every variable is observed"},
		{"init length", func() error { _, err := site.NewGibbs(g, r, &gibbs.Options{Init: []float64{0}}); return err }, "1 values for 16 variables"},
		{"init domain", func() error {
			x := make([]float64, 16)
			x[5] = 3
			_, err := site.NewGibbs(g, r, &gibbs.Options{Init: x})
			return err
		}, "initial value 3 of variable 5"},
		{"zero probability init", func() error { _, err := site.NewGibbs(hard, r, &gibbs.Options{Init: []float64{0, 1}}); return err }, "initial state has zero probability: factor 0 (vars 0,1)"},
	}
	for _, tt := range tests {
		err := tt.make()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// A factor with an astronomically wide declared range makes λ + L too
	// large to draw: the minibatch samplers refuse it instead of looping.
	wide := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariables(2, factorgraph.Discrete(2))
		b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 1e100, func([]float64) float64 { return 0 }))
		gg, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return gg
	}()
	for _, name := range []string{"pgibbs", "mingibbs", "mgpmh", "doublemin"} {
		if _, err := New(name, wide, r, nil); err == nil || !strings.Contains(err.Error(), "Options.MaxDraws") {
			t.Errorf("%s on a factor of range 1e200: %v, want a refusal", name, err)
		}
		// Past the limit of the work of a step, a minibatch that cannot be
		// drawn at all is still refused.
		if _, err := New(name, wide, r, &gibbs.Options{MaxDraws: math.Inf(1)}); err == nil || !strings.Contains(err.Error(), "cannot be drawn") {
			t.Errorf("%s on a factor of range 1e200 without a limit: %v, want a refusal", name, err)
		}
	}
	for _, name := range []string{"gibbs", "auto"} {
		if _, err := New(name, wide, r, nil); err != nil {
			t.Errorf("%s refused a wide but valid range: %v", name, err)
		}
	}
	if _, err := site.NewPoissonGibbs(wide, r, &gibbs.Options{LambdaScale: 1e300}); err == nil || !strings.Contains(err.Error(), "λ = 1e+300·L² overflows") {
		t.Errorf("λ = 1e300·L² accepted: %v", err)
	}
	// Without soft factors (L = Ψ = 0) there is nothing to minibatch: every
	// discrete sampler reduces to exact updates instead of refusing the
	// model (and the continuous ones refuse a model without continuous
	// variables, TestContinuousOnDiscrete).
	for _, g := range []*factorgraph.Graph{noSoft, hard} {
		for _, name := range discreteNames() {
			s, err := New(name, g, r, nil)
			if err != nil {
				t.Errorf("%s on a model without soft factors: %v", name, err)
				continue
			}
			for range 100 {
				s.Step()
			}
			if err := s.Err(); err != nil {
				t.Errorf("%s on a model without soft factors: %v", name, err)
			}
		}
	}
}

// TestZeroAllocations: a step allocates nothing once running (the
// benchmarks in package bench report the same with b.ReportAllocs).
func TestZeroAllocations(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	for _, sc := range familySamplers() {
		s, err := sc.New(g, rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			s.Step()
		}
		if a := testing.AllocsPerRun(1000, func() { s.Step() }); a != 0 {
			t.Errorf("%s: %v allocations a step", sc.Name, a)
		}
	}
}

// TestPaperFactorsPerStep pins what the paper reports on its Potts model:
// λ + L bounds the expected draws a step, and the draws per step are close
// to the 7, 28, 132 the paper reports for λ = 0.1, 1, 5·L².
func TestPaperFactorsPerStep(t *testing.T) {
	g, err := potts.New(potts.Paper())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ scale, lo, hi float64 }{{0.1, 6.5, 8}, {1, 27, 31.5}, {5, 120, 135}} {
		s, err := site.NewPoissonGibbs(g, rand.New(rand.NewPCG(5, 5)), &gibbs.Options{LambdaScale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		for range 20000 {
			s.Step()
		}
		st := s.Stats()
		l := g.L()
		if bound := tc.scale*l*l + l; st.PicksPerStep() > bound {
			t.Errorf("λ = %v·L²: %.2f draws a step above λ + L = %.2f", tc.scale, st.PicksPerStep(), bound)
		}
		if d := st.PicksPerStep(); d < tc.lo || d > tc.hi {
			t.Errorf("λ = %v·L²: %.2f draws a step, want within [%v, %v]", tc.scale, d, tc.lo, tc.hi)
		}
		if st.FactorsPerStep() > st.PicksPerStep() {
			t.Errorf("more distinct factors than draws")
		}
	}
}

// TestHardFactorsFeasibleStart: on the 8-queens constraint graph a random
// state is almost surely impossible; every sampler finds a feasible start by
// itself and never leaves the feasible set.
func TestHardFactorsFeasibleStart(t *testing.T) {
	const n = 8
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(n))
	for r1 := range n {
		w := make([]float64, n)
		for c := range w {
			w[c] = 0.1 * float64(c)
		}
		b.AddFactor(factorgraph.NewTable([]int{r1}, []int{n}, w))
		for r2 := r1 + 1; r2 < n; r2++ {
			vals := make([]float64, n*n)
			for c1 := range n {
				for c2 := range n {
					if c1 == c2 || c1-c2 == r1-r2 || c1-c2 == r2-r1 {
						vals[c1*n+c2] = math.Inf(-1)
					}
				}
			}
			b.AddFactor(factorgraph.NewTable([]int{r1, r2}, []int{n, n}, vals))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range discreteNames() {
		s, err := New(name, g, rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for range 2000 {
			s.Step()
			x := s.State()
			for f := range g.NumFactors() {
				if math.IsInf(g.Factor(f).Value(x), -1) {
					t.Fatalf("%s entered a state of zero probability: %v", name, x)
				}
			}
		}
		if err := s.Err(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestChainProgress: a chain's step count follows the run while it goes
// and ends at the number of steps done, which for a sampler is its number
// of updates and for a Sweeper its number of sweeps; a chain continued
// goes on counting, and a cancelled one does no step.
func TestChainProgress(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	s, _ := site.NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 1)), nil)
	c := &chain.Chain{Kernel: s}
	var seen []int64
	c.Observers = []chain.Observer{observerFunc(func(n int64, _ int, _ []float64) {
		if n%1000 == 0 {
			seen = append(seen, c.Done())
		}
	})}
	ctx := context.Background()
	if err := c.Advance(ctx, 5000); err != nil {
		t.Fatal(err)
	}
	if c.Done() != 5000 || s.Stats().Steps != 5000 {
		t.Errorf("%d steps, %d updates after a run of 5000", c.Done(), s.Stats().Steps)
	}
	if len(seen) != 5 {
		t.Fatalf("progress seen %d times", len(seen))
	}
	for k, v := range seen {
		if lag := int64(1000*(k+1)) - v; lag < 0 || lag > 1024 {
			t.Errorf("progress %d at update %d", v, 1000*(k+1))
		}
	}
	if err := c.Advance(ctx, 7000); err != nil || c.Done() != 7000 || s.Stats().Steps != 7000 {
		t.Errorf("continued run: %d steps, %d updates, %v", c.Done(), s.Stats().Steps, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Advance(cancelled, 9000); !errors.Is(err, context.Canceled) || c.Done() != 7000 || s.Stats().Steps != 7000 {
		t.Errorf("cancelled run: %v, %d steps, %d updates", err, c.Done(), s.Stats().Steps)
	}
	sw := &chain.Chain{Kernel: gibbs.Sweeper{Sampler: s}}
	if err := sw.Advance(ctx, 10); err != nil || sw.Done() != 10 || s.Stats().Steps != 7000+10*16 {
		t.Errorf("sweeps: %d steps, %d updates, %v", sw.Done(), s.Stats().Steps, err)
	}
}

// TestStepsPerSweep: every sampler counts its variable updates
// (chain.Counter), and StepsPerSweep converts sweeps into its steps: a
// sweep-equivalent of steps makes about n updates, whatever a step updates.
func TestStepsPerSweep(t *testing.T) {
	g := gibbstest.GridPotts(t, 6, 0.8)
	n := len(g.Free())
	for _, name := range []string{"gibbs", "auto", "block", "sw", "wolff"} {
		s, err := New(name, g, rand.New(rand.NewPCG(2, 2)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := s.(*cluster.Wolff); ok {
			if _, err := w.TuneClusters(context.Background(), 5); err != nil {
				t.Fatal(err)
			}
		}
		var k chain.Counter = s // a compile-time check as much as a runtime one
		before, per := k.Updates()
		if per != n {
			t.Errorf("%s: %d updates a sweep, want %d", name, per, n)
		}
		steps := gibbs.StepsPerSweep(s)
		const sweeps = 200
		for range int(math.Round(sweeps * steps)) {
			s.Step()
		}
		done, _ := k.Updates()
		if got := float64(done-before) / float64(n); got < 0.8*sweeps || got > 1.25*sweeps {
			t.Errorf("%s: %.0f steps (%.3g a sweep) made %.1f sweep-equivalents, want about %d", name, sweeps*steps, steps, got, sweeps)
		}
	}
}
