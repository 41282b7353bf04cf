package targets

import (
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/mh"
)

// TestPaper: each experiment's defaults are the paper's (its Tables 2 and
// 3 for steps; χ by model; λ 500), a caller's options win, samplers with
// control variates start at the mode, and an unknown model is refused.
func TestPaper(t *testing.T) {
	for _, c := range []struct {
		s               Setup
		opt             mh.Options
		step, chi, lam  float64
		init0           float64
		atMode, refused bool
	}{
		{s: Setup{Model: "tgm", Sampler: "tunamh", N: 1000}, step: 0.1, chi: 1e-4, lam: 500, init0: 0},
		{s: Setup{Model: "tgm", Sampler: "mh", N: 1000}, step: 0.3, chi: 1e-4, lam: 500},
		{s: Setup{Model: "tgm", Sampler: "barker", N: 1000}, step: 0.1, chi: 1e-4, lam: 500},
		{s: Setup{Model: "tgm", Sampler: "poissonmh", N: 1000}, opt: mh.Options{Step: 0.5, Lambda: 7, Chi: 3}, step: 0.5, chi: 3, lam: 7},
		{s: Setup{Model: "rlr", Sampler: "tunamh", N: 500, Dim: 3}, step: 8e-4, chi: 1e-5, lam: 500},
		{s: Setup{Model: "rlr", Sampler: "smh1", N: 500, Dim: 3}, step: 4e-3, chi: 1e-5, lam: 500, atMode: true},
		{s: Setup{Model: "logistic", Sampler: "mh", N: 500, Dim: 3, MapStart: true}, step: 5e-3, chi: 1e-5, lam: 500, atMode: true},
		{s: Setup{Model: "bias", Sampler: "tunamh", K: 10}, step: 0.1, chi: 1e-4, lam: 500, init0: 5},
		{s: Setup{Model: "ising", Sampler: "mh"}, refused: true},
	} {
		target, opt, err := Paper(c.s, c.opt)
		if c.refused {
			if err == nil || !strings.Contains(err.Error(), `"ising"`) {
				t.Errorf("%+v: err = %v, want a refusal naming the model", c.s, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", c.s, err)
		}
		if opt.Step != c.step || opt.Chi != c.chi || opt.Lambda != c.lam {
			t.Errorf("%+v: step %g, χ %g, λ %g; want %g, %g, %g", c.s, opt.Step, opt.Chi, opt.Lambda, c.step, c.chi, c.lam)
		}
		if len(opt.Init) != 0 && len(opt.Init) != target.Dim() { // none: the sampler's own start
			t.Fatalf("%+v: a start of %d coordinates for dimension %d", c.s, len(opt.Init), target.Dim())
		}
		if c.atMode != (opt.Ref != nil) {
			t.Errorf("%+v: reference point %v, want one: %v", c.s, opt.Ref, c.atMode)
		}
		if (c.s.Model == "tgm" || c.s.Model == "bias") && opt.Init[0] != c.init0 {
			t.Errorf("%+v: start %v, want %g first", c.s, opt.Init, c.init0)
		}
	}
}
