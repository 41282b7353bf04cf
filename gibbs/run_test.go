package gibbs

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/potts"
)

func smallPotts(t testing.TB) *factorgraph.Graph {
	t.Helper()
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteMarginals counts every variable after every update.
type bruteMarginals struct{ counts [][]float64 }

func (b *bruteMarginals) Observe(_ int64, _ int, x []float64) {
	for i, v := range x {
		b.counts[i][int(v)]++
	}
}

func TestMarginalsMatchBruteForce(t *testing.T) {
	g := smallPotts(t)
	s, err := NewPoissonGibbs(g, rand.New(rand.NewPCG(3, 3)), nil)
	if err != nil {
		t.Fatal(err)
	}
	lazy := NewMarginals(g)
	brute := &bruteMarginals{counts: make([][]float64, g.NumVars())}
	for i := range brute.counts {
		brute.counts[i] = make([]float64, 3)
	}
	r := Runner{Steps: 5000, Burn: 17, Observers: []Observer{lazy, brute}}
	if err := r.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if lazy.N() != 5000-17 {
		t.Errorf("observed %d states, want %d", lazy.N(), 5000-17)
	}
	p := lazy.Probs()
	for i := range p {
		for v := range p[i] {
			if want := brute.counts[i][v] / float64(lazy.N()); math.Abs(p[i][v]-want) > 1e-12 {
				t.Fatalf("P(x%d=%d) = %v, brute force %v", i, v, p[i][v], want)
			}
		}
	}
	pooled := Pool(lazy, lazy)
	if !slices.Equal(pooled[3], p[3]) {
		t.Errorf("pooling a run with itself changed it: %v vs %v", pooled[3], p[3])
	}
}

// TestSameSeedSameChain: reproducibility bit for bit, and different seeds
// give different chains.
func TestSameSeedSameChain(t *testing.T) {
	g := smallPotts(t)
	run := func(seed uint64) []float64 {
		s, err := NewPoissonGibbs(g, rand.New(rand.NewPCG(seed, 1)), nil)
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
	streams := Streams(7, 3)
	again := Streams(7, 3)
	for c := range streams {
		if x, y := streams[c].Uint64(), again[c].Uint64(); x != y {
			t.Errorf("stream %d not reproducible", c)
		}
	}
	if Streams(7, 2)[0].Uint64() == Streams(7, 2)[1].Uint64() {
		t.Error("streams 0 and 1 start alike")
	}
}

func TestRunnerCancellation(t *testing.T) {
	g := smallPotts(t)
	s, _ := NewGibbs(g, rand.New(rand.NewPCG(1, 1)), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Runner{Steps: 1 << 40}.Run(ctx, s)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run on a cancelled context returned %v", err)
	}
	if s.Stats().Steps > 0 {
		t.Errorf("ran %d steps after cancellation", s.Stats().Steps)
	}
}

func TestRunnerSystematic(t *testing.T) {
	g := smallPotts(t)
	s, _ := NewGibbs(g, rand.New(rand.NewPCG(1, 1)), nil)
	var seen []int
	obs := observerFunc(func(_ int64, i int, _ []float64) { seen = append(seen, i) })
	if err := (Runner{Steps: 32, Scan: SystematicScan, Observers: []Observer{obs}}).Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	for k, i := range seen {
		if i != k%16 {
			t.Fatalf("systematic scan updated %v", seen)
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
		for _, sc := range exactSamplers() {
			s, err := sc.new(g, rand.New(rand.NewPCG(1, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			err = Runner{Steps: 10000}.Run(context.Background(), s)
			var re *factorgraph.RangeError
			if !errors.As(err, &re) {
				t.Fatalf("%s with factor value %v: Run returned %v, want a RangeError", sc.name, value, err)
			}
			if !strings.Contains(err.Error(), "factor 1 (vars 1,2)") {
				t.Errorf("%s: error %q does not name the factor", sc.name, err)
			}
			if !errors.Is(s.Err(), err) && s.Err().Error() != err.Error() {
				t.Errorf("%s: Err() = %v, Run returned %v", sc.name, s.Err(), err)
			}
			steps := s.Stats().Steps
			s.Step()
			if s.Stats().Steps != steps {
				t.Errorf("%s: chain kept moving after an error", sc.name)
			}
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	g := smallPotts(t)
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
	hard := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariables(2, factorgraph.Discrete(2))
		b.AddFactor(factorgraph.NewProbTable([]int{0, 1}, []int{2, 2}, []float64{1, 0, 0, 1}))
		gg, _ := b.Build()
		return gg
	}()
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"nil model", func() error { _, err := NewGibbs(nil, r, nil); return err }, "nil model"},
		{"nil rng", func() error { _, err := NewPoissonGibbs(g, nil, nil); return err }, "nil *rand.Rand"},
		{"negative λ", func() error { _, err := NewPoissonGibbs(g, r, &Options{Lambda: -1}); return err }, "λ = -1"},
		{"NaN λ", func() error { _, err := NewPoissonGibbs(g, r, &Options{Lambda: math.NaN()}); return err }, "λ = NaN"},
		{"infinite scale", func() error { _, err := NewPoissonGibbs(g, r, &Options{LambdaScale: math.Inf(1)}); return err }, "scale = +Inf"},
		{"both λ and scale", func() error { _, err := NewPoissonGibbs(g, r, &Options{Lambda: 1, LambdaScale: 1}); return err }, "both λ and λ scale"},
		{"continuous", func() error { _, err := NewGibbs(cont, r, nil); return err }, "variable 0 is continuous"},
		{"all observed", func() error { _, err := NewGibbs(allObserved, r, nil); return err }, "every variable is observed"},
		{"init length", func() error { _, err := NewGibbs(g, r, &Options{Init: []float64{0}}); return err }, "1 values for 16 variables"},
		{"init domain", func() error {
			x := make([]float64, 16)
			x[5] = 3
			_, err := NewGibbs(g, r, &Options{Init: x})
			return err
		}, "initial value 3 of variable 5"},
		{"zero probability init", func() error { _, err := NewGibbs(hard, r, &Options{Init: []float64{0, 1}}); return err }, "initial state has zero probability: factor 0 (vars 0,1)"},
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
	for _, name := range []string{"pgibbs", "auto", "mingibbs", "mgpmh", "doublemin", "pgits"} {
		if _, err := New(name, wide, r, nil); err == nil || !strings.Contains(err.Error(), "cannot be drawn") {
			t.Errorf("%s on a factor of range 1e200: %v, want a refusal", name, err)
		}
	}
	if _, err := NewGibbs(wide, r, nil); err != nil {
		t.Errorf("plain Gibbs refused a wide but valid range: %v", err)
	}
	if _, err := NewPoissonGibbs(wide, r, &Options{LambdaScale: 1e300}); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("λ = 1e300·L² accepted: %v", err)
	}
	// Without soft factors (L = Ψ = 0) there is nothing to minibatch: every
	// sampler reduces to exact updates instead of refusing the model.
	for _, g := range []*factorgraph.Graph{noSoft, hard} {
		for _, name := range Names() {
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
	g := smallPotts(t)
	for _, sc := range exactSamplers() {
		s, err := sc.new(g, rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			s.Step()
		}
		if a := testing.AllocsPerRun(1000, func() { s.Step() }); a != 0 {
			t.Errorf("%s: %v allocations a step", sc.name, a)
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
		s, err := NewPoissonGibbs(g, rand.New(rand.NewPCG(5, 5)), &Options{LambdaScale: tc.scale})
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
	for _, name := range Names() {
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

func TestHistogramsMatchBruteForce(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Interval(-1, 2))
	b.AddFactor(factorgraph.NewFunc([]int{0, 1}, -4, 4, func(x []float64) float64 { return x[0] * x[1] }))
	b.AddFactor(factorgraph.NewFunc([]int{1, 2}, -4, 4, func(x []float64) float64 { return -x[1] * x[2] }))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPGITS(g, rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHistograms(g, 7)
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJoint2D(g, 0, 2, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	brute := make([][]float64, 3)
	sums := make([]float64, 3)
	for i := range brute {
		brute[i] = make([]float64, 7)
	}
	bj := make([]float64, 20)
	obs := observerFunc(func(_ int64, _ int, x []float64) {
		for i, v := range x {
			brute[i][min(int((v+1)/3*7), 6)]++
			sums[i] += v
		}
		bj[min(int((x[0]+1)/3*4), 3)*5+min(int((x[2]+1)/3*5), 4)]++
	})
	if err := (Runner{Steps: 3000, Burn: 11, Observers: []Observer{h, j, obs}}).Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	n := float64(h.N())
	for i := range 3 {
		got := h.Var(i)
		for k := range got {
			if math.Abs(got[k]-brute[i][k]/n) > 1e-12 {
				t.Fatalf("x%d bin %d: %v, brute force %v", i, k, got[k], brute[i][k]/n)
			}
		}
		if math.Abs(h.Mean(i)-sums[i]/n) > 1e-9 {
			t.Errorf("mean of x%d: %v, brute force %v", i, h.Mean(i), sums[i]/n)
		}
	}
	for c, p := range j.Probs() {
		if math.Abs(p-bj[c]/n) > 1e-12 {
			t.Fatalf("joint cell %d: %v, brute force %v", c, p, bj[c]/n)
		}
	}
	pooled, err := PoolHistograms(h, h)
	if err != nil {
		t.Fatal(err)
	}
	if p, q := pooled.Var(1), h.Var(1); math.Abs(p[3]-q[3]) > 1e-12 || math.Abs(pooled.Mean(1)-h.Mean(1)) > 1e-12 {
		t.Errorf("pooling a run with itself changed it")
	}
}

func TestTraceThinning(t *testing.T) {
	g := smallPotts(t)
	tr, err := NewTrace(g, []int{2, 5}, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	var seen [][]float64 // every state at updates 3, 6, 9, …
	obs := observerFunc(func(n int64, _ int, x []float64) {
		if n%3 == 0 {
			seen = append(seen, []float64{x[2], x[5]})
		}
	})
	s, _ := NewGibbs(g, rand.New(rand.NewPCG(1, 1)), nil)
	if err := (Runner{Steps: 100, Observers: []Observer{tr, obs}}).Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	d := tr.Draws()
	if len(d) != 2 || len(d[0]) > 8 || len(d[0]) < 4 {
		t.Fatalf("trace holds %d×%d draws, want 2 × 4..8", len(d), len(d[0]))
	}
	// After two halvings draws are 12 updates apart: updates 12, 24, …
	for k, v := range d[0] {
		if want := seen[4*(k+1)-1][0]; v != want {
			t.Fatalf("draw %d = %v, want the state at update %d (%v)", k, v, 12*(k+1), want)
		}
	}
	if _, err := NewTrace(g, []int{99}, 1, 10); err == nil {
		t.Error("trace of variable 99 accepted")
	}
}

// TestRunnerProgress: the progress counter follows the run while it goes
// and ends at the number of updates done, also for a resumed run.
func TestRunnerProgress(t *testing.T) {
	g := smallPotts(t)
	s, _ := NewPoissonGibbs(g, rand.New(rand.NewPCG(1, 1)), nil)
	var p atomic.Int64
	var seen []int64
	obs := observerFunc(func(n int64, _ int, _ []float64) {
		if n%1000 == 0 {
			seen = append(seen, p.Load())
		}
	})
	r := Runner{Steps: 5000, Progress: &p, Observers: []Observer{obs}}
	if err := r.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if p.Load() != 5000 {
		t.Errorf("progress %d after 5000 updates", p.Load())
	}
	for k, v := range seen {
		if lag := int64(1000*(k+1)) - v; lag < 0 || lag > 1024 {
			t.Errorf("progress %d at update %d", v, 1000*(k+1))
		}
	}
	r.Steps = 7000
	if n, err := r.RunFrom(context.Background(), s, 5000); err != nil || n != 7000 || p.Load() != 7000 {
		t.Errorf("resumed run: %d updates, %v, progress %d", n, err, p.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Steps = 9000
	if n, _ := r.RunFrom(ctx, s, 7000); n != 7000 || p.Load() != 7000 {
		t.Errorf("cancelled run: %d updates, progress %d", n, p.Load())
	}
}
