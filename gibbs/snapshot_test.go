package gibbs

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// TestSnapshotResume: a run stopped, snapshotted (sampler, observers, RNG)
// and resumed into fresh objects ends exactly where the uninterrupted run
// ends, for every sampler.
func TestSnapshotResume(t *testing.T) {
	discrete := testGraphs(t)[6] // hard factors and evidence
	cont := contGraphs(t)[4]     // mixed continuous and discrete
	for _, name := range Names() {
		g := discrete.g
		init := discrete.init
		if strings.HasPrefix(name, "gibbs-") || strings.HasPrefix(name, "pg") && name != "pgibbs" {
			g, init = cont.g, nil
		}
		build := func() (Sampler, *rand.PCG, []Observer) {
			src := rand.NewPCG(7, 7)
			s, err := New(name, g, rand.New(src), &Options{Init: init})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h, _ := NewHistograms(g, 5)
			tr, _ := NewTrace(g, nil, 3, 16)
			return s, src, []Observer{NewMarginals(g), h, tr}
		}
		const first, total = 700, 2000
		runner := func(obs []Observer) Runner { return Runner{Steps: total, Burn: 50, Observers: obs} }

		// Uninterrupted.
		s1, _, obs1 := build()
		if _, err := runner(obs1).RunFrom(context.Background(), s1, 0); err != nil {
			t.Fatal(err)
		}
		// Interrupted after first updates: snapshot everything.
		s2, src2, obs2 := build()
		r2 := runner(obs2)
		r2.Steps = first
		if _, err := r2.RunFrom(context.Background(), s2, 0); err != nil {
			t.Fatal(err)
		}
		snap, err := s2.(Snapshotter).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		rng, err := src2.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var obsSnaps [][]byte
		for _, o := range obs2 {
			b, err := o.(Snapshotter).Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			obsSnaps = append(obsSnaps, b)
		}
		// Resume into fresh objects built from a different state.
		s3, src3, obs3 := build()
		for range 13 {
			s3.Step() // scramble: the restore must overwrite everything
		}
		if err := src3.UnmarshalBinary(rng); err != nil {
			t.Fatal(err)
		}
		if err := s3.(Snapshotter).Restore(snap); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, o := range obs3 {
			if err := o.(Snapshotter).Restore(obsSnaps[k]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := runner(obs3).RunFrom(context.Background(), s3, first); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s1.State(), s3.State()) {
			t.Errorf("%s: resumed state %v, uninterrupted %v", name, s3.State(), s1.State())
		}
		if s1.Stats() != s3.Stats() {
			t.Errorf("%s: resumed stats %+v, uninterrupted %+v", name, s3.Stats(), s1.Stats())
		}
		if p1, p3 := obs1[0].(*Marginals).Probs(), obs3[0].(*Marginals).Probs(); !reflect.DeepEqual(p1, p3) {
			t.Errorf("%s: resumed marginals differ", name)
		}
		if d1, d3 := obs1[2].(*Trace).Draws(), obs3[2].(*Trace).Draws(); !reflect.DeepEqual(d1, d3) {
			t.Errorf("%s: resumed trace differs", name)
		}
		if m1, m3 := obs1[1].(*Histograms).Pooled(), obs3[1].(*Histograms).Pooled(); !reflect.DeepEqual(m1, m3) {
			t.Errorf("%s: resumed histograms differ", name)
		}
	}
}

func TestRestoreErrors(t *testing.T) {
	tg := testGraphs(t)[6]
	s, err := NewPoissonGibbs(tg.g, rand.New(rand.NewPCG(1, 1)), &Options{Init: tg.init})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := s.Snapshot()
	var st chainState
	_ = json.Unmarshal(good, &st)
	mutate := func(f func(*chainState)) []byte {
		c := st
		c.X = slices.Clone(st.X)
		f(&c)
		b, _ := json.Marshal(c)
		return b
	}
	free := tg.g.Free()[0]
	observed := -1
	for i := range tg.g.NumVars() {
		if _, ok := tg.g.Observed(i); ok {
			observed = i
		}
	}
	cases := map[string][]byte{
		"not JSON":      []byte("{garbage"),
		"other kind":    mutate(func(c *chainState) { c.Kind = "gibbs" }),
		"other version": mutate(func(c *chainState) { c.Version = 99 }),
		"wrong size":    mutate(func(c *chainState) { c.X = c.X[:1] }),
		"outside":       mutate(func(c *chainState) { c.X[free] = 17 }),
	}
	if observed >= 0 {
		cases["evidence"] = mutate(func(c *chainState) { c.X[observed] = 1 - c.X[observed] })
	}
	for name, data := range cases {
		if err := s.Restore(data); err == nil {
			t.Errorf("%s: Restore accepted it", name)
		}
	}
	m := NewMarginals(tg.g)
	if err := m.Restore(good); err == nil {
		t.Error("marginals restored from a sampler snapshot")
	}
	other := NewMarginals(smallPotts(t))
	b, _ := other.Snapshot()
	if err := m.Restore(b); err == nil {
		t.Error("marginals restored from another model's snapshot")
	}
	var _ factorgraph.Model = tg.g
}
