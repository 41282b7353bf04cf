package gibbs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// rbSamplers are the samplers that report their conditionals.
func rbSamplers() []samplerCase {
	var out []samplerCase
	for _, sc := range exactSamplers() {
		switch sc.name {
		case "Gibbs", "PoissonGibbs", "PoissonGibbs/λ=0.1L²", "PoissonGibbs/per-variable", "Auto":
			out = append(out, sc)
		}
	}
	return out
}

// rbZ runs s for steps updates in 50 batches, each with fresh
// Rao–Blackwellised marginals, and returns the largest batch-means z-score
// of a marginal probability against the exact one. It also fails (+Inf) if
// a reported conditional puts mass on a value of probability zero.
func rbZ(g *factorgraph.Graph, s Sampler, steps int) (float64, string) {
	const batches = 50
	exact := marginalsOf(g, enumerate(g))
	per := steps / batches
	est := make([][][]float64, batches)
	for b := range batches {
		mg := chain.NewMarginals(factorgraph.Sizes(g))
		mg.RaoBlackwellise(s.(chain.Conditioner))
		for t := range per {
			i := s.Step()
			mg.Observe(int64(t+1), i, s.State())
		}
		est[b] = mg.Probs()
	}
	if err := s.Err(); err != nil {
		return math.Inf(1), err.Error()
	}
	worst, where := 0.0, ""
	for i, pi := range exact {
		for v, p := range pi {
			mean, sq := 0.0, 0.0
			for b := range batches {
				f := est[b][i][v]
				if p == 0 && f != 0 {
					return math.Inf(1), fmt.Sprintf("P(x%d=%d) = %v, exact 0", i, v, f)
				}
				mean += f
				sq += f * f
			}
			mean /= batches
			sd := math.Sqrt(max(0, sq/batches-mean*mean) * batches / (batches - 1))
			// A floor on the error: an estimator that is exact at every
			// step (a block of the whole model) must still match to 1e-9.
			se := max(sd/math.Sqrt(batches), 1e-9)
			if p*float64(per) < minVisits {
				continue
			}
			if z := math.Abs(mean-p) / se; z > worst {
				worst, where = z, fmt.Sprintf("P(x%d=%d): %.4f, exact %.4f (se %.5f)", i, v, mean, p, se)
			}
		}
	}
	return worst, where
}

// TestRaoBlackwellExactness: the Rao–Blackwellised marginals of every
// sampler that reports conditionals (Gibbs, Auto, and Poisson-Gibbs, whose
// conditional is the minibatched one) agree with exact enumeration on the
// random test graphs (hard zeros, evidence), by batch means.
func TestRaoBlackwellExactness(t *testing.T) {
	skipShort(t)
	graphs := testGraphs(t)
	for _, sc := range rbSamplers() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			worst := 0.0
			for _, tg := range graphs {
				s, err := sc.new(tg.g, rand.New(rand.NewPCG(tg.seed, 77)), tg.init)
				if err != nil {
					t.Fatal(err)
				}
				z, where := rbZ(tg.g, s, exactSteps/2)
				if z > zLimit {
					t.Errorf("graph %d: %s: z = %.2f > %v", tg.seed, where, z, zLimit)
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
	Sampler
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
	Sampler
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
	skipShort(t)
	graphs := testGraphs(t)
	for _, bc := range []struct {
		name string
		wrap func(Sampler) Sampler
	}{
		{"tempered", func(s Sampler) Sampler { return &tempered{Sampler: s} }},
		{"smoothed", func(s Sampler) Sampler { return &smoothed{Sampler: s} }},
	} {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			caught, worst := 0, 0.0
			for _, tg := range graphs {
				s, err := NewGibbs(tg.g, rand.New(rand.NewPCG(tg.seed, 78)), &Options{Init: tg.init})
				if err != nil {
					t.Fatal(err)
				}
				z, _ := rbZ(tg.g, bc.wrap(s), exactSteps/4)
				if z > zLimit {
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
	skipShort(t)
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
	exact := marginalsOf(g, enumerate(g))
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
		{"Gibbs", isConditioner[Gibbs](), true},
		{"PoissonGibbs", isConditioner[PoissonGibbs](), true},
		{"Auto", isConditioner[Mixed](), true},
		{"Blocked", isConditioner[Blocked](), true},
		{"MGPMH", isConditioner[MGPMH](), false},
		{"DoubleMINGibbs", isConditioner[DoubleMINGibbs](), false},
		{"MINGibbs", isConditioner[MINGibbs](), false},
		{"SwendsenWang", isConditioner[SwendsenWang](), false},
		{"Wolff", isConditioner[Wolff](), false},
		{"Chromatic", isConditioner[Chromatic](), false},
	}
	for _, s := range static {
		if s.is != s.want {
			t.Errorf("*%s is a chain.Conditioner: %v, want %v", s.name, s.is, s.want)
		}
	}
	// Through the registry: every name, on a model it accepts.
	allowed := map[string]bool{"gibbs": true, "pgibbs": true, "auto": true, "block": true}
	disc, cont := smallPotts(t), contGraphs(t)[0].g
	r := rand.New(rand.NewPCG(1, 1))
	for _, name := range Names() {
		m := factorgraph.Model(disc)
		if continuousName(name) {
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
