package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
	"github.com/pgibbs/pgibbs/infer"
)

// TestSameChain: the flags sameChain gives for the default's block,
// Swendsen–Wang and replica-exchange choices parse back into the very spec (so, with
// infer's TestPilotIsNamedChain, their chain 0 is the default's chain),
// and it gives none for choices no flags name: single sites, Wolff's
// tuned clusters, blocks bounded by their tables and blocks capped in
// size on a large model.
func TestSameChain(t *testing.T) {
	block := func(c blocks.Config) infer.Spec {
		if c.MaxVars == 0 {
			c.MaxVars = blocks.DefaultVars // as infer's candidates set it
		}
		return infer.Spec{Name: "block", Block: blocked.Config{Config: c}}
	}
	flipped := block(blocks.Config{MaxWidth: 8})
	flipped.Flips = true
	for _, c := range []struct {
		spec infer.Spec
		want string
	}{
		{block(blocks.Config{MaxWidth: 4}), "-sampler block -width 4 -seed 3"},
		{flipped, "-sampler block -width 8 -flips -seed 3"},
		{block(blocks.Config{Forests: true}), "-sampler block -forests -seed 3"},
		{infer.Spec{Name: "sw"}, "-sampler sw -seed 3"},
		{infer.Spec{Name: "site"}, ""},
		{infer.Spec{Name: "exchange", Houdayer: true}, "-sampler exchange -houdayer -seed 3"},
		{infer.Spec{Name: "exchange"}, "-sampler exchange -seed 3"},
		{infer.Spec{Name: "wolff", Clusters: samplers.TuneClusters}, ""},
		{block(blocks.Config{MaxWidth: 16, MaxTable: 1 << 18}), ""},
		{block(blocks.Config{MaxWidth: infer.WideWidth, MaxTable: 1 << 14}), ""},
		{block(blocks.Config{MaxWidth: 4, MaxVars: 256}), ""},
	} {
		if got := sameChain(c.spec, 3); got != c.want {
			t.Errorf("%s: %q, want %q", c.spec, got, c.want)
		}
	}
}

// linkedPairs writes a model of six binary variables in a ring of soft
// pairs, x0 = x1 and x2 = x3 held by deterministic tables: single-site
// updates would never move them, so the default samples with blocks.
func linkedPairs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("MARKOV\n6\n2 2 2 2 2 2\n8\n")
	for i := range 6 {
		fmt.Fprintf(&b, "2 %d %d\n", i, (i+1)%6)
	}
	b.WriteString("2 0 1\n2 2 3\n")
	for i := range 6 {
		fmt.Fprintf(&b, "\n4\n%g 1 1 %g\n", 1.5+0.1*float64(i), 2-0.1*float64(i))
	}
	b.WriteString("\n4\n1 0 0 1\n\n4\n1 0 0 1\n")
	model := filepath.Join(t.TempDir(), "linked.uai")
	if err := os.WriteFile(model, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return model
}

// TestSameChainOutput: the default's text and JSON name the flags of its
// chain where it sampled with blocks (-exact-memory 1: nothing exact), and
// they run.
func TestSameChainOutput(t *testing.T) {
	model := linkedPairs(t)
	code, stdout, stderr := runCLI(t, "uai", "-model", model, "-exact-memory", "1", "-iters", "20000", "-seed", "5", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o struct {
		SameChain string `json:"same_chain"`
		Infer     struct {
			Choice struct {
				Sampler string `json:"sampler"`
			} `json:"choice"`
		} `json:"infer"`
	}
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(o.Infer.Choice.Sampler, "block width") != strings.HasPrefix(o.SameChain, "-sampler block -width") {
		t.Fatalf("choice %q, same chain %q", o.Infer.Choice.Sampler, o.SameChain)
	}
	if o.SameChain == "" {
		t.Fatalf("the choice %q has no flags", o.Infer.Choice.Sampler)
	}
	args := append([]string{"uai", "-model", model, "-iters", "20000"}, strings.Fields(o.SameChain)...)
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	code, stdout, _ = runCLI(t, "uai", "-model", model, "-exact-memory", "1", "-iters", "20000", "-seed", "5")
	if code != 0 || !strings.Contains(stdout, "same chain as") {
		t.Fatalf("exit %d, text output without the same chain's flags:\n%s", code, stdout)
	}
}
