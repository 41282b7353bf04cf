package chromatic

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// chromaticRun builds a Chromatic of name on g with workers workers seeded
// from seed, and returns it with its RNG sources.
func chromaticRun(t *testing.T, name string, g *factorgraph.Graph, classes [][]int, workers int, init []float64) (*Chromatic, []*rand.PCG) {
	t.Helper()
	var srcs []*rand.PCG
	var rngs []*rand.Rand
	for w := range workers {
		src := chain.Source(11, w)
		srcs = append(srcs, src)
		rngs = append(rngs, rand.New(src))
	}
	c, err := New(factoryOf(t, name), g, classes, rngs, &gibbs.Options{Init: init})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c, srcs
}

// TestChromaticSnapshotResume: a chromatic run stopped, snapshotted (with
// its workers' RNGs) and resumed into a fresh, scrambled Chromatic ends
// exactly where the uninterrupted run ends.
func TestChromaticSnapshotResume(t *testing.T) {
	discrete := gibbstest.Graphs(t)[6] // hard factors and evidence
	cont := gibbstest.ContGraphs(t)[4] // mixed continuous and discrete
	for _, tc := range []struct {
		name string
		g    *factorgraph.Graph
		init []float64
	}{
		{"pgibbs", gibbstest.SmallPotts(t), nil},
		{"gibbs", discrete.G, discrete.Init},
		{"auto", discrete.G, discrete.Init},
		{"pgda", cont.G, nil},
		{"pg-rejection", cont.G, nil},
	} {
		classes := tc.g.Colouring()
		const workers, first, total = 3, 37, 100
		a, _ := chromaticRun(t, tc.name, tc.g, classes, workers, tc.init)
		for range total {
			a.Sweep()
		}
		b, srcs := chromaticRun(t, tc.name, tc.g, classes, workers, tc.init)
		for range first {
			b.Sweep()
		}
		snap, err := b.Snapshot()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var rngs [][]byte
		for _, s := range srcs {
			r, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			rngs = append(rngs, r)
		}
		c, srcs := chromaticRun(t, tc.name, tc.g, classes, workers, tc.init)
		for range 5 {
			c.Sweep() // scramble: Restore must overwrite everything
		}
		if err := c.Restore(snap); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for w, s := range srcs {
			if err := s.UnmarshalBinary(rngs[w]); err != nil {
				t.Fatal(err)
			}
		}
		if c.Sweeps() != first || !slices.Equal(c.State(), b.State()) || c.Stats() != b.Stats() {
			t.Fatalf("%s: restored %d sweeps, %+v; snapshotted %d, %+v", tc.name, c.Sweeps(), c.Stats(), b.Sweeps(), b.Stats())
		}
		for range total - first {
			c.Sweep()
		}
		if !slices.Equal(a.State(), c.State()) {
			t.Errorf("%s: resumed state %v, uninterrupted %v", tc.name, c.State(), a.State())
		}
		if a.Stats() != c.Stats() || a.Sweeps() != c.Sweeps() {
			t.Errorf("%s: resumed %d sweeps, %+v; uninterrupted %d, %+v", tc.name, c.Sweeps(), c.Stats(), a.Sweeps(), a.Stats())
		}
	}
}

// TestChromaticRestoreErrors: snapshots of another sampler, number of
// workers, colouring or model, and corrupt ones, are refused with a message
// saying what differs, and the sampler still restores a good snapshot.
func TestChromaticRestoreErrors(t *testing.T) {
	g := gibbstest.SmallPotts(t)
	classes := g.Colouring()
	c, _ := chromaticRun(t, "pgibbs", g, classes, 3, nil)
	for range 4 {
		c.Sweep()
	}
	good, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var st chromaticState
	if err := json.Unmarshal(good, &st); err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(*chromaticState)) []byte {
		s := st
		s.X = slices.Clone(st.X)
		s.Stats = slices.Clone(st.Stats)
		f(&s)
		b, _ := json.Marshal(s)
		return b
	}
	snapOf := func(c *Chromatic) []byte {
		b, err := c.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	two, _ := chromaticRun(t, "pgibbs", g, classes, 2, nil)
	gibbs, _ := chromaticRun(t, "gibbs", g, classes, 3, nil)
	reversed := slices.Clone(classes)
	slices.Reverse(reversed)
	otherColours, _ := chromaticRun(t, "pgibbs", g, reversed, 3, nil)
	other := gibbstest.Graphs(t)[0]
	otherModel, _ := chromaticRun(t, "pgibbs", other.G, other.G.Colouring(), 3, other.Init)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not JSON", []byte("{garbage"), "restore chromatic"},
		{"other version", mutate(func(s *chromaticState) { s.Version = 9 }), "version 9"},
		{"other kind", mutate(func(s *chromaticState) { s.Kind = "pgibbs" }), `snapshot of "pgibbs"`},
		{"fewer workers", snapOf(two), "snapshot of 2 workers"},
		{"lost worker counters", mutate(func(s *chromaticState) { s.Stats = s.Stats[:2] }), "2 worker counters"},
		{"other update", snapOf(gibbs), "restore pgibbs from a snapshot of gibbs"},
		{"other sampler kind", mutate(func(s *chromaticState) { s.Sampler = "mingibbs" }), "from a snapshot of mingibbs"},
		{"other colouring", snapOf(otherColours), "colour classes"},
		{"other model", snapOf(otherModel), "variables"},
		{"outside the domain", mutate(func(s *chromaticState) { s.X[3] = 7 }), "outside its domain"},
		{"short state", mutate(func(s *chromaticState) { s.X = s.X[:5] }), "snapshot has 5 variables"},
		{"negative sweeps", mutate(func(s *chromaticState) { s.Sweeps = -1 }), "-1 sweeps"},
		{"corrupt counters", []byte(strings.Replace(string(good), `"stats":[{`, `"stats":[[`, 1)), "restore chromatic"},
	} {
		err := c.Restore(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Restore error %v; want one saying %q", tc.name, err, tc.want)
		}
	}
	if err := c.Restore(good); err != nil || c.Sweeps() != 4 {
		t.Errorf("good snapshot after bad ones: %v, %d sweeps", err, c.Sweeps())
	}
	// A state contradicting the evidence is refused too.
	ev := gibbstest.Graphs(t)[6]
	e, _ := chromaticRun(t, "gibbs", ev.G, ev.G.Colouring(), 2, ev.Init)
	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var est chromaticState
	if err := json.Unmarshal(snap, &est); err != nil {
		t.Fatal(err)
	}
	for i := range est.X {
		if ov, ok := ev.G.Observed(i); ok {
			est.X[i] = float64(1 - int(ov)%2)
			bad, _ := json.Marshal(est)
			if err := e.Restore(bad); err == nil || !strings.Contains(err.Error(), "evidence says") {
				t.Errorf("state against the evidence: Restore error %v", err)
			}
			break
		}
	}
	// The snapshot stores the shared state once, not once a worker.
	if n := strings.Count(string(good), `"x"`); n != 1 {
		t.Errorf("the snapshot holds %d states, want 1", n)
	}
}
