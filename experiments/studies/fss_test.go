package studies

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
)

// tinyFSS is a configuration of the finite-size-scaling study that runs in
// a fraction of a second.
func tinyFSS() FSSSettings {
	s := FSSPaper(true)
	s.Models[0].Sizes, s.Models[0].Sweeps = []int{6, 8, 12}, []int64{1200, 1200, 1200}
	s.Models[1].Sizes, s.Models[1].Sweeps = []int{6, 8}, []int64{1200, 1200}
	s.Chains, s.Burn, s.CurvePoints = 2, 50, 9
	return s
}

// TestFSS runs a tiny study twice and checks its shape, that it is a
// function of the seed, its tables and its files.
func TestFSS(t *testing.T) {
	s := tinyFSS()
	prog := &exptest.Progress{}
	res, err := FSS(context.Background(), s, harness.Config{Seed: 3, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Total() == 0 || prog.Added() != prog.Total() {
		t.Errorf("progress: %d of %d units", prog.Added(), prog.Total())
	}
	if res.Chains != 2 || len(res.Points) != 5 || len(res.Crossings) != 3 || len(res.Fits) != 2 || len(res.Shifts) != 2 {
		t.Fatalf("%d chains, %d points, %d crossings, %d fits, %d shifts", res.Chains, len(res.Points), len(res.Crossings), len(res.Fits), len(res.Shifts))
	}
	for _, f := range res.Shifts {
		if f.Points < 2 || !(f.BetaC > 0.05 && f.BetaC < 0.6) || !(f.Err > 0) {
			t.Errorf("shift %+v", f)
		}
	}
	for _, p := range res.Points {
		if len(p.Runs) < 2 || len(p.Checks) != len(p.Runs)-1 || len(p.Curve) != 9 || p.Sites != p.Size*p.Size {
			t.Fatalf("%s at %d: %d runs, %d checks, %d curve points", p.Model, p.Size, len(p.Runs), len(p.Checks), len(p.Curve))
		}
		for k, run := range p.Runs {
			if run.Stage != k+1 || run.Sweeps != 600 || run.Chains != 2 || run.Direct.Measurements != 1200 ||
				!(run.Lo <= run.Beta0 && run.Beta0 <= run.Hi) || !(run.Seconds > 0) {
				t.Errorf("%s at %d, stage %d: %+v", p.Model, p.Size, k+1, run)
			}
			if k > 0 {
				prev := p.Runs[k-1]
				if run.Beta0 < prev.Lo || run.Beta0 > prev.Hi {
					t.Errorf("%s at %d: stage %d at β = %v outside stage %d's window [%v, %v]", p.Model, p.Size, k+1, run.Beta0, k, prev.Lo, prev.Hi)
				}
			}
		}
		for _, c := range p.Checks {
			if c.Checked != 9 || c.Worst > 5 {
				t.Errorf("%s at %d: check %+v", p.Model, p.Size, c)
			}
		}
	}
	found := 0
	for _, c := range res.Crossings {
		if c.Found {
			found++
			// The error is NaN where a jackknife replicate's curves do
			// not cross (an unresolved crossing of nearly parallel
			// curves, as on the tiny power-law lattices).
			if !(c.Crossing.Beta.Err > 0 || math.IsNaN(c.Crossing.Beta.Err)) || c.Crossing.Beta.Mean < c.Crossing.Lo || c.Crossing.Beta.Mean > c.Crossing.Hi {
				t.Errorf("crossing %+v", c)
			}
		} else if c.Note == "" {
			t.Errorf("crossing %+v without a note", c)
		}
	}
	if found == 0 {
		t.Error("no Binder crossing found")
	}
	for _, f := range res.Fits {
		if f.Points < 2 || !(f.GammaNu > 0.5 && f.GammaNu < 2.5) {
			t.Errorf("fit %+v", f)
		}
	}

	again, err := FSS(context.Background(), s, harness.Config{Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := FSS(context.Background(), s, harness.Config{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b diag.Estimate) bool { return a.Mean == b.Mean && a.Err == b.Err }
	for k, p := range res.Points {
		a, o := again.Points[k], other.Points[k]
		if !same(a.Peak.Beta, p.Peak.Beta) || !same(a.Peak.Height, p.Peak.Height) || !same(a.Runs[0].Direct.Chi, p.Runs[0].Direct.Chi) {
			t.Errorf("%s at %d: peak %+v, then %+v with the same seed", p.Model, p.Size, p.Peak, a.Peak)
		}
		if same(o.Peak.Height, p.Peak.Height) {
			t.Errorf("%s at %d: seeds 3 and 4 give the same peak", p.Model, p.Size)
		}
	}

	md := res.Markdown()
	for _, want := range []string{"| nn | 6 |", "| power | 8 |", "| nn | 6 × 8 |", "γ/ν, nearest neighbour, L = 6–12",
		"reweighted against direct runs: the worst of", "of β_c = 0.4406868", "(literature)", "β_peak(L) = β_c + a/L"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	dir := t.TempDir()
	paths, err := res.WriteFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{"fss.csv", "fss-crossings.csv", "fss-fits.csv", "fss-curves.csv", "fss-chi.png", "fss-chi.svg", "fss-binder.png", "fss-binder.svg"} {
		want = append(want, filepath.Join(dir, name))
	}
	if !slices.Equal(paths, want) {
		t.Errorf("wrote %v, want %v", paths, want)
	}
	for _, p := range paths {
		exptest.CheckFile(t, p)
	}
}

// TestFSSSettings: invalid settings are refused.
func TestFSSSettings(t *testing.T) {
	for name, change := range map[string]func(*FSSSettings){
		"no models":       func(s *FSSSettings) { s.Models = nil },
		"one stage":       func(s *FSSSettings) { s.Stages = 1 },
		"bad MinFraction": func(s *FSSSettings) { s.MinFraction = 1 },
		"one size":        func(s *FSSSettings) { s.Models[0].Sizes, s.Models[0].Sweeps = []int{8}, []int64{100} },
		"decreasing":      func(s *FSSSettings) { s.Models[0].Sizes = []int{8, 6, 12} },
		"few sweeps":      func(s *FSSSettings) { s.Models[1].Sweeps = []int64{10, 1200} },
		"same key":        func(s *FSSSettings) { s.Models[1].Key = "nn" },
		"β₀ = 0":          func(s *FSSSettings) { s.Models[0].Beta = 0 },
		"one point":       func(s *FSSSettings) { s.CurvePoints = 1 },
		"burn-in < 0":     func(s *FSSSettings) { s.Burn = -1 },
	} {
		s := tinyFSS()
		change(&s)
		if _, err := FSS(context.Background(), s, harness.Config{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
