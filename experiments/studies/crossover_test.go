package studies

import (
	"context"
	"encoding/csv"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
	"github.com/pgibbs/pgibbs/potts"
)

// tinyCrossover is a configuration that runs in well under a second.
func tinyCrossover() CrossoverSettings {
	s := CrossoverPaper(true)
	s.Gauss = potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5}
	s.GaussWidths = []int{5, 4} // out of order: the result sorts by Δ
	s.PowerSides = []int{4, 6, 8}
	s.PowerStates = 3
	s.Warm, s.Target, s.Reps = time.Millisecond, 2*time.Millisecond, 3
	return s
}

// TestCrossover runs a tiny study and checks the shape of its result and
// of its files; it asserts nothing about the times themselves.
func TestCrossover(t *testing.T) {
	s := tinyCrossover()
	prog := &exptest.Progress{}
	res, err := Crossover(context.Background(), s, harness.Config{Seed: 1, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() || prog.Total() != 4*2+3*3 {
		t.Errorf("progress: %d of %d units, want 17", prog.Added(), prog.Total())
	}
	if res.Reps != 3 || len(res.Families) != 2 {
		t.Fatalf("%d repetitions, %d families", res.Reps, len(res.Families))
	}
	for fi, f := range res.Families {
		want := map[int]int{0: 2, 1: 3}[fi]
		key := map[int]string{0: CrossoverGauss, 1: CrossoverPower}[fi]
		if f.Key != key || len(f.Points) != want {
			t.Fatalf("family %d: key %q with %d points, want %q with %d", fi, f.Key, len(f.Points), key, want)
		}
		for k, p := range f.Points {
			if k > 0 && p.Delta < f.Points[k-1].Delta {
				t.Errorf("%s: points not in increasing Δ: %d after %d", f.Key, p.Delta, f.Points[k-1].Delta)
			}
			if p.Delta <= 0 || p.Sites != p.Size*p.Size || !(p.MeanDegree > 0) || p.MeanDegree > float64(p.Delta) {
				t.Errorf("%s size %d: Δ %d, %d sites, mean degree %v", f.Key, p.Size, p.Delta, p.Sites, p.MeanDegree)
			}
			if math.Abs(p.Lambda-p.L*p.L) > 1e-9*p.Lambda {
				t.Errorf("%s size %d: λ = %v, L² = %v", f.Key, p.Size, p.Lambda, p.L*p.L)
			}
			if f.Key == CrossoverPower && (math.Abs(p.L-s.PowerL) > 1e-9 || p.Delta != p.Size*p.Size-1) {
				t.Errorf("power side %d: L = %v (want %v), Δ = %d", p.Size, p.L, s.PowerL, p.Delta)
			}
			for _, key := range crossoverSamplers {
				tm := p.timing(key)
				if key == CrossoverCSR && f.Key == CrossoverPower {
					if tm.Updates != 0 {
						t.Errorf("power side %d: a CSR timing %+v", p.Size, tm)
					}
					continue
				}
				if !(tm.Min > 0) || tm.Min > tm.Median || tm.Median > tm.Max || tm.Updates < 3 {
					t.Errorf("%s size %d, %s: timing %+v", f.Key, p.Size, key, tm)
				}
			}
			want := p.Stencil.Median
			if p.CSR.Updates > 0 {
				want = min(want, p.CSR.Median)
			}
			if best, key := p.BestHand(); best != want {
				t.Errorf("%s size %d: best hand-written %v (%s), stencil %v, CSR %v", f.Key, p.Size, best, key, p.Stencil.Median, p.CSR.Median)
			}
			if !(p.PGDraws > 0) || !(p.PGFactors > 0) {
				t.Errorf("%s size %d: %v draws, %v factors a Poisson-Gibbs update", f.Key, p.Size, p.PGDraws, p.PGFactors)
			}
		}
		if d := f.VsHand.Delta; !math.IsNaN(d) && (d < float64(f.Points[0].Delta) || d > float64(f.Points[len(f.Points)-1].Delta)) {
			t.Errorf("%s: crossover Δ %v outside the measured range", f.Key, d)
		}
	}
	if tb := res.table(); len(tb.Rows) != 5 || len(tb.Rows[0]) != len(tb.Header) {
		t.Errorf("table: %d rows of %d cells, header %d", len(tb.Rows), len(tb.Rows[0]), len(tb.Header))
	}
	if tb := res.summaryTable(); len(tb.Rows) != 2 {
		t.Errorf("summary: %d rows", len(tb.Rows))
	}
	if md := res.Markdown(); strings.Count(md, "\n") != 2+5+1+2+2 {
		t.Errorf("markdown:\n%s", md)
	}

	dir := t.TempDir()
	paths, err := res.WriteFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 {
		t.Fatalf("wrote %v", paths)
	}
	readCSV := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	if recs := readCSV("crossover.csv"); len(recs) != 1+4*2+3*3 || len(recs[0]) != 15 || recs[0][9] != "ns_median" {
		t.Errorf("crossover.csv: %d records, header %v", len(recs), recs[0])
	}
	if recs := readCSV("crossover-summary.csv"); len(recs) != 1+4 || len(recs[0]) != 4 {
		t.Errorf("crossover-summary.csv: %d records, header %v", len(recs), recs[0])
	}
	f, err := os.Open(filepath.Join(dir, "crossover.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("crossover.png: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "crossover.svg")); err != nil || st.Size() == 0 {
		t.Errorf("crossover.svg: %v", err)
	}
}

func TestCrossing(t *testing.T) {
	deltas := []float64{100, 1000, 10000, 100000}
	for _, tc := range []struct {
		name       string
		slow, fast []float64
		want       float64
		below      bool
	}{
		// log(slow/fast) goes −log 2 → +log 2 between 1000 and 10000: the
		// midpoint on log Δ.
		{"between", []float64{1, 1, 4, 40}, []float64{4, 2, 2, 2}, math.Sqrt(1000 * 10000), false},
		{"below", []float64{5, 6, 7, 8}, []float64{1, 1, 1, 1}, 100, true},
		{"never", []float64{1, 1, 1, 1}, []float64{2, 2, 2, 2}, math.NaN(), false},
		{"slower at the end", []float64{1, 10, 100, 1}, []float64{2, 2, 2, 2}, math.NaN(), false},
		// faster at first, slower, then faster: the last crossing counts.
		{"last crossing", []float64{5, 1, 1, 8}, []float64{1, 2, 2, 2}, math.Exp(math.Log(10000) + math.Log(2)/(math.Log(2)+math.Log(4))*math.Log(10)), false},
	} {
		c := crossing(deltas, tc.slow, tc.fast)
		if c.Below != tc.below || (math.IsNaN(tc.want) != math.IsNaN(c.Delta)) || (!math.IsNaN(tc.want) && math.Abs(c.Delta-tc.want) > 1e-9*tc.want) {
			t.Errorf("%s: %+v (%v), want Δ %v, below %v", tc.name, c, c, tc.want, tc.below)
		}
	}
	if s := (Crossing{Delta: math.NaN()}).String(); s != "not reached" {
		t.Errorf("NaN crossing prints %q", s)
	}
	if s := (Crossing{Delta: 399, Below: true}).String(); s != "≤ 399" {
		t.Errorf("below crossing prints %q", s)
	}
}

func TestCrossoverValidation(t *testing.T) {
	for name, mod := range map[string]func(*CrossoverSettings){
		"no model":     func(s *CrossoverSettings) { s.GaussWidths, s.PowerSides = nil, nil },
		"width 1":      func(s *CrossoverSettings) { s.GaussWidths = []int{1} },
		"side 2":       func(s *CrossoverSettings) { s.PowerSides = []int{2} },
		"zero target":  func(s *CrossoverSettings) { s.Target = 0 },
		"negative λ":   func(s *CrossoverSettings) { s.LambdaScale = -1 },
		"L = 0":        func(s *CrossoverSettings) { s.PowerL = 0 },
		"bad Potts":    func(s *CrossoverSettings) { s.Gauss.States = 1 },
		"300 states":   func(s *CrossoverSettings) { s.PowerStates = 300 },
		"negative rep": func(s *CrossoverSettings) { s.Reps = -1 },
	} {
		s := tinyCrossover()
		mod(&s)
		if _, err := Crossover(context.Background(), s, harness.Config{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Crossover(ctx, tinyCrossover(), harness.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
