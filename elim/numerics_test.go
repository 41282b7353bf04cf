package elim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// tiny is a log-potential of about 10⁻³⁰⁰.
const tiny = -690.0

// starModel is a binary variable 0 with eight binary leaves, each linked to
// it by a pair table with zeros where the leaf is 1. Through leaves 1–4 the
// value x0 = 1 has weight ~10⁻³⁰⁰ against 1; through leaves 5–8, x0 = 0
// has. Each table spans 10⁻³⁰⁰ … 1, which linear space holds; the messages
// the leaves send to x0 are as wide, and their product at either value of
// x0 is ~10⁻¹²⁰⁰: linear space loses all of it to underflow, while
// π(x0 = 1) is e^{Σε}/(1 + e^{Σε}), ε the small offsets drawn from seed.
func starModel(seed uint64) *factorgraph.Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	b := factorgraph.NewBuilder()
	b.AddVariables(9, factorgraph.Discrete(2))
	ninf := math.Inf(-1)
	for k := 1; k <= 8; k++ {
		e := r.Float64()
		// Layout: (x0, leaf), the leaf fastest.
		vals := []float64{0, ninf, tiny + e, ninf}
		if k > 4 {
			vals = []float64{tiny + e, ninf, 0, ninf}
		}
		b.AddFactor(factorgraph.NewTable([]int{0, k}, []int{2, 2}, vals))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// hugeChain is a chain of seven variables of three values whose pair
// tables and fields span 10⁻³⁰⁰ … 1 (log-potentials uniform on
// [−690, 0]) with zeros (a quarter of the pair entries); the products along
// the chain range far below the smallest double.
func hugeChain(seed uint64) *factorgraph.Graph {
	r := rand.New(rand.NewPCG(seed, 8))
	const n, d = 7, 3
	b := factorgraph.NewBuilder()
	b.AddVariables(n, factorgraph.Discrete(d))
	for i := range n {
		f := make([]float64, d)
		for a := range f {
			f[a] = tiny * r.Float64()
		}
		b.AddFactor(factorgraph.NewTable([]int{i}, []int{d}, f))
		if i+1 < n {
			p := make([]float64, d*d)
			for a := range p {
				p[a] = tiny * r.Float64()
				if r.IntN(4) == 0 {
					p[a] = math.Inf(-1)
				}
			}
			p[r.IntN(d*d)] = 0
			b.AddFactor(factorgraph.NewTable([]int{i, i + 1}, []int{d, d}, p))
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil
	}
	return g
}

// TestHugeRanges: on models whose potentials span 10⁻³⁰⁰ … 1, where
// products underflow, the answer matches enumeration to 1e-9 (the buckets
// where the bound fails go to log space); the same check rejects Solve with
// linear space forced.
func TestHugeRanges(t *testing.T) {
	models := map[string]func(uint64) *factorgraph.Graph{"star": starModel, "chain": hugeChain}
	for _, kind := range []string{"star", "chain"} {
		tried, logUsed, rejected := 0, 0, 0
		for seed := uint64(1); tried < 20; seed++ {
			g := models[kind](seed)
			if g == nil {
				continue
			}
			tried++
			logs := 0
			if d, where := check(t, g, variant{logBuckets: &logs}); d > 1e-9 {
				t.Errorf("%s %d: differs from enumeration by %g (%s)", kind, seed, d, where)
			}
			if logs > 0 {
				logUsed++
			}
			if d, _ := check(t, g, variant{forceLinear: true}); d > 1e-6 {
				rejected++
			}
		}
		t.Logf("%s: %d models, log space used in %d, linear space forced rejected on %d", kind, tried, logUsed, rejected)
		if logUsed == 0 || rejected < tried/4 || kind == "star" && rejected < tried {
			t.Errorf("%s: log space used in %d of %d models, linear space forced rejected on %d", kind, logUsed, tried, rejected)
		}
	}
}

// TestLinearWherePossible: on a model of ordinary ranges (a grid of
// log-potentials of standard deviation 1) no bucket needs log space.
func TestLinearWherePossible(t *testing.T) {
	g := gridModel(t, 8, 8, 3, 1)
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	logs := 0
	if _, err := comps[0].solve(t.Context(), variant{logBuckets: &logs}, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if logs > 0 {
		t.Errorf("%d buckets in log space", logs)
	}
}
