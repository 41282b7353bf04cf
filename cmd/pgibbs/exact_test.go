package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/gibbs/samplers"
)

// issue32Files writes issue 32's three models to a temporary directory
// and returns the paths of each model and its evidence file ("" for
// none).
func issue32Files(t *testing.T) map[string][2]string {
	t.Helper()
	dir := t.TempDir()
	models := map[string][2]string{
		// x1 has one value: log Z = log(3 + 5) = log 8.
		"domain1": {"MARKOV\n2\n2 1\n1\n2 0 1\n2\n3 5\n", ""},
		// Subnormal entries: π = [1e-310, 1e-320]/Z, log Z = log(1e-310 + 1e-320).
		"subnormal": {"MARKOV\n1\n2\n1\n1 0\n2\n1e-310 1e-320\n", ""},
		// x0 observed at 1, where its table is zero: evidence of
		// probability zero, whatever x1.
		"zeroev": {"MARKOV\n2\n2 2\n2\n1 0\n1 1\n2\n1 0\n2\n1 1\n", "1 0 1\n"},
		// The same contradiction through the free x1: the pair table is
		// zero wherever x0 = 1.
		"zerofree": {"MARKOV\n2\n2 2\n2\n2 0 1\n1 1\n4\n1 1 0 0\n2\n1 1\n", "1 0 1\n"},
		// x0 observed at 0, where its table is 3; x1's table (1, 1): log Z
		// = log 3 + log 2 (the clamped factor's potential counts).
		"clamped": {"MARKOV\n2\n2 2\n2\n1 0\n1 1\n2\n3 0\n2\n1 1\n", "1 0 0\n"},
	}
	out := map[string][2]string{}
	for name, m := range models {
		p := filepath.Join(dir, name+".uai")
		if err := os.WriteFile(p, []byte(m[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		e := ""
		if m[1] != "" {
			e = p + ".evid"
			if err := os.WriteFile(e, []byte(m[1]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out[name] = [2]string{p, e}
	}
	return out
}

// TestIssue32LogZ: `pgibbs uai -json` answers issue 32's models exactly:
// log Z of a model with a variable of one value (log 8, not twice that),
// of one with subnormal entries (the marginals [1 − 1e-10, 1e-10]), and
// of one with a factor whose variables are all observed (its potential
// counted: log 6).
func TestIssue32LogZ(t *testing.T) {
	files := issue32Files(t)
	for _, tc := range []struct {
		name string
		logZ float64
		marg [][]float64
	}{
		{"domain1", math.Log(8), [][]float64{{3.0 / 8, 5.0 / 8}, {1}}},
		// log(1e-310 + 1e-320) = −310 ln 10 + log(1 + 10⁻¹⁰) (math.Log is wrong on the subnormal sum).
		{"subnormal", -310*math.Ln10 + math.Log1p(1e-10), [][]float64{{1 / (1 + 1e-10), 1e-10 / (1 + 1e-10)}}},
		{"clamped", math.Log(6), [][]float64{{1, 0}, {0.5, 0.5}}},
	} {
		f := files[tc.name]
		out := filepath.Join(t.TempDir(), "out.MAR")
		args := []string{"uai", "-model", f[0], "-out", out, "-seconds", "5", "-json"}
		if f[1] != "" {
			args = append(args, "-evidence", f[1])
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		var o uaiOutput
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, stdout)
		}
		if o.Infer == nil || o.Infer.Method != "exact" || o.Infer.LogZ == nil {
			t.Fatalf("%s: %s: want an exact answer with log_z", tc.name, stdout)
		}
		if got := *o.Infer.LogZ; math.Abs(got-tc.logZ) > 1e-9*max(1, math.Abs(tc.logZ)) {
			t.Errorf("%s: log_z = %v, want %v", tc.name, got, tc.logZ)
		}
		m, err := uai.ReadMarginalsFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.marg {
			for a := range tc.marg[i] {
				if math.Abs(m[i][a]-tc.marg[i][a]) > 1e-12 {
					t.Errorf("%s: marginals %v, want %v", tc.name, m, tc.marg)
				}
			}
		}
	}
}

// TestIssue32ZeroEvidence: `pgibbs uai` refuses evidence of probability
// zero, whatever the sampler, with exit status 1 and a message on stderr:
// naming the factor where it is zero at the evidence alone, saying that
// no state has positive probability where the contradiction goes through a
// free variable.
func TestIssue32ZeroEvidence(t *testing.T) {
	files := issue32Files(t)
	for _, tc := range []struct{ model, want string }{
		{"zeroev", "factor 0 (vars 0) is zero at the evidence x0=1"},
		{"zerofree", "positive probability"},
	} {
		f := files[tc.model]
		for _, s := range samplers.Names() {
			code, stdout, stderr := runCLI(t, "uai", "-model", f[0], "-evidence", f[1], "-sampler", s, "-iters", "1000", "-json")
			if code != 1 || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("%s, -sampler %s: exit %d, stderr %q, stdout %q; want 1 and a message saying %q", tc.model, s, code, stderr, stdout, tc.want)
			}
		}
	}
}
