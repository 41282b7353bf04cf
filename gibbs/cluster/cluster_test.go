package cluster

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/internal/minibatch"
	"github.com/pgibbs/pgibbs/lattice"
)

// clusterGraphs are the exactness tests' graphs: 4 pure Potts graphs, 4 with
// unary tables, 4 with unary hard zeros and evidence.
func clusterGraphs(t *testing.T) []gibbstest.Graph {
	var gs []gibbstest.Graph
	for seed := uint64(1); seed <= 12; seed++ {
		gs = append(gs, gibbstest.RandomClusterGraph(t, seed, seed > 4, seed > 8, seed > 8))
	}
	return gs
}

// updates is a sampler whose Step is Update of the next free variable in
// turn (a systematic scan of seeds): SwendsenWang's single-cluster path.
type updates struct {
	*SwendsenWang
	next *int
}

func (u updates) Step() int {
	free := u.core().Free
	i := free[*u.next%len(free)]
	*u.next++
	u.Update(i)
	return i
}

func clusterCases() []gibbstest.SamplerCase {
	return []gibbstest.SamplerCase{
		{Name: "SwendsenWang", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return NewSwendsenWang(m, r, &gibbs.Options{Init: init})
		}, Steps: 0},
		{Name: "SwendsenWang/Update", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			s, err := NewSwendsenWang(m, r, &gibbs.Options{Init: init})
			if err != nil {
				return nil, err
			}
			return updates{s, new(int)}, nil
		}, Steps: 0},
		{Name: "Wolff", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			return NewWolff(m, r, &gibbs.Options{Init: init})
		}, Steps: 0},
		{Name: "Wolff/3-clusters", New: func(m factorgraph.Model, r *rand.Rand, init []float64) (gibbs.Sampler, error) {
			w, err := NewWolff(m, r, &gibbs.Options{Init: init})
			if err != nil {
				return nil, err
			}
			return w, w.SetClusters(3)
		}, Steps: 100000},
	}
}

func TestClusterExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckExact(t, clusterGraphs(t), clusterCases(), 99, 1)
}

// halveBonds makes the bond events of c half as many as they should be:
// P(bond) = 1 − e^{−K/2} instead of 1 − e^{−K} (a thinning of the events by
// one half).
func halveBonds(c *clusters) {
	b := &c.b
	b.events = minibatch.NewPoissonTable(b.total / 2)
	if b.tor != nil {
		b.half = minibatch.NewPoissonTable(b.tor.L / 4)
		b.site = minibatch.NewPoissonTable(b.tor.L / 2)
	}
	for i := range b.k {
		b.k[i] /= 2
	}
	for k, e := range b.fwd {
		b.bondThr[k] = minibatch.Threshold(-math.Expm1(-math.Abs(b.tor.W[e.K]) / 2))
	}
}

// sizeStopped is the Wolff step the issue first asked for: single-cluster
// updates until their sizes sum to at least n. Observed at that stopping
// time, the chain does not keep π.
type sizeStopped struct{ *Wolff }

func (s sizeStopped) Step() int {
	target := s.core().Stat.Steps + int64(len(s.core().Free))
	for s.core().Stat.Steps < target {
		s.Update(s.core().Pick())
	}
	return chain.Any
}

func brokenClusterCases() []gibbstest.BrokenCase {
	sw := func(tg gibbstest.Graph) (*SwendsenWang, error) {
		return NewSwendsenWang(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
	}
	wolff := func(tg gibbstest.Graph) (*Wolff, error) {
		return NewWolff(tg.G, rand.New(rand.NewPCG(tg.Seed, 99)), &gibbs.Options{Init: tg.Init})
	}
	return []gibbstest.BrokenCase{
		{Name: "SwendsenWang/bonds-at-half-rate", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := sw(tg)
			if err == nil {
				halveBonds(&s.clusters)
			}
			return s, err
		}, Steps: 0},
		{Name: "Wolff/bonds-at-half-rate", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := wolff(tg)
			if err == nil {
				halveBonds(&s.clusters)
			}
			return s, err
		}, Steps: 0},
		{Name: "SwendsenWang/values-ignore-fields", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := sw(tg)
			if err == nil {
				s.f = fields{}
			}
			return s, err
		}, Steps: 0},
		{Name: "Wolff/values-ignore-fields", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := wolff(tg)
			if err == nil {
				s.f = fields{}
			}
			return s, err
		}, Steps: 0},
		{Name: "Wolff/stop-when-sizes-reach-n", New: func(tg gibbstest.Graph) (gibbs.Sampler, error) {
			s, err := wolff(tg)
			return sizeStopped{s}, err
		}, Steps: 0},
	}
}

func TestClusterExactnessCatchesBrokenSamplers(t *testing.T) {
	gibbstest.SkipShort(t)
	gibbstest.CheckBroken(t, clusterGraphs(t), brokenClusterCases())
}

// clusterTori are lattices whose states can be enumerated: nearest-neighbour
// and power-law kernels, Ising and Potts spins, even and odd sides.
var clusterTori = []struct {
	name string
	p    lattice.Params
}{
	{"4x4-nn-ising", lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.4}},
	{"3x3-nn-potts3", lattice.Params{Dim: 2, Size: 3, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Potts(3), Beta: 0.9}},
	{"3x3-power-potts3", lattice.Params{Dim: 2, Size: 3, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(3), Beta: 0.5}},
	{"4x4-power-ising", lattice.Params{Dim: 2, Size: 4, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Ising(), Beta: 0.15}},
	{"ring4-power-potts4", lattice.Params{Dim: 1, Size: 4, Coupling: lattice.PowerLaw{Sigma: 0.5}, Spin: lattice.Potts(4), Beta: 0.8}},
}

// clusterOnTorus builds sampler name ("sw", "wolff", "sw-update" or
// "wolff-4") on l, optionally with broken bonds.
func clusterOnTorus(t *testing.T, name string, l *lattice.Lattice, seed uint64, broken bool) gibbs.Sampler {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	var s gibbs.Sampler
	var c *clusters
	switch name {
	case "sw", "sw-update", "sw-poisson":
		sw, err := NewSwendsenWang(l, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, c = sw, &sw.clusters
		switch name {
		case "sw-update":
			s = updates{sw, new(int)}
		case "sw-poisson": // the Poisson bond events where direct tests would serve
			c.b.fwd, c.b.bondThr = nil, nil
		}
	default:
		w, err := NewWolff(l, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if name == "wolff-4" {
			_ = w.SetClusters(4)
		}
		s, c = w, &w.clusters
	}
	if c.b.tor == nil {
		t.Fatalf("%s on %v: not on the torus path", name, l)
	}
	if broken {
		halveBonds(c)
	}
	return s
}

// hasDirect reports whether Swendsen–Wang tests l's pairs directly.
func hasDirect(t *testing.T, l *lattice.Lattice) bool {
	sw, err := NewSwendsenWang(l, rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sw.b.fwd != nil
}

func TestClusterTorusExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	for ci, tc := range clusterTori {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := gibbstest.NewLattice(t, tc.p)
			for si, name := range []string{"sw", "sw-update", "sw-poisson", "wolff", "wolff-4"} {
				steps := gibbstest.ExactSteps
				if name == "wolff-4" {
					steps /= 4
				}
				z, where := gibbstest.LatticeZ(l, clusterOnTorus(t, name, l, uint64(100*ci+si), false), steps)
				if z > gibbstest.ZLimit {
					t.Errorf("%s: %s: z = %.2f", name, where, z)
				}
				t.Logf("%s (K = %d offsets, L = %.3f, direct bonds %v): largest z %.2f", name, l.NumOffsets(), l.L(), hasDirect(t, l), z)
			}
		})
	}
}

// TestClusterTorusCatchesHalfBonds: bonds at half their rate are rejected on
// the lattices too.
func TestClusterTorusCatchesHalfBonds(t *testing.T) {
	gibbstest.SkipShort(t)
	for _, name := range []string{"sw", "sw-poisson", "wolff"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			worst, caught := 0.0, 0
			for ci, tc := range clusterTori {
				l := gibbstest.NewLattice(t, tc.p)
				z, _ := gibbstest.LatticeZ(l, clusterOnTorus(t, name, l, uint64(ci), true), gibbstest.ExactSteps/4)
				if z > gibbstest.ZLimit {
					caught++
				}
				worst = max(worst, z)
			}
			if caught == 0 {
				t.Errorf("no lattice rejected bonds at half rate (largest z = %.2f)", worst)
			}
			t.Logf("rejected on %d of %d lattices (largest z %.1f)", caught, len(clusterTori), worst)
		})
	}
}

// asTables rebuilds g with every Potts pair written as a pair table c +
// W·δ (c drawn from r; tables recognised by Table.PottsForm).
func asTables(t *testing.T, g *factorgraph.Graph, r *rand.Rand) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	for i := range g.NumVars() {
		b.AddVariable(g.Domain(i))
		if v, ok := g.Observed(i); ok {
			b.Observe(i, v)
		}
	}
	for f := range g.NumFactors() {
		p, ok := g.Factor(f).(*factorgraph.Potts)
		if !ok {
			b.AddFactor(g.Factor(f))
			continue
		}
		vars := p.Vars()
		qa, qb := g.Domain(vars[0]).Size, g.Domain(vars[1]).Size
		if qa != qb {
			b.AddFactor(p) // Potts form needs one domain size
			continue
		}
		c := r.Float64() - 0.5
		vals := make([]float64, qa*qb)
		for k := range vals {
			vals[k] = c
			if k/qb == k%qb {
				vals[k] += p.W
			}
		}
		b.AddFactor(factorgraph.NewTable(vars, []int{qa, qb}, vals))
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClusterPottsFormTables: with their Potts pairs written as tables (the
// form UAI files hold), the cluster samplers accept the random cluster
// graphs and keep their exact joint and marginals.
func TestClusterPottsFormTables(t *testing.T) {
	gibbstest.SkipShort(t)
	r := rand.New(rand.NewPCG(4, 4))
	var graphs []gibbstest.Graph
	tables := 0
	for _, tg := range clusterGraphs(t)[:6] {
		tg.G = asTables(t, tg.G, r)
		for f := range tg.G.NumFactors() {
			if _, ok := tg.G.Factor(f).(*factorgraph.Table); ok {
				tables++
			}
		}
		graphs = append(graphs, tg)
	}
	if tables == 0 {
		t.Fatal("no Potts pair became a table")
	}
	gibbstest.CheckExact(t, graphs, []gibbstest.SamplerCase{clusterCases()[0], clusterCases()[2]}, 31, 2)
}
