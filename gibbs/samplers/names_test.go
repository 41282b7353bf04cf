package samplers

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/continuous"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
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

// factoryOf returns the factory of sampler name, failing t if there is none.
func factoryOf(t testing.TB, name string) gibbs.Factory {
	t.Helper()
	f, err := FactoryOf(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
