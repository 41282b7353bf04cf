package gibbs

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/models/spin"
	"github.com/pgibbs/pgibbs/models/tgm"
)

// The continuous samplers are proven exact on graphs of one to three
// continuous variables (one of them mixed with a discrete variable, one with
// a hard factor) against ground truth from quadrature: the frequencies of
// joint and marginal bins are compared with their exact probabilities by
// the batch-means z-test of exact_test.go.

type contGraph struct {
	name      string
	g         *factorgraph.Graph
	bins      int  // bins per continuous variable
	hard      bool // has a hard factor (rejection samplers refuse it)
	rejection bool // cheap enough for the rejection samplers (small L)
}

func fn(vars []int, lo, hi float64, f func(x []float64) float64) factorgraph.Factor {
	return factorgraph.NewFunc(vars, lo, hi, f)
}

func contGraphs(t *testing.T) []contGraph {
	t.Helper()
	build := func(b *factorgraph.Builder) *factorgraph.Graph {
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var out []contGraph

	// One variable, a bumpy steep density.
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0}, -3, 3, func(x []float64) float64 { return 3 * math.Sin(5*x[0]) }))
	b.AddFactor(fn([]int{0}, 0, 6, func(x []float64) float64 { return 6 * x[0] * x[0] }))
	out = append(out, contGraph{name: "1d-bumpy", g: build(b), bins: 10}) // L = 12: ~500 rejection tries a step

	// One variable with 30 weak factors: minibatching has something to do.
	b = factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(-1, 1))
	for k := range 30 {
		w, c := 0.15, 0.7*float64(k)
		b.AddFactor(fn([]int{0}, -w, w, func(x []float64) float64 { return w * math.Cos(float64(k%7+1)*x[0]+c) }))
	}
	out = append(out, contGraph{name: "1d-30-factors", g: build(b), bins: 10}) // ~100 rejection tries a step

	// Two variables on different intervals, coupled.
	b = factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(-1, 2))
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0}, -4, 0, func(x []float64) float64 { return -x[0] * x[0] }))
	b.AddFactor(fn([]int{0, 1}, -2, 4, func(x []float64) float64 { return 2 * x[0] * x[1] }))
	b.AddFactor(fn([]int{1}, -1, 1, func(x []float64) float64 { return math.Sin(6 * x[1]) }))
	out = append(out, contGraph{name: "2d", g: build(b), bins: 6, rejection: true})

	// A chain of three.
	b = factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0, 1}, 0, 3, func(x []float64) float64 { return 3 * x[0] * x[1] }))
	b.AddFactor(fn([]int{1, 2}, -2, 0, func(x []float64) float64 { return -2 * (x[1] - x[2]) * (x[1] - x[2]) }))
	b.AddFactor(fn([]int{0}, -1, 1, func(x []float64) float64 { return math.Cos(4 * x[0]) }))
	out = append(out, contGraph{name: "3d-chain", g: build(b), bins: 5, rejection: true})

	// Mixed: a continuous variable coupled to a discrete one.
	b = factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddVariable(factorgraph.Discrete(3))
	b.AddFactor(fn([]int{0, 1}, -2, 2, func(x []float64) float64 { return 2 * (x[1] - 1) * x[0] }))
	b.AddFactor(factorgraph.NewTable([]int{1}, []int{3}, []float64{0.5, 0, 1}))
	out = append(out, contGraph{name: "mixed", g: build(b), bins: 10, rejection: true})

	// A hard factor forbids x0 > 0.7 (a density with a jump to zero).
	b = factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0}, 0, math.Inf(1), func(x []float64) float64 {
		if x[0] > 0.7 {
			return math.Inf(-1)
		}
		return 0
	}))
	b.AddFactor(fn([]int{0, 1}, 0, 2, func(x []float64) float64 { return 2 * x[0] * x[1] }))
	out = append(out, contGraph{name: "hard", g: build(b), bins: 10, hard: true})

	// The truncated Gaussian mixture of §4.3 with 30 data, β = 0.05 and the
	// MH papers' box [−3, 3]² with the Gibbs paper's priors: L ≈ 16, so that
	// λ = L² keeps the minibatch samplers quick (on [−6, 6]² with β·N = 10,
	// L ≈ 380 and λ = L² asks for 1.4·10⁵ draws a step).
	cfg := tgm.GibbsConfig()
	cfg.N, cfg.Beta, cfg.Box = 30, 0.05, tgm.Box{Lo1: -3, Hi1: 3, Lo2: -3, Hi2: 3}
	mix, err := tgm.Generate(cfg, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	g, err := mix.Graph()
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, contGraph{name: "tgm", g: g, bins: 8, rejection: true})
	return out
}

// quadratureCells returns the exact probability of every cell of
// contCells (the joint bin of all variables, then each variable's bin), by
// a product Gauss–Legendre rule of 8 nodes per bin (bin edges put any jump
// of the density on an edge).
func quadratureCells(g *factorgraph.Graph, bins int) []float64 {
	n := g.NumVars()
	type node struct {
		x, w float64
		bin  int
	}
	axes := make([][]node, n)
	for i := range n {
		d := g.Domain(i)
		if d.IsDiscrete() {
			for v := range d.Size {
				axes[i] = append(axes[i], node{float64(v), 1, v})
			}
			continue
		}
		xs, ws := make([]float64, 8), make([]float64, 8)
		w := (d.Hi - d.Lo) / float64(bins)
		for b := range bins {
			quad.Legendre{}.FixedLocations(xs, ws, d.Lo+float64(b)*w, d.Lo+float64(b+1)*w)
			for q := range xs {
				axes[i] = append(axes[i], node{xs[q], ws[q], b})
			}
		}
	}
	sizes := cellSizes(g, bins)
	joint := 1
	for _, s := range sizes {
		joint *= s
	}
	total := joint
	for _, s := range sizes {
		total += s
	}
	probs := make([]float64, total)
	x := make([]float64, n)
	idx := make([]int, n)
	var z float64
	for {
		w, cell, stride := 1.0, 0, 1
		for i := range n {
			nd := axes[i][idx[i]]
			x[i] = nd.x
			w *= nd.w
			cell += nd.bin * stride
			stride *= sizes[i]
		}
		e := 0.0
		for f := range g.NumFactors() {
			e += g.Factor(f).Value(x)
		}
		p := w * math.Exp(e)
		z += p
		probs[cell] += p
		off := joint
		for i := range n {
			probs[off+axes[i][idx[i]].bin] += p
			off += sizes[i]
		}
		// Next grid point.
		i := 0
		for ; i < n; i++ {
			idx[i]++
			if idx[i] < len(axes[i]) {
				break
			}
			idx[i] = 0
		}
		if i == n {
			break
		}
	}
	for c := range probs {
		probs[c] /= z
	}
	return probs
}

func cellSizes(g *factorgraph.Graph, bins int) []int {
	sizes := make([]int, g.NumVars())
	for i := range sizes {
		if d := g.Domain(i); d.IsDiscrete() {
			sizes[i] = d.Size
		} else {
			sizes[i] = bins
		}
	}
	return sizes
}

// contCells maps a state to its cells: the joint bin, then one bin a
// variable.
func contCells(g *factorgraph.Graph, bins int) (func(x []float64, dst []int) []int, []string) {
	sizes := cellSizes(g, bins)
	joint := 1
	for _, s := range sizes {
		joint *= s
	}
	var names []string
	for c := range joint {
		names = append(names, fmt.Sprintf("joint bin %d", c))
	}
	for i, s := range sizes {
		for b := range s {
			names = append(names, fmt.Sprintf("x%d in bin %d", i, b))
		}
	}
	binOf := func(i int, v float64) int {
		d := g.Domain(i)
		if d.IsDiscrete() {
			return int(v)
		}
		return min(int((v-d.Lo)/(d.Hi-d.Lo)*float64(bins)), bins-1)
	}
	return func(x []float64, dst []int) []int {
		cell, stride := 0, 1
		for i := range sizes {
			cell += binOf(i, x[i]) * stride
			stride *= sizes[i]
		}
		dst = append(dst[:0], cell)
		off := joint
		for i := range sizes {
			dst = append(dst, off+binOf(i, x[i]))
			off += sizes[i]
		}
		return dst
	}, names
}

type contCase struct {
	name      string
	new       func(m factorgraph.Model, r *rand.Rand) (Sampler, error)
	rejection bool
}

func contSamplers() []contCase {
	opt := func(o Options) *Options { return &o }
	return []contCase{
		{"GibbsITS", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) { return NewGibbsITS(m, r, nil) }, false},
		{"GibbsDA", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) { return NewGibbsDA(m, r, nil) }, false},
		{"PGITS", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) { return NewPGITS(m, r, nil) }, false},
		{"PGITS/λ=0.05L²,m=6", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) {
			return NewPGITS(m, r, opt(Options{LambdaScale: 0.05, M: 6}))
		}, false},
		{"PGDA", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) { return NewPGDA(m, r, nil) }, false},
		{"PGDA/m=20,k=25", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) {
			return NewPGDA(m, r, opt(Options{M: 20, K: 25}))
		}, false},
		{"GibbsRejection", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) { return NewGibbsRejection(m, r, nil) }, true},
		{"PGRejection", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) { return NewPGRejection(m, r, nil) }, true},
	}
}

const contSteps = 60000

func TestContinuousExactness(t *testing.T) {
	skipShort(t)
	graphs := contGraphs(t)
	for _, sc := range contSamplers() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			worst := 0.0
			for gi, cg := range graphs {
				s, err := sc.new(cg.g, rand.New(rand.NewPCG(uint64(gi), 5)))
				if sc.rejection && cg.hard {
					if err == nil {
						t.Errorf("%s: accepted a continuous variable with a hard factor", cg.name)
					}
					continue
				}
				if sc.rejection && !cg.rejection {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", cg.name, err)
				}
				cells, names := contCells(cg.g, cg.bins)
				z, where := batchZ(s, contSteps, quadratureCells(cg.g, cg.bins), names, cells)
				if z > zLimit {
					t.Errorf("%s: %s: z = %.2f > %v", cg.name, where, z, zLimit)
				}
				worst = max(worst, z)
			}
			t.Logf("largest z-score over %d graphs: %.2f", len(graphs), worst)
		})
	}
}

// TestContinuousCatchesUncorrected: without the Metropolis–Hastings
// correction, a low-degree polynomial sampler draws from its polynomial,
// not from π, and the same check rejects it.
func TestContinuousCatchesUncorrected(t *testing.T) {
	skipShort(t)
	graphs := contGraphs(t)
	for _, sc := range []contCase{
		{"GibbsITS/m=2", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) {
			return NewGibbsITS(m, r, &Options{M: 2})
		}, false},
		{"PGDA/m=2,k=3", func(m factorgraph.Model, r *rand.Rand) (Sampler, error) {
			return NewPGDA(m, r, &Options{M: 2, K: 3})
		}, false},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			caught := 0
			for gi, cg := range graphs {
				s, err := sc.new(cg.g, rand.New(rand.NewPCG(uint64(gi), 5)))
				if err != nil {
					t.Fatal(err)
				}
				s = uncorrected(s.(*Continuous))
				cells, names := contCells(cg.g, cg.bins)
				if z, _ := batchZ(s, contSteps, quadratureCells(cg.g, cg.bins), names, cells); z > zLimit {
					caught++
				}
			}
			if caught == 0 {
				t.Error("no graph rejected the uncorrected sampler")
			}
			t.Logf("rejected on %d of %d graphs", caught, len(graphs))
		})
	}
}

// TestQuadratureCells checks the ground truth itself on a density with a
// closed form: x ∈ [0,1] with density ∝ exp(3x), bin probabilities
// (e^{3b} − e^{3a})/(e³ − 1).
func TestQuadratureCells(t *testing.T) {
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0}, 0, 3, func(x []float64) float64 { return 3 * x[0] }))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	probs := quadratureCells(g, 4)
	for k := range 4 {
		lo, hi := float64(k)/4, float64(k+1)/4
		want := (math.Exp(3*hi) - math.Exp(3*lo)) / (math.Exp(3) - 1)
		if math.Abs(probs[k]-want) > 1e-12 || math.Abs(probs[4+k]-want) > 1e-12 {
			t.Errorf("bin %d: %v, %v; want %v", k, probs[k], probs[4+k], want)
		}
	}
}

func TestContinuousZeroAllocations(t *testing.T) {
	cg := contGraphs(t)[2] // 2d
	for _, sc := range contSamplers() {
		s, err := sc.new(cg.g, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			s.Step()
		}
		if a := testing.AllocsPerRun(500, func() { s.Step() }); a != 0 {
			t.Errorf("%s: %v allocations a step", sc.name, a)
		}
	}
}

func TestContinuousErrors(t *testing.T) {
	cg := contGraphs(t)[0]
	r := rand.New(rand.NewPCG(1, 1))
	for _, o := range []Options{{M: -1}, {K: -2}, {M: 1 << 20}, {MaxTries: -1}} {
		if _, err := NewPGDA(cg.g, r, &o); err == nil {
			t.Errorf("NewPGDA(%+v) succeeded", o)
		}
	}
	if _, err := NewPoissonGibbs(cg.g, r, nil); err == nil {
		t.Error("PoissonGibbs accepted a continuous variable")
	}
	// A rejection sampler that cannot accept stops with an error.
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0}, 0, 200, func(x []float64) float64 { return 200 * x[0] * x[0] * x[0] * x[0] }))
	g, _ := b.Build()
	s, err := NewGibbsRejection(g, r, &Options{MaxTries: 100, Init: []float64{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.Step()
	}
	if s.Err() == nil {
		t.Error("rejection sampling with acceptance ≈ e⁻¹⁹⁰ reported no error after its try budget")
	}
}

// narrowed is a factor that declares a narrower range than its values
// take: the inner factor's range shrunk to its lower fraction frac. It
// passes the inner factor's Section on, so the samplers' batched path is
// what meets the bad values.
type narrowed struct {
	factorgraph.Factor
	frac float64
}

func (f narrowed) Range() (lo, hi float64) {
	lo, hi = f.Factor.Range()
	return lo, lo + f.frac*(hi-lo)
}

func (f narrowed) Section(dst, x []float64, i int, at []float64) {
	f.Factor.(factorgraph.Sectioner).Section(dst, x, i, at)
}

// TestContinuousRangeErrors: a value outside its factor's declared range
// (or NaN), met while the continuous samplers evaluate a factor along a
// variable at many points at once, stops the chain with a RangeError that
// names the factor: for a Func factor (evaluated point by point), a spin
// pair and a mixture datum factor (their own Section), soft or hard, exact
// and minibatched.
func TestContinuousRangeErrors(t *testing.T) {
	build := func(b *factorgraph.Builder) *factorgraph.Graph {
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	type bad struct {
		name   string
		g      *factorgraph.Graph
		factor string // substring of the error naming the culprit
		hard   bool
	}
	var cases []bad

	// A Func factor that returns 2 on part of the interval, declared [0, 1].
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0, 1}, 0, 1, func(x []float64) float64 { return x[0] * x[1] }))
	b.AddFactor(fn([]int{0, 1}, 0, 1, func(x []float64) float64 {
		if x[0] > 0.9 {
			return 2
		}
		return 0.5 * x[1]
	}))
	cases = append(cases, bad{"func", build(b), "factor 1 (vars 0,1)", false})

	// The same as a hard factor returning NaN.
	b = factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Interval(0, 1))
	b.AddFactor(fn([]int{0, 1}, 0, 1, func(x []float64) float64 { return x[0] * x[1] }))
	b.AddFactor(fn([]int{0, 1}, 0, math.Inf(1), func(x []float64) float64 {
		if x[0] > 0.9 {
			return math.NaN()
		}
		return 0
	}))
	cases = append(cases, bad{"hard-NaN", build(b), "factor 1 (vars 0,1)", true})

	// Spin pairs, the third declaring a third of its true range.
	b = factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Interval(-1, 1))
	b.AddFactor(spin.NewPair(0, 1, 0.5, -1, 1))
	b.AddFactor(spin.NewPair(1, 2, 0.7, -1, 1))
	b.AddFactor(narrowed{spin.NewPair(0, 2, 0.9, -1, 1), 1.0 / 3})
	cases = append(cases, bad{"spin", build(b), "factor 2 (vars 0,2)", false})

	// Mixture data factors, datum 7 declaring half of its range.
	cfg := tgm.GibbsConfig()
	cfg.N, cfg.Beta = 10, 0.5
	mix, err := tgm.Generate(cfg, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	mg, err := mix.Graph()
	if err != nil {
		t.Fatal(err)
	}
	b = factorgraph.NewBuilder()
	b.AddVariable(mg.Domain(0))
	b.AddVariable(mg.Domain(1))
	for f := range mg.NumFactors() {
		if f == 7 {
			b.AddFactor(narrowed{mg.Factor(f), 0.5})
			continue
		}
		b.AddFactor(mg.Factor(f))
	}
	cases = append(cases, bad{"tgm", build(b), "factor 7 (vars 0,1)", false})

	for _, c := range cases {
		for _, sc := range contSamplers() {
			if sc.rejection && c.hard {
				continue
			}
			s, err := sc.new(c.g, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatalf("%s: %s: %v", c.name, sc.name, err)
			}
			for range 2000 {
				s.Step()
				if s.Err() != nil {
					break
				}
			}
			var re *factorgraph.RangeError
			if !errors.As(s.Err(), &re) {
				t.Errorf("%s: %s: Err() = %v, want a RangeError", c.name, sc.name, s.Err())
				continue
			}
			if !strings.Contains(re.Error(), c.factor) {
				t.Errorf("%s: %s: error %q does not name %s", c.name, sc.name, re, c.factor)
			}
			steps := s.Stats().Steps
			s.Step()
			if s.Stats().Steps != steps {
				t.Errorf("%s: %s: chain kept moving after an error", c.name, sc.name)
			}
		}
	}
}
