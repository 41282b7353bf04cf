package site

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/potts"
)

// bulkPotts builds a Gaussian-kernel Potts model with a field on every
// third site and evidence, its pairs and fields added one factor at a time
// (AddFactor) or in bulk (AddPottsPairs, AddTables); mixed adds a shared
// pair table, an antiferromagnetic pair and a hard unary term (which the
// cluster samplers refuse).
func bulkPotts(t *testing.T, bulk, mixed bool) *factorgraph.Graph {
	t.Helper()
	p := potts.Params{Width: 9, States: 3, Beta: 0.6, Gamma: 0.4}
	a, c, w := p.Pairs()
	n := p.Width * p.Width
	r := rand.New(rand.NewPCG(8, 9))
	var sites []int32
	var fields []float64
	for i := 0; i < n; i += 3 {
		sites = append(sites, int32(i))
		for range p.States {
			fields = append(fields, 0.3*r.NormFloat64())
		}
	}
	shared := []float64{0.1, 0.5, 0, 0.2, 0, 0.9, 0.4, 0.3, 0}
	edges := []int32{1, 2, 10, 11, 20, 30, 40, 41}
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(p.States))
	half := len(w) / 2
	for k, part := range [][2]int{{0, half}, {half, len(w)}} {
		if bulk {
			b.AddPottsPairs(a[part[0]:part[1]], c[part[0]:part[1]], w[part[0]:part[1]])
		} else {
			for j := part[0]; j < part[1]; j++ {
				b.AddFactor(factorgraph.NewPotts(int(a[j]), int(c[j]), w[j]))
			}
		}
		if k > 0 {
			break
		}
		if bulk {
			b.AddTables(sites, []int{p.States}, fields)
		} else {
			for j, s := range sites {
				b.AddFactor(factorgraph.NewTable([]int{int(s)}, []int{p.States}, fields[j*p.States:(j+1)*p.States]))
			}
		}
		if !mixed {
			continue
		}
		if bulk {
			b.AddTables(edges, []int{3, 3}, shared)
			b.AddPottsPairs([]int32{5}, []int32{50}, []float64{-0.8})
			b.AddTables([]int32{7}, []int{3}, []float64{0, math.Inf(-1), 0.5})
		} else {
			for j := 0; j < len(edges); j += 2 {
				b.AddFactor(factorgraph.NewTable([]int{int(edges[j]), int(edges[j+1])}, []int{3, 3}, shared))
			}
			b.AddFactor(factorgraph.NewPotts(5, 50, -0.8))
			b.AddFactor(factorgraph.NewTable([]int{7}, []int{3}, []float64{0, math.Inf(-1), 0.5}))
		}
	}
	b.Observe(12, 2)
	b.Observe(40, 0)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBulkChains runs every kind of sampler on the same model built one
// factor at a time and in bulk, from the same seed, and requires the same
// states after every step, bit for bit: the bulk path builds the same
// compiled graph.
func TestBulkChains(t *testing.T) {
	samplers := []struct {
		name  string
		mixed bool // the model has non-Potts pairs and hard terms
		new   func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error)
	}{
		{"gibbs", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewGibbs(m, r, nil) }},
		{"pgibbs", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewPoissonGibbs(m, r, nil) }},
		{"pgibbs-0.1", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return NewPoissonGibbs(m, r, &gibbs.Options{LambdaScale: 0.1})
		}},
		{"auto", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return NewMixed(m, r, nil) }},
		{"mgpmh", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return mingibbs.NewMGPMH(m, r, nil) }},
		{"doublemin", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return mingibbs.NewDoubleMINGibbs(m, r, nil)
		}},
		{"block", true, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return blocked.New(m, r, nil) }},
		{"sw", false, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) {
			return cluster.NewSwendsenWang(m, r, nil)
		}},
		{"wolff", false, func(m factorgraph.Model, r *rand.Rand) (gibbs.Sampler, error) { return cluster.NewWolff(m, r, nil) }},
	}
	graphs := map[bool][2]*factorgraph.Graph{}
	for _, mixed := range []bool{false, true} {
		graphs[mixed] = [2]*factorgraph.Graph{bulkPotts(t, false, mixed), bulkPotts(t, true, mixed)}
	}
	for _, sc := range samplers {
		gs := graphs[sc.mixed]
		var ss [2]gibbs.Sampler
		for k, g := range gs {
			s, err := sc.new(g, rand.New(rand.NewPCG(21, 22)))
			if err != nil {
				t.Fatalf("%s: %v", sc.name, err)
			}
			ss[k] = s
		}
		for step := range 3000 {
			ss[0].Step()
			ss[1].Step()
			if !slices.Equal(ss[0].State(), ss[1].State()) {
				t.Fatalf("%s: the states differ after %d steps", sc.name, step+1)
			}
		}
		for k, s := range ss {
			if err := s.Err(); err != nil {
				t.Fatalf("%s, graph %d: %v", sc.name, k, err)
			}
		}
		if ss[0].Stats() != ss[1].Stats() {
			t.Errorf("%s: statistics %+v and %+v", sc.name, ss[0].Stats(), ss[1].Stats())
		}
	}
}
