package gibbstest

import (
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/compiled"
)

// Opaque hides a factor's concrete type, so the graph cannot compile it and
// samplers take the generic path for it.
type Opaque struct{ factorgraph.Factor }

// Rebuild returns g rebuilt with every factor f for which wrap(f) holds
// hidden behind Opaque: a graph that mixes compiled and generic factors.
func Rebuild(t *testing.T, g *factorgraph.Graph, wrap func(f int) bool) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	for i := range g.NumVars() {
		b.AddVariable(g.Domain(i))
		if v, ok := g.Observed(i); ok {
			b.Observe(i, v)
		}
	}
	for f := range g.NumFactors() {
		fac := g.Factor(f)
		if wrap(f) {
			fac = Opaque{fac}
		}
		b.AddFactor(fac)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// MixedGraphs are the exactness tests' graphs with every other factor
// generic.
func MixedGraphs(t *testing.T) []Graph {
	gs := Graphs(t)
	for k := range gs {
		gs[k].G = Rebuild(t, gs[k].G, func(f int) bool { return f%2 == 1 })
		if !compiled.GraphOf(gs[k].G).Generic {
			t.Fatalf("graph %d: no generic factor after wrapping", gs[k].Seed)
		}
	}
	return gs
}
