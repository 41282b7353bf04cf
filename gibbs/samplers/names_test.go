package samplers

import (
	"bytes"
	"encoding/json"
	"github.com/pgibbs/pgibbs/blocks"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/continuous"
	"github.com/pgibbs/pgibbs/gibbs/exchange"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/lattice"
)

// TestRegistry: Names is sorted and fresh, FactoryOf and New know exactly
// those names, and an unknown name is an error listing them.
func TestRegistry(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || len(names) != len(registry) {
		t.Errorf("Names() = %v: want the %d registry names, sorted", names, len(registry))
	}
	names[0] = "changed"
	if Names()[0] == "changed" {
		t.Error("Names returns the registry's own slice")
	}
	g, cont := gibbstest.SmallPotts(t), gibbstest.ContGraphs(t)[0].G
	for _, name := range Names() {
		f, err := FactoryOf(name)
		if err != nil {
			t.Fatal(err)
		}
		m := g
		if gibbstest.ContinuousName(name) {
			m = cont
		}
		s, err := f(m, rand.New(rand.NewPCG(1, 2)), nil)
		if err != nil || s == nil {
			t.Errorf("%s: %v", name, err)
		}
		if c, ok := s.(*continuous.Continuous); ok && c.Name() != name {
			t.Errorf("%s: Name() = %q", name, c.Name())
		}
	}
	_, err := FactoryOf("nope")
	if err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("unknown name: %v, want an error listing the names", err)
	}
	if s, err := New("nope", g, rand.New(rand.NewPCG(1, 2)), nil); err == nil || s != nil {
		t.Errorf("New of an unknown name: %v, %v", s, err)
	}
	// A failed construction returns a nil Sampler, not a nil pointer.
	if s, err := New("gibbs", g, nil, nil); err == nil || s != nil {
		t.Errorf("New without RNG: %#v, %v", s, err)
	}
}

func TestStatsAdd(t *testing.T) {
	a := gibbs.Stats{Stats: chain.Stats{Steps: 1, Proposals: 4, Accepted: 5}, Factors: 2, Picks: 3, Tries: 6}
	b := gibbs.Stats{Stats: chain.Stats{Steps: 10, Proposals: 40, Accepted: 50}, Factors: 20, Picks: 30, Tries: 60}
	a.Add(b)
	if want := (gibbs.Stats{Stats: chain.Stats{Steps: 11, Proposals: 44, Accepted: 55}, Factors: 22, Picks: 33, Tries: 66}); a != want {
		t.Errorf("sum %+v, want %+v", a, want)
	}
	if r := a.AcceptanceRate(); r != 55.0/44 {
		t.Errorf("acceptance rate %v", r)
	}
	if r := (gibbs.Stats{Stats: chain.Stats{Steps: 3}}).AcceptanceRate(); !math.IsNaN(r) {
		t.Errorf("acceptance rate without proposals %v, want NaN", r)
	}
}

// TestStatsJSON: Stats embeds chain.Stats; a snapshot's "stats" object is
// byte for byte that of the Stats of before the embedding (MarshalJSON
// keeps the order), and snapshots of either shape read into the other
// unchanged.
func TestStatsJSON(t *testing.T) {
	type oldStats struct { // Stats before it embedded chain.Stats
		Steps, Factors, Picks, Proposals, Accepted, Tries int64
	}
	old := oldStats{Steps: 1, Factors: 2, Picks: 3, Proposals: 4, Accepted: 5, Tries: 6}
	cur := gibbs.Stats{Stats: chain.Stats{Steps: 1, Proposals: 4, Accepted: 5}, Factors: 2, Picks: 3, Tries: 6}
	ob, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := json.Marshal(cur)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ob, nb) {
		t.Errorf("Stats marshals as %s, was %s", nb, ob)
	}
	var om, nm map[string]any
	if err := json.Unmarshal(ob, &om); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(nb, &nm); err != nil {
		t.Fatal(err)
	}
	if len(om) != len(nm) {
		t.Fatalf("keys %s, were %s", nb, ob)
	}
	for k, v := range om {
		if nm[k] != v {
			t.Errorf("key %q: %v, was %v (%s vs %s)", k, nm[k], v, nb, ob)
		}
	}
	var back gibbs.Stats
	if err := json.Unmarshal(ob, &back); err != nil || back != cur {
		t.Errorf("old snapshot stats read as %+v (%v), want %+v", back, err, cur)
	}
	var oback oldStats
	if err := json.Unmarshal(nb, &oback); err != nil || oback != old {
		t.Errorf("new snapshot stats read by the old shape as %+v (%v), want %+v", oback, err, old)
	}
}

// factoryOf returns the factory of sampler name as a chromatic sweep's
// workers are built (auto: single-site), failing t if there is none.
func factoryOf(t testing.TB, name string) gibbs.Factory {
	t.Helper()
	e, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e.Factory(Config{SingleSite: true})
}

// TestEntries: every entry's description is what its sampler does — it
// samples continuous variables or discrete ones, reports a λ when it draws
// minibatches, Rao–Blackwellises when it says it is a Conditioner, steps a
// sweep at a time when it says so, and is accepted as a chromatic worker
// exactly when it says its updates are local — and the test harness's
// lists of names agree with it.
func TestEntries(t *testing.T) {
	g, cont := gibbstest.SmallPotts(t), gibbstest.ContGraphs(t)[0].G
	for _, e := range Entries() {
		t.Run(e.Name, func(t *testing.T) {
			m := g
			if e.Continuous {
				m = cont
			}
			if e.Continuous != gibbstest.ContinuousName(e.Name) || e.Sweep != gibbstest.ClusterName(e.Name) {
				t.Errorf("continuous %v, sweep %v: the test harness says otherwise", e.Continuous, e.Sweep)
			}
			s, err := e.New(m, rand.New(rand.NewPCG(1, 2)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.(chain.Conditioner); ok != e.Conditioner {
				t.Errorf("implements chain.Conditioner: %v, entry says %v", ok, e.Conditioner)
			}
			l, ok := s.(interface{ Lambda() float64 })
			if minibatch := ok && l.Lambda() > 0; minibatch != e.Minibatched && e.Name != "auto" {
				t.Errorf("λ reported: %v, entry says minibatched %v", minibatch, e.Minibatched)
			}
			free := m.Free()
			if sweep := gibbs.StepsPerSweep(s) == 1; len(free) > 1 && sweep != e.Sweep {
				t.Errorf("a step is a sweep: %v, entry says %v", sweep, e.Sweep)
			}
			classes := make([][]int, len(free)) // one variable a class: always a colouring
			for k, i := range free {
				classes[k] = []int{i}
			}
			_, err = chromatic.New(e.Factory(Config{SingleSite: true}), m, classes, chain.Streams(1, 2), nil)
			if (err == nil) != e.Local {
				t.Errorf("chromatic worker: %v, entry says local %v", err, e.Local)
			}
		})
	}
	// Graph: an implicit lattice (each variable's factors, no global list)
	// is refused exactly by the samplers that need a graph.
	l := gibbstest.NewLattice(t, lattice.Params{Dim: 2, Size: 4, Coupling: lattice.NearestNeighbour{}, Spin: lattice.Ising(), Beta: 0.3})
	for _, e := range Entries() {
		if e.Continuous {
			continue
		}
		if _, err := e.New(l, rand.New(rand.NewPCG(1, 2)), nil); (err != nil) != e.Graph {
			t.Errorf("%s on a lattice: %v, entry says it needs a graph: %v", e.Name, err, e.Graph)
		}
	}
	if names := NamesWhere(func(e Entry) bool { return e.Continuous }); len(names) != 6 {
		t.Errorf("continuous samplers %v, want the six of package continuous", names)
	}
}

// TestConfig: the registry builds blocks and Wolff clusters with their own
// configuration, and refuses a bad one.
func TestConfig(t *testing.T) {
	g := gibbstest.PottsChain(t, 30, 8, 0.1)
	b, err := Entries()[1].New(g, rand.New(rand.NewPCG(1, 2)), &Config{Block: blocked.Config{Config: blocks.Config{MaxWidth: 1, MaxVars: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bi := range b.(*blocked.Blocked).Blocks() {
		if len(bi.Vars) > 4 || bi.Width > 1 {
			t.Errorf("block of %d variables, width %d: over Config.Block", len(bi.Vars), bi.Width)
		}
	}
	wolff, _ := Lookup("wolff")
	for _, tc := range []struct {
		clusters, want int
	}{{0, 1}, {3, 3}, {TuneClusters, -1}} {
		s, err := wolff.New(g, rand.New(rand.NewPCG(1, 2)), &Config{Clusters: tc.clusters})
		if err != nil {
			t.Fatal(err)
		}
		if k := s.(*cluster.Wolff).Clusters(); tc.want > 0 && k != tc.want || tc.want < 0 && k < 1 {
			t.Errorf("Clusters %d: %d clusters a step", tc.clusters, k)
		}
	}
	if _, err := wolff.New(g, rand.New(rand.NewPCG(1, 2)), &Config{Clusters: -7}); err == nil {
		t.Error("Clusters −7 accepted")
	}
}

// TestColdReplica: Config.ColdReplica builds the exchange's chain as the
// sampler it names (blocks among plain Gibbs replicas) and refuses a name
// that cannot be a replica, saying which.
func TestColdReplica(t *testing.T) {
	tg := gibbstest.Graphs(t)[0]
	e, _ := Lookup("exchange")
	cfg := Config{Replica: "gibbs", ColdReplica: "block"}
	cfg.Init, cfg.Exchange.Betas = tg.Init, []float64{1, 0.5, 0}
	s, err := e.New(tg.G, rand.New(rand.NewPCG(1, 1)), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	x := s.(*exchange.Exchange)
	if _, ok := x.Replica(0).(*blocked.Blocked); !ok {
		t.Errorf("the chain's replica is %T, want *blocked.Blocked", x.Replica(0))
	}
	if _, ok := x.Replica(1).(*blocked.Blocked); ok {
		t.Errorf("replica 1 is blocked too, want plain Gibbs")
	}
	for _, bad := range []string{"exchange", "gibbs-its", "nosuch"} {
		cfg.ColdReplica = bad
		if _, err := e.New(tg.G, rand.New(rand.NewPCG(1, 1)), &cfg); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ColdReplica %q: error %v, want one naming it", bad, err)
		}
	}
}
