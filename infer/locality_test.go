package infer

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs"
)

// torusNumbered returns the l×l Potts torus (q = 3, W = 0.4) with site
// (x, y) numbered perm[y·l+x] (nil: row-major), a field on site 5 and
// evidence x_7 = 2, x_11 = 1 (in that numbering).
func torusNumbered(t *testing.T, l int, perm []int, extra factorgraph.Factor) *factorgraph.Graph {
	t.Helper()
	num := func(k int) int32 {
		if perm == nil {
			return int32(k)
		}
		return int32(perm[k])
	}
	var is, js []int32
	for y := range l {
		for x := range l {
			is = append(is, num(y*l+x), num(y*l+x))
			js = append(js, num(y*l+(x+1)%l), num((y+1)%l*l+x))
		}
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(l*l, factorgraph.Discrete(3))
	w := make([]float64, len(is))
	for k := range w {
		w[k] = 0.4
	}
	b.AddPottsPairs(is, js, w)
	b.AddFactor(factorgraph.NewUnary(5, []float64{0.5, 0, -0.5}))
	if extra != nil {
		b.AddFactor(extra)
	}
	b.Observe(7, 2)
	b.Observe(11, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLocality: Options.Locality on a torus numbered at random (above
// LocalityVars) answers from the chains of the graph renumbered in its
// LocalityOrder, bit for bit the answer for that graph mapped back to the
// caller's numbering — evidence and exact flags where the caller put
// them, the anytime hook's marginals too — and keeps the numbering, saying
// why, where renumbering does not pay or cannot be done.
func TestLocality(t *testing.T) {
	// A 40×40 torus, renumbered with the thresholds lowered (a window of
	// 80 places), for 501 sweeps: the anytime hook's first check point
	// is at 500.
	defer func(m, w int) { localityMin, localityWindow = m, w }(localityMin, localityWindow)
	localityMin, localityWindow = 1000, 80
	perm := rand.New(rand.NewPCG(8, 8)).Perm(40 * 40)
	g := torusNumbered(t, 40, perm, nil)
	checks := 0
	run := func(g *factorgraph.Graph, locality bool, sweeps int64, atCheck func([][]float64) error) *Answer {
		t.Helper()
		a, err := Marginals(t.Context(), g, Options{Seed: 5, Locality: locality, Sampler: gibbs.Options{Systematic: true},
			Run: &Run{Spec: &Spec{Name: "gibbs"}, Steps: sweeps * int64(g.NumVars()), Burn: int64(g.NumVars()), AtCheck: atCheck}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := run(g, true, 501, func(m [][]float64) error {
		checks++
		if m[7][2] != 1 || m[11][1] != 1 {
			t.Errorf("check point %d: evidence marginals %v, %v; want point masses at 2 and 1", checks, m[7], m[11])
		}
		return nil
	})
	if a.Order == nil || !strings.HasPrefix(a.OrderNote, "renumbered for locality") {
		t.Fatalf("a torus numbered at random: order %v, note %q; want it renumbered", a.Order != nil, a.OrderNote)
	}
	if checks == 0 {
		t.Error("the anytime hook was never called")
	}
	h, err := factorgraph.Renumber(g, a.Order)
	if err != nil {
		t.Fatal(err)
	}
	b := run(h, false, 501, nil)
	want := factorgraph.OriginalOrder(nil, b.Marginals, a.Order)
	for i := range want {
		for v := range want[i] {
			if math.Float64bits(a.Marginals[i][v]) != math.Float64bits(want[i][v]) {
				t.Fatalf("p(x_%d = %d) = %v, want the renumbered graph's %v", i, v, a.Marginals[i][v], want[i][v])
			}
		}
		_, obs := g.Observed(i)
		if a.Exact[i] != obs {
			t.Fatalf("Exact[%d] = %v, want %v (observed)", i, a.Exact[i], obs)
		}
	}
	if a.Marginals[7][2] != 1 || a.Marginals[11][1] != 1 {
		t.Errorf("evidence marginals %v, %v; want point masses at 2 and 1", a.Marginals[7], a.Marginals[11])
	}
	// The field on site 5 tilts its marginal towards 0 (≈ 0.51 against
	// 0.18 at 2 in the field alone): the marginals did come back to the
	// caller's numbering.
	if m := a.Marginals[5]; !(m[0] > m[2]+0.1) {
		t.Errorf("the marginal of x_5, which has a field favouring 0: %v", m)
	}

	// The kept numberings, with the thresholds as they are.
	localityMin, localityWindow = LocalityVars, 4096
	const l = 182 // 33 124 variables
	perm = rand.New(rand.NewPCG(8, 8)).Perm(l * l)
	for _, c := range []struct {
		name string
		g    *factorgraph.Graph
		note string
	}{
		{"small", torusNumbered(t, 20, rand.New(rand.NewPCG(1, 1)).Perm(400), nil), "below 32768"},
		{"row-major", torusNumbered(t, l, nil, nil), "already within 4096 places"},
		{"a factor of its own", torusNumbered(t, l, perm, factorgraph.NewFunc([]int{3, 4}, 0, 1, func(x []float64) float64 { return x[3] * x[4] / 4 })),
			"(vars [3 4]) is a *factorgraph.Func"},
		{"random", randomPairs(t, 1<<15), "no locality to find"},
	} {
		a := run(c.g, true, 2, nil)
		if a.Order != nil || !strings.Contains(a.OrderNote, c.note) {
			t.Errorf("%s: order %v, note %q; want the numbering kept, saying %q", c.name, a.Order != nil, a.OrderNote, c.note)
		}
	}
}

// randomPairs returns n variables of 3 values and 3n random Potts pairs.
func randomPairs(t *testing.T, n int) *factorgraph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(4, 4))
	is, js, w := make([]int32, 3*n), make([]int32, 3*n), make([]float64, 3*n)
	for k := range is {
		is[k], js[k], w[k] = int32(r.IntN(n)), int32(r.IntN(n)), 0.1
		if is[k] == js[k] {
			js[k] = (js[k] + 1) % int32(n)
		}
	}
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(3))
	b.AddPottsPairs(is, js, w)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLocalityInterrupted: a context cancelled before the ordering gives
// the answer so far (uniform marginals, the evidence's point masses),
// saying it was interrupted, with the context's error, and builds no
// chain (whose checkpoint, of the graph as numbered, a resumed renumbered
// run would restore).
func TestLocalityInterrupted(t *testing.T) {
	const l = 182
	g := torusNumbered(t, l, rand.New(rand.NewPCG(8, 8)).Perm(l*l), nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	a, err := Marginals(ctx, g, Options{Seed: 5, Locality: true, Run: &Run{Spec: &Spec{Name: "gibbs"}, Steps: int64(l * l)}})
	if !errors.Is(err, context.Canceled) || a == nil || a.Order != nil || !strings.Contains(a.OrderNote, "interrupted while ordering") || a.Run != nil || a.Incomplete == "" {
		t.Fatalf("cancelled: answer %v, error %v; want the answer so far, its note saying so, and context.Canceled", a != nil, err)
	}
	if a.Marginals[7][2] != 1 || a.Marginals[11][1] != 1 {
		t.Errorf("evidence marginals %v, %v; want point masses", a.Marginals[7], a.Marginals[11])
	}
}
