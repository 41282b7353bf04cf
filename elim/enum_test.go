package elim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/internal/enumcheck"
)

// enumPerKind is the number of models of each kind of enumcheck.Kinds the
// enumeration tests check.
const enumPerKind = 50

// enumCases returns enumcheck.Cases(enumPerKind), generated once.
var enumCases = sync.OnceValue(func() []enumcheck.Case { return enumcheck.Cases(enumPerKind) })

// uaiGraphs reads case c through both readers of package uai: Read then
// Model.Graph, and the streaming ReadGraph.
func uaiGraphs(t *testing.T, c enumcheck.Case) map[string]*factorgraph.Graph {
	t.Helper()
	var ev uai.Evidence
	if c.Evidence != "" {
		var err error
		if ev, err = uai.ReadEvidence(strings.NewReader(c.Evidence)); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	}
	m, err := uai.Read(strings.NewReader(c.Model))
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	g1, err := m.Graph(ev)
	if err != nil {
		t.Fatalf("%v: Graph: %v", c, err)
	}
	g2, _, err := uai.ReadGraph(strings.NewReader(c.Model), ev)
	if err != nil {
		t.Fatalf("%v: ReadGraph: %v", c, err)
	}
	return map[string]*factorgraph.Graph{"Read+Graph": g1, "ReadGraph": g2}
}

// answer answers g by CheckEvidence, Plan and the vr variant of Solve:
// every variable's marginal (observed ones: point masses) and log Z given
// the evidence, ClampedLogPotential plus the components' LogZ.
func answer(g *factorgraph.Graph, vr variant) ([][]float64, float64, error) {
	if err := CheckEvidence(g); err != nil {
		return nil, 0, err
	}
	comps, err := Plan(context.Background(), g, Options{})
	if err != nil {
		return nil, 0, err
	}
	marg := make([][]float64, g.NumVars())
	for i := range marg {
		marg[i] = make([]float64, g.Domain(i).Size)
		if v, ok := g.Observed(i); ok {
			marg[i][int(v)] = 1
		}
	}
	logZ := ClampedLogPotential(g)
	for _, c := range comps {
		res, err := c.solve(context.Background(), vr, time.Time{}, time.Time{})
		if err != nil {
			return nil, 0, err
		}
		for k, v := range res.Vars {
			marg[v] = res.Marginals[k]
		}
		logZ += res.LogZ
	}
	return marg, logZ, nil
}

// enumDisagreements answers every case by the vr variant through both
// readers and compares with enumeration; it returns the disagreements of
// each kind (a case counts once), the models read of each kind, and the
// first disagreement of each kind.
func enumDisagreements(t *testing.T, cases []enumcheck.Case, vr variant) (bad, models map[string]int, first map[string]string) {
	bad, models, first = map[string]int{}, map[string]int{}, map[string]string{}
	for _, c := range cases {
		truth := c.Truth
		models[c.Kind]++
		why := ""
		for reader, g := range uaiGraphs(t, c) {
			marg, logZ, err := answer(g, vr)
			switch {
			case !truth.Feasible && !errors.Is(err, ErrNoMass):
				why = fmt.Sprintf("%s: no assignment has positive probability; answered %v (log Z %v), error %v", reader, marg, logZ, err)
			case truth.Feasible && err != nil:
				why = fmt.Sprintf("%s: %v", reader, err)
			case truth.Feasible:
				if d := truth.Check(marg, logZ); d != "" {
					why = reader + ": " + d
				}
			}
			if why != "" {
				break
			}
		}
		if why != "" {
			bad[c.Kind]++
			if first[c.Kind] == "" {
				first[c.Kind] = fmt.Sprintf("%s%s", c, why)
			}
		}
	}
	return bad, models, first
}

// TestEnumerationUAI: on enumPerKind small random models of each kind of
// enumcheck.Kinds (variables of one value, duplicate factors, hard zeros,
// evidence, potentials from 10⁻³⁰⁰ to 10³⁰⁰, subnormal entries, factors
// whose variables are all observed, constants, several components,
// evidence of probability zero at a clamped factor and through free
// variables, all mixed), written as UAI text and read by both readers,
// every marginal agrees with enumeration in exact arithmetic to 1e-9 and
// log Z given the evidence (ClampedLogPotential plus the components') to
// 1e-9 relative; evidence of probability zero is refused with ErrNoMass.
func TestEnumerationUAI(t *testing.T) {
	cases := enumCases()
	bad, models, first := enumDisagreements(t, cases, variant{})
	total := 0
	for _, kind := range enumcheck.Kinds {
		total += bad[kind]
		if bad[kind] > 0 {
			t.Errorf("%s: %d of %d models disagree with enumeration; the first:\n%s", kind, bad[kind], models[kind], first[kind])
		}
	}
	t.Logf("%d models (%d a kind, 2 readers each): %d disagreements\n%s", len(cases), enumPerKind, total, enumcheck.Summary(cases))
}

// TestEnumerationRejectsOldRoot: the check of TestEnumerationUAI rejects
// the root rule of issue 32 — a bucket whose table is one row taken for
// the root, its message counted in log Z twice — on the models with
// variables of one value (and on no other kind it could not affect).
func TestEnumerationRejectsOldRoot(t *testing.T) {
	cases := enumCases()
	bad, models, _ := enumDisagreements(t, cases, variant{oldRoot: true})
	if bad["domain-1"] < models["domain-1"]/5 {
		t.Errorf("old root rule: rejected on %d of %d models with variables of one value only", bad["domain-1"], models["domain-1"])
	}
	total := 0
	for _, n := range bad {
		total += n
	}
	t.Logf("old root rule: rejected on %d of %d models (%v)", total, len(cases), bad)
}

// TestIssue32Models: issue 32's examples. log Z of a model with a variable
// of one value is log 8, not twice that; subnormal entries give the
// marginals [1 − 1e-10, 1e-10] and log Z −713.80; evidence at which a
// factor of observed variables only is zero is refused, naming it.
func TestIssue32Models(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     enumcheck.Case
		logZ  float64
		marg0 []float64
	}{
		{"one value", enumcheck.Case{Model: "MARKOV\n2\n2 1\n1\n2 0 1\n2\n3 5\n"}, 2.0794415416798357, []float64{3.0 / 8, 5.0 / 8}},
		{"subnormal", enumcheck.Case{Model: "MARKOV\n1\n2\n1\n1 0\n2\n1e-310 1e-320\n"}, -713.8013788280541, []float64{1 - 1e-10, 1e-10}},
	} {
		for reader, g := range uaiGraphs(t, tc.c) {
			marg, logZ, err := answer(g, variant{})
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, reader, err)
			}
			if math.Abs(logZ-tc.logZ) > 1e-12*max(1, math.Abs(tc.logZ)) {
				t.Errorf("%s, %s: log Z = %v, want %v", tc.name, reader, logZ, tc.logZ)
			}
			for a, p := range tc.marg0 {
				if math.Abs(marg[0][a]-p) > 1e-14 {
					t.Errorf("%s, %s: marginal of x0 %v, want %v", tc.name, reader, marg[0], tc.marg0)
				}
			}
		}
	}
	c := enumcheck.Case{Model: "MARKOV\n2\n2 2\n2\n1 0\n1 1\n2\n1 0\n2\n1 1\n", Evidence: "1 0 1"}
	for reader, g := range uaiGraphs(t, c) {
		err := CheckEvidence(g)
		if !errors.Is(err, ErrNoMass) || !strings.Contains(err.Error(), "factor 0 (vars 0) is zero at the evidence x0=1") {
			t.Errorf("%s: CheckEvidence returned %v; want ErrNoMass naming factor 0 and x0=1", reader, err)
		}
		if lp := ClampedLogPotential(g); !math.IsInf(lp, -1) {
			t.Errorf("%s: ClampedLogPotential = %v, want −Inf", reader, lp)
		}
	}
}
