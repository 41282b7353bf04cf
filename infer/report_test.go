package infer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestReport: an answer's record says how it was found — exact, or mixed
// (exact and sampled) — and in how long, with each component's plan, log Z only when every
// component is exact, and the pilots' choice only when something was
// sampled; its JSON keeps the names `pgibbs uai` prints.
func TestReport(t *testing.T) {
	for _, c := range []struct {
		name     string
		side     int
		maxBytes float64
		method   string
		exact    int
	}{
		{"exact", 3, 0, "exact", 2},
		{"mixed", 8, 4096, "mixed", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, chainVars := twoParts(t, c.side)
			a, err := Marginals(context.Background(), g, Options{Time: time.Second, Seed: 1, MaxBytes: c.maxBytes})
			if err != nil {
				t.Fatal(err)
			}
			r := a.Report(g)
			if a.Method != c.method || r.Method != c.method || r.Seconds != a.Seconds || !(a.Seconds > 0) || r.Components != 2 || r.ExactComponents != c.exact || len(r.Parts) != 2 {
				t.Fatalf("report %+v, want %s with %d of 2 components exact", r, c.method, c.exact)
			}
			logZ, all := a.ExactPart.LogZ(g)
			switch {
			case all && (r.LogZ == nil || *r.LogZ != logZ):
				t.Errorf("log Z %v, want %v", r.LogZ, logZ)
			case !all && r.LogZ != nil:
				t.Errorf("log Z %v of an answer not all exact", *r.LogZ)
			case all && r.Choice != nil:
				t.Errorf("a choice %+v for an exact answer", r.Choice)
			case !all && (r.Choice == nil || len(r.Choice.Pilots) == 0 || r.Choice.Sampler == ""):
				t.Errorf("choice %+v, want the pilots' record", r.Choice)
			}
			if !all && r.ExactVariables != len(chainVars) {
				t.Errorf("%d exact variables, want the chain's %d", r.ExactVariables, len(chainVars))
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{`"method"`, `"seconds"`, `"components"`, `"exact_components"`, `"component_plans"`} {
				if !strings.Contains(string(b), key) {
					t.Errorf("JSON %s lacks %s", b, key)
				}
			}
		})
	}
}
