package blocked

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// halves splits a chain of n variables into two blocks.
func halves(n int) [][]int {
	a, b := []int{}, []int{}
	for i := range n {
		if i < n/2 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	return [][]int{a, b}
}

// TestRegionsFound: on a chain of 10 coupled binary variables split into
// two blocks, the halves flip together now and then, and the windows add
// a block of the whole chain; with no coupling nothing moves together and
// nothing is added; without Regions nothing is either.
func TestRegionsFound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w       float64
		regions int
		want    bool
	}{
		{"coupled", 3, 40, true},
		{"independent", 0, 40, false},
		{"off", 3, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gibbstest.PottsChain(t, 10, tc.w, 0.2)
			s, err := NewWith(g, rand.New(rand.NewPCG(1, 2)), nil, halves(10), Config{Regions: tc.regions})
			if err != nil {
				t.Fatal(err)
			}
			for range 2000 {
				s.Sweep()
			}
			sets := s.Sets()
			whole := slices.ContainsFunc(sets, func(b []int) bool { return len(b) == 10 })
			if whole != tc.want || !tc.want && len(sets) != 2 {
				t.Errorf("blocks %v: a block of the whole chain %v, want %v", sets, whole, tc.want)
			}
		})
	}
}

// TestRegionsExactness: a width-1 cover that learns its regions early
// (windows from sweep 4) has the exact joint and marginals on the random
// graphs, and regions were added on some of them.
func TestRegionsExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	var (
		mu   sync.Mutex
		made []*Blocked
	)
	c := blockedCase("Blocked/regions", nil, Config{Config: blocks.Config{MaxWidth: 1}, Regions: 8}, blockSteps)
	inner := c.New
	c.New = func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
		s, err := inner(m, r, init)
		if b, ok := s.(*Blocked); ok {
			mu.Lock()
			made = append(made, b)
			mu.Unlock()
		}
		return s, err
	}
	t.Cleanup(func() { // after the parallel subtests
		grew := 0
		for _, b := range made {
			if b.lr != nil && b.lr.Added > 0 {
				grew++
			}
		}
		if grew == 0 {
			t.Errorf("no chain of %d added a region's block: the test checks nothing of them", len(made))
		}
		t.Logf("%d of %d chains added regions' blocks", grew, len(made))
	})
	gibbstest.CheckExact(t, gibbstest.Graphs(t), []gibbstest.SamplerCase{c}, 17, 1)
}

// TestRegionsCatchesBroken: the exactness check rejects added blocks whose
// update forgets half the factors touching them.
func TestRegionsCatchesBroken(t *testing.T) {
	gibbstest.SkipShort(t)
	var mu sync.Mutex
	broken := map[*blockPlan]bool{}
	regionHook = func(s *Blocked, first int) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range s.plans[first:] {
			if !broken[p] {
				broken[p] = true
				p.facs = p.facs[:len(p.facs)/2] // half its factors forgotten
				p.split()
			}
		}
	}
	t.Cleanup(func() { regionHook = nil }) // after the parallel subtests
	gibbstest.CheckBroken(t, gibbstest.Graphs(t), []gibbstest.BrokenCase{
		{Name: "Blocked/regions-half-the-factors", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			return NewWith(tg.G, rand.New(rand.NewPCG(tg.Seed, 17)), &gibbs.Options{Init: tg.Init}, nil, Config{Config: blocks.Config{MaxWidth: 1}, Regions: 8})
		}, Steps: 2 * blockSteps},
	})
}

// TestRegionsSnapshot: a chain restored from a snapshot taken within a
// window, or after blocks were added, continues bit for bit; a sampler
// without Regions refuses such a snapshot.
func TestRegionsSnapshot(t *testing.T) {
	g := gibbstest.PottsChain(t, 10, 3, 0.2)
	cfg := Config{Regions: 40}
	mk := func(src *rand.PCG) *Blocked {
		s, err := NewWith(g, rand.New(src), nil, halves(10), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, at := range []int{25, 61, 900} { // within the first window, the second, after additions
		srcA := rand.NewPCG(1, 2)
		a := mk(srcA)
		for range at {
			a.Step()
		}
		snap := gibbstest.SnapshotOf(t, a)
		srcB := rand.NewPCG(9, 9)
		b := mk(srcB)
		if err := b.Restore(snap); err != nil {
			t.Fatalf("at %d: %v", at, err)
		}
		if !bytes.Equal(gibbstest.SnapshotOf(t, b), snap) {
			t.Fatalf("at %d: the restored sampler's snapshot differs", at)
		}
		srcA.Seed(5, 5)
		srcB.Seed(5, 5)
		for range 3000 {
			a.Step()
			b.Step()
		}
		if !bytes.Equal(gibbstest.SnapshotOf(t, a), gibbstest.SnapshotOf(t, b)) {
			t.Errorf("at %d: the resumed chain differs from the uninterrupted one", at)
		}
		if at == 900 && len(a.blocks) == 2 {
			t.Errorf("no block added by step 900: the snapshot test checks no added block")
		}
	}
	src := rand.NewPCG(1, 2)
	a := mk(src)
	for range 900 {
		a.Step()
	}
	plain, err := NewWith(g, rand.New(rand.NewPCG(1, 2)), nil, halves(10), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Restore(gibbstest.SnapshotOf(t, a)); err == nil || !strings.Contains(err.Error(), "regions") {
		t.Errorf("restore of a learning chain into one without regions: %v", err)
	}
}
