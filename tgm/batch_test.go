package tgm_test

import (
	"math"
	"slices"
	"testing"

	"github.com/pgibbs/pgibbs/tgm"
)

// TestBatchedLogLik compares the batched kernels with LogLik, bit for bit,
// at random points: LogLikSection along x1 and x2 (sections of 0 to 200
// points, across the kernels' block boundary, at random points inside and
// outside the box and at its corners), LogLiks on random index sets, and
// SumLogLik against the loop over LogLik. The data include far outliers,
// where one mixture component underflows against the other.
func TestBatchedLogLik(t *testing.T) {
	r := rng(11, 12)
	for c, cfg := range []tgm.Config{tgm.GibbsConfig(), tgm.MHConfig()} {
		cfg.N = 300
		cfg.Beta = []float64{1e-4, 1}[c]
		m, err := tgm.Generate(cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		y := m.Data()
		y[0], y[1], y[2], y[3] = 40, -40, 1e3, 0
		if m, err = tgm.New(cfg, y); err != nil {
			t.Fatal(err)
		}
		box := cfg.Box
		point := func() float64 {
			switch r.IntN(6) {
			case 0:
				return box.Lo1
			case 1:
				return box.Hi1
			case 2:
				return 20 * (r.Float64() - 0.5) // outside the box too
			}
			return box.Lo1 + (box.Hi1-box.Lo1)*r.Float64()
		}
		for trial := range 400 {
			x := []float64{point(), point()}
			n := []int{0, 1, 2, 21, 63, 64, 65, 200}[trial%8]
			at := make([]float64, n)
			for j := range at {
				at[j] = point()
			}
			dst := make([]float64, n)
			i := r.IntN(m.N())
			for along := range 2 {
				m.LogLikSection(dst, i, x, along, at)
				for j, v := range at {
					x1, x2 := x[0], x[1]
					if along == 0 {
						x1 = v
					} else {
						x2 = v
					}
					if want := m.LogLik(i, x1, x2); math.Float64bits(dst[j]) != math.Float64bits(want) {
						t.Fatalf("y = %v, along x%d at (%v, %v): section %v, LogLik %v", y[i], along+1, x1, x2, dst[j], want)
					}
				}
			}
			idx := make([]int32, n)
			for j := range idx {
				idx[j] = int32(r.IntN(m.N()))
			}
			m.LogLiks(dst, idx, x[0], x[1])
			for j, k := range idx {
				if want := m.LogLik(int(k), x[0], x[1]); math.Float64bits(dst[j]) != math.Float64bits(want) {
					t.Fatalf("LogLiks: datum %d at %v: %v, LogLik %v", k, x, dst[j], want)
				}
			}
			want := 0.0
			for k := range m.N() {
				want += m.LogLik(k, x[0], x[1])
			}
			if got := m.SumLogLik(x[0], x[1]); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("SumLogLik at %v: %v, loop %v", x, got, want)
			}
			tg := m.Target()
			if got := tg.SumLogLik(x); got != want {
				t.Fatalf("Target.SumLogLik at %v: %v, loop %v", x, got, want)
			}
			got := make([]float64, n)
			tg.LogLikBatch(got, idx, x)
			if !slices.Equal(got, dst) {
				t.Fatal("Target.LogLikBatch differs from Model.LogLiks")
			}
		}
	}
}

// TestSectionRange: the datum factors evaluated through the batched
// section stay inside their declared ranges on the box (the check the
// samplers apply to every value).
func TestSectionRange(t *testing.T) {
	r := rng(13, 14)
	cfg := tgm.GibbsConfig()
	cfg.N, cfg.Beta = 200, 0.7
	m, err := tgm.Generate(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Graph()
	if err != nil {
		t.Fatal(err)
	}
	b := cfg.Box
	const n = 41
	dst := make([]float64, n)
	var grid [2][]float64 // even grids over each side, with both ends
	for i, side := range [][2]float64{{b.Lo1, b.Hi1}, {b.Lo2, b.Hi2}} {
		for j := range n {
			grid[i] = append(grid[i], side[0]+(side[1]-side[0])*float64(j)/(n-1))
		}
	}
	for range 50 {
		x := []float64{b.Lo1 + (b.Hi1-b.Lo1)*r.Float64(), b.Lo2 + (b.Hi2-b.Lo2)*r.Float64()}
		for i := range 2 {
			at := grid[i]
			soft, _ := g.Degree(i)
			for k := range soft {
				g.EvalSection(i, k, x, at, dst)
				name, lo, hi := g.Describe(i, k)
				for j, v := range dst {
					if !(v >= 0 && v <= hi-lo) {
						t.Fatalf("%s along x%d at %v: shifted value %v outside [0, %v]", name, i+1, at[j], v, hi-lo)
					}
				}
			}
		}
	}
}
