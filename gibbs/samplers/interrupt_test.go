package samplers

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/lattice"
)

func pairModel(t testing.TB, n int, kind string) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(3))
	for k := range n {
		w := 1e-3 * float64(1+k%3)
		if k%2 == 1 {
			w = -w
		}
		switch kind {
		case "potts":
			b.AddFactor(factorgraph.NewPotts(0, 1, w))
		case "table":
			vals := make([]float64, 9)
			for j := range vals {
				vals[j] = w * float64((j*7+k)%5)
			}
			b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{3, 3}, vals))
		case "func":
			b.AddFactor(factorgraph.NewFunc([]int{0, 1}, -0.01, 0.01, func(x []float64) float64 { return w * (x[0] - x[1]) / 2 }))
		}
	}
	return gibbstest.Build(t, b)
}

// lopsided is x0 (10 values) – x1 – x2 (3 values): one light factor
// between x0 and x1, n Potts factors between x1 and x2. A sweep updates x0
// cheaply (and almost surely changes it) before the long updates of x1 and
// x2, so an interrupted sweep has something to put back.
func lopsided(t testing.TB, n int) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Discrete(10))
	b.AddVariables(2, factorgraph.Discrete(3))
	b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 1e-3, func(x []float64) float64 { return 1e-4 * (x[0] + x[1]) / 2 }))
	for k := range n {
		b.AddFactor(factorgraph.NewPotts(1, 2, 1e-3*float64(1+k%2)))
	}
	return gibbstest.Build(t, b)
}

// contModel is one continuous variable on [0, 1] with n factors.
func contModel(t testing.TB, n int) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	for k := range n {
		c := float64(k % 7)
		b.AddFactor(factorgraph.NewFunc([]int{0}, 0, 1e-3, func(x []float64) float64 { return 1e-3 * (0.5 + 0.5*math.Sin(3*x[0]+c)) }))
	}
	return gibbstest.Build(t, b)
}

// flat couples every pair of sites of a lattice equally (a uniform
// kernel: the torus heat-bath and exp-gap paths).
type flat struct{}

func (flat) Coupling(_, d2 int) float64 { return 1 }

func (flat) Reach() int { return 0 }

func (flat) String() string { return "flat" }

// TestAbortedStep: every long loop of every sampler looks at the interrupt
// channel, and an aborted step leaves everything as it was.
func TestAbortedStep(t *testing.T) {
	const n = 40_000 // factors of an update, > pollEvery
	potts, table, fn := pairModel(t, n, "potts"), pairModel(t, 3000, "table"), pairModel(t, 3000, "func")
	heavy := &gibbs.Options{Lambda: 1e6, Lambda2: 1e6, MaxDraws: math.Inf(1)}
	latt := func(k lattice.Coupling, spin lattice.Spin) *lattice.Lattice {
		return gibbstest.NewLattice(t, lattice.Params{Dim: 1, Size: n + 1, Coupling: k, Spin: spin, Beta: 1e-5})
	}
	type tcase struct {
		sampler string
		m       factorgraph.Model
		opt     *gibbs.Options
	}
	cases := []tcase{
		{"gibbs", potts, nil}, {"gibbs", table, nil}, {"gibbs", fn, nil}, {"gibbs", gibbstest.NoKernel{GlobalModel: potts}, nil},
		{"gibbs", latt(flat{}, lattice.Ising()), nil}, {"gibbs", latt(flat{}, lattice.Potts(3)), nil},
		{"gibbs", latt(lattice.PowerLaw{Sigma: 1}, lattice.Ising()), nil}, {"gibbs", latt(lattice.PowerLaw{Sigma: 1}, lattice.Potts(3)), nil},
		{"pgibbs", potts, heavy}, {"pgibbs", table, heavy}, {"pgibbs", fn, heavy}, {"pgibbs", gibbstest.NoKernel{GlobalModel: potts}, heavy},
		{"pgibbs", potts, &gibbs.Options{Lambda: 1e6, PerVariable: true, MaxDraws: math.Inf(1)}},
		{"pgibbs", latt(lattice.PowerLaw{Sigma: 1}, lattice.Potts(3)), heavy},
		{"auto", potts, heavy}, {"auto", fn, nil},
		{"gibbs", potts, &gibbs.Options{Systematic: true}},
		{"pgibbs", potts, &gibbs.Options{Lambda: 1e6, Lambda2: 1e6, MaxDraws: math.Inf(1), Systematic: true}},
		{"mingibbs", potts, heavy}, {"mingibbs", gibbstest.NoKernel{GlobalModel: fn}, heavy},
		{"mgpmh", potts, heavy}, {"mgpmh", gibbstest.NoKernel{GlobalModel: fn}, heavy},
		{"doublemin", potts, &gibbs.Options{Lambda: 1, Lambda2: 1e6, MaxDraws: math.Inf(1)}},
		{"doublemin", gibbstest.NoKernel{GlobalModel: table}, heavy},
	}
	cont := contModel(t, 3000)
	for _, name := range []string{"gibbs-its", "gibbs-da", "gibbs-rejection", "pgits", "pgda", "pg-rejection"} {
		opt := &gibbs.Options{M: 8}
		if name[0] == 'p' {
			opt.Lambda, opt.MaxDraws = 1e6, math.Inf(1)
		}
		cases = append(cases, tcase{name, cont, opt})
	}
	// A minibatch of few kept factors (the draw is long, not the energies)
	// and a long rejection sampling (many cheap tries).
	b := factorgraph.NewBuilder()
	b.AddVariable(factorgraph.Interval(0, 1))
	b.AddFactor(factorgraph.NewFunc([]int{0}, 0, 11.5, func([]float64) float64 { return 0 })) // accepts 1e−5 of tries
	cases = append(cases, tcase{"pgits", contModel(t, 10), &gibbs.Options{Lambda: 1e6, MaxDraws: math.Inf(1)}},
		tcase{"gibbs-rejection", gibbstest.Build(t, b), nil})
	for _, tc := range cases {
		label := fmt.Sprintf("%s on %T", tc.sampler, tc.m)
		mk := func(r *rand.Rand) (gibbs.Sampler, error) { return New(tc.sampler, tc.m, r, tc.opt) }
		gibbstest.AbortOnce(t, label, mk, gibbstest.Step)
	}
	// Sweeps: x0 is updated (cheaply) before the long update of x1 aborts,
	// and must be put back.
	lop := lopsided(t, n)
	for _, name := range []string{"gibbs", "pgibbs", "mgpmh"} {
		gibbstest.AbortOnce(t, "sweep of "+name, func(r *rand.Rand) (gibbs.Sampler, error) { return New(name, lop, r, heavy) }, gibbstest.Sweep)
	}
}

// TestAbortedChromatic: a Chromatic's step and sweep abort like a single
// sampler's; an aborted sweep puts back the variables its workers updated
// before the abort (x0 by worker 0 while worker 1's update of x2 aborts).
func TestAbortedChromatic(t *testing.T) {
	const n = 40_000
	potts, lop := pairModel(t, n, "potts"), lopsided(t, n)
	for _, tc := range []struct {
		m       *factorgraph.Graph
		classes [][]int
		step    func(gibbs.Sampler) int
	}{
		{potts, [][]int{{0}, {1}}, gibbstest.Step},
		{potts, [][]int{{0}, {1}}, gibbstest.Sweep},
		{lop, [][]int{{0, 2}, {1}}, gibbstest.Sweep},
	} {
		for _, name := range []string{"gibbs", "pgibbs"} {
			mk := func(seed uint64) (gibbs.Sampler, []*rand.PCG, error) {
				srcs := []*rand.PCG{chain.Source(seed, 0), chain.Source(seed, 1)}
				s, err := chromatic.New(factoryOf(t, name), tc.m, tc.classes, []*rand.Rand{rand.New(srcs[0]), rand.New(srcs[1])},
					&gibbs.Options{Lambda: 1e6, MaxDraws: math.Inf(1)})
				return s, srcs, err
			}
			gibbstest.AbortOnceWith(t, "chromatic "+name, mk, tc.step)
		}
	}
}

// TestInterruptChannelNoEffect: a channel that never closes changes nothing:
// a chain run under a cancellable context is the chain of one run without,
// bit for bit (steps and sweeps, single samplers and a Chromatic).
func TestInterruptChannelNoEffect(t *testing.T) {
	tg := gibbstest.Graphs(t)[7]
	lop := lopsided(t, 300)
	opt := &gibbs.Options{Init: tg.Init, Lambda: 2e4, Lambda2: 2e4, MaxDraws: math.Inf(1)} // beyond a chunk
	kernels := map[string]func() chain.Kernel{}
	for _, name := range discreteNames() {
		kernels[name] = func() chain.Kernel {
			s, err := New(name, tg.G, rand.New(rand.NewPCG(5, 5)), opt)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		kernels["sweeper "+name] = func() chain.Kernel { return gibbs.Sweeper{Sampler: kernels[name]().(gibbs.Sampler)} }
	}
	kernels["chromatic"] = func() chain.Kernel {
		c, err := chromatic.New(factoryOf(t, "pgibbs"), lop, [][]int{{0, 2}, {1}}, chain.Streams(5, 2), &gibbs.Options{Lambda: 1e5, MaxDraws: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		return gibbs.Sweeper{Sampler: c}
	}
	for name, mk := range kernels {
		a, b := mk(), mk()
		if err := (&chain.Chain{Kernel: a}).Advance(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		err := (&chain.Chain{Kernel: b}).Advance(ctx, 100)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.State(), b.State()) || !bytes.Equal(gibbstest.SnapshotOf(t, a.(gibbs.Sampler)), gibbstest.SnapshotOf(t, b.(gibbs.Sampler))) {
			t.Errorf("%s: a run with an interrupt channel differs from one without", name)
		}
	}
}
