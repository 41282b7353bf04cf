package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPoissonTableChiSquare checks the guide-table generator against the
// pmf, as TestPoissonChiSquare does the others.
func TestPoissonTableChiSquare(t *testing.T) {
	for i, mu := range []float64{1e-3, 0.1, 1, 5, 9.9, 24.3, 29.3, 100, TableMaxMean} {
		t.Run(fmt.Sprintf("mean=%g", mu), func(t *testing.T) {
			g := NewPoissonTable(mu)
			if g.tab == nil {
				t.Fatal("no table built")
			}
			r := rand.New(rand.NewPCG(uint64(i)+300, 1))
			pv, cells := poissonChiSquare(mu, chiN, func() int { return g.Rand(r) })
			if pv < 1e-4 {
				t.Errorf("chi-square p = %.3g over %d cells: draws do not follow Poisson(%g)", pv, cells, mu)
			}
		})
	}
	if g := NewPoissonTable(2 * TableMaxMean); g.tab != nil {
		t.Error("a table built above TableMaxMean")
	}
	if g := NewPoissonTable(0); g.Rand(rand.New(rand.NewPCG(1, 1))) != 0 {
		t.Error("Poisson(0) drew a positive count")
	}
}

// TestPoissonTableBroken shows the same check rejects a table whose guide
// skips a cell (off by one) and a table built for a mean 2% off.
func TestPoissonTableBroken(t *testing.T) {
	for i, mu := range []float64{1, 24.3, 100} {
		skip := NewPoissonTable(mu)
		for g := range skip.tab.guide {
			if int(skip.tab.guide[g]) < len(skip.tab.cdf)-1 {
				skip.tab.guide[g]++
			}
		}
		off := NewPoissonTable(mu * 0.98)
		for name, g := range map[string]PoissonGen{"guide+1": skip, "mean*0.98": off} {
			r := rand.New(rand.NewPCG(uint64(i)+400, 2))
			if pv, cells := poissonChiSquare(mu, chiN, func() int { return g.Rand(r) }); pv >= 1e-4 {
				t.Errorf("mean %g, %s: a broken table passed: p = %.3g over %d cells", mu, name, pv, cells)
			}
		}
	}
}

// TestPoissonTableTail draws from the tail search directly: a table cut
// short must still give the right distribution beyond it.
func TestPoissonTableTail(t *testing.T) {
	g := NewPoissonTable(6)
	g.tab.cdf = g.tab.cdf[:4]            // P(K > 3) ≈ 0.85: most draws go through the tail
	g.tab.pLast = math.Exp(-6) * 216 / 6 // p_3 = e^{−6}·6³/3!
	for k := range g.tab.guide {
		g.tab.guide[k] = min(g.tab.guide[k], 3)
	}
	r := rand.New(rand.NewPCG(9, 9))
	if pv, cells := poissonChiSquare(6, chiN, func() int { return g.Rand(r) }); pv < 1e-4 {
		t.Errorf("tail search: chi-square p = %.3g over %d cells", pv, cells)
	}
}

func BenchmarkPoissonTable(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, mu := range []float64{0.3, 5, 24, 100} {
		b.Run(fmt.Sprintf("mean=%g/impl=table", mu), func(b *testing.B) {
			g := NewPoissonTable(mu)
			s := 0
			b.ReportAllocs()
			for b.Loop() {
				s += g.Rand(r)
			}
			_ = s
		})
	}
}
