package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"gonum.org/v1/gonum/stat/distuv"
)

// degenerateModel is a graph the cluster samplers accept where some free
// variables have no bond.
type degenerateModel struct {
	name string
	g    *factorgraph.Graph
}

func degenerateModels(t testing.TB) []degenerateModel {
	t.Helper()
	build := func(name string, n, d int, add func(b *factorgraph.Builder)) degenerateModel {
		b := factorgraph.NewBuilder()
		b.AddVariables(n, factorgraph.Discrete(d))
		add(b)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return degenerateModel{name, g}
	}
	none := func(*factorgraph.Builder) {}
	return []degenerateModel{
		build("one-binary-variable", 1, 2, none),
		build("one-variable-constant-table", 1, 2, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0.7, 0.7}))
		}),
		build("two-binary-variables", 2, 2, none),
		build("three-ternary-variables", 3, 3, none),
		build("lone-variable-and-a-bonded-pair", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewPotts(1, 2, 0.8))
		}),
		build("lone-variable-and-a-field-free-pair-of-3", 3, 3, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewPotts(0, 2, 0.5))
		}),
		build("evidence-and-a-lone-variable", 3, 2, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewPotts(0, 1, 0.6))
			b.Observe(1, 1)
		}),
	}
}

// chainsAt runs `chains` Wolff chains (clusters a step: k > 0 fixed, 0
// tuned) on g from the zero state for steps steps and returns the count of
// each joint state they end in. breakIt, if set, is applied to each sampler.
func chainsAt(t *testing.T, g *factorgraph.Graph, k, chains, steps int, seed uint64, breakIt func(*Wolff)) []float64 {
	t.Helper()
	counts := make([]float64, len(gibbstest.Enumerate(g)))
	init := make([]float64, g.NumVars())
	for c := range chains {
		w, err := NewWolff(g, rand.New(rand.NewPCG(seed, uint64(c))), &gibbs.Options{Init: init})
		if err != nil {
			t.Fatal(err)
		}
		if breakIt != nil {
			breakIt(w)
		}
		if k > 0 {
			if err := w.SetClusters(k); err != nil {
				t.Fatal(err)
			}
		} else if _, err := w.TuneClusters(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		for range steps {
			w.Step()
		}
		if err := w.Err(); err != nil {
			t.Fatal(err)
		}
		counts[gibbstest.StateIndex(g, w.State())]++
	}
	return counts
}

// chiSquareP returns the p-value of the χ² test of counts against the
// probabilities p (cells with p = 0 must be empty: else 0 is returned).
func chiSquareP(counts, p []float64) float64 {
	total := 0.0
	for _, c := range counts {
		total += c
	}
	chi, cells := 0.0, 0
	for s, q := range p {
		if q == 0 {
			if counts[s] > 0 {
				return 0
			}
			continue
		}
		e := q * total
		chi += (counts[s] - e) * (counts[s] - e) / e
		cells++
	}
	if cells < 2 {
		return 1
	}
	return distuv.ChiSquared{K: float64(cells - 1)}.Survival(chi)
}

// degenerateP is the p-value below which a χ² test fails: over the ~150
// tests of TestWolffAperiodic a false alarm has probability ~10⁻⁴; the old
// flip scores p < 10⁻³⁰⁰ where it is wrong.
const degenerateP = 1e-6

// degenerateCounts are the clusters a step the tests try (0: tuned).
var degenerateCounts = []int{1, 2, 3, 0}

// TestWolffAperiodic: on every degenerate model, with 1, 2, 3 and the tuned
// number of clusters a step, the state after 40 and after 41 steps of 4000
// independent chains from the zero state is distributed as π.
func TestWolffAperiodic(t *testing.T) {
	for _, dm := range degenerateModels(t) {
		joint := gibbstest.Enumerate(dm.g)
		for _, k := range degenerateCounts {
			for _, steps := range []int{40, 41} {
				counts := chainsAt(t, dm.g, k, 4000, steps, 3, nil)
				if p := chiSquareP(counts, joint); p < degenerateP {
					t.Errorf("%s, %d clusters a step, after %d steps: χ² p = %.3g: states %v, want ∝ %v", dm.name, k, steps, p, counts, joint)
				}
			}
		}
	}
}

// flipLone breaks w as the code was: a variable without bonds is flipped
// like any field-free cluster (a bond of rate 10⁻³⁰⁰ makes it "bonded", and
// no event is ever drawn on it).
func flipLone(w *Wolff) {
	for i, k := range w.b.k {
		if k == 0 {
			w.b.k[i] = 1e-300
		}
	}
}

// TestWolffAperiodicCatchesFlip: the same test rejects the flip of lone
// binary variables — never moving with 2 clusters a step, alternating with
// 1 — and passes it on lone variables of three values, where the flip is
// aperiodic (a → b → c → a returns in 3 steps, a → b → a in 2).
func TestWolffAperiodicCatchesFlip(t *testing.T) {
	for _, dm := range degenerateModels(t)[:4] {
		binary := dm.g.Domain(0).Size == 2
		joint := gibbstest.Enumerate(dm.g)
		for _, k := range []int{1, 2} {
			caught := false
			for _, steps := range []int{40, 41} {
				counts := chainsAt(t, dm.g, k, 4000, steps, 3, flipLone)
				caught = caught || chiSquareP(counts, joint) < degenerateP
			}
			if caught != binary {
				t.Errorf("%s, %d clusters a step: the flip of lone variables caught: %v, want %v", dm.name, k, caught, binary)
			}
		}
	}
}

// TestWolffDegenerateExactness: on the degenerate models, single long
// chains of every cluster case of TestClusterExactness (Swendsen–Wang, its
// Update path, Wolff with 1 and 3 clusters a step) and of Wolff with 2
// have the exact joint and marginals (batch means), and the flip of lone
// variables fails there too where it freezes the chain.
func TestWolffDegenerateExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	var graphs []gibbstest.Graph
	for k, dm := range degenerateModels(t) {
		graphs = append(graphs, gibbstest.Graph{G: dm.g, Init: make([]float64, dm.g.NumVars()), Seed: uint64(100 + k)})
	}
	wolff := func(k int) gibbstest.SamplerCase { // with clusterCases' 1 and 3
		return gibbstest.SamplerCase{Name: fmt.Sprintf("Wolff/%d-clusters", k), New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			w, err := NewWolff(m, r, &gibbs.Options{Init: init})
			if err != nil {
				return nil, err
			}
			return w, w.SetClusters(k)
		}, Steps: 40000}
	}
	gibbstest.CheckExact(t, graphs, append(clusterCases(), wolff(2)), 5, 1)
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{
		{Name: "Wolff/2-clusters/flip-lone-variables", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			w, err := NewWolff(tg.G, rand.New(rand.NewPCG(tg.Seed, 5)), &gibbs.Options{Init: tg.Init})
			if err != nil {
				return nil, err
			}
			flipLone(w)
			return w, w.SetClusters(2)
		}, Steps: 160000},
	})
}
