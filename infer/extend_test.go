package infer

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/potts"
)

// weakDense returns K_{m,m} of binary Potts pairs of weight ±w (signs at
// random: a frustrated model) with a random field on every variable: a
// dense model whose single-site chain mixes in a sweep or two.
func weakDense(t *testing.T, m int, w float64) *factorgraph.Graph {
	return denseModel(t, m, w, true)
}

// denseModel is weakDense, its couplings of random signs if mixed, else
// all ferromagnetic (a model Frustrated does not flag).
func denseModel(t *testing.T, m int, w float64, mixed bool) *factorgraph.Graph {
	t.Helper()
	p, err := potts.Bipartite(m, 2, w)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	for k := range p.W {
		if r.IntN(2) == 0 && mixed {
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

// TestExtendPilotsCut: where the clock cuts every extension, each pilot
// keeps its first measurement and its chain, no longer the pilot's end,
// is let go. On a ferromagnetic dense model whose pilots all stop short of
// resolving (Swendsen–Wang chosen by its effective samples a second, no
// block affordable), the run continues the chosen pilot's chain without
// extensions, and not once its extension was cut. The answer still comes
// with every extension cut.
func TestExtendPilotsCut(t *testing.T) {
	g := denseModel(t, 60, 0.01, false)
	site := stepCost(g, nil) * float64(len(g.Free()))
	opt := ChooseOptions{Budget: 20 * site * float64(len(candidates(g, Frustrated(g)))-1), Seed: 3}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour) // timed: extensions get shares
	defer cancel()
	noExtension = true
	plain, err := Choose(ctx, g, opt)
	noExtension = false
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func(time.Duration, int) time.Duration) { extensionShare = f }(extensionShare)
	cuts := 0
	extensionShare = func(time.Duration, int) time.Duration { cuts++; return time.Nanosecond }
	cut, err := Choose(ctx, g, opt)
	if err != nil {
		t.Fatal(err)
	}
	if cuts == 0 {
		for _, p := range plain.Pilots {
			t.Logf("%s sweeps %v ESS %v err %v", p.Spec, p.Sweeps, p.ESS, p.err)
		}
		t.Fatalf("no pilot was extended: the test does not reach the cut (chose %s: %s)", plain.Spec, plain.Reason)
	}
	for k, p := range cut.Pilots {
		q := plain.Pilots[k]
		if p.Sweeps != q.Sweeps || p.ESS != q.ESS && !(math.IsNaN(p.ESS) && math.IsNaN(q.ESS)) {
			t.Errorf("pilot %s: %v sweeps ESS %v; want its first measurement, %v sweeps ESS %v", p.Spec, p.Sweeps, p.ESS, q.Sweeps, q.ESS)
		}
	}
	if cut.Spec != plain.Spec || cut.Reason != plain.Reason {
		t.Fatalf("chose %s (%s), then %s (%s); want the same", plain.Spec, plain.Reason, cut.Spec, cut.Reason)
	}
	if plain.adopt == nil || cut.adopt != nil {
		t.Errorf("the chosen pilot's chain kept for the run: %v without extensions, %v once cut; want it, then not", plain.adopt != nil, cut.adopt != nil)
	}
	a, err := Marginals(ctx, g, Options{Time: 300 * time.Millisecond, Seed: 3})
	if err != nil || len(a.Marginals) != g.NumVars() {
		t.Fatalf("answer after cut extensions: %v", err)
	}
}
