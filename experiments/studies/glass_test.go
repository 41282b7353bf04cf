package studies

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/experiments/internal/exptest"
)

// tinyGlass is a configuration of the glass study that runs in about
// three seconds: one 4×4 instance at β = 2, every sampler for 0.5 s (the
// default answer's exact elimination forbidden by a 64-byte bound; at
// 0.2 s, under CI's load, its pilots once left it too little to score
// 50).
func tinyGlass() GlassSettings {
	s := GlassPaper(true)
	s.Sizes, s.Betas, s.Seconds, s.MaxBytes = []int{4}, []float64{2}, 0.5, 64
	return s
}

// TestGlass runs the tiny study: its rows, the exchange's log Z against
// the exact one, its table and its files.
func TestGlass(t *testing.T) {
	prog := &exptest.Progress{}
	res, err := Glass(context.Background(), tinyGlass(), harness.Config{Seed: 3, Progress: prog})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Added() != prog.Total() || prog.Total() != 4 || len(res.Rows) != 4 {
		t.Fatalf("progress %d of %d, %d rows", prog.Added(), prog.Total(), len(res.Rows))
	}
	for k, row := range res.Rows {
		if row.Sampler != glassKeys[k] || row.L != 4 || row.Beta != 2 || !(row.Sweeps > 10) || !(row.Seconds > 0.1) {
			t.Errorf("row %d: %+v", k, row)
		}
		// 0.5 s is thousands of sweeps of 16 spins: exchange and the
		// default are close (plain Gibbs may sit in one valley for all of
		// them: it scored 49 once under CI's load).
		isExchange := row.Sampler == GlassExchange || row.Sampler == GlassHoudayer
		if row.Sampler != GlassGibbs && (row.Score < 50 || row.MeanHellinger > 0.1) {
			t.Errorf("%s: score %v, mean Hellinger %v", row.Sampler, row.Score, row.MeanHellinger)
		}
		if isExchange != (row.Replicas > 1) || isExchange && !(row.SwapAcceptance > 0 && row.RoundTrips > 0) {
			t.Errorf("%s: %d replicas, acceptance %v, %d round trips", row.Sampler, row.Replicas, row.SwapAcceptance, row.RoundTrips)
		}
		if (row.Sampler == GlassDefault) != (row.Choice != "") || (row.Sampler == GlassDefault) != (row.Tau.N == 0) {
			t.Errorf("%s: choice %q, τ %+v", row.Sampler, row.Choice, row.Tau)
		}
		if isExchange && (math.Abs(row.LogZErrorPerVar()) > 0.02 || !(row.LogZErr > 0) || math.Abs(row.LogZ-row.ExactLogZ) > 6*row.LogZErr+0.05) {
			t.Errorf("%s: log Z %v ± %v, exact %v", row.Sampler, row.LogZ, row.LogZErr, row.ExactLogZ)
		}
		if row.Sampler == GlassGibbs && !math.IsNaN(row.LogZ) {
			t.Errorf("Gibbs estimates log Z: %v", row.LogZ)
		}
	}
	md := res.Markdown()
	for _, want := range []string{"| L | β | sampler |", "| 4 | 2 | exchange + Houdayer |", "| 4 | 2 | default answer ("} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	dir := t.TempDir()
	paths, err := res.WriteFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "glass.csv"), filepath.Join(dir, "glass.png"), filepath.Join(dir, "glass.svg")}
	if !slices.Equal(paths, want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for _, p := range paths {
		exptest.CheckFile(t, p)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 5 || !slices.Equal(recs[0], glassHeader) || recs[0][0] != "L" || recs[3][4] != GlassHoudayer {
		t.Errorf("glass.csv: %v, %v", recs, err)
	}
}

func TestGlassValidation(t *testing.T) {
	for name, mod := range map[string]func(*GlassSettings){
		"no sizes":        func(s *GlassSettings) { s.Sizes = nil },
		"L = 1":           func(s *GlassSettings) { s.Sizes = []int{1} },
		"L too large":     func(s *GlassSettings) { s.Sizes = []int{glassMaxL + 1} },
		"β = 0":           func(s *GlassSettings) { s.Betas = []float64{0} },
		"field NaN":       func(s *GlassSettings) { s.FieldSD = math.NaN() },
		"no seeds":        func(s *GlassSettings) { s.Seeds = nil },
		"unknown sampler": func(s *GlassSettings) { s.Samplers = []string{"mgpmh"} },
		"sampler twice":   func(s *GlassSettings) { s.Samplers = []string{GlassGibbs, GlassGibbs} },
		"no time":         func(s *GlassSettings) { s.Seconds = 0 },
		"burn-in 1":       func(s *GlassSettings) { s.Burn = 1 },
		"window c = 2":    func(s *GlassSettings) { s.WindowC = 2 },
	} {
		s := tinyGlass()
		mod(&s)
		if _, err := Glass(context.Background(), s, harness.Config{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for _, quick := range []bool{false, true} {
		if err := GlassPaper(quick).validate(); err != nil {
			t.Errorf("GlassPaper(%v): %v", quick, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Glass(ctx, tinyGlass(), harness.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
