package enumcheck

import (
	"math"
	"slices"
	"testing"
)

// TestEnumerateKnown: the ground truth on issue 32's models, whose answers
// are known in closed form, and on one whose evidence has probability
// zero.
func TestEnumerateKnown(t *testing.T) {
	for _, tc := range []struct {
		c     Case
		logZ  float64
		marg0 []float64
	}{
		{Case{Model: "MARKOV\n2\n2 1\n1\n2 0 1\n2\n3 5\n"}, math.Log(8), []float64{3.0 / 8, 5.0 / 8}},
		// log(1e-310 + 1e-320) = −310 ln 10 + log(1 + 1e-10), to the rounding of the two doubles.
		{Case{Model: "MARKOV\n1\n2\n1\n1 0\n2\n1e-310 1e-320\n"}, -310*math.Ln10 + math.Log1p(1e-10), []float64{1 - 1e-10, 1e-10}},
		// x1 observed at 0: the clamped table's 3 times x0's 1 + 1.
		{Case{Model: "MARKOV\n2\n2 2\n2\n1 1\n1 0\n2\n3 0\n2\n1 1\n", Evidence: "1 1 0"}, math.Log(6), []float64{0.5, 0.5}},
	} {
		tr, err := Enumerate(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if !tr.Feasible || math.Abs(tr.LogZ-tc.logZ) > 1e-12*max(1, math.Abs(tc.logZ)) {
			t.Errorf("%v: feasible %v, log Z %v; want %v", tc.c, tr.Feasible, tr.LogZ, tc.logZ)
		}
		for a, p := range tc.marg0 {
			if math.Abs(tr.Marginals[0][a]-p) > 1e-14 { // 1e-320 as a double is 9.99989e-321

				t.Errorf("%v: marginal of x0 %v, want %v", tc.c, tr.Marginals[0], tc.marg0)
			}
		}
	}
	tr, err := Enumerate(Case{Model: "MARKOV\n2\n2 2\n2\n1 0\n1 1\n2\n1 0\n2\n1 1\n", Evidence: "1 0 1"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Feasible || !tr.ClampedZero || !math.IsInf(tr.LogZ, -1) {
		t.Errorf("zero evidence: feasible %v, clamped zero %v, log Z %v; want false, true, −Inf", tr.Feasible, tr.ClampedZero, tr.LogZ)
	}
}

// TestCasesDeterministic: the same cases from the same call, each kind as
// many times as asked.
func TestCasesDeterministic(t *testing.T) {
	a, b := Cases(5), Cases(5)
	if len(a) != 5*len(Kinds) {
		t.Fatalf("%d cases, want %d", len(a), 5*len(Kinds))
	}
	for k := range a {
		if a[k].Model != b[k].Model || a[k].Evidence != b[k].Evidence || a[k].Kind != Kinds[k/5] {
			t.Fatalf("case %d differs between two calls, or is of kind %s", k, a[k].Kind)
		}
	}
	if !slices.Equal(a[0].Truth.Marginals[0], b[0].Truth.Marginals[0]) {
		t.Fatal("truths differ")
	}
}
