package blocks

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// grid returns the w×h grid of binary variables with Potts couplings of
// weight c between neighbours, and an equality constraint between
// variables 0 and 1 if hard.
func grid(t *testing.T, w, h int, c float64, hard bool) *factorgraph.Graph {
	t.Helper()
	b := factorgraph.NewBuilder()
	b.AddVariables(w*h, factorgraph.Discrete(2))
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				b.AddFactor(factorgraph.NewPotts(i, i+1, c))
			}
			if y+1 < h {
				b.AddFactor(factorgraph.NewPotts(i, i+w, c))
			}
		}
	}
	if hard {
		b.AddFactor(factorgraph.NewProbTable([]int{0, 1}, []int{2, 2}, []float64{1, 0, 0, 1}))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBuildCovers: Build and Forests cover every free variable, pass Check,
// keep a frozen link in one block, and respect MaxVars.
func TestBuildCovers(t *testing.T) {
	for _, hard := range []bool{false, true} {
		g := grid(t, 6, 5, 1.5, hard)
		for _, cfg := range []Config{{}, {MaxVars: 3}, {Forests: true}, {Forests: true, MaxWidth: 1}} {
			sets, err := Build(context.Background(), g, cfg)
			if err != nil {
				t.Fatalf("hard %v, %+v: %v", hard, cfg, err)
			}
			if err := Check(g, sets); err != nil {
				t.Errorf("hard %v, %+v: %v", hard, cfg, err)
			}
			if err := CheckCover(context.Background(), g, sets); err != nil {
				t.Errorf("hard %v, %+v: frozen: %v", hard, cfg, err)
			}
			if hard && !slices.ContainsFunc(sets, func(b []int) bool { return slices.Contains(b, 0) && slices.Contains(b, 1) }) {
				t.Errorf("%+v: no block holds the equality's variables 0 and 1: %v", cfg, sets)
			}
		}
	}
}

// TestFrozenSite: single sites freeze the equality's variables and not a
// soft grid's; CheckCover refuses the singletons and Check a bad cover.
func TestFrozenSite(t *testing.T) {
	if fl, err := FrozenSite(context.Background(), grid(t, 3, 3, 1, false)); fl != nil || err != nil {
		t.Errorf("soft grid: %+v frozen (%v)", fl, err)
	}
	g := grid(t, 3, 3, 1, true)
	fl, err := FrozenSite(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if fl == nil || (fl.Var != 0 && fl.Var != 1) || !slices.Equal(fl.Scope, []int{0, 1}) {
		t.Fatalf("equality: %+v, want variable 0 or 1 of scope [0 1]", fl)
	}
	var single [][]int
	for i := range 9 {
		single = append(single, []int{i})
	}
	if err := CheckCover(context.Background(), g, single); err == nil || !strings.Contains(err.Error(), "put the factor's variables [0 1] in one block") {
		t.Errorf("singletons: %v", err)
	}
	if err := Check(g, single[1:]); err == nil || !strings.Contains(err.Error(), "free variable 0 is in no block") {
		t.Errorf("uncovered: %v", err)
	}
	if hard, _, err := Stickiness(context.Background(), g, 1); hard <= 0 || err != nil {
		t.Errorf("Stickiness: hard share %v, want > 0", hard)
	}
}
