package tgm

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGraph(t *testing.T) {
	cfg := GibbsConfig()
	cfg.N = 2000
	m, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVars() != 2 || g.NumFactors() != cfg.N+2 {
		t.Fatalf("%d variables, %d factors; want 2, %d", g.NumVars(), g.NumFactors(), cfg.N+2)
	}
	if math.Abs(g.L()-m.L()) > 1e-9*m.L() {
		t.Errorf("graph L = %v, model L = %v", g.L(), m.L())
	}
	// The sum of the factors is the log posterior up to a constant.
	r := rand.New(rand.NewPCG(2, 2))
	var ref float64
	for k := range 50 {
		x := []float64{-6 + 12*r.Float64(), -6 + 12*r.Float64()}
		s := 0.0
		for f := range g.NumFactors() {
			s += g.Factor(f).Value(x)
		}
		want := m.LogPrior(x[0], x[1])
		for i := range m.N() {
			want += m.LogLik(i, x[0], x[1])
		}
		if k == 0 {
			ref = s - want
		}
		if math.Abs(s-want-ref) > 1e-9 {
			t.Fatalf("at %v: factors sum to %v, log posterior %v (offset %v)", x, s, want, ref)
		}
	}
}
