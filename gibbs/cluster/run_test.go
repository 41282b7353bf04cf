package cluster

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/lattice"
)

// clusterBoth builds both cluster samplers on m.
func clusterBoth(m factorgraph.Model, r *rand.Rand, opt *gibbs.Options) map[string]func() (gibbs.Sampler, error) {
	return map[string]func() (gibbs.Sampler, error){
		"sw":    func() (gibbs.Sampler, error) { return NewSwendsenWang(m, r, opt) },
		"wolff": func() (gibbs.Sampler, error) { return NewWolff(m, r, opt) },
	}
}

// threeVars is three variables of 3 values with the factors add adds.
func threeVars(t *testing.T, add func(b *factorgraph.Builder)) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(3))
	b.AddFactor(factorgraph.NewPotts(1, 2, 0.5))
	add(b)
	return gibbstest.Build(t, b)
}

// TestClusterRefusals: a model with a factor between free variables other
// than a soft ferromagnetic Potts pair, a continuous variable, a model
// without compiled pairs, an antiferromagnetic or continuous lattice, and
// steps beyond MaxDraws are refused, naming what.
func TestClusterRefusals(t *testing.T) {
	inf := math.Inf(-1)
	ferro := threeVars(t, func(*factorgraph.Builder) {})
	cont := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Discrete(2))
		b.AddVariable(factorgraph.Interval(0, 1))
		return gibbstest.Build(t, b)
	}()
	cases := []struct {
		name string
		m    factorgraph.Model
		opt  *gibbs.Options
		want []string
	}{
		{"antiferromagnetic pair", threeVars(t, func(b *factorgraph.Builder) { b.AddFactor(factorgraph.NewPotts(0, 1, -0.5)) }), nil,
			[]string{"factor 1 (vars 0,1)", "antiferromagnetic", "W = -0.5"}},
		{"pair table", threeVars(t, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{3, 3}, []float64{0, 1, 0, 0, 0, 0, 0, 0, 0}))
		}), nil, []string{"factor 1 (vars 0,1)", "is a table, not a Potts pair"}},
		{"generic pair", threeVars(t, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewFunc([]int{2, 0}, 0, 1, func(x []float64) float64 { return x[0] / 2 }))
		}), nil, []string{"factor 1 (vars 2,0)", "does not compile"}},
		{"hard pair", threeVars(t, func(b *factorgraph.Builder) {
			b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{3, 3}, []float64{0, inf, 0, 0, 0, 0, 0, 0, 0}))
		}), nil, []string{"factor 1 (vars 0,1)", "hard factor"}},
		{"triple table", threeVars(t, func(b *factorgraph.Builder) {
			vals := make([]float64, 27)
			vals[5] = 1
			b.AddFactor(factorgraph.NewTable([]int{0, 1, 2}, []int{3, 3, 3}, vals))
		}), nil, []string{"factor 1 (vars 0,1,2)", "couples 3 free variables"}},
		{"continuous variable", cont, nil, []string{"variable 1 is continuous"}},
		{"no compiled pairs", gibbstest.NoKernel{GlobalModel: ferro}, nil, []string{"no compiled pairs"}},
		{"antiferromagnetic lattice", gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: -0.3}), nil,
			[]string{"pair (0, ", "antiferromagnetic"}},
		{"continuous lattice", gibbstest.NewLattice(t, lattice.Params{Dim: 1, Size: 5, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Continuous(-1, 1), Beta: 1}), nil,
			[]string{"continuous"}},
		{"beyond MaxDraws", ferro, &gibbs.Options{MaxDraws: 1}, []string{"Options.MaxDraws", "bond events"}},
	}
	for _, tc := range cases {
		for name, mk := range clusterBoth(tc.m, rand.New(rand.NewPCG(1, 1)), tc.opt) {
			s, err := mk()
			if err == nil {
				t.Errorf("%s: %s accepted the model", tc.name, name)
				continue
			}
			if s != nil && !isNilSampler(s) {
				t.Errorf("%s: %s returned a sampler with its error", tc.name, name)
			}
			for _, w := range append(tc.want, "gibbs: "+name+":") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %s: error %q does not say %q", tc.name, name, err, w)
				}
			}
		}
	}
	// Evidence turns any factor to an observed variable into a unary term:
	// a pair table and an antiferromagnetic pair to x_0 are accepted.
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(3))
	b.AddFactor(factorgraph.NewPotts(1, 2, 0.5))
	b.AddFactor(factorgraph.NewPotts(0, 1, -0.5))
	b.AddFactor(factorgraph.NewTable([]int{2, 0}, []int{3, 3}, []float64{0, inf, 0, 1, 0, 0, 0, 0, 0}))
	b.Observe(0, 1)
	for name, mk := range clusterBoth(gibbstest.Build(t, b), rand.New(rand.NewPCG(1, 1)), nil) {
		if _, err := mk(); err != nil {
			t.Errorf("%s with evidence: %v", name, err)
		}
	}
}

// isNilSampler reports whether s holds a nil pointer.
func isNilSampler(s gibbs.Sampler) bool {
	switch s := s.(type) {
	case *SwendsenWang:
		return s == nil
	case *Wolff:
		return s == nil
	}
	return false
}

// TestClusterStats: a Swendsen–Wang step draws Σ_{i<j} K_ij bond events on
// average (N·L/2 on a lattice) and updates every free variable; a Wolff
// step counts its cluster's members; the unary factors read are counted;
// nothing is allocated once warm, with or without an interrupt channel.
func TestClusterStats(t *testing.T) {
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 20, Coupling: lattice.PowerLaw{Sigma: 1}, Spin: lattice.Potts(3), Beta: 0.3})
	sw, err := NewSwendsenWang(l, rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	const steps = 2000
	for range steps {
		if sw.Step() != chain.Any {
			t.Fatal("a Swendsen–Wang step did not return chain.Any")
		}
	}
	st := sw.Stats()
	want := float64(l.Sites()) * l.L() / 2
	if got := float64(st.Picks) / steps; math.Abs(got-want) > 5*math.Sqrt(want/steps) {
		t.Errorf("%.2f bond events a sweep, want N·L/2 = %.2f", got, want)
	}
	if st.Steps != steps*int64(l.Sites()) || st.Factors != 0 {
		t.Errorf("stats %+v after %d sweeps of %d sites", st, steps, l.Sites())
	}
	tg := gibbstest.RandomClusterGraph(t, 10, true, true, true)
	g, err := NewSwendsenWang(tg.G, rand.New(rand.NewPCG(3, 4)), &gibbs.Options{Init: tg.Init})
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, ki := range g.b.k {
		total += ki / 2
	}
	for range steps {
		g.Step()
	}
	gs := g.Stats()
	if got := float64(gs.Picks) / steps; math.Abs(got-total) > 5*math.Sqrt(total/steps) {
		t.Errorf("graph: %.3f bond events a sweep, want Σ K_ij = %.3f", got, total)
	}
	if gs.Steps != steps*int64(len(tg.G.Free())) || gs.Factors != steps*g.f.total || g.f.total == 0 {
		t.Errorf("graph: stats %+v after %d sweeps (%d unary factors)", gs, steps, g.f.total)
	}
	w, err := NewWolff(l, rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Step()
	if ws := w.Stats(); ws.Steps < 1 || ws.Steps > int64(l.Sites()) || int(ws.Steps) != len(w.members) {
		t.Errorf("Wolff: %d site updates for a cluster of %d", ws.Steps, len(w.members))
	}
	for name, s := range map[string]gibbs.Sampler{"sw lattice": sw, "sw graph": g, "wolff lattice": w} {
		for _, done := range []chan struct{}{nil, make(chan struct{})} {
			s.(chain.Interrupter).SetInterrupt(done)
			for range 200 {
				s.Step() // warm up the journal
			}
			if a := testing.AllocsPerRun(100, func() { s.Step() }); a != 0 {
				t.Errorf("%s (channel %v): %v allocations a step", name, done != nil, a)
			}
		}
	}
}

// TestTuneClusters: after tuning (from the random start, in rounds), a
// Wolff step updates about n sites; the setting is refused below 1, kept by
// snapshots, and tuning is refused once the chain has moved or was
// restored (it must come before the burn-in).
func TestTuneClusters(t *testing.T) {
	for _, beta := range []float64{0.25, 0.6} {
		l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 16, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: beta})
		w, err := NewWolff(l, rand.New(rand.NewPCG(5, 6)), nil)
		if err != nil {
			t.Fatal(err)
		}
		k, err := w.TuneClusters(context.Background(), 20)
		if err != nil || k != w.Clusters() || k < 1 {
			t.Fatalf("β = %v: TuneClusters = %d, %v", beta, k, err)
		}
		for range 2000 {
			w.Step() // burn in
		}
		if _, err := w.TuneClusters(context.Background(), 20); err == nil || !strings.Contains(err.Error(), "tune, then burn in, then measure") {
			t.Errorf("β = %v: TuneClusters after the burn-in: %v, want a refusal", beta, err)
		}
		before := w.Stats().Steps
		const steps = 500
		for range steps {
			w.Step()
		}
		per := float64(w.Stats().Steps-before) / steps / float64(l.Sites())
		if per < 0.6 || per > 1.8 {
			t.Errorf("β = %v: %d clusters a step update %.2f sweeps' worth of sites, want about 1", beta, k, per)
		}
		t.Logf("β = %v: %d clusters a step, %.2f sweeps' worth", beta, k, per)
		if err := w.SetClusters(0); err == nil {
			t.Error("SetClusters(0) accepted")
		}
		if _, err := w.TuneClusters(context.Background(), 0); err == nil {
			t.Error("TuneClusters(0) accepted")
		}
		data := gibbstest.SnapshotOf(t, w)
		fresh, _ := NewWolff(l, rand.New(rand.NewPCG(1, 1)), nil)
		if err := fresh.Restore(data); err != nil || fresh.Clusters() != k {
			t.Errorf("restored Wolff: %d clusters a step (%v), want %d", fresh.Clusters(), err, k)
		}
		if _, err := fresh.TuneClusters(context.Background(), 1); err == nil {
			t.Error("TuneClusters of a restored chain accepted")
		}
		fresh, _ = NewWolff(l, rand.New(rand.NewPCG(1, 1)), nil)
		fresh.Update(0)
		if _, err := fresh.TuneClusters(context.Background(), 1); err == nil {
			t.Error("TuneClusters after an Update accepted")
		}
	}
}

// TestClusterRestoreErrors: snapshots of another kind, or a Wolff snapshot
// without its clusters a step, are refused.
func TestClusterRestoreErrors(t *testing.T) {
	tg := gibbstest.RandomClusterGraph(t, 10, true, true, true)
	sw, _ := NewSwendsenWang(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init})
	w, _ := NewWolff(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init})
	swData, wData := gibbstest.SnapshotOf(t, sw), gibbstest.SnapshotOf(t, w)
	if err := w.Restore(swData); err == nil {
		t.Error("Wolff restored a Swendsen–Wang snapshot")
	}
	if err := sw.Restore(wData); err == nil {
		t.Error("Swendsen–Wang restored a Wolff snapshot")
	}
	var st map[string]any
	_ = json.Unmarshal(wData, &st)
	delete(st, "clusters")
	bad, _ := json.Marshal(st)
	if err := w.Restore(bad); err == nil || !strings.Contains(err.Error(), "clusters") {
		t.Errorf("Wolff snapshot without clusters: %v", err)
	}
	if err := w.Restore(wData); err != nil {
		t.Error(err)
	}
}
