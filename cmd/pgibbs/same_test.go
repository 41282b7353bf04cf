package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/internal/sysmem"
)

// twoComponents writes a model of two components: two binary variables
// (an elimination of a few bytes) and six ternary ones, every pair linked
// (width 5: 3⁶ entries, more than -exact-memory 1K), with x_7 observed.
func twoComponents(t *testing.T) (model, evid string) {
	t.Helper()
	var b strings.Builder
	type factor struct{ vars []int }
	fs := []factor{{[]int{0, 1}}}
	for i := 2; i < 8; i++ {
		for j := i + 1; j < 8; j++ {
			fs = append(fs, factor{[]int{i, j}})
		}
	}
	fmt.Fprintf(&b, "MARKOV\n8\n2 2 3 3 3 3 3 3\n%d\n", len(fs))
	for _, f := range fs {
		fmt.Fprintf(&b, "2 %d %d\n", f.vars[0], f.vars[1])
	}
	for k, f := range fs {
		d := 3
		if f.vars[0] == 0 {
			d = 2
		}
		fmt.Fprintf(&b, "\n%d\n", d*d)
		for v := range d * d {
			fmt.Fprintf(&b, "%g ", 1+float64((k*7+v*3)%5)/4)
		}
		b.WriteString("\n")
	}
	dir := t.TempDir()
	model, evid = filepath.Join(dir, "two.uai"), filepath.Join(dir, "two.evid")
	if err := os.WriteFile(model, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evid, []byte("1 7 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return model, evid
}

// TestUAISameAsInfer: `pgibbs uai` is flags, one call of infer.Marginals
// and output, so the command and the library give the same marginals, bit
// for bit, and the same verdict for the same seed and length — with an
// exact part and a sampled one (-sampler infer, -exact-memory 1K), with
// every component sampled (-exact-memory 1), and with a sampler named;
// the same method label and frozen count too.
func TestUAISameAsInfer(t *testing.T) {
	model, evid := twoComponents(t)
	pr, err := uai.ReadGraphProblem(model, evid, "")
	if err != nil {
		t.Fatal(err)
	}
	g := pr.Graph
	for _, c := range []struct {
		name, sampler, memory string
		method                string
	}{
		{"mixed", "infer", "1K", "mixed"},
		{"sampled", "infer", "1", "sampled"},
		{"named", "pgibbs", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "est.MAR")
			args := []string{"uai", "-model", model, "-evidence", evid, "-sampler", c.sampler, "-iters", "30000", "-burn", "3000",
				"-chains", "2", "-seed", "7", "-out", out, "-json"}
			opt := infer.Options{Seed: 7, Chains: 2, Run: &infer.Run{Steps: 30000, Burn: 3000, Updates: c.sampler == "infer"}}
			if c.memory != "" {
				args = append(args, "-exact-memory", c.memory)
				opt.MaxBytes, _ = sysmem.Parse(c.memory)
			} else {
				opt.Run.Spec = &infer.Spec{Name: c.sampler}
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var o struct {
				Converged bool   `json:"converged"`
				Note      string `json:"convergence_note"`
				Method    string `json:"method"`
				Frozen    int    `json:"frozen_variables"`
				Infer     *struct {
					Method string `json:"method"`
				} `json:"infer"`
			}
			if err := json.Unmarshal([]byte(stdout), &o); err != nil {
				t.Fatal(err)
			}
			cli, err := uai.ReadMarginalsFile(out)
			if err != nil {
				t.Fatal(err)
			}
			a, err := infer.Marginals(t.Context(), g, opt)
			if err != nil {
				t.Fatal(err)
			}
			if c.method != "" && (o.Infer == nil || o.Infer.Method != c.method) {
				t.Fatalf("the command's answer is not %s: %s", c.method, stdout)
			}
			for i := range a.Marginals {
				for v := range a.Marginals[i] {
					if x, y := cli[i][v], a.Marginals[i][v]; math.Float64bits(x) != math.Float64bits(y) {
						t.Fatalf("p(x_%d = %d): command %v, infer.Marginals %v", i, v, x, y)
					}
				}
			}
			if o.Converged != a.Verdict.Converged || o.Note != a.Verdict.Reason || o.Frozen != a.Frozen {
				t.Errorf("verdict: command %v (%s, %d frozen), infer.Marginals %v (%s, %d frozen)", o.Converged, o.Note, o.Frozen, a.Verdict.Converged, a.Verdict.Reason, a.Frozen)
			}
			if o.Method != a.Method {
				t.Errorf("method: command %q, infer.Marginals %q", o.Method, a.Method)
			}
		})
	}
}
