package blocked

import "testing"

// TestSummarise: the summary of blocks counts them, averages and bounds
// their sizes, widths and tables, and counts the minibatched boundaries.
func TestSummarise(t *testing.T) {
	for _, c := range []struct {
		bs   []Info
		want Summary
	}{
		{nil, Summary{}},
		{[]Info{{Vars: []int{1, 2}, Width: 1, MaxTable: 4}, {Vars: []int{3}, MaxTable: 2, Boundary: 2}},
			Summary{Count: 2, MeanVars: 1.5, MaxVars: 2, MaxWidth: 1, MaxTable: 4, Minibatched: 1}},
		{[]Info{{Vars: []int{0, 1, 2, 3}, Width: 3, MaxTable: 16, Boundary: 1}},
			Summary{Count: 1, MeanVars: 4, MaxVars: 4, MaxWidth: 3, MaxTable: 16, Minibatched: 1}},
	} {
		if got := Summarise(c.bs); got != c.want {
			t.Errorf("Summarise(%v) = %+v, want %+v", c.bs, got, c.want)
		}
	}
}
