package gibbstest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/tgm"
)

// ContGraph is a test graph with continuous variables: its name, the
// graph, the histogram bins per continuous variable, and whether it has a
// hard factor and is cheap enough for the rejection samplers.
type ContGraph struct {
	Name      string
	G         *factorgraph.Graph
	Bins      int  // bins per continuous variable
	Hard      bool // has a hard factor (rejection samplers refuse it)
	Rejection bool // cheap enough for the rejection samplers (small L)
}

// Fn is factorgraph.NewFunc: a factor over vars with range [lo, hi].
func Fn(vars []int, lo, hi float64, f func(x []float64) float64) factorgraph.Factor {
	return factorgraph.NewFunc(vars, lo, hi, f)
}

// ContGraphs are the continuous samplers' exactness tests' graphs.
func ContGraphs(t *testing.T) []ContGraph {
	t.Helper()
	var out []ContGraph

	// One variable, a bumpy steep density.
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(Fn([]int{0}, -3, 3, func(x []float64) float64 { return 3 * math.Sin(5*x[0]) }))
	b.AddFactor(Fn([]int{0}, 0, 6, func(x []float64) float64 { return 6 * x[0] * x[0] }))
	out = append(out, ContGraph{Name: "1d-bumpy", G: Build(t, b), Bins: 10}) // L = 12: ~500 rejection tries a step

	// One variable with 30 weak factors: minibatching has something to do.
	b = factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(-1, 1))
	for k := range 30 {
		w, c := 0.15, 0.7*float64(k)
		b.AddFactor(Fn([]int{0}, -w, w, func(x []float64) float64 { return w * math.Cos(float64(k%7+1)*x[0]+c) }))
	}
	out = append(out, ContGraph{Name: "1d-30-factors", G: Build(t, b), Bins: 10}) // ~100 rejection tries a step

	// Two variables on different intervals, coupled.
	b = factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(-1, 2))
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(Fn([]int{0}, -4, 0, func(x []float64) float64 { return -x[0] * x[0] }))
	b.AddFactor(Fn([]int{0, 1}, -2, 4, func(x []float64) float64 { return 2 * x[0] * x[1] }))
	b.AddFactor(Fn([]int{1}, -1, 1, func(x []float64) float64 { return math.Sin(6 * x[1]) }))
	out = append(out, ContGraph{Name: "2d", G: Build(t, b), Bins: 6, Rejection: true})

	// A chain of three.
	b = factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Interval(0, 1))
	b.AddFactor(Fn([]int{0, 1}, 0, 3, func(x []float64) float64 { return 3 * x[0] * x[1] }))
	b.AddFactor(Fn([]int{1, 2}, -2, 0, func(x []float64) float64 { return -2 * (x[1] - x[2]) * (x[1] - x[2]) }))
	b.AddFactor(Fn([]int{0}, -1, 1, func(x []float64) float64 { return math.Cos(4 * x[0]) }))
	out = append(out, ContGraph{Name: "3d-chain", G: Build(t, b), Bins: 5, Rejection: true})

	// Mixed: a continuous variable coupled to a discrete one.
	b = factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddVariable(factorgraph.Discrete(3))
	b.AddFactor(Fn([]int{0, 1}, -2, 2, func(x []float64) float64 { return 2 * (x[1] - 1) * x[0] }))
	b.AddFactor(factorgraph.NewTable([]int{1}, []int{3}, []float64{0.5, 0, 1}))
	out = append(out, ContGraph{Name: "mixed", G: Build(t, b), Bins: 10, Rejection: true})

	// A hard factor forbids x0 > 0.7 (a density with a jump to zero).
	b = factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Interval(0, 1))
	b.AddFactor(Fn([]int{0}, 0, math.Inf(1), func(x []float64) float64 {
		if x[0] > 0.7 {
			return math.Inf(-1)
		}
		return 0
	}))
	b.AddFactor(Fn([]int{0, 1}, 0, 2, func(x []float64) float64 { return 2 * x[0] * x[1] }))
	out = append(out, ContGraph{Name: "hard", G: Build(t, b), Bins: 10, Hard: true})

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
	out = append(out, ContGraph{Name: "tgm", G: g, Bins: 8, Rejection: true})
	return out
}
