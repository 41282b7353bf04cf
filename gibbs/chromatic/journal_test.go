package chromatic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/lattice"
)

// TestChromaticJournal: the journal of an interruptible chromatic sweep
// (written by the update loops themselves on a nearest-neighbour torus,
// one byte a value for Ising spins) puts back, bit for bit, every value a
// sweep changed before it stopped — partway through a class, after whole
// blocks — and the counters; −0 included, which a user's initial state
// may hold. Gibbs and Auto (which takes Gibbs's loop), 1 and 2 workers,
// Ising (the byte journal) and 3-state Potts spins (float64).
func TestChromaticJournal(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, spin := range []lattice.Spin{lattice.Ising(), lattice.Potts(3)} {
		l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 64, Coupling: lattice.NearestNeighbour{}, Spin: spin, Beta: 0.4})
		classes, err := l.Colouring()
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"gibbs", "auto"} {
			for _, workers := range []int{1, 2} {
				for _, warm := range []int{0, 3} {
					label := fmt.Sprintf("%v %s, %d workers, %d sweeps before", spin, name, workers, warm)
					r := rand.New(rand.NewPCG(7, 8))
					init := make([]float64, l.Sites())
					for i := range init {
						init[i] = float64(r.IntN(spin.States))
						if init[i] == 0 && r.IntN(2) == 0 {
							init[i] = negZero
						}
					}
					c, err := New(factoryOf(t, name), l, classes, chain.Streams(3, workers), &gibbs.Options{Init: init})
					if err != nil {
						t.Fatal(err)
					}
					for range warm {
						c.Sweep()
					}
					c.SetInterrupt(make(chan struct{})) // open: journal, never abort
					before, stats := slices.Clone(c.State()), c.Stats()
					// What sweep does up to the abort: the counters saved, the
					// journals emptied, class 0 updated, then the first 1500
					// variables of each worker's share of class 1 (a block
					// and a half).
					c.stats = c.stats[:0]
					for _, w := range c.workers {
						b := w.c
						c.stats = append(c.stats, b.Stat)
						b.Saved, b.Saved01 = b.Saved[:0], b.Saved01[:0]
					}
					for w, wk := range c.workers {
						wk.run(c.chunks[0][w], true, c.rows[0][w])
						wk.run(c.chunks[1][w][:min(1500, len(c.chunks[1][w]))], true, c.rows[1][w])
					}
					if changed := slices.Equal(c.State(), before); changed {
						t.Fatalf("%s: the partial sweep changed nothing", label)
					}
					if spin.Kind == lattice.IsingSpins && len(c.workers[0].c.Saved01) == 0 {
						t.Errorf("%s: no byte journal", label)
					}
					c.rollback(1)
					for i, v := range c.State() {
						if math.Float64bits(v) != math.Float64bits(before[i]) {
							t.Fatalf("%s: site %d holds %v after the rollback, %v before", label, i, v, before[i])
						}
					}
					if c.Stats() != stats {
						t.Errorf("%s: counters %+v after the rollback, %+v before", label, c.Stats(), stats)
					}
				}
			}
		}
	}
}
