package diag

import (
	"math"
	"testing"
)

// The expected values below were computed once, during development, by an
// independent and deliberately slow implementation of the definitions of
// Vehtari et al. (2021) as the posterior R package states them (direct O(n²)
// autocovariances, 1-based indexing, Φ⁻¹ from Python's
// statistics.NormalDist); that script is not part of this repository. The
// data are built here with the same IEEE operations it used (float64(a*b)
// forbids fused multiply-adds), so ties and quantile comparisons come out
// identically.

func stanrefTies() [][]float64 {
	out := make([][]float64, 4)
	for c := range out {
		prev := 0.0
		for i := range 21 {
			e := float64((37*i+11*c*c+5*c)%53-26) / 16
			prev = float64(0.8*prev) + e
			v := math.Floor(prev*4) / 4
			if c == 3 {
				v += 0.5
			}
			out[c] = append(out[c], v)
		}
	}
	return out
}

func stanrefAR() [][]float64 {
	out := make([][]float64, 3)
	for c := range out {
		prev := 0.0
		for i := range 40 {
			e := float64((29*i+7*c+3)%31-15) / 16
			prev = float64(0.7*prev) + e
			out[c] = append(out[c], prev)
		}
	}
	return out
}

func stanrefSmall() [][]float64 {
	return [][]float64{{1, 2, 3, 4, 5, 4, 3.5}, {2, 3, 5, 6, 5, 3, 2}}
}

func TestStanReference(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chains [][]float64
		want   Summary
	}{
		{"ties", stanrefTies(), Summary{ESS: 19.644121760023598, BulkESS: 19.865700642167553, TailESS: 71.14709208881479,
			RHat: 1.201970072341036, SplitRHat: 1.202717248509438, MCSE: 0.22414894441398941}},
		{"ar", stanrefAR(), Summary{ESS: 29.69298120198695, BulkESS: 30.070443758716436, TailESS: 76.22939400975157,
			RHat: 1.0093514536784989, SplitRHat: 0.9999816945774134, MCSE: 0.19593918231294294}},
		// Split halves of 3 draws: Geyer's loop never runs and τ̂ = 2. The
		// only draw above the 95% quantile is chain 1's middle draw, which
		// splitting leaves out, so that indicator is constant: TailESS NaN.
		{"small", stanrefSmall(), Summary{ESS: 6.0, BulkESS: 6.0, TailESS: math.NaN(),
			RHat: 1.1183728223054086, SplitRHat: 1.0866189491909024, MCSE: 0.5908722676095374}},
	} {
		got, err := Summarize(tc.chains)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, f := range []struct {
			stat      string
			got, want float64
			single    func([][]float64) (float64, error)
		}{
			{"ESS", got.ESS, tc.want.ESS, ESS},
			{"BulkESS", got.BulkESS, tc.want.BulkESS, BulkESS},
			{"TailESS", got.TailESS, tc.want.TailESS, TailESS},
			{"RHat", got.RHat, tc.want.RHat, RHat},
			{"SplitRHat", got.SplitRHat, tc.want.SplitRHat, SplitRHat},
			{"MCSE", got.MCSE, tc.want.MCSE, MCSE},
		} {
			if !near(f.got, f.want, 1e-10) {
				t.Errorf("%s: Summarize %s = %.17g, Stan reference %.17g", tc.name, f.stat, f.got, f.want)
			}
			v, err := f.single(tc.chains)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.name, f.stat, err)
			}
			if v != f.got && !(math.IsNaN(v) && math.IsNaN(f.got)) {
				t.Errorf("%s: %s = %.17g, Summarize gives %.17g", tc.name, f.stat, v, f.got)
			}
		}
	}
}

// near reports whether got is within a relative tolerance tol of want, or
// both are NaN.
func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}
