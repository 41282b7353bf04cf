package targets_test

import (
	"math"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
)

// TestBatchedLogLik: LogLikBatch and SumLogLik return LogLik's values and
// the loop's sum bit for bit, at random θ (far from the mode too, where
// logistic terms saturate), on index sets across the block boundary.
func TestBatchedLogLik(t *testing.T) {
	r := rng(31, 32)
	rlr, err := targets.GenerateRobustLinear(333, 4, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	logit, _, err := targets.GenerateLogistic(333, 4, r)
	if err != nil {
		t.Fatal(err)
	}
	type batched interface {
		mh.Target
		mh.BatchLogLiker
		mh.SumLogLiker
	}
	for name, m := range map[string]batched{"rlr": rlr, "logistic": logit} {
		for trial := range 50 {
			theta := make([]float64, m.Dim())
			scale := []float64{0.1, 1, 30}[trial%3]
			for j := range theta {
				theta[j] = scale * r.NormFloat64()
			}
			want := 0.0
			for i := range m.N() {
				want += m.LogLik(i, theta)
			}
			if got := m.SumLogLik(theta); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: SumLogLik %v, loop %v", name, got, want)
			}
			n := []int{0, 1, 63, 64, 65, 300}[trial%6]
			idx := make([]int32, n)
			for j := range idx {
				idx[j] = int32(r.IntN(m.N()))
			}
			dst := make([]float64, n)
			m.LogLikBatch(dst, idx, theta)
			for j, i := range idx {
				if w := m.LogLik(int(i), theta); math.Float64bits(dst[j]) != math.Float64bits(w) {
					t.Fatalf("%s: LogLikBatch term %d: %v, LogLik %v", name, i, dst[j], w)
				}
			}
		}
	}
}
