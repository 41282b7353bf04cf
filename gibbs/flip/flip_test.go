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
	return gibbstest.Graph{G: g, Init: feasible(g), Seed: seed}
}

// feasible returns a state of g of positive probability (single-site
// updates cannot connect them: the transmissions are hard), by
// enumeration.
func feasible(g *factorgraph.Graph) []float64 {
	init := make([]float64, g.NumVars())
	for st, p := range gibbstest.Enumerate(g) {
		if p > 0 {
			gibbstest.Decode(g, st, init)
			break
		}
	}
	return init
}

// checkRB runs s for 200 000 steps and checks its Rao–Blackwellised
// marginals against tg's by enumeration, within 0.01.
func checkRB(t *testing.T, tg gibbstest.Graph, s *Sampler) {
	t.Helper()
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
		checkRB(t, tg, s)
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

// couplePedigree returns two founders P (p1, p2) and M (m1, m2) at one
// locus with two children: X (x1 from P by sx1, x2 from M by sx2), a
// parent with the founder Q (q1, q2) of Z (z1 from X by sz1, z2 from Q
// by sz2), and Y (y1, y2 by sy1, sy2), a leaf whose alleles nothing reads
// together; with halfSib a third child W of P and Q (w1 by sw1, w2 by
// sw2). Founders' allele priors are equal within each founder (its
// phase flips keep π) and differ between P and M (the couple swap
// changes π and needs its test); soft evidence on the leaves' alleles. Variables: p1, p2, m1, m2, q1, q2 = 0…5; x1, x2, sx1, sx2 =
// 6…9; y1, y2, sy1, sy2 = 10…13; z1, z2, sz1, sz2 = 14…17; w1, w2, sw1,
// sw2 = 18…21.
func couplePedigree(t testing.TB, seed uint64, halfSib bool) gibbstest.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 6))
	n := 18
	if halfSib {
		n = 22
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(2))
	transmit := func(a, bb, s, c int) {
		b.AddFactor(gibbstest.Relation([]int{a, bb, s, c}, 2, func(v []int) bool {
			if v[2] == 0 {
				return v[3] == v[0]
			}
			return v[3] == v[1]
		}))
	}
	for i, p := range []float64{0.3, 0.3, 0.45, 0.45, 0.4, 0.4} {
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{2}, []float64{math.Log(p), math.Log(1 - p)}))
	}
	transmit(0, 1, 8, 6)
	transmit(2, 3, 9, 7)
	transmit(0, 1, 12, 10)
	transmit(2, 3, 13, 11)
	transmit(6, 7, 16, 14)
	transmit(4, 5, 17, 15)
	leaves := []int{10, 11, 14, 15}
	if halfSib {
		transmit(0, 1, 20, 18)
		transmit(4, 5, 21, 19)
		leaves = append(leaves, 18, 19)
	}
	for _, v := range leaves {
		b.AddFactor(factorgraph.NewTable([]int{v}, []int{2}, []float64{0, r.NormFloat64()}))
	}
	g := gibbstest.Build(t, b)
	if halfSib {
		return gibbstest.Graph{G: g, Seed: seed} // for Find only
	}
	return gibbstest.Graph{G: g, Init: feasible(g), Seed: seed}
}

// TestFindCouple: the founders P and M, every child of one a child of
// the other, give a couple swap besides their phase flips: their alleles
// swapped first with first and second with second, each child's two
// alleles and selectors swapped — X's paired by its own transmission to
// Z, the leaf Y's by its transmissions' tables —, and X's child's
// selector flipped. With a half-sibling (a child of P and Q) there is
// none.
func TestFindCouple(t *testing.T) {
	for _, c := range []struct {
		halfSib bool
		want    []Group
	}{
		{false, []Group{
			{Pairs: [][2]int{{0, 1}}, Flips: []int{8, 12}},
			{Pairs: [][2]int{{2, 3}}, Flips: []int{9, 13}},
			{Pairs: [][2]int{{4, 5}}, Flips: []int{17}},
			{Pairs: [][2]int{{0, 2}, {1, 3}, {6, 7}, {8, 9}, {10, 11}, {12, 13}}, Flips: []int{16}},
		}},
		{true, []Group{
			{Pairs: [][2]int{{0, 1}}, Flips: []int{8, 12, 20}},
			{Pairs: [][2]int{{2, 3}}, Flips: []int{9, 13}},
			{Pairs: [][2]int{{4, 5}}, Flips: []int{17, 21}},
		}},
	} {
		gs := Find(couplePedigree(t, 1, c.halfSib).G)
		same := len(gs) == len(c.want)
		for k := range gs {
			same = same && slices.Equal(gs[k].Pairs, c.want[k].Pairs) && slices.Equal(gs[k].Flips, c.want[k].Flips)
		}
		if !same {
			t.Errorf("half-sibling %v: groups %v, want %v", c.halfSib, gs, c.want)
		}
	}
}

// TestExactCouple: blocked Gibbs with phase flips and the couple swap
// keeps π on couplePedigree (visits, joint states, Rao–Blackwellised
// marginals against enumeration); swaps accepted without the test are
// rejected by the same check (the couple swap is the only move that
// changes π: the founders' phase flips keep it); some swaps are accepted
// and some not (P's and M's priors differ).
func TestExactCouple(t *testing.T) {
	graphs := []gibbstest.Graph{couplePedigree(t, 1, false), couplePedigree(t, 2, false)}
	gibbstest.CheckExact(t, graphs, []gibbstest.SamplerCase{{Name: "blocked+couple", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
		return newFlips(gibbstest.Graph{G: m.(*factorgraph.Graph), Init: init}, r, false)
	}}}, 21, 1)
	gibbstest.CheckBroken(t, graphs, []gibbstest.BrokenCase{{Name: "swaps without the test", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
		return newFlips(tg, rand.New(rand.NewPCG(tg.Seed, 22)), true)
	}}})
	for _, tg := range graphs {
		s, err := newFlips(tg, rand.New(rand.NewPCG(tg.Seed, 23)), false)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Groups()) != 4 {
			t.Fatalf("graph %d: %d groups, want 4 (the couple swap last)", tg.Seed, len(s.Groups()))
		}
		checkRB(t, tg, s)
		if acc, tries := s.Accepted(3), s.tries/4; acc == 0 || acc >= tries {
			t.Errorf("graph %d: %d of %d couple swaps accepted: want some accepted, some not", tg.Seed, acc, tries)
		}
	}
}
