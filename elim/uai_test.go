package elim

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// marTolerance is the agreement expected with a .MAR file: they hold six
// significant digits, so an exact answer is within 5·10⁻⁷ of them.
const marTolerance = 1e-6

// enumerable bounds the joint states of a component checked by enumeration.
const enumerable = 1 << 12

// TestSharedModels solves the shared UAI models whose estimated time is
// below 0.5 s (0.02 s with -short; the larger ones are in BenchmarkSolve)
// and checks every marginal against the model's .MAR file, to its six
// digits, and every component of at most 2¹² joint states against
// enumeration, to 1e-9. The dv-rel .MAR files do not match their models
// (docs/uai.md): those models are checked by enumeration only (every
// component is small), and the test logs how far the files are off.
func TestSharedModels(t *testing.T) {
	dir, err := findData()
	if err != nil {
		t.Skip(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	limit := 500 * time.Millisecond
	if testing.Short() {
		limit = 20 * time.Millisecond
	}
	solved := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".uai") {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".uai")
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, e.Name())
			p, err := uai.ReadProblem(path, optional(path+".evid"), optional(path+".MAR"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := p.Model.Graph(p.Evidence)
			if err != nil {
				t.Fatal(err)
			}
			comps, err := Plan(context.Background(), g, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, g, comps)
			est := time.Duration(0)
			for _, c := range comps {
				if c.Err != nil {
					t.Skipf("not solvable within the default budget: %v", c.Err)
				}
				est += c.Estimate()
			}
			if est > limit {
				t.Skipf("estimated %v, over %v", est, limit)
			}
			solved++
			mismatch := strings.HasPrefix(name, "dv-rel")
			marErr, enumErr, enumerated := 0.0, 0.0, 0
			for _, c := range comps {
				res, err := c.Solve(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
					t.Errorf("%s: log Z = %v", name, res.LogZ)
				}
				for k, v := range res.Vars {
					if p.Exact != nil {
						for a, q := range res.Marginals[k] {
							marErr = max(marErr, math.Abs(q-p.Exact[v][a]))
						}
					}
				}
				states := 1.0
				for _, v := range c.Vars {
					states *= float64(g.Domain(v).Size)
				}
				if states > enumerable {
					continue
				}
				enumerated++
				want, wantZ := enumerate(g, c.Vars, touching(g, c.Vars))
				for k := range want {
					for a := range want[k] {
						enumErr = max(enumErr, math.Abs(res.Marginals[k][a]-want[k][a]))
					}
				}
				enumErr = max(enumErr, math.Abs(res.LogZ-wantZ)/max(1, math.Abs(wantZ)))
			}
			if enumErr > 1e-9 {
				t.Errorf("differs from enumeration by %g", enumErr)
			}
			switch {
			case p.Exact == nil:
			case mismatch:
				t.Logf(".MAR file off the model's marginals by up to %.3f (enumeration agrees with Solve to %.1g)", marErr, enumErr)
			case marErr > marTolerance:
				t.Errorf("differs from the .MAR file by %g", marErr)
			}
		})
	}
	if solved < 10 {
		t.Errorf("%d models solved", solved)
	}
}
