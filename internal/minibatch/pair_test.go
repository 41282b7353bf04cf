package minibatch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// pairCases are means of PoissonPair's tests: joint tables of a few cells
// to hundreds, one count of mean 0, and pairs drawn apart.
var pairCases = [][2]float64{{5.22, 1.026}, {1.165, 0.229}, {0.232, 0.046}, {0.014, 0.003}, {3, 0}, {0, 2}, {20, 8}, {200, 1}}

// TestPoissonPair checks each count of PoissonPair against its Poisson law
// (chi-square) and their independence.
func TestPoissonPair(t *testing.T) {
	for i, m := range pairCases {
		if misfit := pairMisfit(NewPoissonPair(m[0], m[1]), m, uint64(i)); misfit != "" {
			t.Errorf("means %g, %g: %s", m[0], m[1], misfit)
		}
	}
	if p := NewPoissonPair(5.22, 1.026); p.tab == nil {
		t.Error("no joint table for means 5.22 and 1.026")
	}
	if p := NewPoissonPair(200, 1); p.tab != nil {
		t.Error("a joint table beyond PairMaxCells")
	}
	// Means so small that the tails underflow: all draws inside, (0, 0)
	// but once in about 10³⁰⁰.
	tiny := NewPoissonPair(1e-300, 1e-300)
	if tiny.tab == nil || tiny.tab.t1 != 0 || tiny.tab.t2 != 0 {
		t.Fatalf("means 1e-300: want a table whose tails underflow, got %+v", tiny.tab)
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 1000 {
		if a, b := tiny.Rand(r); a != 0 || b != 0 {
			t.Fatalf("means 1e-300: drew (%d, %d)", a, b)
		}
	}
}

// pairMisfit draws chiN pairs from p (means m) and says how they fail to
// be independent Poisson counts: a chi-square test of each count, and of
// the second given the first at most its mean and given it above; "" if
// they pass.
func pairMisfit(p PoissonPair, m [2]float64, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 77))
	a, b := make([]int, chiN), make([]int, chiN)
	var lo, hi []int
	for k := range chiN {
		a[k], b[k] = p.Rand(r)
		if float64(a[k]) <= m[0] {
			lo = append(lo, b[k])
		} else {
			hi = append(hi, b[k])
		}
	}
	checks := []struct {
		what string
		mean float64
		xs   []int
	}{{"the first count", m[0], a}, {"the second count", m[1], b},
		{"the second count given the first ≤ its mean", m[1], lo}, {"the second count given the first > its mean", m[1], hi}}
	for _, c := range checks {
		if len(c.xs) < 1000 {
			continue
		}
		k := 0
		next := func() int { k++; return c.xs[k-1] }
		if pv, cells := poissonChiSquare(c.mean, len(c.xs), next); pv < 1e-4 {
			return fmt.Sprintf("%s: chi-square p = %.3g over %d cells: not Poisson(%g)", c.what, pv, cells, c.mean)
		}
	}
	return ""
}

// TestPoissonPairBroken shows the same check rejects a joint table whose
// cells are read with the counts swapped, one whose columns take their
// alias where they keep their own cell, and one built for a second mean
// 3% off.
func TestPoissonPairBroken(t *testing.T) {
	m := [2]float64{5.22, 1.026}
	swapped := NewPoissonPair(m[0], m[1])
	for k := range swapped.cols {
		for o, c := range swapped.cols[k].cell {
			if c != outsideCell {
				swapped.cols[k].cell[o] = c<<8 | c>>8
			}
		}
	}
	flipped := NewPoissonPair(m[0], m[1])
	for k := range flipped.cols {
		c := &flipped.cols[k].cell
		c[0], c[1] = c[1], c[0]
	}
	off := NewPoissonPair(m[0], m[1]*0.97)
	for name, p := range map[string]PoissonPair{"swapped": swapped, "alias flipped": flipped, "mean2*0.97": off} {
		if pairMisfit(p, m, 5) == "" {
			t.Errorf("%s: a broken pair generator passed", name)
		}
	}
}

// TestPoissonPairOutside draws mostly outside the joint table of a small
// rectangle (k1 < 4, k2 < 2 holds about a sixth of the mass; the rest is
// drawn from the tails, PoissonPair.outside): the law must be the same.
// Its broken variant, the share of k1 ≥ n1 outside taken as a half, fails.
func TestPoissonPairOutside(t *testing.T) {
	m := [2]float64{5.22, 1.026}
	p := PairOf(NewPoissonTable(m[0]), NewPoissonTable(m[1]))
	p.cols, p.tab = newPairTable(m[0], m[1], 4, 2)
	if misfit := pairMisfit(p, m, 9); misfit != "" {
		t.Error(misfit)
	}
	bad := PairOf(NewPoissonTable(m[0]), NewPoissonTable(m[1]))
	bad.cols, bad.tab = newPairTable(m[0], m[1], 4, 2)
	bad.tab.outsideShare = 0.5
	if pairMisfit(bad, m, 9) == "" {
		t.Error("draws outside the table with a wrong share of k1 ≥ n1 passed")
	}
}

func BenchmarkPoissonPair(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range [][2]float64{{5.22, 1.026}, {0.232, 0.046}} {
		b.Run(fmt.Sprintf("means=%g,%g/impl=pair", m[0], m[1]), func(b *testing.B) {
			p := NewPoissonPair(m[0], m[1])
			s := 0
			b.ReportAllocs()
			for b.Loop() {
				x, y := p.Rand(r)
				s += x + y
			}
			_ = s
		})
		b.Run(fmt.Sprintf("means=%g,%g/impl=two-tables", m[0], m[1]), func(b *testing.B) {
			g1, g2 := NewPoissonTable(m[0]), NewPoissonTable(m[1])
			s := 0
			b.ReportAllocs()
			for b.Loop() {
				s += g1.Rand(r) + g2.Rand(r)
			}
			_ = s
		})
	}
}
