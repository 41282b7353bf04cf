package site

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
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
			b := factorgraph.NewBuilder()
			b.AddVariables(p.N, factorgraph.Discrete(tc.q))
			b.AddPottsPairs(p.I, p.J, p.W)
			if tc.observe {
				for i := 0; i < p.N; i += 37 {
					b.Observe(i, float64(i%tc.q))
				}
			}
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
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
