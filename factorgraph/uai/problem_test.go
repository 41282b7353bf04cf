package uai_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

func TestReadProblem(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"m.uai":     "MARKOV\n2\n2 3\n1\n2 0 1\n6\n1 2 3 4 5 6\n",
		"m.evid":    "1 0 1\n",
		"bad.evid":  "1 0 5\n",
		"m.MAR":     "MAR\n2 2 0.5 0.5 3 0.2 0.3 0.5\n",
		"short.MAR": "MAR\n1 2 0.5 0.5\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(name string) string {
		if name == "" {
			return ""
		}
		return filepath.Join(dir, name)
	}
	p, err := uai.ReadProblem(at("m.uai"), at("m.evid"), at("m.MAR"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Model.NumVars() != 2 || len(p.Evidence) != 1 || len(p.Exact) != 2 {
		t.Errorf("problem %+v", p)
	}
	if p, err := uai.ReadProblem(at("m.uai"), "", ""); err != nil || p.Evidence != nil || p.Exact != nil {
		t.Errorf("model alone: %+v, %v", p, err)
	}
	for _, tc := range []struct{ model, evid, mar, want string }{
		{"nope.uai", "", "", "nope.uai"},
		{"m.uai", "bad.evid", "", "bad.evid"},
		{"m.uai", "", "short.MAR", "short.MAR"},
		{"m.uai", "nope.evid", "", "nope.evid"},
	} {
		if _, err := uai.ReadProblem(at(tc.model), at(tc.evid), at(tc.mar)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %s", tc, err, tc.want)
		}
	}
}
