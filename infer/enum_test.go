package infer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/internal/enumcheck"
)

// TestMarginalsEnumeration: on 30 small random models of each kind of
// enumcheck.Kinds (variables of one value, duplicates, hard zeros,
// evidence, potentials from 10⁻³⁰⁰ to 10³⁰⁰, subnormal entries, clamped
// factors, constants, components, evidence of probability zero at a clamped
// factor and through free variables), read from UAI text, Marginals
// answers every variable exactly, its marginals agree with enumeration to
// 1e-9 and ExactPart.LogZ with log Z given the evidence to 1e-9 relative;
// evidence of probability zero is an error wrapping elim.ErrNoMass.
func TestMarginalsEnumeration(t *testing.T) {
	cases := enumcheck.Cases(30)
	bad := 0
	for _, c := range cases {
		var ev uai.Evidence
		if c.Evidence != "" {
			var err error
			if ev, err = uai.ReadEvidence(strings.NewReader(c.Evidence)); err != nil {
				t.Fatal(err)
			}
		}
		g, _, err := uai.ReadGraph(strings.NewReader(c.Model), ev)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		a, err := Marginals(context.Background(), g, Options{Time: 10 * time.Second, Seed: 1})
		why := ""
		switch truth := c.Truth; {
		case !truth.Feasible:
			if !errors.Is(err, elim.ErrNoMass) {
				why = "no assignment has positive probability; Marginals returned error " + errString(err)
			}
		case err != nil:
			why = err.Error()
		default:
			for i, x := range a.Exact {
				if !x {
					why = fmt.Sprintf("variable %d not answered exactly", i)
				}
			}
			logZ, ok := a.ExactPart.LogZ(g)
			if !ok {
				why = "ExactPart.LogZ not available"
			} else if why == "" {
				why = truth.Check(a.Marginals, logZ)
			}
		}
		if why != "" {
			bad++
			if bad <= 5 {
				t.Errorf("%v%s", c, why)
			}
		}
	}
	t.Logf("%d models (30 a kind): %d disagreements", len(cases), bad)
}

// errString is err's message, or "nil".
func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// TestZeroEvidenceNamed: evidence of probability zero at a factor whose
// variables are all observed (issue 32's model) is refused, the error
// naming the factor and the evidence and wrapping elim.ErrNoMass; the same
// contradiction reached through a free variable is refused too.
func TestZeroEvidenceNamed(t *testing.T) {
	ev, err := uai.ReadEvidence(strings.NewReader("1 0 1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ model, want string }{
		// x0 observed at 1, where its own table is zero; x1 free.
		{"MARKOV\n2\n2 2\n2\n1 0\n1 1\n2\n1 0\n2\n1 1\n", "factor 0 (vars 0) is zero at the evidence x0=1"},
		// The zero at x0 = 1 through a pair with the free x1.
		{"MARKOV\n2\n2 2\n2\n2 0 1\n1 1\n4\n1 1 0 0\n2\n1 1\n", "component of variables [1]"},
	} {
		g, _, err := uai.ReadGraph(strings.NewReader(tc.model), ev)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Marginals(context.Background(), g, Options{Time: time.Second})
		if !errors.Is(err, elim.ErrNoMass) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Marginals returned %v, error %v; want elim.ErrNoMass naming %q", a, err, tc.want)
		}
	}
}
