package gibbstest

import (
	"os"
	"testing"

	"github.com/pgibbs/pgibbs/gibbs/internal/core"
)

// MainSizeRule runs a package's tests (its TestMain) with Mixed choosing
// by size alone (core.Costs zero: a Poisson-Gibbs update wherever the
// expected minibatch is smaller than A[i]): on the small graphs of the
// exactness tests the cost model would update every variable by plain
// Gibbs, and those tests need both kinds of update (site's
// TestMixedKinds). site's TestMixedCost tests the model itself.
func MainSizeRule(m *testing.M) {
	core.Costs = core.MixedCost{}
	os.Exit(m.Run())
}
