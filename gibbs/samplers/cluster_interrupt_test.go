package samplers

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/lattice"
)

// starFields is a hub coupled to n leaves by Potts pairs of weight k, each
// leaf with a unary table: one Wolff cluster holds most of the leaves from
// the all-zero state, and a Swendsen–Wang sweep sums n unary rows.
func starFields(t testing.TB, n int, k float64) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(n+1, factorgraph.Discrete(3))
	for i := 1; i <= n; i++ {
		b.AddFactor(factorgraph.NewPotts(0, i, k))
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{3}, []float64{0.1 * float64(i%3), 0, 0.2}))
	}
	return gibbstest.Build(t, b)
}

// TestClusterAbortedStep: with the interrupt channel closed, every long
// loop of the cluster samplers stops the step, which leaves the sampler as
// it was (the clusters a Wolff step already flipped are put back), and the
// step run again is the uninterrupted one.
func TestClusterAbortedStep(t *testing.T) {
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 100, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Potts(3), Beta: 2})
	zeros := &gibbs.Options{Init: make([]float64, l.Sites())}
	hot := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 100, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Potts(3), Beta: 0.3})
	star, strongStar := starFields(t, 2000, 3), starFields(t, 2000, 20)
	starZeros := &gibbs.Options{Init: make([]float64, star.NumVars())}
	cases := []struct {
		label string
		mk    func(r *rand.Rand) (gibbs.Sampler, error)
		step  func(gibbs.Sampler) int
	}{
		// 40 000 bond events: the union loop's chunks.
		{"sw lattice", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewSwendsenWang(l, r, nil) }, gibbstest.Step},
		{"sweep of sw lattice", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewSwendsenWang(l, r, nil) }, gibbstest.Sweep},
		// One cluster of every site: the growth loop.
		{"wolff lattice", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewWolff(l, r, zeros) }, gibbstest.Step},
		// Many small clusters: the step's work passes a chunk after some
		// clusters are flipped, which the journal puts back.
		{"wolff lattice, 20000 clusters", func(r *rand.Rand) (gibbs.Sampler, error) {
			w, err := cluster.NewWolff(hot, r, nil)
			if err == nil {
				err = w.SetClusters(20000)
			}
			return w, err
		}, gibbstest.Step},
		// 2000 unary rows: the sums of Swendsen–Wang and of a Wolff
		// cluster (or its growth, whichever passes its chunk first).
		{"sw star", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewSwendsenWang(star, r, starZeros) }, gibbstest.Step},
		{"wolff star", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewWolff(star, r, starZeros) }, gibbstest.Step},
		{"sweep of wolff star", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewWolff(star, r, starZeros) }, gibbstest.Sweep},
		// 40 000 bond events on a graph: its union loop and its growth.
		{"sw strong star", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewSwendsenWang(strongStar, r, starZeros) }, gibbstest.Step},
		{"wolff strong star", func(r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewWolff(strongStar, r, starZeros) }, gibbstest.Step},
	}
	for _, tc := range cases {
		start := time.Now()
		gibbstest.AbortOnce(t, tc.label, tc.mk, tc.step)
		t.Logf("%s: %v", tc.label, time.Since(start).Round(time.Millisecond))
	}
	// Update(i) outside a step: an aborted cluster changes nothing.
	w, err := cluster.NewWolff(l, rand.New(rand.NewPCG(1, 1)), zeros)
	if err != nil {
		t.Fatal(err)
	}
	before := gibbstest.SnapshotOf(t, w)
	w.SetInterrupt(gibbstest.ClosedChannel())
	w.Update(7)
	if !bytes.Equal(before, gibbstest.SnapshotOf(t, w)) {
		t.Error("an aborted Update changed the sampler")
	}
}

// TestClusterInterruptChannelNoEffect: an open interrupt channel changes
// nothing: the chain is that of a run without one, bit for bit.
func TestClusterInterruptChannelNoEffect(t *testing.T) {
	tg := gibbstest.RandomClusterGraph(t, 11, true, true, true)
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 12, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(3), Beta: 0.4})
	for _, m := range []factorgraph.Model{tg.G, l} {
		opt := &gibbs.Options{}
		if m == factorgraph.Model(tg.G) {
			opt.Init = tg.Init
		}
		for _, name := range []string{"sw", "wolff"} {
			for _, sweeps := range []bool{false, true} {
				mk := func() chain.Kernel {
					s, err := New(name, m, rand.New(rand.NewPCG(5, 5)), opt)
					if err != nil {
						t.Fatal(err)
					}
					if w, ok := s.(*cluster.Wolff); ok {
						_ = w.SetClusters(5)
					}
					if sweeps {
						return gibbs.Sweeper{Sampler: s}
					}
					return s
				}
				a, b := mk(), mk()
				if err := (&chain.Chain{Kernel: a}).Advance(context.Background(), 300); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				err := (&chain.Chain{Kernel: b}).Advance(ctx, 300)
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a.State(), b.State()) || !bytes.Equal(gibbstest.SnapshotOf(t, a.(chain.Snapshotter).(gibbs.Sampler)), gibbstest.SnapshotOf(t, b.(chain.Snapshotter).(gibbs.Sampler))) {
					t.Errorf("%s on %T (sweeps %v): a run with an interrupt channel differs from one without", name, m, sweeps)
				}
			}
		}
	}
}

// TestClusterInterruptThroughChain: runs of steps of more than 100 ms,
// cancelled after 20 ms, stop within their step, and resume from the
// checkpoint to the state and counters of an uninterrupted run.
func TestClusterInterruptThroughChain(t *testing.T) {
	gibbstest.SkipShort(t)
	var l *lattice.Lattice
	strong := func(t testing.TB) factorgraph.Model {
		if l == nil {
			// β = 80: every pair bonds; 6·10⁶ events a sweep, 1.6·10⁷ a cluster.
			l = gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 150, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(3), Beta: 80})
		}
		return l
	}
	zeros := gibbs.Options{Init: make([]float64, 150*150)}
	for _, kind := range []interruptKind{
		{"sw", single("sw", strong, gibbs.Options{}, false)},
		{"sweeper sw", single("sw", strong, gibbs.Options{}, true)},
		{"wolff", single("wolff", strong, zeros, false)},
	} {
		t.Run(kind.name, func(t *testing.T) { interruptThroughChain(t, kind) })
	}
}
