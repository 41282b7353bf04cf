package continuous

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/spin"
	"github.com/pgibbs/pgibbs/tgm"
	"gonum.org/v1/gonum/integrate/quad"
)

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
	new       func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error)
	rejection bool
}

func contSamplers() []contCase {
	opt := func(o gibbs.Options) *gibbs.Options { return &o }
	return []contCase{
		{"GibbsITS", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewGibbsITS(m, r, nil) }, false},
		{"GibbsDA", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewGibbsDA(m, r, nil) }, false},
		{"PGITS", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewPGITS(m, r, nil) }, false},
		{"PGITS/λ=0.05L²,m=6", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewPGITS(m, r, opt(gibbs.Options{LambdaScale: 0.05, M: 6}))
		}, false},
		{"PGDA", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewPGDA(m, r, nil) }, false},
		{"PGDA/m=20,k=25", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewPGDA(m, r, opt(gibbs.Options{M: 20, K: 25}))
		}, false},
		// A systematic scan (gibbs.Options.Systematic): the same updates in turn.
		{"PGDA/systematic", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewPGDA(m, r, opt(gibbs.Options{Systematic: true}))
		}, false},
		{"GibbsITS/systematic", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewGibbsITS(m, r, opt(gibbs.Options{Systematic: true}))
		}, false},
		{"GibbsRejection", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewGibbsRejection(m, r, nil) }, true},
		{"PGRejection", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewPGRejection(m, r, nil) }, true},
	}
}

const contSteps = 60000

func TestContinuousExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := gibbstest.ContGraphs(t)
	for _, sc := range contSamplers() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			worst := 0.0
			for gi, cg := range graphs {
				s, err := sc.new(cg.G, rand.New(rand.NewPCG(uint64(gi), 5)))
				if sc.rejection && cg.Hard {
					if err == nil {
						t.Errorf("%s: accepted a continuous variable with a hard factor", cg.Name)
					}
					continue
				}
				if sc.rejection && !cg.Rejection {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", cg.Name, err)
				}
				cells, names := contCells(cg.G, cg.Bins)
				z, where := gibbstest.BatchZ(s, contSteps, quadratureCells(cg.G, cg.Bins), names, cells)
				if z > gibbstest.ZLimit {
					t.Errorf("%s: %s: z = %.2f > %v", cg.Name, where, z, gibbstest.ZLimit)
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
	gibbstest.SkipShort(t)
	graphs := gibbstest.ContGraphs(t)
	for _, sc := range []contCase{
		{"GibbsITS/m=2", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewGibbsITS(m, r, &gibbs.Options{M: 2})
		}, false},
		{"PGDA/m=2,k=3", func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewPGDA(m, r, &gibbs.Options{M: 2, K: 3})
		}, false},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			caught := 0
			for gi, cg := range graphs {
				s, err := sc.new(cg.G, rand.New(rand.NewPCG(uint64(gi), 5)))
				if err != nil {
					t.Fatal(err)
				}
				s = uncorrected(s.(*Continuous))
				cells, names := contCells(cg.G, cg.Bins)
				if z, _ := gibbstest.BatchZ(s, contSteps, quadratureCells(cg.G, cg.Bins), names, cells); z > gibbstest.ZLimit {
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
	b.AddFactor(gibbstest.Fn([]int{0}, 0, 3, func(x []float64) float64 { return 3 * x[0] }))
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
	cg := gibbstest.ContGraphs(t)[2] // 2d
	for _, sc := range contSamplers() {
		s, err := sc.new(cg.G, rand.New(rand.NewPCG(1, 1)))
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
	cg := gibbstest.ContGraphs(t)[0]
	r := rand.New(rand.NewPCG(1, 1))
	for _, o := range []gibbs.Options{{M: -1}, {K: -2}, {M: 1 << 20}, {MaxTries: -1}} {
		if _, err := NewPGDA(cg.G, r, &o); err == nil {
			t.Errorf("NewPGDA(%+v) succeeded", o)
		}
	}
	if _, err := site.NewPoissonGibbs(cg.G, r, nil); err == nil {
		t.Error("PoissonGibbs accepted a continuous variable")
	}
	// A rejection sampler that cannot accept stops with an error.
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(gibbstest.Fn([]int{0}, 0, 200, func(x []float64) float64 { return 200 * x[0] * x[0] * x[0] * x[0] }))
	g, _ := b.Build()
	s, err := NewGibbsRejection(g, r, &gibbs.Options{MaxTries: 100, Init: []float64{0.5}})
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
	b.AddFactor(gibbstest.Fn([]int{0, 1}, 0, 1, func(x []float64) float64 { return x[0] * x[1] }))
	b.AddFactor(gibbstest.Fn([]int{0, 1}, 0, 1, func(x []float64) float64 {
		if x[0] > 0.9 {
			return 2
		}
		return 0.5 * x[1]
	}))
	cases = append(cases, bad{"func", build(b), "factor 1 (vars 0,1)", false})

	// The same as a hard factor returning NaN.
	b = factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Interval(0, 1))
	b.AddFactor(gibbstest.Fn([]int{0, 1}, 0, 1, func(x []float64) float64 { return x[0] * x[1] }))
	b.AddFactor(gibbstest.Fn([]int{0, 1}, 0, math.Inf(1), func(x []float64) float64 {
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
