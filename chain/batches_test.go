package chain

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBatchErrors: batch means of a two-state chain that flips with
// probability a a step give the standard error of its mean, √(p(1−p)τ/N)
// with τ = (1−a)/a — a = ½ is independent draws —, keeping 32 to 64
// batches however long the run; a snapshot restored into a fresh
// Marginals continues the same record.
func TestBatchErrors(t *testing.T) {
	for _, c := range []struct {
		a float64
		n int64
	}{{0.5, 200000}, {0.01, 400000}, {0.5, 1000}} {
		r := rand.New(rand.NewPCG(uint64(c.n), 9))
		mg := NewMarginals([]int{2, 3})
		mg.TrackBatches([]int{0, 1}, 7)
		var half *Marginals
		x := []float64{0, 0}
		for step := range c.n {
			if r.Float64() < c.a {
				x[0] = 1 - x[0]
			}
			x[1] = float64(r.IntN(3))
			mg.Observe(step+1, Any, x)
			if half != nil {
				half.Observe(step+1, Any, x)
			}
			if step == c.n/2 {
				snap, err := mg.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				half = NewMarginals([]int{2, 3})
				half.TrackBatches([]int{0, 1}, 7)
				if err := half.Restore(snap); err != nil {
					t.Fatal(err)
				}
			}
		}
		se, nb := mg.BatchErrors()
		if nb < 32 || nb > 64 {
			t.Errorf("a = %g, %d steps: %d batches, want 32 to 64", c.a, c.n, nb)
		}
		tau := (1 - c.a) / c.a
		want0 := math.Sqrt(0.25 * tau / float64(c.n))
		want1 := math.Sqrt(2.0 / 9 / float64(c.n))
		if c.n >= 100000 {
			for _, e := range []struct{ got, want float64 }{{se[0][1], want0}, {se[0][0], want0}, {se[1][2], want1}} {
				if math.Abs(e.got/e.want-1) > 0.35 {
					t.Errorf("a = %g: error %.3g, want %.3g within 35%%", c.a, e.got, e.want)
				}
			}
		}
		hse, hnb := half.BatchErrors()
		if hnb != nb || !slices.EqualFunc(hse, se, slices.Equal[[]float64]) {
			t.Errorf("a = %g: restored record %v (%d batches), uninterrupted %v (%d)", c.a, hse, hnb, se, nb)
		}
	}
}
