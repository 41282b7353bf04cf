package samplers

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/core"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/gibbs/site"
	"github.com/pgibbs/pgibbs/potts"
)

// discreteNames returns the names of the discrete single-site samplers
// (not the cluster samplers, which run only on ferromagnetic Potts models
// and have tests of their own: cluster_test.go, cluster_run_test.go).
func discreteNames() []string {
	var names []string
	for _, name := range Names() {
		if !gibbstest.ContinuousName(name) && !gibbstest.ClusterName(name) {
			names = append(names, name)
		}
	}
	return names
}

// hopeless is the model: two binary variables and 100 pair tables
// holding log(1e−300) or log(1), so M_φ = 690.8 and L ≈ 6.9e4: λ = L² asks
// about 4.8e9 draws a step, while plain Gibbs evaluates 100 factors.
func hopeless(t testing.TB) *factorgraph.Graph {
	b := factorgraph.NewBuilder()
	b.AddVariables(2, factorgraph.Discrete(2))
	tiny := math.Log(1e-300)
	for k := range 100 {
		vals := []float64{0, tiny, tiny, 0}
		if k%2 == 1 {
			vals = []float64{tiny, 0, 0, tiny}
		}
		b.AddFactor(factorgraph.NewTable([]int{0, 1}, []int{2, 2}, vals))
	}
	return gibbstest.Build(t, b)
}

// TestMaxDraws: a sampler whose step would do more than Options.MaxDraws
// is refused at construction with a message saying what, why and what to
// use instead; the cheaper samplers and an explicit larger limit accept.
func TestMaxDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	huge := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Discrete(2))
		b.AddFactor(factorgraph.NewTable([]int{0}, []int{2}, []float64{0, 1e308}))
		return gibbstest.Build(t, b)
	}()
	wide := func(d factorgraph.Domain) *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(d)
		b.AddFactor(factorgraph.NewFunc([]int{0}, 0, 1e5, func(x []float64) float64 { return 1e5 * x[0] / 2 }))
		return gibbstest.Build(t, b)
	}
	cases := []struct {
		name string
		g    *factorgraph.Graph
		opt  gibbs.Options
		want []string // substrings of the refusal; nil: accepted
	}{
		{"pgibbs", hopeless(t), gibbs.Options{}, []string{"gibbs: pgibbs: a step would draw about 4.8e+09 factors (λ = L² = 4.8e+09, L = 6.9e+04), more than the limit 1e+07 (Options.MaxDraws): use auto or gibbs (at most Δ = 100 factors"}},
		{"auto", hopeless(t), gibbs.Options{}, nil},
		{"gibbs", hopeless(t), gibbs.Options{}, nil},
		{"pgibbs", hopeless(t), gibbs.Options{MaxDraws: 1e10}, nil},
		{"pgibbs", hopeless(t), gibbs.Options{LambdaScale: 1e-3}, nil},
		{"pgibbs", hopeless(t), gibbs.Options{PerVariable: true}, []string{"(variable 0: λ_i + L_i with λ = L² = 4.8e+09, L_i = 6.9e+04)"}},
		{"mingibbs", hopeless(t), gibbs.Options{}, []string{"mingibbs: a step would draw about 4.8e+09 factors (variable 0: D − 1 = 1 global estimates of λ = Ψ² = 4.8e+09 draws each, Ψ = 6.9e+04)", "use auto (about 2e+02 draws and factor values a step here), or a smaller λ"}},
		{"mgpmh", hopeless(t), gibbs.Options{}, []string{"mgpmh: a step would draw and evaluate", "λ = L² = 4.8e+09", "use a smaller λ"}},
		{"doublemin", hopeless(t), gibbs.Options{Lambda: 10}, []string{"doublemin: a step would draw about 4.8e+09", "λ2 = L² = 4.8e+09"}},
		{"doublemin", hopeless(t), gibbs.Options{Lambda: 10, Lambda2: 1e4}, nil},
		{"pgibbs", huge, gibbs.Options{}, []string{"λ = L² overflows", "Options.MaxDraws"}},
		{"auto", huge, gibbs.Options{}, nil},
		{"pgibbs", wide(factorgraph.Discrete(3)), gibbs.Options{}, []string{"draw about 1e+10 factors", "L = 1e+05"}},
		{"auto", wide(factorgraph.Discrete(3)), gibbs.Options{}, nil},
		{"pgibbs", wide(factorgraph.Discrete(3)), gibbs.Options{MaxDraws: 1e11}, nil},
		{"pgits", wide(factorgraph.Interval(0, 1)), gibbs.Options{}, []string{"pgits: a step would draw about 1e+10 factors", "gibbs-its, gibbs-da"}},
		{"pg-rejection", wide(factorgraph.Interval(0, 1)), gibbs.Options{}, []string{"pg-rejection: a step would draw", "gibbs-rejection (about 1 factor values a try"}},
		{"gibbs-its", wide(factorgraph.Interval(0, 1)), gibbs.Options{}, nil},
		{"pgda", wide(factorgraph.Interval(0, 1)), gibbs.Options{Lambda: 100}, nil},
		{"gibbs", hopeless(t), gibbs.Options{MaxDraws: 150}, []string{"gibbs: gibbs: a step would evaluate about 2e+02 factor values (variable 0: |A[i]| = 100 factors at D = 2 values)", "use auto (about 2e+02"}},
		{"auto", hopeless(t), gibbs.Options{MaxDraws: 150}, []string{"auto: a step would evaluate about 2e+02", "raise Options.MaxDraws"}},
		{"gibbs-its", wide(factorgraph.Interval(0, 1)), gibbs.Options{MaxDraws: 3}, []string{"gibbs-its: a step would evaluate about 6 factor values (variable 0: |A[i]| = 1 factors at 6 points)", "use pgits or pgda"}},
		{"gibbs-rejection", wide(factorgraph.Interval(0, 1)), gibbs.Options{MaxDraws: 0.5}, []string{"a try", "use pg-rejection"}},
		{"gibbs", hopeless(t), gibbs.Options{MaxDraws: -1}, []string{"MaxDraws = -1: need a limit > 0"}},
		{"pgibbs", hopeless(t), gibbs.Options{MaxDraws: math.NaN()}, []string{"MaxDraws = NaN"}},
		{"gibbs-its", wide(factorgraph.Interval(0, 1)), gibbs.Options{MaxDraws: -1}, []string{"MaxDraws = -1"}},
	}
	for _, tc := range cases {
		_, err := New(tc.name, tc.g, r, &tc.opt)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s %+v: refused: %v", tc.name, tc.opt, err)
		case tc.want != nil && err == nil:
			t.Errorf("%s %+v: accepted, want a refusal", tc.name, tc.opt)
		case tc.want != nil:
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %+v: error %q does not contain %q", tc.name, tc.opt, err, w)
				}
			}
		}
	}
	// On a model where everything is cheap, every sampler is accepted.
	for _, name := range discreteNames() {
		if _, err := New(name, gibbstest.SmallPotts(t), r, nil); err != nil {
			t.Errorf("%s on a small Potts model: %v", name, err)
		}
	}
}

// TestAutoNeverLarger: Auto never draws a minibatch whose expected size is
// larger than A[i]: where the minibatch is not smaller than the soft part
// of A[i] it updates exactly, whatever λ, and an overflowing λ (or a range
// too wide to draw) makes every update exact.
func TestAutoNeverLarger(t *testing.T) {
	pg, err := potts.New(potts.Params{Width: 6, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	graphs := []factorgraph.Model{pg, hopeless(t), gibbstest.SmallPotts(t)}
	for _, tg := range gibbstest.Graphs(t)[:6] {
		graphs = append(graphs, tg.G)
	}
	for gi, g := range graphs {
		for _, opt := range []gibbs.Options{{}, {LambdaScale: 1e-4}, {LambdaScale: gibbstest.MixedScale}, {LambdaScale: 1e300}, {PerVariable: true, LambdaScale: 0.01}} {
			a, err := site.NewMixed(g, rand.New(rand.NewPCG(1, 1)), &opt)
			if err != nil {
				t.Fatalf("graph %d %+v: %v", gi, opt, err)
			}
			for _, i := range g.Free() {
				soft, hard := g.Degree(i)
				d := core.Of(a).PG.Draws(g, i)
				if !a.Exact(i) && !(d < float64(soft)) {
					t.Errorf("graph %d %+v: variable %d minibatched with %.3g expected draws, |A[i]| = %d soft + %d hard", gi, opt, i, d, soft, hard)
				}
				if a.Exact(i) && d < float64(soft) {
					t.Errorf("graph %d %+v: variable %d updated exactly, but its minibatch (%.3g) is smaller than its %d soft factors", gi, opt, i, d, soft)
				}
			}
			if n, _ := a.Kinds(); opt.LambdaScale == 1e300 && n != len(g.Free()) {
				t.Errorf("graph %d: λ = 1e300·L²: %d exact updates of %d", gi, n, len(g.Free()))
			}
			for range 200 {
				a.Step()
			}
			if err := a.Err(); err != nil {
				t.Errorf("graph %d %+v: %v", gi, opt, err)
			}
		}
	}
	// The pick the paper's Potts model gets: Poisson-Gibbs where λ = L²
	// (about 31 draws) is smaller than its 399 factors, and the draws per
	// step below |A[i]|.
	g, err := potts.New(potts.Paper())
	if err != nil {
		t.Fatal(err)
	}
	a, err := site.NewMixed(g, rand.New(rand.NewPCG(2, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, p := a.Kinds(); n != 0 || p != 400 {
		t.Errorf("paper Potts: %d exact and %d minibatch updates, want all 400 minibatch", n, p)
	}
	for range 5000 {
		a.Step()
	}
	if d := a.Stats().PicksPerStep(); d >= 399 {
		t.Errorf("paper Potts: %.1f draws a step, not fewer than |A[i]| = 399", d)
	}
}

// TestContinuousOnDiscrete: the continuous samplers refuse a model whose
// free variables are all discrete, pointing to the discrete samplers, and
// accept a mixed one.
func TestContinuousOnDiscrete(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	mixed := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Discrete(3))
		b.AddVariable(factorgraph.Interval(0, 1))
		b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 2, func(x []float64) float64 { return x[0] * x[1] }))
		return gibbstest.Build(t, b)
	}()
	// Observed continuous variables leave only discrete free ones.
	observed := func() *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariable(factorgraph.Discrete(3))
		b.AddVariable(factorgraph.Interval(0, 1))
		b.AddFactor(factorgraph.NewFunc([]int{0, 1}, 0, 2, func(x []float64) float64 { return x[0] * x[1] }))
		b.Observe(1, 0.5)
		return gibbstest.Build(t, b)
	}()
	for _, name := range Names() {
		if !gibbstest.ContinuousName(name) {
			continue
		}
		for _, g := range []*factorgraph.Graph{gibbstest.SmallPotts(t), observed} {
			_, err := New(name, g, r, nil)
			if err == nil || !strings.Contains(err.Error(), "every free variable is discrete") || !strings.Contains(err.Error(), "use gibbs, auto or pgibbs") {
				t.Errorf("%s on an all-discrete model: %v", name, err)
			}
		}
		if _, err := New(name, mixed, r, nil); err != nil {
			t.Errorf("%s on a mixed model: %v", name, err)
		}
	}
	if !slices.Equal(discreteNames(), []string{"auto", "block", "doublemin", "exchange", "gibbs", "mgpmh", "mingibbs", "pgibbs"}) {
		t.Errorf("discrete samplers %v", discreteNames())
	}
}
