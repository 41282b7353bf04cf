package diag

import (
	"math"
	"testing"
)

func TestPoolEstimates(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		in   []Estimate
		want Estimate
	}{
		{[]Estimate{{Mean: 1.5, Err: 0.3, Tau: 2, Plateau: false}}, Estimate{Mean: 1.5, Err: 0.3, Tau: 2}},
		{[]Estimate{{Mean: 1, Err: 0.3, Tau: 2, Plateau: true}, {Mean: 2, Err: 0.4, Tau: 4, Plateau: true}},
			Estimate{Mean: 1.5, Err: 0.25, Tau: 3, Plateau: true}},
		{[]Estimate{{Mean: 1, Err: 1, Tau: nan, Plateau: true}, {Mean: 1, Err: 1, Tau: 5}, {Mean: 4, Err: 1, Tau: 7, Plateau: true}, {Mean: 2, Err: 1, Tau: 3, Plateau: true}},
			Estimate{Mean: 2, Err: 0.5, Tau: 5}},
	} {
		got := PoolEstimates(tc.in)
		if math.Abs(got.Mean-tc.want.Mean) > 1e-15 || math.Abs(got.Err-tc.want.Err) > 1e-15 || got.Tau != tc.want.Tau || got.Plateau != tc.want.Plateau {
			t.Errorf("pool %+v = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
