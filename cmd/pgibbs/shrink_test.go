package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShrinkFlag: the default answer on a weak K₂₀,₂₀ (loopy BP all but
// exact) with exact elimination forbidden says how its marginals were
// shrunk toward BP, in text and JSON, with most of the weight on the
// beliefs; -shrink=false leaves them out; -shrink with a fixed sampler
// is a usage error.
// weakRBMFile writes a UAI model of binary variables joined as K₂₀,₂₀ by
// weak pair tables of both signs, with fields: loopy BP all but exact.
func weakRBMFile(t *testing.T) string {
	t.Helper()
	r := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	const m = 20
	fmt.Fprintf(&b, "MARKOV\n%d\n%s\n%d\n", 2*m, strings.TrimSpace(strings.Repeat("2 ", 2*m)), m*m+2*m)
	for i := range m {
		for j := range m {
			fmt.Fprintf(&b, "2 %d %d\n", i, m+j)
		}
	}
	for i := range 2 * m {
		fmt.Fprintf(&b, "1 %d\n", i)
	}
	for range m * m {
		w := 1 + 0.03*r.NormFloat64()
		fmt.Fprintf(&b, "4 1 1 1 %.6f\n", w)
	}
	for range 2 * m {
		fmt.Fprintf(&b, "2 1 %.6f\n", 1+0.5*r.Float64())
	}
	model := filepath.Join(t.TempDir(), "k20.uai")
	if err := os.WriteFile(model, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return model
}

func TestShrinkFlag(t *testing.T) {
	model := weakRBMFile(t)
	args := []string{"uai", "-model", model, "-iters", "400000", "-exact-memory", "1K", "-seed", "2"}
	code, stdout, stderr := runCLI(t, append(args, "-json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o struct {
		Infer struct {
			Shrink *struct {
				Weight float64 `json:"weight"`
				Why    string  `json:"why_not"`
			} `json:"shrink"`
		} `json:"infer"`
	}
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatal(err)
	}
	if sh := o.Infer.Shrink; sh == nil || sh.Why != "" || sh.Weight < 0.5 {
		t.Errorf("JSON's shrink %+v: want a weight over ½", sh)
	}
	if code, stdout, _ := runCLI(t, args...); code != 0 || !strings.Contains(stdout, "shrunk toward loopy BP's beliefs") {
		t.Errorf("text output: exit %d, no shrinkage line:\n%s", code, stdout)
	}
	if code, stdout, _ := runCLI(t, append(args, "-json", "-shrink=false")...); code != 0 || strings.Contains(stdout, `"shrink"`) {
		t.Errorf("-shrink=false: exit %d, output %s", code, stdout)
	}
	if code, _, stderr := runCLI(t, "uai", "-model", model, "-sampler", "gibbs", "-shrink=false", "-iters", "100"); code != 2 || !strings.Contains(stderr, "-shrink applies to -sampler infer only") {
		t.Errorf("-shrink with a fixed sampler: exit %d, %s", code, stderr)
	}
}
