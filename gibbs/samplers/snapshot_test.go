package samplers

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// TestSnapshotResume: a chain stopped, checkpointed (sampler, observers,
// RNG) and resumed into fresh, scrambled objects ends exactly where the
// uninterrupted run ends, for every sampler, run by single-site steps and
// by sweeps (Sweeper).
func TestSnapshotResume(t *testing.T) {
	discrete := gibbstest.Graphs(t)[6] // hard factors and evidence
	cont := gibbstest.ContGraphs(t)[4] // mixed continuous and discrete
	dir := t.TempDir()
	for _, name := range Names() {
		g := discrete.G
		init := discrete.Init
		if strings.HasPrefix(name, "gibbs-") || strings.HasPrefix(name, "pg") && name != "pgibbs" {
			g, init = cont.G, nil
		}
		if gibbstest.ClusterName(name) { // ferromagnetic Potts pairs, unary hard zeros, evidence
			tg := gibbstest.RandomClusterGraph(t, 10, true, true, true)
			g, init = tg.G, tg.Init
		}
		for _, sweeps := range []bool{false, true} {
			type run struct {
				c  *chain.Chain
				s  gibbs.Sampler
				mg *chain.Marginals
				h  *chain.Histograms
				tr *chain.Trace
			}
			build := func() run {
				src := rand.NewPCG(7, 7)
				s, err := New(name, g, rand.New(src), &gibbs.Options{Init: init})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				lo, hi := factorgraph.Intervals(g)
				h, err := chain.NewHistograms(lo, hi, 5)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := chain.NewTrace(g.Free(), 3, 16)
				if err != nil {
					t.Fatal(err)
				}
				mg := chain.NewMarginals(factorgraph.Sizes(g))
				var k chain.Kernel = s
				if sweeps {
					k = gibbs.Sweeper{Sampler: s}
				}
				c := &chain.Chain{Kernel: k, Sources: []*rand.PCG{src}, Observers: []chain.Observer{mg, h, tr}, Burn: 50}
				return run{c, s, mg, h, tr}
			}
			first, total := int64(700), int64(2000)
			if sweeps {
				first, total = 140, 400
			}
			ctx := context.Background()

			// Uninterrupted.
			r1 := build()
			if err := r1.c.Advance(ctx, total); err != nil {
				t.Fatal(err)
			}
			// Interrupted after first steps: checkpoint everything.
			r2 := build()
			if err := r2.c.Advance(ctx, first); err != nil {
				t.Fatal(err)
			}
			st, err := r2.c.Save()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			path := filepath.Join(dir, name+".ckpt")
			if err := chain.WriteCheckpoint(path, &chain.Checkpoint{Chains: []chain.ChainState{st}}); err != nil {
				t.Fatal(err)
			}
			// Resume into fresh objects built from a different state.
			r3 := build()
			if err := r3.c.Advance(ctx, 13); err != nil { // scramble: the restore must overwrite everything
				t.Fatal(err)
			}
			ck, err := chain.ReadCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := ck.Restore([]*chain.Chain{r3.c}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r3.c.Done() != first {
				t.Errorf("%s: restored chain at step %d, want %d", name, r3.c.Done(), first)
			}
			if err := r3.c.Advance(ctx, total); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s (sweeps %v)", name, sweeps)
			if !slices.Equal(r1.s.State(), r3.s.State()) {
				t.Errorf("%s: resumed state %v, uninterrupted %v", what, r3.s.State(), r1.s.State())
			}
			if r1.s.Stats() != r3.s.Stats() {
				t.Errorf("%s: resumed stats %+v, uninterrupted %+v", what, r3.s.Stats(), r1.s.Stats())
			}
			if p1, p3 := r1.mg.Probs(), r3.mg.Probs(); !reflect.DeepEqual(p1, p3) {
				t.Errorf("%s: resumed marginals differ", what)
			}
			if d1, d3 := r1.tr.Draws(), r3.tr.Draws(); !reflect.DeepEqual(d1, d3) || len(d1) == 0 || len(d1[0]) == 0 {
				t.Errorf("%s: resumed trace differs", what)
			}
			if m1, m3 := r1.h.Pooled(), r3.h.Pooled(); !reflect.DeepEqual(m1, m3) {
				t.Errorf("%s: resumed histograms differ", what)
			}
		}
	}
}

func TestRestoreErrors(t *testing.T) {
	tg := gibbstest.Graphs(t)[6]
	s, err := site.NewPoissonGibbs(tg.G, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Init: tg.Init})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := s.Snapshot()
	var st core.ChainState
	_ = json.Unmarshal(good, &st)
	mutate := func(f func(*core.ChainState)) []byte {
		c := st
		c.X = slices.Clone(st.X)
		f(&c)
		b, _ := json.Marshal(c)
		return b
	}
	free := tg.G.Free()[0]
	observed := -1
	for i := range tg.G.NumVars() {
		if _, ok := tg.G.Observed(i); ok {
			observed = i
		}
	}
	cases := map[string][]byte{
		"not JSON":      []byte("{garbage"),
		"other kind":    mutate(func(c *core.ChainState) { c.Kind = "gibbs" }),
		"other version": mutate(func(c *core.ChainState) { c.Version = 99 }),
		"wrong size":    mutate(func(c *core.ChainState) { c.X = c.X[:1] }),
		"outside":       mutate(func(c *core.ChainState) { c.X[free] = 17 }),
	}
	if observed >= 0 {
		cases["evidence"] = mutate(func(c *core.ChainState) { c.X[observed] = 1 - c.X[observed] })
	}
	for name, data := range cases {
		if err := s.Restore(data); err == nil {
			t.Errorf("%s: Restore accepted it", name)
		}
	}
	// A Sweeper restores what its sampler snapshot, and refuses the same.
	sw := gibbs.Sweeper{Sampler: s}
	if err := sw.Restore(cases["other kind"]); err == nil {
		t.Error("Sweeper: Restore accepted a snapshot of another kind")
	}
	if err := sw.Restore(good); err != nil {
		t.Errorf("Sweeper: %v", err)
	}
	if b, err := sw.Snapshot(); err != nil || string(b) != string(good) {
		t.Errorf("Sweeper snapshot %s, %v; its sampler's %s", b, err, good)
	}
	if _, err := (gibbs.Sweeper{Sampler: gibbstest.Outsider{Sampler: s}}).Snapshot(); err == nil {
		t.Error("Sweeper snapshot of a sampler that cannot be snapshot")
	}
	var _ factorgraph.Model = tg.G
}
