package uai_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// dataDir returns ../shared/data/uai relative to the module root (the
// directory holding go.mod, found by walking up from the package), or skips
// the test when it is absent.
func dataDir(t testing.TB) string {
	t.Helper()
	data, err := findData()
	if err != nil {
		t.Skipf("%v: skipping tests on the shared UAI files", err)
	}
	return data
}

// findData locates ../shared/data/uai relative to the module root.
func findData() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the package directory: cannot locate ../shared/data/uai")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data", "uai")
	if fi, err := os.Stat(data); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("UAI data directory %s is absent", data)
	}
	return data, nil
}

// sharedModels returns the names of the .uai files in the data directory.
func sharedModels(t testing.TB) (dir string, names []string) {
	dir = dataDir(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".uai") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Skipf("no .uai files in %s", dir)
	}
	return dir, names
}

// TestSharedFiles reads every shared model with its evidence and marginals,
// checks that they agree, builds the factor graph and round-trips the model
// through Write and Read.
func TestSharedFiles(t *testing.T) {
	dir, names := sharedModels(t)
	for _, name := range names {
		t.Run(strings.TrimSuffix(name, ".uai"), func(t *testing.T) {
			path := filepath.Join(dir, name)
			m, err := uai.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ev uai.Evidence
			if _, err := os.Stat(path + ".evid"); err == nil {
				if ev, err = uai.ReadEvidenceFile(path + ".evid"); err != nil {
					t.Fatal(err)
				}
			}
			g, err := m.Graph(ev)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(g.Free()), m.NumVars()-len(ev); got != want {
				t.Errorf("%d free variables, want %d", got, want)
			}
			if _, err := os.Stat(path + ".MAR"); err == nil {
				mar, err := uai.ReadMarginalsFile(path + ".MAR")
				if err != nil {
					t.Fatal(err)
				}
				if err := m.CheckMarginals(mar); err != nil {
					t.Fatal(err)
				}
				for _, o := range ev { // evidence is a point mass in a .MAR file
					if p := mar[o.Var][o.Value]; p < 0.999 {
						t.Errorf("evidence x_%d = %d has exact marginal %v", o.Var, o.Value, p)
					}
				}
			}
			var sb strings.Builder
			if err := m.Write(&sb); err != nil {
				t.Fatal(err)
			}
			m2, err := uai.Read(strings.NewReader(sb.String()))
			if err != nil {
				t.Fatalf("reading the written model: %v", err)
			}
			if err := equalModels(m, m2); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: n=%d factors=%d hard=%d evidence=%d L=%.4g Δ=%d Ψ=%.4g maxD=%d",
				m.Type, m.NumVars(), len(m.Scopes), m.HardFactors(), len(ev), g.L(), g.MaxDegree(), g.Psi(), g.MaxDomainSize())
		})
	}
}
