package uai_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/diag"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// This file checks that Gibbs and Poisson-Gibbs, run on the factor graphs
// that Model.Graph builds, reach the exact marginals of shared UAI models:
// against the .MAR files where the chains mix within the test budget, and
// against exact enumeration where a model's connected components are small
// (the dv-rel files' .MAR do not match their own models; see docs/uai.md).
// Every check is also run on a deliberately broken variant (evidence not
// clamped, hard factors dropped, tables tempered) and must reject it.

// accuracyBound is the mean absolute marginal error the samplers must reach.
const accuracyBound = 0.01

// chainRun runs chains of sampler on g with seeds from seed and returns the
// pooled run-average marginals.
func chainRun(t *testing.T, g factorgraph.Model, sampler string, opt gibbs.Options, steps int64, chains int, seed uint64) [][]float64 {
	t.Helper()
	runs := make([]*chain.Chain, chains)
	margs := make([]*chain.Marginals, chains)
	for c, r := range chain.Streams(seed, chains) {
		s, err := samplers.New(sampler, g, r, &opt)
		if err != nil {
			t.Fatal(err)
		}
		margs[c] = chain.NewMarginals(factorgraph.Sizes(g))
		runs[c] = &chain.Chain{Kernel: s, Observers: []chain.Observer{margs[c]}, Burn: steps / 20}
	}
	if err := (&chain.Runner{Steps: steps}).Run(context.Background(), runs); err != nil {
		t.Fatal(err)
	}
	return chain.PoolMarginals(margs...)
}

// loadShared reads a shared model with its evidence (if any) and its .MAR
// file (nil if absent).
func loadShared(t *testing.T, name string) (*uai.Model, uai.Evidence, [][]float64) {
	t.Helper()
	path := filepath.Join(dataDir(t), name+".uai")
	m, err := uai.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := uai.ReadEvidenceFile(path + ".evid")
	if err != nil {
		t.Fatal(err)
	}
	mar, err := uai.ReadMarginalsFile(path + ".MAR")
	if err != nil {
		mar = nil
	}
	return m, ev, mar
}

// temper returns m with every table raised to the power beta: a close but
// wrong target, the broken variant of the .MAR checks.
func temper(m *uai.Model, beta float64) *uai.Model {
	out := *m
	out.Tables = make([][]float64, len(m.Tables))
	for f, t := range m.Tables {
		out.Tables[f] = make([]float64, len(t))
		for k, p := range t {
			out.Tables[f][k] = math.Pow(p, beta)
		}
	}
	return &out
}

// noHard hides the hard factors of a model from the samplers: the broken
// variant of the hard-factor checks (the chain then visits states of zero
// probability).
type noHard struct{ factorgraph.Model }

func (m noHard) Degree(i int) (soft, hard int) {
	soft, _ = m.Model.Degree(i)
	return soft, 0
}

// skipFirst leaves out the first factor of every A[i] (the one with the
// largest M_φ): an off-by-one in a sampler's loop over A[i], the broken
// variant for models whose marginals barely move under tempering.
type skipFirst struct{ factorgraph.Model }

func (m skipFirst) Degree(i int) (soft, hard int) {
	soft, hard = m.Model.Degree(i)
	if soft > 0 {
		return soft - 1, hard
	}
	return 0, max(hard-1, 0)
}

func (m skipFirst) Bound(i, k int) float64                       { return m.Model.Bound(i, k+1) }
func (m skipFirst) Eval(i, k int, x []float64) float64           { return m.Model.Eval(i, k+1, x) }
func (m skipFirst) EvalAll(i, k int, x, dst []float64)           { m.Model.EvalAll(i, k+1, x, dst) }
func (m skipFirst) Describe(i, k int) (string, float64, float64) { return m.Model.Describe(i, k+1) }

// TestAccuracyMAR: Gibbs and Poisson-Gibbs reach a mean absolute error ≤ 0.01
// against the shared .MAR files: ObjectDetection_11 (every factor has zeros:
// hard factors only, so Poisson-Gibbs has nothing to minibatch and needs an
// explicit λ), Alchemy_11 (soft factors, L = 44.7; Poisson-Gibbs with
// per-variable λ_i = 0.1·L_i²) and CSP_11 (strong couplings, L = 267:
// Poisson-Gibbs would draw ~10⁴ factors a step, so only Gibbs runs). The power
// of the check depends on the model and the number of steps, not on the
// sampler, so each model's broken variant (hard factors hidden, or tables
// tempered) is run with Gibbs for the same number of steps, and the same
// check must reject it.
func TestAccuracyMAR(t *testing.T) {
	skipShort(t)
	type run struct {
		sampler string
		opt     gibbs.Options
	}
	tests := []struct {
		model   string
		steps   int64
		chains  int
		runs    []run
		broken  string
		breakIt func(m *uai.Model, ev uai.Evidence, g *factorgraph.Graph) factorgraph.Model
	}{
		{"ObjectDetection_11", 300_000, 2, []run{{"gibbs", gibbs.Options{}}, {"pgibbs", gibbs.Options{}}},
			"hard factors hidden", func(_ *uai.Model, _ uai.Evidence, g *factorgraph.Graph) factorgraph.Model { return noHard{g} }},
		{"Alchemy_11", 700_000, 2, []run{{"gibbs", gibbs.Options{}}, {"pgibbs", gibbs.Options{PerVariable: true, LambdaScale: 0.1}}},
			"tables^0.8", func(m *uai.Model, ev uai.Evidence, _ *factorgraph.Graph) factorgraph.Model {
				return mustGraph(t, temper(m, 0.8), ev)
			}},
		{"CSP_11", 600_000, 2, []run{{"gibbs", gibbs.Options{}}},
			"first factor of each A[i] skipped", func(_ *uai.Model, _ uai.Evidence, g *factorgraph.Graph) factorgraph.Model { return skipFirst{g} }},
	}
	for _, tc := range tests {
		t.Run("model="+tc.model, func(t *testing.T) {
			m, ev, mar := loadShared(t, tc.model)
			if mar == nil {
				t.Fatalf("%s has no .MAR file", tc.model)
			}
			g := mustGraph(t, m, ev)
			meanErr := func(g factorgraph.Model, r run) (mean, max float64) {
				est := chainRun(t, g, r.sampler, r.opt, tc.steps, tc.chains, 1)
				mean, max, err := diag.MarginalAbsVars(est, mar, g.Free())
				if err != nil {
					t.Fatal(err)
				}
				return mean, max
			}
			for _, r := range tc.runs {
				mean, max := meanErr(g, r)
				t.Logf("%s: mean abs error %.5f, max %.5f", r.sampler, mean, max)
				if mean > accuracyBound {
					t.Errorf("%s: mean abs error %.5f > %v", r.sampler, mean, accuracyBound)
				}
			}
			mean, _ := meanErr(tc.breakIt(m, ev, g), run{sampler: "gibbs"})
			t.Logf("broken (%s): mean abs error %.5f", tc.broken, mean)
			if mean <= accuracyBound {
				t.Errorf("the check accepts a broken variant (%s): mean abs error %.5f ≤ %v", tc.broken, mean, accuracyBound)
			}
		})
	}
}

// mustGraph builds m's factor graph with evidence ev.
func mustGraph(t *testing.T, m *uai.Model, ev uai.Evidence) *factorgraph.Graph {
	t.Helper()
	g, err := m.Graph(ev)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// exactMarginals computes the marginals of m given ev by enumerating the
// joint states of each connected component of the free variables (variables
// linked by a factor, evidence removed). It fails if a component has more
// than 2^20 states.
func exactMarginals(m *uai.Model, ev uai.Evidence) ([][]float64, error) {
	n := m.NumVars()
	x := make([]int, n)
	observed := make([]bool, n)
	for _, o := range ev {
		x[o.Var], observed[o.Var] = o.Value, true
	}
	parent := make([]int, n) // union–find over free variables
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, scope := range m.Scopes {
		first := -1
		for _, v := range scope {
			if observed[v] {
				continue
			}
			if first < 0 {
				first = v
			} else {
				parent[find(v)] = find(first)
			}
		}
	}
	comps := map[int][]int{}
	var roots []int
	for i := range n {
		if observed[i] {
			continue
		}
		r := find(i)
		if comps[r] == nil {
			roots = append(roots, r)
		}
		comps[r] = append(comps[r], i)
	}
	factorsOf := map[int][]int{} // component root → factors touching it
	for f, scope := range m.Scopes {
		for _, v := range scope {
			if !observed[v] {
				factorsOf[find(v)] = append(factorsOf[find(v)], f)
				break
			}
		}
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, m.Cards[i])
		if observed[i] {
			out[i][x[i]] = 1
		}
	}
	for _, r := range roots {
		vars := comps[r]
		states := 1
		for _, v := range vars {
			if states *= m.Cards[v]; states > 1<<20 {
				return nil, fmt.Errorf("component of variable %d has more than 2^20 states", v)
			}
		}
		z := 0.0
		for s := range states {
			rest := s
			for k := len(vars) - 1; k >= 0; k-- {
				v := vars[k]
				x[v] = rest % m.Cards[v]
				rest /= m.Cards[v]
			}
			w := 1.0
			for _, f := range factorsOf[r] {
				idx := 0
				for _, v := range m.Scopes[f] {
					idx = idx*m.Cards[v] + x[v]
				}
				w *= m.Tables[f][idx]
			}
			z += w
			for _, v := range vars {
				out[v][x[v]] += w
			}
		}
		if !(z > 0) {
			return nil, fmt.Errorf("component of variable %d has zero mass", vars[0])
		}
		for _, v := range vars {
			for a := range out[v] {
				out[v][a] /= z
			}
		}
	}
	return out, nil
}

// TestExactMarginalsHelper checks the enumeration against the shared .MAR
// files of the two small models that have one (one, deterministic), so that the
// exact answers of TestAccuracyExact are trustworthy.
func TestExactMarginalsHelper(t *testing.T) {
	for _, name := range []string{"one", "deterministic"} {
		m, ev, mar := loadShared(t, name)
		p, err := exactMarginals(m, ev)
		if err != nil {
			t.Fatal(err)
		}
		mean, max, err := diag.MarginalAbs(p, mar)
		if err != nil {
			t.Fatal(err)
		}
		if max > 1e-6 {
			t.Errorf("%s: enumeration differs from .MAR: mean %g, max %g", name, mean, max)
		}
	}
	// The dv-rel files' .MAR do not match their own models (documented in
	// docs/uai.md): enumeration, which needs no sampling, shows it.
	m, ev, mar := loadShared(t, "dv-rel_1")
	p, err := exactMarginals(m, ev)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraph(t, m, ev)
	mean, _, err := diag.MarginalAbsVars(p, mar, g.Free())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dv-rel_1: exact marginals of the model differ from its .MAR by %.4f on average", mean)
}

// TestAccuracyExact: with evidence (dv-rel_1: 31 observed variables) and
// with a hard factor next to soft ones (sample.uai: a zero in a 2×3 table),
// Gibbs and Poisson-Gibbs reach a mean absolute error ≤ 0.01 against
// marginals computed by enumeration. The same check must reject the sampler
// run with the evidence left unclamped, or with the hard factor hidden.
func TestAccuracyExact(t *testing.T) {
	skipShort(t)
	tests := []struct {
		model   string
		steps   int64
		broken  string
		breakIt func(m *uai.Model, g *factorgraph.Graph) factorgraph.Model
	}{
		{"dv-rel_1", 600_000, "evidence not clamped",
			func(m *uai.Model, _ *factorgraph.Graph) factorgraph.Model { return mustGraph(t, m, nil) }},
		{"sample", 300_000, "hard factor hidden",
			func(_ *uai.Model, g *factorgraph.Graph) factorgraph.Model { return noHard{g} }},
	}
	for _, tc := range tests {
		t.Run("model="+tc.model, func(t *testing.T) {
			m, ev, _ := loadShared(t, tc.model)
			exact, err := exactMarginals(m, ev)
			if err != nil {
				t.Fatal(err)
			}
			g := mustGraph(t, m, ev)
			meanErr := func(model factorgraph.Model, sampler string) float64 {
				est := chainRun(t, model, sampler, gibbs.Options{}, tc.steps, 2, 1)
				mean, _, err := diag.MarginalAbsVars(est, exact, g.Free())
				if err != nil {
					t.Fatal(err)
				}
				return mean
			}
			for _, sampler := range []string{"gibbs", "pgibbs"} {
				mean := meanErr(g, sampler)
				t.Logf("%s: mean abs error %.5f", sampler, mean)
				if mean > accuracyBound {
					t.Errorf("%s: mean abs error %.5f > %v", sampler, mean, accuracyBound)
				}
			}
			mean := meanErr(tc.breakIt(m, g), "gibbs")
			t.Logf("broken (%s): mean abs error %.5f", tc.broken, mean)
			if mean <= accuracyBound {
				t.Errorf("the check accepts a broken variant (%s): mean abs error %.5f ≤ %v", tc.broken, mean, accuracyBound)
			}
		})
	}
}
