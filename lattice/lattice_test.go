package lattice

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/internal/compiled"
	"github.com/pgibbs/pgibbs/potts"
)

func mustNew(t testing.TB, p Params) *Lattice {
	t.Helper()
	l, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// minimalD2 returns the squared minimal-image distance of sites i and j,
// computed from their coordinates independently of the offset list.
func minimalD2(dim, size, i, j int) int {
	d2 := 0
	for range dim {
		d := abs(i%size - j%size)
		d = min(d, size-d)
		d2 += d * d
		i, j = i/size, j/size
	}
	return d2
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

func TestFastDiv(t *testing.T) {
	for d := 2; d < 300; d++ {
		f := newFastDiv(d)
		for a := range 100000 {
			if got := f.quo(a); got != a/d {
				t.Fatalf("%d/%d = %d, fastDiv says %d", a, d, a/d, got)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 1000000 {
		if bits.UintSize < 64 {
			break // divisors and dividends past 2³¹ need a 64-bit int
		}
		d := 2 + int(r.Uint64N(1<<31))
		a := int(r.Uint64N(1 << 32))
		if got := newFastDiv(d).quo(a); got != a/d {
			t.Fatalf("%d/%d = %d, fastDiv says %d", a, d, a/d, got)
		}
	}
}

// structureCases are lattices of every dimension, even and odd sides, and
// every kernel.
func structureCases() []Params {
	var out []Params
	for dim := 1; dim <= 3; dim++ {
		sizes := []int{2, 3, 4, 5, 6, 7}
		if dim == 1 {
			sizes = append(sizes, 10, 11)
		}
		for _, n := range sizes {
			kernels := []Coupling{Gaussian{Gamma: 0.4}, PowerLaw{Sigma: 1}}
			if n >= 3 {
				kernels = append(kernels, NearestNeighbour{})
			}
			for _, k := range kernels {
				out = append(out, Params{Dim: dim, Size: n, Coupling: k, Spin: Potts(3), Beta: 0.7})
			}
			out = append(out, Params{Dim: dim, Size: n, Coupling: PowerLaw{Sigma: 0.5}, Spin: Ising(), Beta: -0.3, Cutoff: 1.5})
		}
	}
	return out
}

// TestPairsOnceEach checks the central invariant of the implicit model:
// A[i] holds each coupled site exactly once (even sides, where offsets N/2
// and −N/2 name the same site, included), with J of the minimal-image
// distance, and the pair {i, j} appears in A[j] with the same bound and
// range.
func TestPairsOnceEach(t *testing.T) {
	for _, p := range structureCases() {
		l := mustNew(t, p)
		name := fmt.Sprintf("%d-D side %d %v cutoff %v", p.Dim, p.Size, p.Coupling, p.Cutoff)
		n := l.NumVars()
		index := make([]map[int]int, n) // index[i][j] = k with Neighbour(i, k) = j
		for i := range n {
			seen := map[int]int{}
			index[i] = seen
			for k := range l.NumOffsets() {
				j := l.Neighbour(i, k)
				if j == i || j < 0 || j >= n {
					t.Fatalf("%s: site %d offset %d gives site %d", name, i, k, j)
				}
				if k0, dup := seen[j]; dup {
					t.Fatalf("%s: site %d couples to %d twice (offsets %d and %d)", name, i, j, k0, k)
				}
				seen[j] = k
				d2 := minimalD2(p.Dim, p.Size, i, j)
				want := p.Coupling.Coupling(p.Dim, d2)
				if p.Cutoff > 0 && float64(d2) > p.Cutoff*p.Cutoff {
					t.Fatalf("%s: pair (%d,%d) at r² = %d beyond the cutoff", name, i, j, d2)
				}
				if got := l.Coupling(k); math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Fatalf("%s: pair (%d,%d) at r² = %d has J = %v, kernel says %v", name, i, j, d2, got, want)
				}
			}
			// Every site the kernel couples is in A[i].
			for j := range n {
				if j == i {
					continue
				}
				d2 := minimalD2(p.Dim, p.Size, i, j)
				coupled := p.Coupling.Coupling(p.Dim, d2) != 0 && (p.Cutoff == 0 || float64(d2) <= p.Cutoff*p.Cutoff)
				if _, in := seen[j]; in != coupled {
					t.Fatalf("%s: site %d: pair with %d (r² = %d) in A[i] = %v, coupled = %v", name, i, j, d2, in, coupled)
				}
			}
		}
		// Symmetry: {i, j} is in A[j] with the same bound and range.
		for i := range n {
			for j, k := range index[i] {
				back, ok := index[j][i]
				if !ok {
					t.Fatalf("%s: pair (%d,%d) is in A[%d] but not in A[%d]", name, i, j, i, j)
				}
				_, lo1, hi1 := l.Describe(i, k)
				_, lo2, hi2 := l.Describe(j, back)
				if l.Bound(i, k) != l.Bound(j, back) || lo1 != lo2 || hi1 != hi2 {
					t.Fatalf("%s: pair (%d,%d): bound %v range [%v,%v] from %d, bound %v range [%v,%v] from %d",
						name, i, j, l.Bound(i, k), lo1, hi1, i, l.Bound(j, back), lo2, hi2, j)
				}
			}
		}
		// L = Σ M, the same for every site.
		s := 0.0
		for k := range l.NumOffsets() {
			s += l.Bound(0, k)
		}
		if math.Abs(s-l.L()) > 1e-12*s || l.Li(n-1) != l.L() {
			t.Errorf("%s: L = %v, Σ M = %v, L_{n-1} = %v", name, l.L(), s, l.Li(n-1))
		}
		if soft, hard := l.Degree(0); soft != l.NumOffsets() || hard != 0 || l.MaxDegree() != soft {
			t.Errorf("%s: degree (%d, %d), Δ = %d, K = %d", name, soft, hard, l.MaxDegree(), l.NumOffsets())
		}
	}
}

func TestPowerLawFullTorus(t *testing.T) {
	for _, tc := range []struct{ dim, size int }{{1, 1000}, {2, 64}, {2, 65}, {3, 16}} {
		l := mustNew(t, Params{Dim: tc.dim, Size: tc.size, Coupling: PowerLaw{Sigma: 1}, Spin: Ising(), Beta: 1})
		if l.NumOffsets() != l.Sites()-1 {
			t.Errorf("%d-D side %d: %d offsets, want every other site (%d)", tc.dim, tc.size, l.NumOffsets(), l.Sites()-1)
		}
		// The offsets are sorted by decreasing |J| (up to float32 rounding).
		for k := 1; k < l.NumOffsets(); k++ {
			if float32(l.Bound(0, k)) > float32(l.Bound(0, k-1)) {
				t.Fatalf("%d-D side %d: offset %d heavier than offset %d", tc.dim, tc.size, k, k-1)
			}
		}
		if got := l.Offset(nil, 0); len(got) != tc.dim {
			t.Errorf("offset of %d components in %d-D", len(got), tc.dim)
		}
	}
}

// pickProbs reconstructs the probability of each offset from the alias
// table.
func pickProbs(l *Lattice) []float64 {
	out := make([]float64, l.NumOffsets())
	for k := range out {
		out[k] = torusWeight(l.table, k)
	}
	return out
}

// torusWeight returns the probability with which t.Pick returns k,
// reconstructed from the table's columns (O(K)).
func torusWeight(t *compiled.TorusTable, k int) float64 {
	nc := float64(len(t.Cols))
	own := func(thr uint64) float64 {
		if thr == math.MaxUint64 {
			return 1
		}
		return float64(thr) * 0x1p-64
	}
	flat := func(c int) float64 { // probability of flat column entry c
		p := 0.0
		target := t.Cols[c].Ent[0]
		for d, cd := range t.Cols {
			if d == c {
				p += own(cd.Thr) / nc
			} else if cd.Ent[1] == target {
				p += (1 - own(cd.Thr)) / nc
			}
		}
		return p
	}
	if k < t.Heavy {
		return flat(k)
	}
	j := k - t.Heavy
	for b, tr := range torusTiers(t.Heavy, len(t.Light)) {
		lo, hi := tr[0], tr[1]
		if j < lo || j >= hi {
			continue
		}
		size := float64(hi - lo)
		p := 0.0
		for c := lo; c < hi; c++ {
			lc := t.Light[c]
			if c == j {
				p += own(lc.Thr) / size
			} else if lo+int(lc.Alias) == j {
				p += (1 - own(lc.Thr)) / size
			}
		}
		return flat(t.Heavy+b) * p
	}
	return 0
}

// torusTiers returns the bounds [lo, hi) of the light tiers of a
// TorusTable with h heavy and nl light offsets, relative to the first
// light one: tiers of h, 2h, 4h, … offsets, as compiled.NewTorusTable lays
// them out.
func torusTiers(h, nl int) [][2]int {
	var tiers [][2]int
	for lo, size := 0, h; lo < nl; lo, size = lo+size, 2*size {
		tiers = append(tiers, [2]int{lo, min(nl, lo+size)})
	}
	return tiers
}

// TestPickProbabilities: the shared alias table draws offset k with
// probability M_k/L exactly (reconstructed from the table), for a flat
// table, and for a flat table over the compiled.HeavyMax heaviest offsets
// with a tiered one over the rest.
func TestPickProbabilities(t *testing.T) {
	for _, p := range []Params{
		{Dim: 2, Size: 5, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(2), Beta: 1},  // 24 offsets: flat
		{Dim: 2, Size: 40, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(2), Beta: 1}, // 1599: flat
		{Dim: 2, Size: 70, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(2), Beta: 1}, // 4899: flat + tiered
		{Dim: 3, Size: 9, Coupling: Gaussian{Gamma: 0.2}, Spin: Ising(), Beta: -2},
	} {
		l := mustNew(t, p)
		probs := pickProbs(l)
		for k, pk := range probs {
			if want := l.Bound(0, k) / l.L(); math.Abs(pk-want) > 1e-12 {
				t.Fatalf("%v: offset %d picked with probability %v, want M/L = %v", l, k, pk, want)
			}
		}
	}
}

// TestEval checks Eval and EvalAll against the factor φ = βJ·f(x_i, x_j)
// minus the declared lo, for Potts, Ising and continuous spins, ferro- and
// antiferromagnetic.
func TestEval(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range []Params{
		{Dim: 2, Size: 4, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(4), Beta: 0.9},
		{Dim: 2, Size: 4, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(4), Beta: -0.9},
		{Dim: 1, Size: 7, Coupling: Gaussian{Gamma: 0.3}, Spin: Ising(), Beta: 0.4},
		{Dim: 3, Size: 3, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: -0.4},
		{Dim: 2, Size: 5, Coupling: Gaussian{Gamma: 0.5}, Spin: Continuous(-1, 2), Beta: 1.3},
		{Dim: 2, Size: 5, Coupling: Gaussian{Gamma: 0.5}, Spin: Continuous(0, 1), Beta: -1.3},
	} {
		l := mustNew(t, p)
		for range 200 {
			x := factorgraph.RandomState(l, r)
			i := r.IntN(l.NumVars())
			k := r.IntN(l.NumOffsets())
			j := l.Neighbour(i, k)
			var f float64
			switch p.Spin.Kind {
			case PottsSpins:
				if x[i] == x[j] {
					f = 1
				}
			case IsingSpins:
				f = (2*x[i] - 1) * (2*x[j] - 1)
			default:
				f = x[i] * x[j]
			}
			phi := p.Beta * l.Coupling(k) * f
			_, lo, hi := l.Describe(i, k)
			if math.Abs(hi-lo-l.Bound(i, k)) > 1e-12 {
				t.Fatalf("%v: range [%v, %v] but M = %v", l, lo, hi, l.Bound(i, k))
			}
			got := l.Eval(i, k, x)
			if math.Abs(got-(phi-lo)) > 1e-12 || !factorgraph.InRange(got, l.Bound(i, k)) {
				t.Fatalf("%v: pair (%d,%d) x = (%v,%v): φ̃ = %v, want %v − %v", l, i, j, x[i], x[j], got, phi, lo)
			}
			if p.Spin.Kind == ContinuousSpins {
				continue
			}
			dst := make([]float64, p.Spin.States)
			save := slices.Clone(x)
			l.EvalAll(i, k, x, dst)
			if !slices.Equal(x, save) {
				t.Fatal("EvalAll modified x")
			}
			for v := range dst {
				x[i] = float64(v)
				if want := l.Eval(i, k, x); dst[v] != want {
					t.Fatalf("%v: EvalAll[%d] = %v, Eval = %v", l, v, dst[v], want)
				}
			}
		}
	}
}

// TestAgainstPotts compares the implicit lattices with the materialised
// graphs of package potts: the nearest-neighbour torus pair by pair, and the
// paper's Gaussian kernel through L (the paper's 5.09; open and periodic
// boundaries agree to 1e−9 at γ = 1.5 on 20×20).
func TestAgainstPotts(t *testing.T) {
	for _, tc := range []struct {
		l *Lattice
		g *factorgraph.Graph
	}{
		{mustNew(t, Params{Dim: 2, Size: 5, Coupling: NearestNeighbour{}, Spin: Potts(3), Beta: 0.8}), must(potts.NearestNeighbour(5, 3, 0.8))},
		{mustNew(t, Params{Dim: 2, Size: 6, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 0.3}), must(potts.Ising(6, 0.3))},
	} {
		l, g := tc.l, tc.g
		if l.L() != g.L() || l.MaxDegree() != g.MaxDegree() || l.NumVars() != g.NumVars() {
			t.Errorf("%v: L %v Δ %d n %d; potts: L %v Δ %d n %d", l, l.L(), l.MaxDegree(), l.NumVars(), g.L(), g.MaxDegree(), g.NumVars())
		}
		for i := range l.NumVars() {
			a := slices.Sorted(slices.Values(l.Neighbours(nil, i)))
			b := g.Neighbours(nil, i)
			if !slices.Equal(a, b) {
				t.Fatalf("%v: site %d neighbours %v, potts %v", l, i, a, b)
			}
		}
		// The same conditional for every site and state.
		r := rand.New(rand.NewPCG(5, 5))
		x := factorgraph.RandomState(l, r)
		for i := range l.NumVars() {
			u1 := conditional(l, i, x)
			u2 := conditional(g, i, x)
			for v := range u1 {
				if math.Abs(u1[v]-u2[v]) > 1e-12 {
					t.Fatalf("%v: site %d value %d: energy %v, potts %v", l, i, v, u1[v], u2[v])
				}
			}
		}
	}
	paper := potts.Paper()
	l := mustNew(t, Params{Dim: 2, Size: paper.Width, Coupling: Gaussian{Gamma: paper.Gamma}, Spin: Potts(paper.States), Beta: paper.Beta})
	g := must(potts.New(paper))
	if math.Abs(l.L()-g.L()) > 1e-9 || l.MaxDegree() != 399 {
		t.Errorf("periodic paper model: L = %.10f, Δ = %d; open: L = %.10f", l.L(), l.MaxDegree(), g.L())
	}
}

func must(g *factorgraph.Graph, err error) *factorgraph.Graph {
	if err != nil {
		panic(err)
	}
	return g
}

// conditional returns Σ_{φ∈A[i]} φ̃(x_{i←v}) for every v.
func conditional(m factorgraph.Model, i int, x []float64) []float64 {
	d := m.Domain(i).Size
	u := make([]float64, d)
	buf := make([]float64, d)
	soft, _ := m.Degree(i)
	for k := range soft {
		m.EvalAll(i, k, x, buf)
		for v := range u {
			u[v] += buf[v]
		}
	}
	return u
}

func TestNewErrors(t *testing.T) {
	ok := Params{Dim: 2, Size: 4, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 1}
	for _, tc := range []struct {
		name string
		edit func(p *Params)
		want string
	}{
		{"dim 0", func(p *Params) { p.Dim = 0 }, "dimension 0"},
		{"dim 4", func(p *Params) { p.Dim = 4 }, "dimension 4"},
		{"side 1", func(p *Params) { p.Size = 1 }, "side 1"},
		{"nn side 2", func(p *Params) { p.Size, p.Coupling = 2, NearestNeighbour{} }, "at least 3"},
		{"too many sites", func(p *Params) { p.Dim, p.Size = 3, 1000 }, "sites"},
		{"no kernel", func(p *Params) { p.Coupling = nil }, "no coupling kernel"},
		{"gamma", func(p *Params) { p.Coupling = Gaussian{Gamma: -1} }, "γ = -1"},
		{"gamma NaN", func(p *Params) { p.Coupling = Gaussian{Gamma: math.NaN()} }, "γ = NaN"},
		{"sigma", func(p *Params) { p.Coupling = PowerLaw{Sigma: 0} }, "σ = 0"},
		{"states", func(p *Params) { p.Spin = Potts(1) }, "1 Potts states"},
		{"ising states", func(p *Params) { p.Spin = Spin{Kind: IsingSpins, States: 3} }, "Ising spins with 3"},
		{"interval", func(p *Params) { p.Spin = Continuous(1, 1) }, "interval [1, 1]"},
		{"interval inf", func(p *Params) { p.Spin = Continuous(0, math.Inf(1)) }, "not finite"},
		{"spin kind", func(p *Params) { p.Spin = Spin{Kind: 7} }, "unknown spin kind"},
		{"beta 0", func(p *Params) { p.Beta = 0 }, "β = 0"},
		{"beta NaN", func(p *Params) { p.Beta = math.NaN() }, "β = NaN"},
		{"cutoff", func(p *Params) { p.Cutoff = -1 }, "cutoff -1"},
		{"cutoff too small", func(p *Params) { p.Cutoff = 0.5 }, "couples no pair"},
		{"NaN coupling", func(p *Params) { p.Coupling = badKernel{math.NaN()} }, "is NaN"},
		{"Inf coupling", func(p *Params) { p.Coupling = badKernel{math.Inf(1)} }, "is +Inf"},
		{"underflow", func(p *Params) { p.Beta = 1e-300; p.Coupling = Gaussian{Gamma: 30} }, "not a finite positive bound"},
	} {
		p := ok
		tc.edit(&p)
		_, err := New(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "lattice: ") {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// badKernel returns j at distance 2 and 1 elsewhere.
type badKernel struct{ j float64 }

func (b badKernel) Coupling(_, d2 int) float64 {
	if d2 == 2 {
		return b.j
	}
	return 1
}
func (badKernel) Reach() int     { return 0 }
func (badKernel) String() string { return "bad" }

// TestSamplersRun: the lattice plugs into the samplers of package gibbs
// through factorgraph.Model, discrete and continuous.
func TestSamplersRun(t *testing.T) {
	disc := mustNew(t, Params{Dim: 2, Size: 6, Coupling: PowerLaw{Sigma: 1}, Spin: Potts(3), Beta: 0.5})
	cont := mustNew(t, Params{Dim: 2, Size: 6, Coupling: Gaussian{Gamma: 1}, Spin: Continuous(-1, 1), Beta: 0.5})
	for _, tc := range []struct {
		name string
		l    *Lattice
	}{
		{"gibbs", disc}, {"pgibbs", disc}, {"auto", disc}, {"mgpmh", disc},
		{"pgda", cont}, {"pgits", cont}, {"gibbs-its", cont}, {"pg-rejection", cont},
	} {
		s, err := samplers.New(tc.name, tc.l, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for range 2000 {
			s.Step()
		}
		if err := s.Err(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if st := s.Stats(); st.Steps != 2000 || st.Factors == 0 {
			t.Errorf("%s: stats %+v", tc.name, st)
		}
	}
	// MIN-Gibbs needs global factor access, which an implicit lattice of
	// n·K/2 factors does not offer.
	if _, err := samplers.New("mingibbs", disc, rand.New(rand.NewPCG(1, 2)), nil); err == nil {
		t.Error("MIN-Gibbs accepted a lattice")
	}
}

func TestCoordinates(t *testing.T) {
	for dim := 1; dim <= 3; dim++ {
		l := mustNew(t, Params{Dim: dim, Size: 5, Coupling: NearestNeighbour{}, Spin: Ising(), Beta: 1})
		for i := range l.Sites() {
			c := l.Coords(nil, i)
			if len(c) != dim || l.Site(c...) != i {
				t.Fatalf("%d-D: site %d has coordinates %v, which give site %d", dim, i, c, l.Site(c...))
			}
			for a := range c {
				c[a] += 5
			}
			if l.Site(c...) != i {
				t.Fatalf("%d-D: coordinates are not taken modulo N", dim)
			}
		}
	}
}
