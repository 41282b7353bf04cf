package flip

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

// pedigree returns a founder at three loci (alleles a_l, b_l of two values)
// and two children, each inheriting one allele from it by a selector s_kl
// (the child's allele c_kl is a_l or b_l as s_kl says: a hard
// transmission factor) linked across loci by recombination factors; the
// founder's allele priors differ between its two alleles at the first
// locus (so that a phase flip changes π and needs its test), and soft
// evidence on the children's alleles. The founder's group: its three
// pairs and the six selectors.
func pedigree(t testing.TB, seed uint64) gibbstest.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 5))
	const loci, kids = 3, 2
	b := factorgraph.NewBuilder()
	// Variables: a_l, b_l (0..5), s_kl (6..11), c_kl (12..17).
	b.AddVariables(2*loci+2*kids*loci, factorgraph.Discrete(2))
	a := func(l int) int { return 2 * l }
	bb := func(l int) int { return 2*l + 1 }
	s := func(k, l int) int { return 2*loci + k*loci + l }
	c := func(k, l int) int { return 2*loci + kids*loci + k*loci + l }
	for l := range loci {
		pa, pb := 0.3+0.4*r.Float64(), 0.3+0.4*r.Float64()
		if l > 0 {
			pb = pa // equal frequencies: only the first locus breaks the symmetry
		}
		b.AddFactor(factorgraph.NewTable([]int{a(l)}, []int{2}, []float64{math.Log(pa), math.Log(1 - pa)}))
		b.AddFactor(factorgraph.NewTable([]int{bb(l)}, []int{2}, []float64{math.Log(pb), math.Log(1 - pb)}))
		for k := range kids {
			b.AddFactor(gibbstest.Relation([]int{a(l), bb(l), s(k, l), c(k, l)}, 2, func(v []int) bool {
				if v[2] == 0 {
					return v[3] == v[0]
				}
				return v[3] == v[1]
			}))
			w := 0.8 * r.NormFloat64()
			b.AddFactor(factorgraph.NewTable([]int{c(k, l)}, []int{2}, []float64{0, w}))
			if l > 0 {
				const theta = 0.1
				stay, cross := math.Log(1-theta), math.Log(theta)
				b.AddFactor(factorgraph.NewTable([]int{s(k, l-1), s(k, l)}, []int{2, 2}, []float64{stay, cross, cross, stay}))
			}
		}
	}
	g := gibbstest.Build(t, b)
	// A state of positive probability (single-site updates cannot connect
	// them: the transmissions are hard).
	init := make([]float64, g.NumVars())
	for st, p := range gibbstest.Enumerate(g) {
		if p > 0 {
			gibbstest.Decode(g, st, init)
			break
		}
	}
	return gibbstest.Graph{G: g, Init: init, Seed: seed}
}

// TestFind: the founder's group is found whole — its three pairs and its
// six selectors — and nothing else.
func TestFind(t *testing.T) {
	g := pedigree(t, 1).G
	gs := Find(g)
	want := Group{Pairs: [][2]int{{0, 1}, {2, 3}, {4, 5}}, Flips: []int{6, 7, 8, 9, 10, 11}}
	if len(gs) != 1 || !slices.Equal(gs[0].Pairs, want.Pairs) || !slices.Equal(gs[0].Flips, want.Flips) {
		t.Fatalf("groups %v, want [%v]", gs, want)
	}
}

func newFlips(tg gibbstest.Graph, r *rand.Rand, broken bool) (*Sampler, error) {
	base, err := blocked.New(tg.G, r, &gibbs.Options{Init: tg.Init})
	if err != nil {
		return nil, err
	}
	s, err := New(tg.G, base, r, Find(tg.G))
	if s != nil {
		s.broken = broken
	}
	return s, err
}

// TestExact: blocked Gibbs with phase flips visits the joint states and
// marginals with π's frequencies, and its Rao–Blackwellised marginals
// match enumeration; flips accepted without the test are rejected by the
// same check.
func TestExact(t *testing.T) {
	graphs := []gibbstest.Graph{pedigree(t, 1), pedigree(t, 2)}
	gibbstest.CheckExact(t, graphs, []gibbstest.SamplerCase{{Name: "blocked+flips", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
		return newFlips(gibbstest.Graph{G: m.(*factorgraph.Graph), Init: init}, r, false)
	}}}, 11, 1)
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{{Name: "flips without the test", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return newFlips(tg, rand.New(rand.NewPCG(tg.Seed, 12)), true)
	}}})
	for _, tg := range graphs {
		s, err := newFlips(tg, rand.New(rand.NewPCG(tg.Seed, 13)), false)
		if err != nil {
			t.Fatal(err)
		}
		exact := gibbstest.MarginalsOf(tg.G, gibbstest.Enumerate(tg.G))
		mg, err := chain.NewRBMarginals(s, factorgraph.Sizes(tg.G))
		if err != nil {
			t.Fatal(err)
		}
		c := &chain.Chain{Kernel: s, Observers: []chain.Observer{mg}}
		if err := c.Advance(t.Context(), 200000); err != nil {
			t.Fatal(err)
		}
		got := mg.Probs()
		for i := range exact {
			for v := range exact[i] {
				if d := math.Abs(got[i][v] - exact[i][v]); d > 0.01 {
					t.Errorf("graph %d: RB P(x%d=%d) = %.4f, exact %.4f", tg.Seed, i, v, got[i][v], exact[i][v])
				}
			}
		}
		tries, acc := s.Flips()
		if tries == 0 || acc == 0 || acc == tries {
			t.Errorf("graph %d: %d of %d flips accepted: want some accepted, some not (the first locus's priors differ)", tg.Seed, acc, tries)
		}
	}
}

// TestResume: a chain restored from a snapshot goes on bit for bit.
func TestResume(t *testing.T) {
	tg := pedigree(t, 3)
	mk := func() *Sampler {
		s, err := newFlips(tg, rand.New(rand.NewPCG(9, 9)), false)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := mk()
	for range 1001 {
		a.Step()
	}
	snap, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// The stream goes on from where a's is: restore into a sampler whose
	// stream is a's.
	b := mk()
	for range 1001 {
		b.Step()
	}
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for range 5000 {
		a.Step()
		b.Step()
	}
	if !slices.Equal(a.State(), b.State()) || a.Stats() != b.Stats() {
		t.Errorf("after restore: state %v, %+v; original %v, %+v", b.State(), b.Stats(), a.State(), a.Stats())
	}
	if err := b.Restore([]byte(`{"Kind":"other"}`)); err == nil {
		t.Error("a snapshot of another kind restored")
	}
}

// TestRefused: groups that do not fit the model are errors naming them.
func TestRefused(t *testing.T) {
	tg := pedigree(t, 1)
	base, err := blocked.New(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init})
	if err != nil {
		t.Fatal(err)
	}
	for _, gs := range [][]Group{
		{{Pairs: [][2]int{{0, 99}}}},
		{{Flips: []int{-1}}},
	} {
		if _, err := New(tg.G, base, rand.New(rand.NewPCG(1, 1)), gs); err == nil {
			t.Errorf("groups %v accepted", gs)
		}
	}
	if _, err := New(nil, base, nil, nil); err == nil {
		t.Error("nil model accepted")
	}
}

// TestStepAllocs: steps and rounds of flips allocate nothing.
func TestStepAllocs(t *testing.T) {
	s, err := newFlips(pedigree(t, 1), rand.New(rand.NewPCG(1, 1)), false)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.Step()
	}
	// A round of flips every sweep's worth of steps: count over whole
	// sweeps (AllocsPerRun's average is an integer division).
	per := int(math.Ceil(gibbs.StepsPerSweep(s)))
	if a := testing.AllocsPerRun(200, func() {
		for range per {
			s.Step()
		}
	}); a != 0 {
		t.Errorf("%v allocations a sweep", a)
	}
	if tries, _ := s.Flips(); tries == 0 {
		t.Error("no round of flips ran")
	}
}
