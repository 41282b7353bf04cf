package diag

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// checkAR1Binning compares a standard-error estimator with the exact
// standard error of the mean of an AR(1) series, as the mean over reps
// series of the ratio (see checkMeanRatio for the tolerance).
func checkAR1Binning(se func(x []float64) (float64, error), rho float64) error {
	const reps, n = 8, 1 << 17
	s := func(chains [][]float64) (float64, error) { return se(chains[0]) }
	want := func([][]float64) float64 { return ar1MeanSE(n, rho) }
	return checkMeanRatio(s, want, reps, 1, n, rho, 0.02, 500)
}

func binningSE(x []float64) (float64, error) {
	b, err := BinningError(x)
	return b.SE, err
}

// naiveSE is the broken variant: the standard error of independent draws,
// the first level of the binning curve.
func naiveSE(x []float64) (float64, error) {
	b, _ := BinningError(x)
	return b.Levels[0].SE, nil
}

func TestBinningAR1(t *testing.T) {
	for _, rho := range []float64{0, 0.5, 0.9} {
		if err := checkAR1Binning(binningSE, rho); err != nil {
			t.Errorf("binning: %v", err)
		}
		if rho == 0.9 {
			if err := checkAR1Binning(naiveSE, rho); err == nil {
				t.Errorf("the naive standard error passes the AR(1) check")
			}
		}
	}
}

func TestBinningCurve(t *testing.T) {
	x := ar1(newRand(20), 1, 1000, 0.5)[0]
	b, err := BinningError(x)
	if err != nil {
		t.Fatal(err)
	}
	// 1000 → 500 → … → 3 → 1: levels with at least 2 blocks.
	wantBlocks := []int{1000, 500, 250, 125, 62, 31, 15, 7, 3}
	if len(b.Levels) != len(wantBlocks) {
		t.Fatalf("%d levels, want %d", len(b.Levels), len(wantBlocks))
	}
	for k, l := range b.Levels {
		if l.Blocks != wantBlocks[k] || l.BlockSize != 1<<k {
			t.Errorf("level %d: %d blocks of %d, want %d of %d", k, l.Blocks, l.BlockSize, wantBlocks[k], 1<<k)
		}
		if math.Abs(l.SEErr-l.SE/math.Sqrt(2*float64(l.Blocks-1))) > 1e-15 {
			t.Errorf("level %d: SEErr %v", k, l.SEErr)
		}
	}
	// Level 0 is the textbook standard error s/√n; level 1 is that of the
	// 500 pair means, computed here directly.
	pairs := make([]float64, 500)
	for j := range pairs {
		pairs[j] = (x[2*j] + x[2*j+1]) / 2
	}
	for k, data := range [][]float64{x, pairs} {
		_, sd := meanStdDev(data)
		if want := sd / math.Sqrt(float64(len(data))); math.Abs(b.Levels[k].SE-want) > 1e-12*want {
			t.Errorf("level %d SE = %v, want %v", k, b.Levels[k].SE, want)
		}
	}
	// The chosen level is the first to meet the criterion.
	p := b.Plateau
	crit := func(l BinningLevel) bool {
		r := l.SE / b.Levels[0].SE
		return math.Pow(float64(l.BlockSize), 3) > 2*1000*math.Pow(r, 4)
	}
	if p < 0 || !crit(b.Levels[p]) || (p > 0 && crit(b.Levels[p-1])) || b.Levels[p].Blocks < 16 {
		t.Errorf("plateau at level %d", p)
	}
	if b.SE != b.Levels[p].SE || math.Abs(b.Tau-math.Pow(b.SE/b.Levels[0].SE, 2)) > 1e-15 {
		t.Errorf("SE %v, Tau %v", b.SE, b.Tau)
	}
}

func TestBinningNoPlateau(t *testing.T) {
	x := ar1(newRand(21), 1, 256, 0.999)[0]
	b, err := BinningError(x)
	if !errors.Is(err, ErrNoPlateau) {
		t.Fatalf("err = %v, want ErrNoPlateau", err)
	}
	if b.Plateau != -1 || !math.IsNaN(b.SE) || len(b.Levels) == 0 {
		t.Errorf("result %+v", b)
	}
}

func TestBinningConstantAndErrors(t *testing.T) {
	b, err := BinningError([]float64{2, 2, 2, 2, 2})
	if err != nil || b.SE != 0 || b.Plateau != 0 {
		t.Errorf("constant series: %+v, %v", b, err)
	}
	for _, tc := range []struct {
		x    []float64
		want string
	}{
		{[]float64{1, 2, 3}, "3 values"},
		{[]float64{1, 2, math.NaN(), 4}, "x[2] = NaN"},
		{[]float64{1, 2, 3, math.Inf(1)}, "x[3] = +Inf"},
	} {
		if _, err := BinningError(tc.x); err == nil || !strings.HasPrefix(err.Error(), "diag: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.x, err, tc.want)
		}
	}
}
