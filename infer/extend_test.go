package infer

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/potts"
)

// weakDense returns K_{m,m} of binary Potts pairs of weight ±w (signs at
// random: a frustrated model) with a random field on every variable: a
// dense model whose single-site chain mixes in a sweep or two.
func weakDense(t *testing.T, m int, w float64) *factorgraph.Graph {
	t.Helper()
	p, err := potts.Bipartite(m, 2, w)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	for k := range p.W {
		if r.IntN(2) == 0 {
			p.W[k] = -w
		}
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(p.N, factorgraph.Discrete(2))
	b.AddPottsPairs(p.I, p.J, p.W)
	fields := make([]float64, 2*p.N)
	scopes := make([]int32, p.N)
	for i := range p.N {
		scopes[i] = int32(i)
		fields[2*i+1] = r.NormFloat64()
	}
	b.AddTables(scopes, []int{2}, fields)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestExtendPilots: on a dense, weakly coupled model whose pilot budget
// cuts every pilot short (single sites: 60 sweeps, an ESS under
// ResolvedESS though the chain mixes in a sweep or two), the pilots are
// extended to maxPilotSweeps and single sites, resolved, are ranked and
// chosen; the same seed extends and chooses alike. Without the extension
// (the broken variant) nothing resolves and the choice is a rule's.
func TestExtendPilots(t *testing.T) {
	g := weakDense(t, 60, 0.01)
	if !Frustrated(g) {
		t.Fatal("the test model should be frustrated")
	}
	site := stepCost(g, nil) * float64(len(g.Free())) // a site sweep, by the cost model
	budget := 60 * site * float64(len(candidates(g, true))-1)
	choose := func() Choice {
		ch, err := Choose(context.Background(), g, ChooseOptions{Budget: budget, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	ch := choose()
	var p Pilot
	for _, q := range ch.Pilots {
		if q.Spec.Name == "site" {
			p = q
		}
	}
	if p.Sweeps != maxPilotSweeps || p.ESS < ResolvedESS {
		t.Errorf("site's pilot: %v sweeps, ESS %.3g; want %d sweeps (extended), ESS ≥ %d", p.Sweeps, p.ESS, maxPilotSweeps, ResolvedESS)
	}
	if ch.Spec.Name != "site" || strings.Contains(ch.Reason, "by rule") {
		t.Errorf("chose %s: %s; want single sites, ranked", ch.Spec, ch.Reason)
	}
	again := choose()
	for k := range ch.Pilots {
		if a, b := ch.Pilots[k], again.Pilots[k]; a.Sweeps != b.Sweeps || a.ESS != b.ESS {
			t.Errorf("pilot %s: %v sweeps ESS %v, then %v sweeps ESS %v", a.Spec, a.Sweeps, a.ESS, b.Sweeps, b.ESS)
		}
	}
	noExtension = true
	defer func() { noExtension = false }()
	broken := choose()
	if !strings.Contains(broken.Reason, "by rule") {
		t.Errorf("without the extension: chose %s: %s; want a rule's choice", broken.Spec, broken.Reason)
	}
}
