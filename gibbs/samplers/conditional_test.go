package samplers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/chromatic"
	"github.com/pgibbs/pgibbs/gibbs/cluster"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/mingibbs"
	"github.com/pgibbs/pgibbs/gibbs/site"
)

// rbSamplers are the samplers that report their conditionals.
func rbSamplers() []gibbstest.SamplerCase {
	var out []gibbstest.SamplerCase
	for _, sc := range familySamplers() {
		switch sc.Name {
		case "Gibbs", "PoissonGibbs", "PoissonGibbs/λ=0.1L²", "PoissonGibbs/per-variable", "Auto":
			out = append(out, sc)
		}
	}
	return out
}

// TestRaoBlackwellExactness: the Rao–Blackwellised marginals of every
// sampler that reports conditionals (Gibbs, Auto, and Poisson-Gibbs, whose
// conditional is the minibatched one) agree with exact enumeration on the
// random test graphs (hard zeros, evidence), by batch means.
func TestRaoBlackwellExactness(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := gibbstest.Graphs(t)
	for _, sc := range rbSamplers() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			worst := 0.0
			for _, tg := range graphs {
				s, err := sc.New(tg.G, rand.New(rand.NewPCG(tg.Seed, 77)), tg.Init)
				if err != nil {
					t.Fatal(err)
				}
				z, where := gibbstest.RBZ(tg.G, s, gibbstest.ExactSteps/2)
				if z > gibbstest.ZLimit {
					t.Errorf("graph %d: %s: z = %.2f > %v", tg.Seed, where, z, gibbstest.ZLimit)
				}
				worst = max(worst, z)
			}
			t.Logf("largest z over %d graphs: %.2f", len(graphs), worst)
		})
	}
}

// tempered reports its sampler's conditionals raised to the power 1/2 (a
// flatter distribution than the one drawn from): the broken estimator.
type tempered struct {
	gibbs.Sampler
	w []float64
}

func (t *tempered) RecordConditionals(on bool) { t.Sampler.(chain.Conditioner).RecordConditionals(on) }

func (t *tempered) Conditional() (int, []float64, float64) {
	i, w, _ := t.Sampler.(chain.Conditioner).Conditional()
	t.w = t.w[:0]
	total := 0.0
	for _, x := range w {
		t.w = append(t.w, math.Sqrt(x))
		total += math.Sqrt(x)
	}
	return i, t.w, total
}

// smoothed reports its sampler's conditionals mixed with a tenth of the
// uniform distribution (additive smoothing of a conditional: a small bias,
// and mass on values of probability zero).
type smoothed struct {
	gibbs.Sampler
	w []float64
}

func (s *smoothed) RecordConditionals(on bool) { s.Sampler.(chain.Conditioner).RecordConditionals(on) }

func (s *smoothed) Conditional() (int, []float64, float64) {
	i, w, total := s.Sampler.(chain.Conditioner).Conditional()
	s.w = s.w[:0]
	for _, x := range w {
		s.w = append(s.w, 0.9*x/total+0.1/float64(len(w)))
	}
	return i, s.w, 1
}

// TestRaoBlackwellCatchesBrokenEstimators: averaging a distribution other
// than the one drawn from (tempered, or smoothed towards uniform) is
// rejected by the same check. (A conditional one update of the variable
// stale is not a broken variant: its mean is still π's marginal.)
func TestRaoBlackwellCatchesBrokenEstimators(t *testing.T) {
	gibbstest.SkipShort(t)
	graphs := gibbstest.Graphs(t)
	for _, bc := range []struct {
		name string
		wrap func(gibbs.Sampler) gibbs.Sampler
	}{
		{"tempered", func(s gibbs.Sampler) gibbs.Sampler { return &tempered{Sampler: s} }},
		{"smoothed", func(s gibbs.Sampler) gibbs.Sampler { return &smoothed{Sampler: s} }},
	} {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			caught, worst := 0, 0.0
			for _, tg := range graphs {
				s, err := site.NewGibbs(tg.G, rand.New(rand.NewPCG(tg.Seed, 78)), &gibbs.Options{Init: tg.Init})
				if err != nil {
					t.Fatal(err)
				}
				z, _ := gibbstest.RBZ(tg.G, bc.wrap(s), gibbstest.ExactSteps/4)
				if z > gibbstest.ZLimit {
					caught++
				}
				worst = max(worst, z)
			}
			if caught == 0 {
				t.Errorf("no graph rejected the broken estimator (largest z %.2f)", worst)
			}
			t.Logf("rejected on %d of %d graphs (largest z %.1f)", caught, len(graphs), worst)
		})
	}
}

// TestRaoBlackwellVarianceReduction: on a 3×3 three-state Potts grid (exact
// marginals by enumeration) the Rao–Blackwellised marginals of the same
// chains have a smaller mean squared error than the visit counts, for
// plain Gibbs and for Poisson-Gibbs, over 24 independent chains.
func TestRaoBlackwellVarianceReduction(t *testing.T) {
	gibbstest.SkipShort(t)
	b := factorgraph.NewBuilder()
	const side, q = 3, 3
	b.AddVariables(side*side, factorgraph.Discrete(q))
	for i := range side * side {
		if i%side < side-1 {
			b.AddFactor(factorgraph.NewPotts(i, i+1, 0.5))
		}
		if i+side < side*side {
			b.AddFactor(factorgraph.NewPotts(i, i+side, 0.5))
		}
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{q}, []float64{0.3, 0, -0.2}))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	exact := gibbstest.MarginalsOf(g, gibbstest.Enumerate(g))
	for _, name := range []string{"gibbs", "pgibbs"} {
		t.Run(name, func(t *testing.T) {
			var mseCounts, mseRB float64
			for seed := range uint64(24) {
				s, err := New(name, g, rand.New(rand.NewPCG(seed, 5)), nil)
				if err != nil {
					t.Fatal(err)
				}
				counts, rb := chain.NewMarginals(factorgraph.Sizes(g)), chain.NewMarginals(factorgraph.Sizes(g))
				rb.RaoBlackwellise(s.(chain.Conditioner))
				for range 100 * side * side {
					s.Step()
				}
				for t := range int64(2000 * side * side) {
					i := s.Step()
					counts.Observe(t+1, i, s.State())
					rb.Observe(t+1, i, s.State())
				}
				mseCounts += sqErr(counts.Probs(), exact)
				mseRB += sqErr(rb.Probs(), exact)
			}
			ratio := mseRB / mseCounts
			t.Logf("%s: mean squared error, Rao–Blackwellised / visit counts = %.3f", name, ratio)
			if !(ratio < 0.9) {
				t.Errorf("%s: Rao–Blackwellised squared error %.3g, visit counts %.3g: no reduction", name, mseRB, mseCounts)
			}
		})
	}
}

func sqErr(est, exact [][]float64) float64 {
	s := 0.0
	for i := range exact {
		for v := range exact[i] {
			d := est[i][v] - exact[i][v]
			s += d * d
		}
	}
	return s
}

// isConditioner reports whether *T satisfies chain.Conditioner: a property
// of its method set, fixed when the package compiles.
func isConditioner[T any]() bool {
	_, ok := any((*T)(nil)).(chain.Conditioner)
	return ok
}

// TestConditionerSet: exactly the samplers whose updates are draws from a
// conditional of π (or of an augmented target with π as marginal), with a
// scan that does not look at the values drawn, report their conditionals.
// MGPMH and DoubleMIN-Gibbs make MH steps: the proposal's distribution is
// not the law of the value kept, so crediting it would bias
// Rao–Blackwellised marginals, and they must not be Conditioners; neither
// are MIN-Gibbs (its draw conditions on estimates carried from step to
// step), the cluster moves and the continuous samplers.
func TestConditionerSet(t *testing.T) {
	static := []struct {
		name string
		is   bool
		want bool
	}{
		{"Gibbs", isConditioner[site.Gibbs](), true},
		{"PoissonGibbs", isConditioner[site.PoissonGibbs](), true},
		{"Auto", isConditioner[site.Mixed](), true},
		{"Blocked", isConditioner[blocked.Blocked](), true},
		{"MGPMH", isConditioner[mingibbs.MGPMH](), false},
		{"DoubleMINGibbs", isConditioner[mingibbs.DoubleMINGibbs](), false},
		{"MINGibbs", isConditioner[mingibbs.MINGibbs](), false},
		{"SwendsenWang", isConditioner[cluster.SwendsenWang](), false},
		{"Wolff", isConditioner[cluster.Wolff](), false},
		{"Chromatic", isConditioner[chromatic.Chromatic](), false},
	}
	for _, s := range static {
		if s.is != s.want {
			t.Errorf("*%s is a chain.Conditioner: %v, want %v", s.name, s.is, s.want)
		}
	}
	// Through the registry: every name, on a model it accepts.
	allowed := map[string]bool{"gibbs": true, "pgibbs": true, "auto": true, "block": true, "exchange": true}
	disc, cont := gibbstest.SmallPotts(t), gibbstest.ContGraphs(t)[0].G
	r := rand.New(rand.NewPCG(1, 1))
	for _, name := range Names() {
		m := factorgraph.Model(disc)
		if gibbstest.ContinuousName(name) {
			m = cont
		}
		s, err := New(name, m, r, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := s.(chain.Conditioner); ok != allowed[name] {
			t.Errorf("%s is a chain.Conditioner: %v, want %v", name, ok, allowed[name])
		}
	}
}
