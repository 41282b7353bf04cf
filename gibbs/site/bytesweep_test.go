package site

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/potts"
)

// TestByteSweep checks the sweep of plain Gibbs that reads the neighbours'
// values from a one-byte copy of the state (core.byteState): on random
// graphs of Potts pairs, with and without evidence, of one weight and of
// many, q = 2 and 3, with conditionals recorded and the log-potential
// tracked, uninterrupted and under an interrupt channel, Gibbs and Mixed
// (when it updates every variable by Gibbs) make the same draws bit for
// bit as the sweep over the float64 state, whose stationary distribution
// the enumeration tests prove; and it checks that the byte path was taken.
func TestByteSweep(t *testing.T) {
	defer func(m int) { core.ByteSweepMin = m }(core.ByteSweepMin)
	for _, tc := range []struct {
		name      string
		q         int
		oneWeight bool
		observe   bool
		record    bool
		interrupt bool
		mixed     bool
	}{
		{name: "q=3", q: 3},
		{name: "q=2", q: 2},
		{name: "q=3/one-weight", q: 3, oneWeight: true},
		{name: "q=2/evidence/recorded", q: 2, observe: true, record: true},
		{name: "q=3/evidence/interrupt", q: 3, observe: true, interrupt: true},
		{name: "q=4/one-weight/mixed/recorded", q: 4, oneWeight: true, mixed: true, record: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			p, err := potts.Sparse(3000, 8, tc.q, 0.4, r)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.oneWeight {
				for k := range p.W {
					p.W[k] = 1.5 * (r.Float64() - 0.3)
				}
			}
			every := 0
			if tc.observe {
				every = 37
			}
			g := pairsGraph(t, p, every)
			type sweeper interface {
				RunSweep() bool
				State() []float64
				RecordConditionals(bool)
				SetInterrupt(<-chan struct{})
				TrackLogPotential(bool)
				LogPotentialChange() float64
			}
			build := func() (sweeper, *core.Core) {
				if tc.mixed { // one weight, degree 8: Mixed updates every variable by Gibbs
					m, err := NewMixed(g, rand.New(rand.NewPCG(1, 2)), nil)
					if err != nil {
						t.Fatal(err)
					}
					if n, pg := m.Kinds(); pg != 0 || !m.core().TorusSweep {
						t.Fatalf("Mixed chose Poisson-Gibbs for %d variables (%d by Gibbs)", pg, n)
					}
					return mixedSweeper{m}, m.core()
				}
				s, err := NewGibbs(g, rand.New(rand.NewPCG(1, 2)), nil)
				if err != nil {
					t.Fatal(err)
				}
				return s, s.core()
			}
			a, ca := build()
			f, cf := build()
			done := make(chan struct{})
			for _, s := range []sweeper{a, f} {
				s.RecordConditionals(tc.record)
				if tc.interrupt {
					s.SetInterrupt(done)
				}
			}
			for sweep := range 12 {
				core.ByteSweepMin = 0
				if !a.RunSweep() {
					t.Fatal("interrupted")
				}
				core.ByteSweepMin = math.MaxInt
				if !f.RunSweep() {
					t.Fatal("interrupted")
				}
				xa, xf := a.State(), f.State()
				for i := range xa {
					if math.Float64bits(xa[i]) != math.Float64bits(xf[i]) {
						t.Fatalf("sweep %d: variable %d is %v through the byte state, %v through the float64 one", sweep, i, xa[i], xf[i])
					}
				}
				if ca.Stat != cf.Stat {
					t.Fatalf("sweep %d: stats %+v and %+v", sweep, ca.Stat, cf.Stat)
				}
			}
			if ca.ByteSweeps != 12 || cf.ByteSweeps != 0 {
				t.Fatalf("byte sweeps %d and %d, want 12 and 0", ca.ByteSweeps, cf.ByteSweeps)
			}
			// Tracking the log-potential: the same change, bit for bit.
			a.TrackLogPotential(true)
			f.TrackLogPotential(true)
			core.ByteSweepMin = 0
			a.RunSweep()
			core.ByteSweepMin = math.MaxInt
			f.RunSweep()
			if da, df := a.LogPotentialChange(), f.LogPotentialChange(); math.Float64bits(da) != math.Float64bits(df) || da == 0 {
				t.Fatalf("log-potential changes %v and %v", da, df)
			}
			// A state the byte copy cannot hold falls back to the float64 sweep.
			core.ByteSweepMin = 0
			ca.X[1] = 0.5
			a.RunSweep()
			if ca.ByteSweeps != 13 {
				t.Fatalf("a sweep from a non-integer value took the byte path (%d byte sweeps)", ca.ByteSweeps)
			}
		})
	}
}

// mixedSweeper adds TrackLogPotential to a Mixed for TestByteSweep.
type mixedSweeper struct{ *Mixed }

func (m mixedSweeper) TrackLogPotential(on bool)   { m.core().LogTracking, m.core().LogDelta = on, 0 }
func (m mixedSweeper) LogPotentialChange() float64 { return m.core().LogDelta }

// TestByteScan checks the steps of plain Gibbs that read the neighbours'
// values from the one-byte copy of the state (core.scanBytes), in a
// systematic scan and in the random scan with its look-ahead, against the
// same steps over the float64 state, bit for bit, through
// everything that writes the state between two steps: Assign (in step
// and with a value the copy cannot hold), Update, a Restore mid-pass, a
// sweep, an aborted sweep, an interrupt channel, recorded conditionals,
// a caller that owns the state (Share); on a graph of one
// weight with evidence, and through Mixed when it updates every variable
// by Gibbs. It checks that the byte path was taken.
func TestByteScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p, err := potts.Sparse(3000, 8, 3, 0.4, r)
	if err != nil {
		t.Fatal(err)
	}
	g := pairsGraph(t, p, 41)
	type scanner interface {
		Step() int
		State() []float64
		Update(int)
		Sweep()
		Snapshot() ([]byte, error)
		Restore([]byte) error
		SetInterrupt(<-chan struct{})
		RecordConditionals(bool)
	}
	for _, tc := range []struct{ systematic, mixed bool }{{true, false}, {true, true}, {false, false}, {false, true}} {
		systematic, mixed := tc.systematic, tc.mixed
		build := func(bytes bool) (scanner, *core.Core) {
			opt := &gibbs.Options{Systematic: systematic}
			if mixed {
				m, err := NewMixed(g, rand.New(rand.NewPCG(1, 2)), opt)
				if err != nil {
					t.Fatal(err)
				}
				if _, pg := m.Kinds(); pg != 0 {
					t.Fatalf("Mixed chose Poisson-Gibbs for %d variables", pg)
				}
				m.core().ForceBytes = bytes
				return m, m.core()
			}
			s, err := NewGibbs(g, rand.New(rand.NewPCG(1, 2)), opt)
			if err != nil {
				t.Fatal(err)
			}
			s.core().ForceBytes = bytes
			if !systematic {
				s.core().EnableExactAhead(0) // the random scan's look-ahead, as on a large graph
			}
			return s, s.core()
		}
		a, ca := build(true)
		f, cf := build(false)
		free := g.Free()
		same := func(what string) {
			t.Helper()
			xa, xf := a.State(), f.State()
			for i := range xa {
				if math.Float64bits(xa[i]) != math.Float64bits(xf[i]) {
					t.Fatalf("%+v, after %s: variable %d is %v through the byte copy, %v through the float64 state", tc, what, i, xa[i], xf[i])
				}
			}
			if ca.Stat != cf.Stat {
				t.Fatalf("%+v, after %s: stats %+v and %+v", tc, what, ca.Stat, cf.Stat)
			}
		}
		steps := func(n int, what string) {
			t.Helper()
			for range n {
				if ia, ifl := a.Step(), f.Step(); ia != ifl {
					t.Fatalf("%+v, %s: steps updated %d and %d", tc, what, ia, ifl)
				}
			}
			same(what)
		}
		steps(2*len(free)+500, "two passes and a half")
		for k, i := range free[:40] {
			v := float64(k % 3)
			ca.Assign(i, v)
			cf.Assign(i, v)
		}
		steps(700, "Assign")
		for _, i := range free[200:260] { // not a value the byte copy holds: the float64 path until it is
			ca.Assign(i, 0.5)
			cf.Assign(i, 0.5)
		}
		steps(len(free), "Assign of 0.5")
		for _, i := range free[200:260] {
			ca.Assign(i, 1)
			cf.Assign(i, 1)
		}
		steps(len(free), "Assign back")
		for _, i := range free[100:140] {
			a.Update(i)
			f.Update(i)
		}
		steps(900, "Update")
		snap, err := a.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		steps(1500, "the steps a Restore undoes")
		for _, s := range []scanner{a, f} {
			if err := s.Restore(snap); err != nil {
				t.Fatal(err)
			}
		}
		steps(2000, "Restore mid-pass")
		a.Sweep()
		f.Sweep()
		steps(1200, "a sweep")
		closed := make(chan struct{})
		close(closed)
		for _, s := range []scanner{a, f} {
			s.SetInterrupt(closed)
			s.Sweep() // aborted after 1024 updates: the state put back
			s.SetInterrupt(nil)
		}
		steps(1200, "an aborted sweep")
		done := make(chan struct{})
		a.SetInterrupt(done)
		f.SetInterrupt(done)
		a.RecordConditionals(true)
		f.RecordConditionals(true)
		steps(2*len(free), "an interrupt channel and recorded conditionals")
		// A caller that owns the state (Share) writes it between steps.
		copies := ca.ByteSweeps
		owned := [2][]float64{slices.Clone(a.State()), slices.Clone(f.State())}
		for k, s := range []scanner{a, f} {
			sh, ok := s.(interface{ Share([]float64) })
			if !ok {
				t.Fatalf("mixed %v: %T has no Share", mixed, s)
			}
			sh.Share(owned[k])
		}
		for _, i := range free[500:600] {
			owned[0][i], owned[1][i] = 2, 2
		}
		steps(2*len(free), "writes to a shared state")
		if ca.ByteSweeps != copies {
			t.Fatalf("mixed %v: a shared state was copied to bytes", mixed)
		}
		if ca.ByteSweeps < 5 || cf.ByteSweeps != 0 {
			t.Fatalf("mixed %v: byte copies made %d and %d times, want at least 5 and 0", mixed, ca.ByteSweeps, cf.ByteSweeps)
		}
	}
}

// TestExactnessBytes: plain Gibbs's steps reading the neighbours' values
// from the one-byte copy of the state (core.scanBytes, forced on these
// small graphs of Potts pairs alone), in random scan with and without the
// look-ahead and in a systematic scan with and without its prefetch, pass
// the enumeration check; the same check rejects the copy not kept in step
// with the updates, in either scan.
func TestExactnessBytes(t *testing.T) {
	gibbstest.SkipShort(t)
	var graphs []gibbstest.Graph
	for seed := uint64(1); seed <= 8; seed++ {
		graphs = append(graphs, gibbstest.RandomClusterGraph(t, seed, false, false, false))
	}
	newBytes := func(m factorgraph.Model, r *rand.Rand, init []float64, systematic, ahead, broken bool) (gibbs.Sampler, error) {
		s, err := NewGibbs(m, r, &gibbs.Options{Init: init, Systematic: systematic})
		if err != nil {
			return nil, err
		}
		if ahead {
			s.core().EnableExactAhead(0)
		}
		s.core().ForceBytes, s.core().BrokenBytes = true, broken
		return s, nil
	}
	var cases []gibbstest.SamplerCase
	for _, c := range []struct {
		name              string
		systematic, ahead bool
	}{{"random", false, false}, {"random/look-ahead", false, true}, {"systematic", true, false}, {"systematic/prefetch", true, true}} {
		cases = append(cases, gibbstest.SamplerCase{Name: "gibbs/bytes/" + c.name, New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return newBytes(m, r, init, c.systematic, c.ahead, false)
		}})
	}
	gibbstest.CheckExact(t, graphs, cases, 99, 1)
	var broken []gibbstest.BrokenCase
	for _, systematic := range []bool{false, true} {
		name := "Gibbs/random-stale-bytes"
		if systematic {
			name = "Gibbs/systematic-stale-bytes"
		}
		broken = append(broken, gibbstest.BrokenCase{Name: name, New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return newBytes(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), tg.Init, systematic, false, true)
		}})
	}
	gibbstest.CheckBroken(t, graphs, broken)
}

// pairsGraph builds the graph of p's Potts pairs, q = p.Q, with every
// every-th variable observed at its index mod q (none if every is 0).
func pairsGraph(t *testing.T, p *potts.Pairs, every int) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(p.N, factorgraph.Discrete(p.Q))
	b.AddPottsPairs(p.I, p.J, p.W)
	for i := 0; every > 0 && i < p.N; i += every {
		b.Observe(i, float64(i%p.Q))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
