package chromatic

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// outside returns the factory of name whose samplers a Chromatic sees as a
// user's gibbs.Workers.
func outside(t testing.TB, name string) gibbs.Factory {
	f := factoryOf(t, name)
	return func(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
		s, err := f(m, r, opt)
		if err != nil {
			return nil, err
		}
		return gibbstest.OutsideWorker{Worker: s.(gibbs.Worker)}, nil
	}
}

// TestOutsideWorkerSameChain: a worker run through gibbs.Worker's methods
// (the path of a user's sampler: Update a variable at a time, the
// Chromatic's own journal) gives the chain its fast path gives, bit for
// bit, by plain and interruptible sweeps and by steps, with the same
// counters and snapshots.
func TestOutsideWorkerSameChain(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	for _, name := range []string{"gibbs", "pgibbs", "auto", "mgpmh"} {
		for _, workers := range []int{1, 3} {
			var runs [2]*Chromatic
			for k, f := range []gibbs.Factory{factoryOf(t, name), outside(t, name)} {
				c, err := New(f, g, g.Colouring(), chain.Streams(11, workers), nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := c.workers[0].c == nil; got != (k == 1) {
					t.Fatalf("%s: worker outside the family %v, want %v", name, got, k == 1)
				}
				for range 50 {
					c.Sweep()
				}
				c.SetInterrupt(make(chan struct{})) // open: journal, never abort
				for range 50 {
					if !c.RunSweep() {
						t.Fatalf("%s: a sweep was interrupted", name)
					}
				}
				for range 100 {
					c.Step()
				}
				c.SetInterrupt(nil)
				runs[k] = c
			}
			label := fmt.Sprintf("%s, %d workers", name, workers)
			if !slices.Equal(runs[0].State(), runs[1].State()) {
				t.Errorf("%s: the states differ", label)
			}
			if a, b := runs[0].Stats(), runs[1].Stats(); a != b {
				t.Errorf("%s: counters %+v and %+v", label, a, b)
			}
			if a, b := gibbstest.SnapshotOf(t, runs[0]), gibbstest.SnapshotOf(t, runs[1]); !bytes.Equal(a, b) {
				t.Errorf("%s: the snapshots differ", label)
			}
		}
	}
}

// TestOutsideWorkerRollback: the Chromatic's journal of a user's workers
// puts back every value a sweep changed before it stopped, and their
// counters; a sweep interrupted before it starts changes nothing.
func TestOutsideWorkerRollback(t *testing.T) {
	g := gibbstest.GridPotts(t, 40, 0.3)
	classes := g.Colouring()
	for _, workers := range []int{1, 2} {
		c, err := New(outside(t, "pgibbs"), g, classes, chain.Streams(5, workers), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Sweep()
		c.SetInterrupt(make(chan struct{}))
		before, stats := slices.Clone(c.State()), c.Stats()
		c.stats = c.stats[:0]
		for _, w := range c.workers {
			c.stats = append(c.stats, w.Stats())
			w.startJournal()
		}
		for w, wk := range c.workers { // class 0, and a block and a half of class 1
			wk.run(c.chunks[0][w], true, c.rows[0][w])
			wk.run(c.chunks[1][w][:min(1500, len(c.chunks[1][w]))], true, c.rows[1][w])
		}
		if slices.Equal(c.State(), before) {
			t.Fatalf("%d workers: the partial sweep changed nothing", workers)
		}
		c.rollback(1)
		if !slices.Equal(c.State(), before) || c.Stats() != stats {
			t.Errorf("%d workers: the rollback left a different state or counters (%+v, want %+v)", workers, c.Stats(), stats)
		}
		c.SetInterrupt(gibbstest.ClosedChannel())
		if c.RunSweep() || !slices.Equal(c.State(), before) || c.Stats() != stats {
			t.Errorf("%d workers: a sweep interrupted before it started ran or changed the chain", workers)
		}
	}
}

// userGibbs is a plain Gibbs sampler written as a user would, against the
// public API only (factorgraph.Model, gibbs.Worker): a Chromatic runs it
// through its methods.
type userGibbs struct {
	m       factorgraph.Model
	r       *rand.Rand
	x, u, v []float64
	st      gibbs.Stats
	err     error
}

func newUserGibbs(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) (gibbs.Sampler, error) {
	s := &userGibbs{m: m, r: r, x: factorgraph.RandomState(m, r)}
	if opt != nil && opt.Init != nil {
		s.x = slices.Clone(opt.Init)
	}
	for i := range m.NumVars() {
		s.u = make([]float64, max(len(s.u), m.Domain(i).Size))
	}
	s.v = make([]float64, len(s.u))
	return s, nil
}

func (s *userGibbs) Update(i int) {
	if _, obs := s.m.Observed(i); obs || s.err != nil {
		return
	}
	d := s.m.Domain(i).Size
	u, v := s.u[:d], s.v[:d]
	clear(u)
	soft, hard := s.m.Degree(i)
	for k := range soft + hard {
		s.m.EvalAll(i, k, s.x, v)
		for j := range u {
			u[j] += v[j]
		}
	}
	mx := slices.Max(u)
	total := 0.0
	for j := range u {
		u[j] = math.Exp(u[j] - mx)
		total += u[j]
	}
	t := s.r.Float64() * total
	for j := range u {
		if t -= u[j]; t < 0 || j == d-1 {
			s.x[i] = float64(j)
			break
		}
	}
	s.st.Steps++
}

func (s *userGibbs) Step() int {
	free := s.m.Free()
	i := free[s.r.IntN(len(free))]
	s.Update(i)
	return i
}

func (s *userGibbs) Sweep() {
	for _, i := range s.m.Free() {
		s.Update(i)
	}
}

func (s *userGibbs) State() []float64             { return s.x }
func (s *userGibbs) Err() error                   { return s.err }
func (s *userGibbs) Stats() gibbs.Stats           { return s.st }
func (s *userGibbs) Updates() (int64, int)        { return s.st.Steps, len(s.m.Free()) }
func (s *userGibbs) LocalUpdates() bool           { return true }
func (s *userGibbs) Share(x []float64)            { s.x = x }
func (s *userGibbs) Resume(st gibbs.Stats)        { s.st, s.err = st, nil }
func (s *userGibbs) SnapshotKind() string         { return "user-gibbs" }
func (s *userGibbs) SetInterrupt(<-chan struct{}) {}

// TestUserWorkerExact: a user's own gibbs.Worker runs as a Chromatic's
// workers and samples π exactly (parallel sweeps, z-scores against
// enumeration).
func TestUserWorkerExact(t *testing.T) {
	gibbstest.SkipShort(t)
	worst := 0.0
	for _, tg := range gibbstest.Graphs(t) {
		c, err := New(newUserGibbs, tg.G, tg.G.Colouring(), chain.Streams(tg.Seed, 2), &gibbs.Options{Init: tg.Init})
		if err != nil {
			t.Fatal(err)
		}
		z, where := gibbstest.Exactness(tg.G, gibbs.Sweeper{Sampler: c}, 30000)
		if z > gibbstest.ZLimit {
			t.Errorf("graph %d: %s: z = %.2f", tg.Seed, where, z)
		}
		worst = max(worst, z)
	}
	t.Logf("largest z-score %.2f", worst)
}
