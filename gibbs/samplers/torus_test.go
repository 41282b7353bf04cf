package samplers

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/chain"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/lattice"
)

// torusCases are lattices whose states can be enumerated, one for each
// loop of the torus path: the tabulated heat bath of a nearest-neighbour
// Ising model (and its sweep loop, nnHeat2), the tabulated Potts weights of
// one coupling (ferro- and antiferromagnetic), one exponential for two
// states with many couplings, and per-value energies for more states (on
// the stack, and in the chain's scratch for more than maxStack values).
var torusCases = []struct {
	name string
	p    lattice.Params
}{
	{"4x4-nn-ising", lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.4}},
	{"4x4-nn-ising-anti", lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: -0.3}},
	{"ring5-nn-potts3", lattice.Params{Dim: 1, Size: 5, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Potts(3), Beta: 0.9}},
	{"ring5-nn-potts3-anti", lattice.Params{Dim: 1, Size: 5, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Potts(3), Beta: -0.7}},
	{"2x2x2-ising-power", lattice.Params{Dim: 3, Size: 2, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Ising(), Beta: 0.35}},
	{"ring4-potts3-power", lattice.Params{Dim: 1, Size: 4, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(3), Beta: 0.9}},
	{"ring4-potts17-power", lattice.Params{Dim: 1, Size: 4, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(17), Beta: 2.5}},
}

// chainOf returns the shared state of a sampler of the family.
func chainOf(t testing.TB, s gibbs.Sampler) *core.Core {
	t.Helper()
	c := core.Of(s)
	if c == nil {
		t.Fatalf("no chain in %T", s)
	}
	return c
}

// TestTorusHook: every discrete sampler with a torus path picks it up on a
// discrete lattice (also as a Chromatic worker), none on continuous spins
// (where a continuous sampler's discrete updates would take it, the model
// has no continuous variable and the continuous samplers refuse it).
func TestTorusHook(t *testing.T) {
	l := gibbstest.NewLattice(t, torusCases[0].p)
	for _, name := range []string{"gibbs", "pgibbs", "auto"} {
		s, err := New(name, l, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if c := chainOf(t, s); c.Tor == nil || c.Tor != compiled.TorusOf(l) {
			t.Errorf("%s on %v: no torus path", name, l)
		}
		if pg, ok := s.(*site.PoissonGibbs); ok && core.Of(pg).PG.TorPG == nil {
			t.Errorf("%s: no precomputed torus draw", name)
		}
	}
	classes, err := l.Colouring()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := chromatic.New(factoryOf(t, "gibbs"), l, classes, chain.Streams(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	for w, s := range ch.Workers() {
		if chainOf(t, s).Tor == nil {
			t.Errorf("chromatic worker %d: no torus path", w)
		}
	}
	cont := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Continuous(-1, 1), Beta: 0.5})
	if compiled.TorusOf(cont) != nil {
		t.Error("a lattice of continuous spins has a torus form")
	}
	s, err := New("pgits", cont, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if chainOf(t, s).Tor != nil {
		t.Error("continuous spins: torus path set")
	}
}

// TestTorusStats: a Poisson-Gibbs step on a torus makes λ + L picks on
// average (B1 ~ Poisson(λ), B2 ~ Poisson(L)), counts the distinct offsets
// picked as its factors, and allocates nothing.
func TestTorusStats(t *testing.T) {
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 40, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(4), Beta: 0.4})
	s, err := site.NewPoissonGibbs(l, rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	const steps = 200000
	for range steps {
		s.Step()
	}
	st := s.Stats()
	want := s.Lambda() + l.L()
	if got := st.PicksPerStep(); math.Abs(got-want) > 4*math.Sqrt(want/steps) {
		t.Errorf("%.4f picks a step, want λ + L = %.4f", got, want)
	}
	if f := st.FactorsPerStep(); !(f > 0 && f < st.PicksPerStep()) {
		t.Errorf("%.3f factors a step for %.3f picks", f, st.PicksPerStep())
	}
	if a := testing.AllocsPerRun(1000, func() { s.Step() }); a != 0 {
		t.Errorf("%v allocations a step", a)
	}
	g, err := site.NewGibbs(l, rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { g.Step() }); a != 0 {
		t.Errorf("Gibbs: %v allocations a step", a)
	}
}

// torusSampler builds sampler name on l ("chromatic" is Chromatic Gibbs
// with 2 workers, a step a sweep) and returns it with its chains.
func torusSampler(t *testing.T, name string, l *lattice.Lattice, seed uint64) (gibbs.Sampler, []*core.Core) {
	t.Helper()
	if name == "chromatic" {
		classes, err := l.Colouring()
		if err != nil {
			t.Fatal(err)
		}
		c, err := chromatic.New(factoryOf(t, "gibbs"), l, classes, chain.Streams(seed, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		var chains []*core.Core
		for _, w := range c.Workers() {
			chains = append(chains, chainOf(t, w))
		}
		return gibbs.Sweeper{Sampler: c}, chains
	}
	opt := &gibbs.Options{}
	if name == "pgibbs-0.1" {
		name, opt.LambdaScale = "pgibbs", 0.1
	}
	s, err := New(name, l, rand.New(rand.NewPCG(seed, 7)), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, []*core.Core{chainOf(t, s)}
}

var torusSamplers = []string{"gibbs", "chromatic", "pgibbs", "pgibbs-0.1", "auto"}

func TestTorusExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	for ci, tc := range torusCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := gibbstest.NewLattice(t, tc.p)
			for si, name := range torusSamplers {
				if _, err := l.Colouring(); err != nil && name == "chromatic" {
					continue // no two sites can share a class
				}
				s, chains := torusSampler(t, name, l, uint64(100*ci+si))
				for _, c := range chains {
					if c.Tor == nil {
						t.Fatalf("%s: not on the torus path", name)
					}
				}
				steps := gibbstest.ExactSteps
				if name == "chromatic" {
					steps = 30000 // a sweep updates every site
				}
				z, where := gibbstest.LatticeZ(l, s, steps)
				if z > gibbstest.ZLimit {
					t.Errorf("%s: %s: z = %.2f", name, where, z)
				}
				t.Logf("%s (K = %d, uniform %v, NN %v): largest z %.2f", name, l.NumOffsets(), compiled.TorusOf(l).Uniform, compiled.TorusOf(l).NN, z)
			}
		})
	}
}

// flipOffset returns a copy of t whose offset k has the opposite sign
// (a ferromagnetic pair made antiferromagnetic), with its own pick table.
func flipOffset(tb testing.TB, t *compiled.Torus, k int) *compiled.Torus {
	off, w := slices.Clone(t.Off), slices.Clone(t.W)
	off[k].K, w[k] = ^off[k].K, -w[k]
	return rebuildTorus(tb, t, off, w)
}

func rebuildTorus(tb testing.TB, t *compiled.Torus, off []compiled.TorusEnt, w []float64) *compiled.Torus {
	tb.Helper()
	m := make([]float64, len(w))
	for k := range w {
		m[k] = math.Abs(w[k])
	}
	tab := compiled.NewTorusTable(off)
	if err := tab.Build(m, make([]int32, len(m))); err != nil {
		tb.Fatal(err)
	}
	b, err := compiled.NewTorus(t.Dim, t.Side, t.States, t.Ising, off, w, tab)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// hotHeat returns a copy of t whose heat-bath table is that of a coupling
// 1.5 times too strong.
func hotHeat(tb testing.TB, t *compiled.Torus) *compiled.Torus {
	w := slices.Clone(t.W)
	for k := range w {
		w[k] *= 1.5
	}
	b := rebuildTorus(tb, t, slices.Clone(t.Off), w)
	c := *t
	c.Heat = b.Heat
	return &c
}

func TestTorusCatchesBrokenTori(t *testing.T) {
	gibbstest.SkipShort(t)
	for _, bc := range []struct {
		name, sampler string
		cases         []int // indices in torusCases
		breakIt       func(tb testing.TB, t *compiled.Torus) *compiled.Torus
	}{
		{"flipped-offset", "gibbs", []int{0, 2, 4, 5, 6}, func(tb testing.TB, t *compiled.Torus) *compiled.Torus { return flipOffset(tb, t, 0) }},
		{"flipped-offset", "pgibbs", []int{0, 2, 4, 5}, func(tb testing.TB, t *compiled.Torus) *compiled.Torus { return flipOffset(tb, t, 0) }},
		{"flipped-offset", "chromatic", []int{0, 2, 3}, func(tb testing.TB, t *compiled.Torus) *compiled.Torus { return flipOffset(tb, t, 0) }},
		{"heat-table-of-1.5β", "chromatic", []int{0, 1}, hotHeat},
		{"heat-table-of-1.5β", "gibbs", []int{0, 1}, hotHeat},
	} {
		t.Run(bc.name+"/"+bc.sampler, func(t *testing.T) {
			t.Parallel()
			caught := 0
			for _, ci := range bc.cases {
				tc := torusCases[ci]
				l := gibbstest.NewLattice(t, tc.p)
				s, chains := torusSampler(t, bc.sampler, l, uint64(ci))
				broken := bc.breakIt(t, compiled.TorusOf(l))
				for _, c := range chains {
					c.Tor = broken
				}
				if pg, ok := s.(*site.PoissonGibbs); ok {
					core.Of(pg).PG.TorPG = core.NewTorusPG(broken, core.Of(pg).PG.Lambda)
				}
				steps := gibbstest.ExactSteps
				if bc.sampler == "chromatic" {
					steps = 30000
				}
				z, where := gibbstest.LatticeZ(l, s, steps)
				if z > gibbstest.ZLimit {
					caught++
				}
				t.Logf("%s: largest z %.1f (%s)", tc.name, z, where)
			}
			if caught == 0 {
				t.Error("no lattice rejected the broken torus")
			}
		})
	}
}

// TestChromaticPoolStops: the goroutines of a Chromatic's extra workers
// end once the sampler is garbage (its cleanup closes their channels), and
// a sweep allocates nothing.
func TestChromaticPoolStops(t *testing.T) {
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 8, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.4})
	classes, err := l.Colouring()
	if err != nil {
		t.Fatal(err)
	}
	settle := func() int { // let the pools of earlier tests' samplers end
		n := runtime.NumGoroutine()
		for range 20 {
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
			if m := runtime.NumGoroutine(); m == n {
				break
			} else {
				n = m
			}
		}
		return n
	}
	before := settle()
	func() {
		c, err := chromatic.New(factoryOf(t, "pgibbs"), l, classes, chain.Streams(1, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Sweep()
		if got := runtime.NumGoroutine(); got < before+2 {
			t.Errorf("%d goroutines for 2 extra workers, had %d", got, before)
		}
		if a := testing.AllocsPerRun(100, c.Sweep); a != 0 {
			t.Errorf("%v allocations a sweep", a)
		}
	}()
	for range 100 {
		runtime.GC()
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines left after the sampler was collected, had %d", runtime.NumGoroutine(), before)
}

// TestCheckerRows: a Chromatic's workers on the 2-D nearest-neighbour
// Ising torus walk their shares of the checkerboard's classes row by row
// (core.CheckerRun, nnHeat2Rows), and draw what the list's walk draws, bit
// for bit — states, counters, journals — through plain sweeps, journalled
// sweeps, an aborted sweep put back and steps, with 1 to 3 workers (shares
// that start and end mid-row) on even sides, and on an odd side, whose
// classes are not all runs of the checkerboard (those that are not keep
// the list). The list's walk is the one
// TestTorusExactness proves exact. A row walk that starts a row at the
// wrong column or skips the last site of a share fails it (checked).
func TestCheckerRows(t *testing.T) {
	for _, side := range []int{4, 6, 10, 9} {
		l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: side, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.45})
		classes, err := l.Colouring()
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3} {
			var runs [2]*chromatic.Chromatic
			var walked, shares [2]int
			for k := range runs {
				c, err := chromatic.New(factoryOf(t, "gibbs"), l, classes, chain.Streams(uint64(side), workers), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range c.Workers() {
					cc := chainOf(t, w)
					cc.NoRows = k == 1
					for _, cl := range classes {
						per := (len(cl) + workers - 1) / workers
						for lo := 0; lo < len(cl); lo += per {
							shares[k]++
							if cc.CheckerRun(cl[lo:min(lo+per, len(cl))]) {
								walked[k]++
							}
						}
					}
				}
				for range 20 {
					c.Sweep()
				}
				done := make(chan struct{})
				c.SetInterrupt(done)
				for range 20 {
					if !c.RunSweep() {
						t.Fatal("a sweep was interrupted")
					}
				}
				close(done)
				if c.RunSweep() {
					t.Fatal("a sweep with its channel closed was not interrupted")
				}
				c.SetInterrupt(nil)
				for range 50 {
					c.Step()
				}
				c.Sweep()
				runs[k] = c
			}
			if side%2 == 0 && walked[0] != shares[0] {
				t.Errorf("side %d, %d workers: %d of %d shares walked by rows, want all", side, workers, walked[0], shares[0])
			}
			if !slices.Equal(runs[0].State(), runs[1].State()) || runs[0].Stats() != runs[1].Stats() {
				t.Errorf("side %d, %d workers: the row walk's chain differs from the list's:\n%v %+v\n%v %+v",
					side, workers, runs[0].State(), runs[0].Stats(), runs[1].State(), runs[1].Stats())
			}
		}
	}
}
