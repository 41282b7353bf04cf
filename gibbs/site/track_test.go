package site_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// TestTrackLogPotential: the log-potential at the start plus the change
// Gibbs tracks through its updates and assignments (Assign) is the log-potential of the state it
// reaches, on the family's graphs (Potts pairs, tables, hard zeros,
// evidence) compiled and with every other factor generic; off, nothing is
// tracked.
func TestTrackLogPotential(t *testing.T) {
	gs := append(gibbstest.Graphs(t), gibbstest.MixedGraphs(t)...)
	for _, tg := range gs {
		s, err := site.NewGibbs(tg.G, rand.New(rand.NewPCG(tg.Seed, 11)), &gibbs.Options{Init: tg.Init})
		if err != nil {
			t.Fatal(err)
		}
		s.TrackLogPotential(true)
		start := tg.G.LogPotential(s.State())
		moved := false
		for round := range 50 {
			before := append([]float64(nil), s.State()...)
			for range 40 {
				s.Step()
			}
			// Another kernel's move on the shared state: a free variable
			// set to the value of a feasible state's (its initial one).
			if round%3 == 0 {
				i := tg.G.Free()[round%len(tg.G.Free())]
				x := append([]float64(nil), s.State()...)
				if x[i] = tg.Init[i]; !math.IsInf(tg.G.LogPotential(x), -1) {
					s.Assign(i, tg.Init[i])
				}
			}
			moved = moved || !equal(before, s.State())
			got, want := start+s.LogPotentialChange(), tg.G.LogPotential(s.State())
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("graph %d, round %d: tracked ℓ %v, summed %v", tg.Seed, round, got, want)
			}
		}
		if !moved {
			t.Errorf("graph %d: the chain never moved: the test proves nothing", tg.Seed)
		}
		s.TrackLogPotential(false)
		for range 200 {
			s.Step()
		}
		if d := s.LogPotentialChange(); d != 0 {
			t.Errorf("graph %d: tracking off, change %v", tg.Seed, d)
		}
	}
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
